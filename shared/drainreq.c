/* drainreq.c - drain-request protocol: the parser and the client. */
#include <errno.h>
#include <json-c/json.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "drainreq.h"
#include "log.h"

static void set_err(char *err, size_t errlen, const char *fmt, const char *arg)
{
	if (err && errlen)
		snprintf(err, errlen, fmt, arg ? arg : "");
}

const char *const mw_summary_verdicts[MW_SUMMARY_NVERDICTS + 1] = {"none", "software", "hardware", NULL};

int mw_drainreq_valid_job(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n == 0 || n >= sizeof(((struct mw_drainreq *)0)->job) || s[0] < '0' || s[0] > '9')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '+'))
			return 0;
	return 1;
}

static int is_alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

int mw_drainreq_valid_node(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n == 0 || n >= sizeof(((struct mw_drainreq *)0)->node) || !is_alnum(s[0]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(is_alnum(s[i]) || s[i] == '.' || s[i] == '_' || s[i] == '-'))
			return 0;
	return 1;
}

/* Printable ASCII only; '=' (which would confuse "scontrol -o" parsing) and
 * quotes become ':' and '\''. */
static void sanitize_summary(char *dst, size_t dstlen, const char *src)
{
	size_t j = 0;
	int space = 0;
	for (size_t i = 0; src[i] && j + 1 < dstlen; i++) {
		unsigned char c = (unsigned char)src[i];
		if (c == '\n' || c == '\t' || c == '\r' || c == ' ') {
			space = 1;
			continue;
		}
		if (space && j > 0)
			dst[j++] = ' ';
		space = 0;
		if (j + 1 >= dstlen)
			break;
		if (c == '=')
			c = ':';
		else if (c == '"')
			c = '\'';
		else if (c < 0x20 || c >= 0x7f)
			c = '?';
		dst[j++] = (char)c;
	}
	dst[j] = 0;
}

void mw_drainreq_free(struct mw_drainreq *req)
{
	if (!req)
		return;
	free(req->evidence);
	req->evidence = NULL;
}

