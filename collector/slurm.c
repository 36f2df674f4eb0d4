/* slurm.c - job state, comment, cancel and requeue (slurm.h). */
#include "slurm.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "drainreq.h"
#include "slurmjson.h"
#include "hostlist.h"
#include "log.h"

#define CMD_TIMEOUT 30.0

int col_find_prog(const char *prog, char *buf, size_t len)
{
	const char *path = getenv("PATH");
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s:/usr/bin:/usr/local/bin:/bin", path ? path : "");
	for (char *save = NULL, *d = strtok_r(tmp, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		if (!*d)
			continue;
		snprintf(buf, len, "%s/%s", d, prog);
		if (access(buf, X_OK) == 0)
			return 0;
	}
	errno = ENOENT;
	return -1;
}

/* Run a Slurm command; output in *out (may be NULL).  Return its status or -1. */
static int run(const char *prog, char **args, size_t nargs, char **out)
{
	char path[1024];
	char *argv[16];
	if (col_find_prog(prog, path, sizeof path))
		return -1;
	argv[0] = path;
	for (size_t i = 0; i < nargs && i < 14; i++)
		argv[i + 1] = args[i];
	argv[nargs + 1 < 15 ? nargs + 1 : 15] = NULL;
	return mw_drain_run(argv, NULL, CMD_TIMEOUT, out);
}

int col_slurm_job_info(const char *job, struct mw_slurm_job *j)
{
	char *out = NULL;
	char *args[] = {"--json", "--states=all", "-j", (char *)job};
	int st = run("squeue", args, 4, &out), rv = -1;
	if (st == 0 && out && mw_slurm_job_parse(out, job, j) == 0)
		rv = 0;
	free(out);
	return rv;
}

int col_slurm_job_active(const char *job)
{
	/* "Invalid job id" means "over" only once this squeue has seen the
	 * job: an squeue that reads another cluster's slurm.conf must not make
	 * us leave a running job. */
	static int seen;
	char *out = NULL;
	const char *state;
	char *args[] = {"--json", "--states=all", "-j", (char *)job};
	struct mw_slurm_job j;
	int st = run("squeue", args, 4, &out), rv = -1;
	if (st < 0)
		return -1;
	/* Slurm's answer as data: a job named "x JobState=COMPLETED" is not over. */
	if (st == 0 && out && mw_slurm_job_parse(out, job, &j) == 0) {
		state = j.state;
		mw_slurm_job_free(&j);
	} else {
		state = NULL;
	}
	if (!state && out && (strstr(out, "Invalid job id") || strstr(out, "invalid job id"))) {
		rv = seen ? 0 : -1;
	} else if (state && *state) {
		static const char *const over[] = {"COMPLETED", "CANCELLED", "FAILED",    "TIMEOUT",
						   "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE",
						   "OUT_OF_MEMORY", NULL};
		rv = 1;
		for (int i = 0; over[i]; i++)
			if (strcmp(state, over[i]) == 0)
				rv = 0;
		seen = 1;
	}
	free(out);
	return rv;
}

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

static int get_token(char *tok, size_t len)
{
	const char *env = getenv("SLURM_JWT");
	char *out = NULL, *p;
	char *args[] = {"token"};
	if (env && *env && strcmp(env, "daemon") != 0) {
		snprintf(tok, len, "%s", env);
		return 0;
	}
	if (run("scontrol", args, 1, &out) != 0 || !out || !(p = strstr(out, "SLURM_JWT="))) {
		free(out);
		return -1;
	}
	p += 10;
	p[strcspn(p, " \r\n")] = 0;
	snprintf(tok, len, "%s", p);
	free(out);
	return *tok ? 0 : -1;
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
int col_slurm_restd_version(const char *doc, char *ver, size_t len)
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

/* Ask slurmrestd which job API it serves (see col_slurm_restd_version). */
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
	    code == 200 && col_slurm_restd_version(b.p, ver, len) == 0)
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
	{
		json_object *r = json_tokener_parse(resp.buf), *errs;
		if (r && json_object_object_get_ex(r, "errors", &errs) &&
		    json_object_is_type(errs, json_type_array) && json_object_array_length(errs) > 0) {
			snprintf(msg, msglen, "slurmrestd: %.200s", json_object_to_json_string(errs));
			json_object_put(r);
			goto fail;
		}
		json_object_put(r);
	}
	snprintf(msg, msglen, "posted through %.200s", full);
	rv = 0;
fail:
	if (c)
		curl_easy_cleanup(c);
	curl_slist_free_all(h);
	json_object_put(body);
	return rv;
}

