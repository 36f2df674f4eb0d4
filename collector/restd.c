/* restd.c - the verdict as the job's comment, through slurmrestd
 * (restd.h). */
#include "restd.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "log.h"
#include "slurm.h"

static size_t sink(char *p, size_t sz, size_t nm, void *arg)
{
	struct {
		char buf[4096];
		size_t len;
	} *b = arg;
	size_t n = sz * nm, room = sizeof b->buf - 1 - b->len;
	memcpy(b->buf + b->len, p, n < room ? n : room);
	b->len += n < room ? n : room;
	b->buf[b->len] = 0;
	return n;
}

/* A JWT for slurmrestd: $SLURM_JWT, else "scontrol token". */
static int get_token(char *tok, size_t len)
{
	const char *env = getenv("SLURM_JWT");
	if (env && *env && strcmp(env, "daemon") != 0) {
		snprintf(tok, len, "%s", env);
		return 0;
	}
	return mw_slurm_token(NULL, tok, len);
}

/* A growing buffer for slurmrestd's OpenAPI document (about 50 kB). */
struct gbuf {
	char *p;
	size_t len;
};

static size_t gsink(char *p, size_t sz, size_t nm, void *arg)
{
	struct gbuf *b = arg;
	size_t n = sz * nm;
	char *q;
	if (b->len + n > (8u << 20)) /* no API document is this big */
		return 0;
	q = realloc(b->p, b->len + n + 1);
	if (!q)
		return 0;
	b->p = q;
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = 0;
	return n;
}

/* Used when slurmrestd gives no OpenAPI document: Slurm 22.05's. */
#define COL_RESTD_DEFAULT_VERSION "v0.0.38"
int col_restd_version(const char *doc, char *ver, size_t len)
{
	json_object *root = doc ? json_tokener_parse(doc) : NULL, *paths, *post;
	unsigned best[3] = {0, 0, 0};
	unsigned long long bestkey = 0;
	int found = 0;
	if (!root || !json_object_object_get_ex(root, "paths", &paths) ||
	    !json_object_is_type(paths, json_type_object))
		goto out;
	json_object_object_foreach(paths, key, val) {
		unsigned v[3];
		unsigned long long k;
		char tail[64];
		if (sscanf(key, "/slurm/v%u.%u.%u/job/%63s", &v[0], &v[1], &v[2], tail) != 4 ||
		    strcmp(tail, "{job_id}") != 0 || v[0] > 999 || v[1] > 999 || v[2] > 999 ||
		    !json_object_is_type(val, json_type_object) || !json_object_object_get_ex(val, "post", &post))
			continue;
		k = (unsigned long long)v[0] * 1000000 + v[1] * 1000 + v[2];
		if (!found || k > bestkey) {
			memcpy(best, v, sizeof best);
			bestkey = k;
			found = 1;
		}
	}
out:
	if (root)
		json_object_put(root);
	if (!found)
		return -1;
	snprintf(ver, len, "v%u.%u.%u", best[0], best[1], best[2]);
	return 0;
}

int col_restd_reply_errors(const char *body, char *msg, size_t msglen)
{
	json_object *r = body ? json_tokener_parse(body) : NULL, *errs;
	int bad = r && json_object_is_type(r, json_type_object) && json_object_object_get_ex(r, "errors", &errs) &&
		  json_object_is_type(errs, json_type_array) && json_object_array_length(errs) > 0;
	if (bad)
		snprintf(msg, msglen, "slurmrestd: %.200s", json_object_to_json_string(errs));
	json_object_put(r);
	return bad;
}

/* Ask slurmrestd which job API it serves (see col_restd_version). */
static void restd_discover(const char *url, size_t ul, struct curl_slist *h, char *ver, size_t len)
{
	CURL *c = curl_easy_init();
	struct gbuf b = {NULL, 0};
	char full[1024];
	long code = 0;
	snprintf(ver, len, "%s", COL_RESTD_DEFAULT_VERSION);
	if (!c)
		return;
	snprintf(full, sizeof full, "%.*s/openapi", (int)ul, url);
	curl_easy_setopt(c, CURLOPT_URL, full);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, gsink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	if (curl_easy_perform(c) == CURLE_OK && curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK &&
	    code == 200 && col_restd_version(b.p, ver, len) == 0)
		mw_debug("slurmrestd serves the job API %s", ver);
	else
		mw_info("slurmrestd %s: no usable OpenAPI document (HTTP %ld); using the job API %s", full,
			code, ver);
	free(b.p);
	curl_easy_cleanup(c);
}