int mw_drainreq_parse(const char *buf, size_t len, struct mw_drainreq *req, char *err, size_t errlen)
{
	struct json_tokener *tok = NULL;
	struct json_object *obj = NULL, *v;
	const char *s;
	size_t end;
	int rv = -1;

	memset(req, 0, sizeof(*req));
	if (len > MW_DRAINREQ_MAX) {
		set_err(err, errlen, "request too large%s", NULL);
		goto fail;
	}
	if (len == 0 || memchr(buf, 0, len)) {
		set_err(err, errlen, "%s", len ? "request contains a NUL byte" : "empty request");
		goto fail;
	}
	tok = json_tokener_new_ex(16);
	if (!tok) {
		errno = ENOMEM;
		set_err(err, errlen, "out of memory%s", NULL);
		goto fail_errno;
	}
	obj = json_tokener_parse_ex(tok, buf, (int)len);
	if (!obj || json_tokener_get_error(tok) != json_tokener_success) {
		set_err(err, errlen, "request is not valid JSON: %s",
			json_tokener_error_desc(json_tokener_get_error(tok)));
		goto fail;
	}
	for (end = json_tokener_get_parse_end(tok); end < len; end++)
		if (!strchr(" \t\r\n", buf[end])) {
			set_err(err, errlen, "trailing data after the JSON object%s", NULL);
			goto fail;
		}
	if (!json_object_is_type(obj, json_type_object)) {
		set_err(err, errlen, "request is not a JSON object%s", NULL);
		goto fail;
	}
	if (!json_object_object_get_ex(obj, "version", &v) || !json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) != 1) {
		set_err(err, errlen, "missing or unsupported \"version\" (want 1)%s", NULL);
		goto fail;
	}
	if (!json_object_object_get_ex(obj, "op", &v) || !json_object_is_type(v, json_type_string)) {
		set_err(err, errlen, "missing \"op\"%s", NULL);
		goto fail;
	}
	s = json_object_get_string(v);
	if (!strcmp(s, "status")) {
		static const char *const flags[] = {"calibrate", "force"};
		int *dst[] = {&req->calibrate, &req->force};
		req->op = MW_DRAINREQ_STATUS;
		for (int i = 0; i < 2; i++) {
			if (!json_object_object_get_ex(obj, flags[i], &v))
				continue;
			if (!json_object_is_type(v, json_type_boolean)) {
				set_err(err, errlen, "\"%s\" must be true or false", flags[i]);
				goto fail;
			}
			*dst[i] = json_object_get_boolean(v);
		}
		if (req->force && !req->calibrate) {
			set_err(err, errlen, "\"force\" without \"calibrate\"%s", NULL);
			goto fail;
		}
		rv = 0;
		goto fail;
	}
	if (strcmp(s, "drain") != 0 && strcmp(s, "summary") != 0) {
		set_err(err, errlen, "unknown op (want \"drain\", \"status\" or \"summary\")%s", NULL);
		goto fail;
	}
	req->op = strcmp(s, "drain") ? MW_DRAINREQ_SUMMARY : MW_DRAINREQ_DRAIN;
	if (!json_object_object_get_ex(obj, "job", &v) || !json_object_is_type(v, json_type_string) ||
	    !mw_drainreq_valid_job(json_object_get_string(v))) {
		set_err(err, errlen, "missing or invalid \"job\" (a Slurm job id string)%s", NULL);
		goto fail;
	}
	snprintf(req->job, sizeof(req->job), "%s", json_object_get_string(v));
	if (req->op == MW_DRAINREQ_SUMMARY) {
		req->verdict = -1;
		if (json_object_object_get_ex(obj, "verdict", &v) && json_object_is_type(v, json_type_string))
			for (int i = 0; mw_summary_verdicts[i]; i++)
				if (!strcmp(json_object_get_string(v), mw_summary_verdicts[i]) &&
				    (size_t)json_object_get_string_len(v) == strlen(mw_summary_verdicts[i]))
					req->verdict = i;
		if (req->verdict < 0) {
			set_err(err, errlen, "missing or invalid \"verdict\" (none, software or hardware)%s", NULL);
			goto fail;
		}
		rv = 0;
		goto fail;
	}
	if (!json_object_object_get_ex(obj, "node", &v) || !json_object_is_type(v, json_type_string) ||
	    !mw_drainreq_valid_node(json_object_get_string(v))) {
		set_err(err, errlen, "missing or invalid \"node\" (a node name)%s", NULL);
		goto fail;
	}
	snprintf(req->node, sizeof(req->node), "%s", json_object_get_string(v));
	v = NULL;
	json_object_object_get_ex(obj, "evidence", &v);
	s = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (strlen(s) > MW_DRAINREQ_EVIDENCE_MAX) {
		set_err(err, errlen, "evidence too large (max 8192 bytes of JSON)%s", NULL);
		goto fail;
	}
	req->evidence = strdup(s);
	if (!req->evidence) {
		set_err(err, errlen, "out of memory%s", NULL);
		errno = ENOMEM;
		goto fail_errno;
	}
	/* The reason text: evidence.summary, else a string evidence, else the JSON. */
	{
		struct json_object *sv = NULL;
		const char *text = s;
		if (json_object_is_type(v, json_type_string))
			text = json_object_get_string(v);
		else if (json_object_is_type(v, json_type_object) &&
			 json_object_object_get_ex(v, "summary", &sv) &&
			 json_object_is_type(sv, json_type_string))
			text = json_object_get_string(sv);
		else if (!v)
			text = "no evidence given";
		sanitize_summary(req->summary, sizeof(req->summary), text);
	}
	rv = 0;
fail:
	if (rv < 0)
		errno = EINVAL;
fail_errno:
	if (rv < 0)
		mw_drainreq_free(req);
	if (obj)
		json_object_put(obj);
	if (tok)
		json_tokener_free(tok);
	return rv;
}

/* ---- client ---- */

