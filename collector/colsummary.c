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
