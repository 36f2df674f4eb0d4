/* imb_files.c - the analysis of a profile directory written as files beside
 * a job's report (mpiwatch run --profile, the collector of a job run with
 * --mpiwatch=profile). */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cal_report.h"
#include "fsutil.h"
#include "imb.h"
#include "imb_phases.h"

/* Write one output kind (0 text, 1 JSON, 2 HTML) to path through a temporary
 * file renamed into place; doc is the JSON document (imb_report_doc), built
 * once for both the JSON and the page.  Return 0, or -1 with errno. */
static int write_one(const char *path, int kind, const struct imb_analysis *a, const struct imb_job *job,
		     const struct imb_fluct_result *fl, json_object *doc)
{
	struct mw_atomic_file af;
	int bad = 0;
	if (mw_atomic_open(&af, path, 0666) < 0)
		return -1;
	if (kind == 0)
		bad = imb_report_text(af.f, a, job) < 0 || imb_fluct_text(af.f, fl) < 0;
	else if (kind == 1)
		bad = fputs(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN), af.f) < 0 ||
		      fputc('\n', af.f) == EOF;
	else
		bad = imb_report_html(af.f, doc) < 0;
	return mw_atomic_close(&af, !bad);
}

struct json_object *imb_report_doc(const struct imb_analysis *a, const struct imb_job *job,
				   const struct imb_fluct_result *fl)
{
	json_object *o = imb_report_json(a, job);
	if (o && fl)
		json_object_object_add(o, "fluctuation", imb_fluct_json(fl));
	return o;
}

int imb_fluct_of_dir(const char *profdir, const struct imb_fluct_opts *o, struct imb_fluct_result *fl)
{
	struct imb_phases ph;
	char perr[512];
	int rc;
	if (imb_phases_load(profdir, &ph, perr, sizeof perr) < 0) {
		memset(fl, 0, sizeof(*fl));
		if (o)
			fl->opts = *o;
		else
			imb_fluct_defaults(&fl->opts);
		fl->opts.cal = NULL; /* the result keeps no pointer into the caller's table */
		fl->opts.ncal = 0;
		snprintf(fl->error, sizeof fl->error, "%s", perr);
		return 0;
	}
	rc = imb_fluct_analyze(&ph, o, fl);
	imb_phases_free(&ph);
	return rc;
}

int imb_nodecal_load(const char *path, struct imb_nodecal *k, char *err, size_t errlen)
{
	memset(k, 0, sizeof(*k));
	return cal_node_load(path, &k->interval_ns, &k->resolution_ns, err, errlen);
}

int imb_write_reports(const char *profdir, const char *outdir, const char *suffix,
		      const struct imb_fluct_opts *fo, struct imb_fluct_result *fl_out, char *err, size_t errlen)
{
	struct imb_fluct_result fl;
	static const char *const ext[] = {"txt", "json", "html"};
	struct imb_threshold th = {IMB_DEFAULT_FRAC, 0};
	struct imb_job job;
	struct imb_analysis a;
	char path[4200];
	json_object *doc;
	int rc = 0;

	if (imb_job_load(profdir, &job, err, errlen) < 0)
		return -1;
	if (imb_analyze(&job, &th, NULL, &a) < 0) {
		snprintf(err, errlen, "%s: %s", profdir, strerror(errno));
		imb_job_free(&job);
		return -1;
	}
	if (imb_fluct_of_dir(profdir, fo, &fl) < 0) {
		snprintf(err, errlen, "%s: %s", profdir, strerror(errno));
		imb_analysis_free(&a);
		imb_job_free(&job);
		return -1;
	}
	doc = imb_report_doc(&a, &job, &fl);
	if (!doc) {
		snprintf(err, errlen, "%s: %s", profdir, strerror(ENOMEM));
		rc = -1;
	}
	for (int i = 0; i < 3 && rc == 0; i++) {
		snprintf(path, sizeof path, "%s/imbalance%s.%s", outdir, suffix ? suffix : "", ext[i]);
		if (write_one(path, i, &a, &job, &fl, doc) < 0) {
			snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
			rc = -1;
		}
	}
	json_object_put(doc);
	if (fl_out && rc == 0)
		*fl_out = fl;
	else
		imb_fluct_free(&fl);
	imb_analysis_free(&a);
	imb_job_free(&job);
	return rc;
}