static int wait_fd(int fd, short ev, double deadline)
{
	for (;;) {
		struct pollfd p = {.fd = fd, .events = ev};
		double left = deadline - mw_now();
		int r;
		if (left <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		r = poll(&p, 1, (int)(left * 1e3) + 1);
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
	}
}

int mw_drainreq_call(const char *sockpath, const char *request, double timeout_s, char **reply)
{
	struct sockaddr_un sun;
	size_t len = strlen(request), off = 0, cap = 4096, got = 0;
	double deadline = mw_now() + timeout_s;
	char *buf = NULL;
	int fd = -1, rv = -1;

	*reply = NULL;
	if (!sockpath)
		sockpath = MW_DRAIN_DEFAULT_SOCKET;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(sockpath) >= sizeof(sun.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sun.sun_path, sockpath);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		/* EAGAIN: the listen backlog is full; a unix socket is then not
		 * connected at all (the caller may try again). */
		if (errno != EINPROGRESS)
			goto fail;
		if (wait_fd(fd, POLLOUT, deadline) < 0)
			goto fail;
	}
	while (off < len) {
		ssize_t w;
		if (wait_fd(fd, POLLOUT, deadline) < 0)
			goto fail;
		w = send(fd, request + off, len - off, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			goto fail;
		}
		off += (size_t)w;
	}
	if (len == 0 || request[len - 1] != '\n')
		if (send(fd, "\n", 1, MSG_NOSIGNAL) < 0)
			goto fail;
	shutdown(fd, SHUT_WR);
	buf = malloc(cap);
	if (!buf)
		goto fail;
	for (;;) {
		ssize_t r;
		if (got + 1 >= cap) {
			char *nb;
			if (cap >= 1 << 20) {
				errno = EPROTO;
				goto fail;
			}
			nb = realloc(buf, cap * 2);
			if (!nb)
				goto fail;
			buf = nb;
			cap *= 2;
		}
		if (wait_fd(fd, POLLIN, deadline) < 0)
			goto fail;
		r = recv(fd, buf + got, cap - got - 1, 0);
		if (r < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			goto fail;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	buf[got] = 0;
	if (got == 0) {
		errno = EPROTO;
		goto fail;
	}
	*reply = buf;
	buf = NULL;
	rv = 0;
fail:
	{
		int e = errno;
		free(buf);
		close(fd);
		errno = e;
	}
	return rv;
}

/* Parse a reply: return 1 for ok:true, 0 for ok:false (message copied), -1
 * if it is not a valid reply. */
static int parse_reply(const char *reply, struct json_object **objp, char *msg, size_t msglen)
{
	struct json_object *obj = json_tokener_parse(reply), *v;
	int ok;
	if (!obj || !json_object_is_type(obj, json_type_object) ||
	    !json_object_object_get_ex(obj, "ok", &v) || !json_object_is_type(v, json_type_boolean)) {
		if (obj)
			json_object_put(obj);
		set_err(msg, msglen, "malformed reply from nodehealthd%s", NULL);
		return -1;
	}
	ok = json_object_get_boolean(v);
	if (json_object_object_get_ex(obj, ok ? "message" : "error", &v) &&
	    json_object_is_type(v, json_type_string))
		set_err(msg, msglen, "%s", json_object_get_string(v));
	else
		set_err(msg, msglen, "%s", ok ? "ok" : "refused");
	*objp = obj;
	return ok;
}

/* Is this reply the daemon's "busy, try again" (ok false, retry true)? */
static int reply_is_busy(const char *reply)
{
	struct json_object *obj = json_tokener_parse(reply), *v;
	int busy = obj && json_object_is_type(obj, json_type_object) &&
		   json_object_object_get_ex(obj, "retry", &v) && json_object_get_boolean(v);
	if (obj)
		json_object_put(obj);
	return busy;
}

int mw_drainreq_call_retry(const char *sockpath, const char *request, double timeout_s, char **reply)
{
	double deadline = mw_now() + timeout_s, wait = 0.05;
	uint32_t jitter;

	for (;;) {
		double left = deadline - mw_now();
		int rc = mw_drainreq_call(sockpath, request, left > 0.01 ? left : 0.01, reply);
		if (rc == 0 && !reply_is_busy(*reply))
			return 0;
		if (rc < 0 && errno != EAGAIN)
			return -1;
		/* busy, or the backlog full: again after a pause, while the
		 * budget lasts (the last busy answer is the answer then) */
		if (mw_now() + wait >= deadline) {
			if (rc == 0)
				return 0;
			errno = ETIMEDOUT;
			return -1;
		}
		if (rc == 0) {
			free(*reply);
			*reply = NULL;
		}
		if (getrandom(&jitter, sizeof(jitter), GRND_NONBLOCK) != sizeof(jitter))
			jitter = (uint32_t)getpid();
		{
			double w = wait * (0.5 + (jitter % 1000) / 1000.0);
			struct timespec ts = {(time_t)w, (long)((w - (double)(time_t)w) * 1e9)};
			nanosleep(&ts, NULL);
		}
		wait = wait * 2 > 1.0 ? 1.0 : wait * 2;
	}
}

int mw_drain_request(const char *sockpath, const char *jobid, const char *node,
		     const char *evidence_json, char *msg, size_t msglen)
{
	struct json_object *req = NULL, *ev = NULL, *rep = NULL;
	char *reply = NULL;
	int rv = -1, ok;

	if (!mw_drainreq_valid_job(jobid) || !mw_drainreq_valid_node(node)) {
		set_err(msg, msglen, "invalid job id or node name%s", NULL);
		errno = EINVAL;
		return -1;
	}
	if (evidence_json) {
		ev = json_tokener_parse(evidence_json);
		if (!ev && strcmp(evidence_json, "null") != 0) {
			set_err(msg, msglen, "evidence is not valid JSON%s", NULL);
			errno = EINVAL;
			return -1;
		}
	}
	req = json_object_new_object();
	json_object_object_add(req, "version", json_object_new_int(1));
	json_object_object_add(req, "op", json_object_new_string("drain"));
	json_object_object_add(req, "job", json_object_new_string(jobid));
	json_object_object_add(req, "node", json_object_new_string(node));
	json_object_object_add(req, "evidence", ev);
	if (mw_drainreq_call_retry(sockpath, json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN), 60.0,
				   &reply) < 0) {
		int e = errno;
		if (msg && msglen)
			snprintf(msg, msglen, "cannot reach nodehealthd at %s: %s",
				 sockpath ? sockpath : MW_DRAIN_DEFAULT_SOCKET, strerror(e));
		errno = e;
		goto fail;
	}
	ok = parse_reply(reply, &rep, msg, msglen);
	if (ok < 0) {
		errno = EPROTO;
		goto fail;
	}
	if (!ok) {
		errno = EPERM;
		goto fail;
	}
	rv = 0;
fail:
	{
		int e = errno;
		json_object_put(req);
		if (rep)
			json_object_put(rep);
		free(reply);
		errno = e;
	}
	return rv;
}

int mw_drain_status(const char *sockpath, int calibrate, char **json, char *msg, size_t msglen)
{
	struct json_object *rep = NULL, *st;
	char *reply = NULL;
	const char *req = calibrate > 1   ? "{\"version\":1,\"op\":\"status\",\"calibrate\":true,\"force\":true}\n"
			  : calibrate ? "{\"version\":1,\"op\":\"status\",\"calibrate\":true}\n"
				      : "{\"version\":1,\"op\":\"status\"}\n";
	int rv = -1, ok;

	*json = NULL;
	if (mw_drainreq_call_retry(sockpath, req, 10.0, &reply) < 0) {
		int e = errno;
		if (msg && msglen)
			snprintf(msg, msglen, "cannot reach nodehealthd at %s: %s",
				 sockpath ? sockpath : MW_DRAIN_DEFAULT_SOCKET, strerror(e));
		errno = e;
		return -1;
	}
	ok = parse_reply(reply, &rep, msg, msglen);
	if (ok == 0) {
		errno = EPERM; /* the daemon answered and refused: msg says why */
		goto fail;
	}
	if (ok < 0 || !json_object_object_get_ex(rep, "status", &st)) {
		errno = EPROTO;
		goto fail;
	}
	*json = strdup(json_object_to_json_string_ext(st, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED));
	if (!*json)
		goto fail;
	rv = 0;
fail:
	if (rep)
		json_object_put(rep);
	free(reply);
	return rv;
}