static int post_restd(const char *url, const char *job, const char *text, char *msg, size_t msglen)
{
	CURL *c = NULL;
	struct curl_slist *h = NULL;
	char full[1024], hdr[4096], tok[2048];
	struct passwd *pw = getpwuid(getuid());
	json_object *body = NULL;
	struct {
		char buf[4096];
		size_t len;
	} resp = {{0}, 0};
	long code = 0;
	int rv = -1;
	CURLcode cc;

	if (!pw) {
		snprintf(msg, msglen, "no user name for uid %u", (unsigned)getuid());
		return -1;
	}
	if (get_token(tok, sizeof tok)) {
		snprintf(msg, msglen, "no JWT (SLURM_JWT unset and 'scontrol token' failed)");
		return -1;
	}
	h = curl_slist_append(h, "Content-Type: application/json");
	snprintf(hdr, sizeof hdr, "X-SLURM-USER-NAME: %s", pw->pw_name);
	h = curl_slist_append(h, hdr);
	snprintf(hdr, sizeof hdr, "X-SLURM-USER-TOKEN: %s", tok);
	h = curl_slist_append(h, hdr);
	{
		size_t ul = strlen(url);
		char ver[32];
		while (ul && url[ul - 1] == '/')
			ul--;
		restd_discover(url, ul, h, ver, sizeof ver);
		snprintf(full, sizeof full, "%.*s/slurm/%s/job/%s", (int)ul, url, ver, job);
	}
	body = json_object_new_object();
	json_object_object_add(body, "comment", json_object_new_string(text));
	c = curl_easy_init();
	if (!c) {
		snprintf(msg, msglen, "curl_easy_init failed");
		goto fail;
	}
	curl_easy_setopt(c, CURLOPT_URL, full);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, json_object_to_json_string(body));
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &resp);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	cc = curl_easy_perform(c);
	if (cc != CURLE_OK) {
		snprintf(msg, msglen, "slurmrestd %.200s: %s", full, curl_easy_strerror(cc));
		goto fail;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	if (code != 200) {
		snprintf(msg, msglen, "slurmrestd %.200s: HTTP %ld: %.200s", full, code, resp.buf);
		goto fail;
	}
	if (col_restd_reply_errors(resp.buf, msg, msglen))
		goto fail;
	snprintf(msg, msglen, "posted through %.200s", full);
	rv = 0;
fail:
	if (c)
		curl_easy_cleanup(c);
	curl_slist_free_all(h);
	json_object_put(body);
	return rv;
}

int col_post_comment(const char *restd_url, const char *job, const char *text, char *via, size_t vialen,
		     char *msg, size_t msglen)
{
	char rmsg[512] = "", smsg[512];

	if (restd_url && *restd_url) {
		if (post_restd(restd_url, job, text, rmsg, sizeof rmsg) == 0) {
			snprintf(via, vialen, "slurmrestd");
			snprintf(msg, msglen, "%s", rmsg);
			return 0;
		}
		mw_warn("comment through slurmrestd failed (%s); trying scontrol", rmsg);
	}
	snprintf(via, vialen, "scontrol");
	if (mw_slurm_comment(NULL, job, text, smsg, sizeof smsg) != 0) {
		snprintf(msg, msglen, "%s%s%s", rmsg, *rmsg ? "; " : "", smsg);
		return -1;
	}
	col_comment_by_scontrol(rmsg, msg, msglen);
	return 0;
}

void col_comment_by_scontrol(const char *rmsg, char *msg, size_t msglen)
{
	snprintf(msg, msglen, "%s%sposted with scontrol update", rmsg, *rmsg ? "; fallback: " : "");
}
