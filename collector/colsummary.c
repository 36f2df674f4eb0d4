/* colsummary.c - the collector's summary to its node's nodehealthd. */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colsummary.h"
#include "drainreq.h"
#include "log.h"

char *col_summary_request(const char *job, enum col_verdict v)
{
	struct json_object *o;
	char *s;

	if (!mw_drainreq_valid_job(job)) {
		errno = EINVAL;
		return NULL;
	}
	o = json_object_new_object();
	if (!o) {
		errno = ENOMEM;
		return NULL;
	}
	json_object_object_add(o, "version", json_object_new_int(1));
	json_object_object_add(o, "op", json_object_new_string("summary"));
	json_object_object_add(o, "job", json_object_new_string(job));
	json_object_object_add(o, "verdict", json_object_new_string(col_verdict_name(v)));
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	if (!s)
		errno = ENOMEM;
	return s;
}

int col_summary_send(const char *sockpath, const char *job, enum col_verdict v, double timeout_s)
{
	char *req = col_summary_request(job, v), *reply = NULL;
	struct json_object *o = NULL, *ok = NULL, *text = NULL;
	int rv = -1;

	if (!req) {
		mw_debug("no summary for nodehealthd: job %s is not a Slurm job id", job);
		return -1;
	}
	if (mw_drainreq_call_retry(sockpath && sockpath[0] ? sockpath : MW_DRAIN_DEFAULT_SOCKET, req, timeout_s,
				   &reply) < 0) {
		mw_info("summary not sent to nodehealthd: %s", strerror(errno));
		goto out;
	}
	o = json_tokener_parse(reply);
	if (o && json_object_object_get_ex(o, "ok", &ok) && json_object_get_boolean(ok)) {
		mw_info("summary sent to nodehealthd: verdict %s", col_verdict_name(v));
		rv = 0;
	} else {
		if (o && !json_object_object_get_ex(o, "error", &text))
			text = NULL;
		mw_warn("nodehealthd refused the summary: %s", text ? json_object_get_string(text) : reply);
	}
out:
	json_object_put(o);
	free(reply);
	free(req);
	return rv;
}

struct summary_work {
	uv_work_t w;
	const char *sockpath, *job;
	enum col_verdict v;
	double timeout_s;
	int rc, over;
};

static void summary_work(uv_work_t *w)
{
	struct summary_work *x = w->data;
	x->rc = col_summary_send(x->sockpath, x->job, x->v, x->timeout_s);
}

static void summary_over(uv_work_t *w, int status)
{
	struct summary_work *x = w->data;
	(void)status;
	x->over = 1;
}

int col_summary_send_on(uv_loop_t *loop, const char *sockpath, const char *job, enum col_verdict v,
			double timeout_s)
{
	struct summary_work x = {.sockpath = sockpath, .job = job, .v = v, .timeout_s = timeout_s, .rc = -1};
	x.w.data = &x;
	if (!loop || uv_queue_work(loop, &x.w, summary_work, summary_over) != 0)
		return col_summary_send(sockpath, job, v, timeout_s);
	while (!x.over)
		uv_run(loop, UV_RUN_ONCE);
	return x.rc;
}