int col_slurm_post_comment(const char *restd_url, const char *job, const char *text, char *via,
			   size_t vialen, char *msg, size_t msglen)
{
	char rmsg[512] = "", arg1[64], arg2[1024], *out = NULL;
	char *args[] = {"update", arg1, arg2};
	int st;

	if (restd_url && *restd_url) {
		if (post_restd(restd_url, job, text, rmsg, sizeof rmsg) == 0) {
			snprintf(via, vialen, "slurmrestd");
			snprintf(msg, msglen, "%s", rmsg);
			return 0;
		}
		mw_warn("comment through slurmrestd failed (%s); trying scontrol", rmsg);
	}
	snprintf(arg1, sizeof arg1, "JobId=%s", job);
	snprintf(arg2, sizeof arg2, "Comment=%s", text);
	st = run("scontrol", args, 3, &out);
	snprintf(via, vialen, "scontrol");
	if (st != 0) {
		if (out)
			out[strcspn(out, "\n")] = 0;
		snprintf(msg, msglen, "%s%sscontrol update: %s", rmsg, *rmsg ? "; " : "",
			 st < 0 ? strerror(errno) : (out && *out ? out : "failed"));
		free(out);
		return -1;
	}
	free(out);
	snprintf(msg, msglen, "%s%sposted with scontrol update", rmsg, *rmsg ? "; fallback: " : "");
	return 0;
}

int col_slurm_cancel(const char *job, char *msg, size_t msglen)
{
	char *out = NULL;
	char *args[] = {(char *)job};
	int st = run("scancel", args, 1, &out);
	if (st != 0) {
		if (out)
			out[strcspn(out, "\n")] = 0;
		snprintf(msg, msglen, "scancel %s: %s", job,
			 st < 0 ? strerror(errno) : (out && *out ? out : "failed"));
		free(out);
		return -1;
	}
	free(out);
	snprintf(msg, msglen, "job %s cancelled", job);
	return 0;
}

/* Run scontrol ARGS; on failure put "what: output" in msg.  Return 0 or -1. */
static int scontrol(char **args, size_t n, const char *what, char *msg, size_t msglen)
{
	char *out = NULL;
	int st = run("scontrol", args, n, &out);
	if (st != 0) {
		if (out)
			out[strcspn(out, "\n")] = 0;
		snprintf(msg, msglen, "%s: %s", what,
			 st < 0 ? strerror(errno) : (out && *out ? out : "failed"));
	}
	free(out);
	return st == 0 ? 0 : -1;
}

int col_slurm_requeue(const char *job, const char *const *nodes, size_t n, char *msg,
		      size_t msglen)
{
	char *out = NULL, exc[2048] = "", list[2048] = "", a1[64], a2[4200];
	char *show[] = {"--json", "--states=all", "-j", (char *)job};
	struct mw_slurm_job j;
	char *hold[] = {"requeuehold", (char *)job};
	char *upd[] = {"update", a1, a2};
	char *rel[] = {"release", (char *)job};
	char *rq[] = {"requeue", (char *)job};

	if (run("squeue", show, 4, &out) == 0 && out && mw_slurm_job_parse(out, job, &j) == 0) {
		snprintf(exc, sizeof exc, "%s", j.excluded);
		mw_slurm_job_free(&j);
	}
	free(out);
	if (n) {
		struct mw_hostlist hl = {0};
		if (*exc)
			mw_hostlist_expand(exc, 100000, &hl);
		for (size_t i = 0; i < n; i++) {
			char **p = realloc(hl.host, (hl.n + 1) * sizeof *p);
			if (!p)
				break;
			hl.host = p;
			hl.host[hl.n++] = strdup(nodes[i]);
		}
		mw_hostlist_compress(&hl, list, sizeof list);
		mw_hostlist_free(&hl);
	}
	snprintf(a1, sizeof a1, "JobId=%s", job);
	snprintf(a2, sizeof a2, "ExcNodeList=%s", list);
	if (!n) {
		if (scontrol(rq, 2, "scontrol requeue", msg, msglen) != 0)
			return -1;
		snprintf(msg, msglen, "job %s requeued", job);
		return 0;
	}
	/* Requeue held, so that the scheduler cannot restart it on the dead
	 * node before its ExcNodeList is set (a running job's ExcNodeList
	 * cannot be changed), then release it. */
	if (scontrol(hold, 2, "scontrol requeuehold", msg, msglen) == 0) {
		int upd_ok = scontrol(upd, 3, "scontrol update ExcNodeList", msg, msglen) == 0;
		char m2[256];
		if (scontrol(rel, 2, "scontrol release", m2, sizeof m2) != 0) {
			snprintf(msg, msglen, "job %s requeued but held: %s", job, m2);
			return -1;
		}
		if (!upd_ok)
			return -1;
		snprintf(msg, msglen, "job %s requeued excluding %s", job, list);
		return 0;
	}
	/* No requeuehold: set the list first (may be refused while running),
	 * then requeue. */
	if (scontrol(upd, 3, "scontrol update ExcNodeList", msg, msglen) != 0 ||
	    scontrol(rq, 2, "scontrol requeue", msg, msglen) != 0)
		return -1;
	snprintf(msg, msglen, "job %s requeued excluding %s", job, list);
	return 0;
}
