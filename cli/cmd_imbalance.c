/* cmd_imbalance.c - "mpiwatch analyze imbalance DIR": the load-imbalance
 * analysis of TAU profiles (imbalance/imb.h, doc/imbalance.md).
 * Exit status: 0 analysed, 2 usage error or unreadable input. */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "imb.h"
#include "imb_phases.h"

#define ME "mpiwatch analyze imbalance"

static const char imb_intro[] =
	"Read the TAU profiles profile.N.C.T in DIR (or DIR/MULTI__TIME), written by\n"
	"TAU or by mpiwatch's profile mode, and rank the function groups by load\n"
	"imbalance: computation, communication and I/O, then their subgroups, with\n"
	"max/mean, COV, the load similarity of each group to its parent and the POP\n"
	"efficiencies.  Functions below the threshold (default 0.1% of the job's time)\n"
	"are dropped.  RULES holds 'pattern = group' lines.  FILE may be '-' for\n"
	"standard output.  --html writes one self-contained page (3D bars and a\n"
	"heatmap, drill-down; works offline); --svg a static chart for reports.";

static const char imb_epilog[] =
	"Exit status: 0 analysed, 2 usage error or bad input.\n"
	"See mpiwatch-analyze(1) and doc/imbalance.md.";

static int parse_threshold(const char *v, void *dst)
{
	return imb_threshold_parse(v, (struct imb_threshold *)dst);
}

static FILE *open_out(const char *path)
{
	if (!strcmp(path, "-"))
		return stdout;
	FILE *f = fopen(path, "w");
	if (!f)
		fprintf(stderr, ME ": %s: %s\n", path, strerror(errno));
	return f;
}

static int close_out(FILE *f, const char *path)
{
	int rc = f == stdout ? fflush(f) : fclose(f);
	if (rc != 0) {
		fprintf(stderr, ME ": %s: write error: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* A progress line on large inputs, on a terminal only. */
static void progress(size_t done, size_t total, void *arg)
{
	(void)arg;
	if (total < 1000)
		return;
	fprintf(stderr, "\rreading profiles: %zu/%zu", done, total);
	if (done == total)
		fputs("\r\033[K", stderr);
}

static int run_imbalance(int argc, char **argv)
{
	const char *json = NULL, *svg = NULL, *html = NULL, *rules_path = NULL;
	struct imb_threshold th = {IMB_DEFAULT_FRAC, 0};
	struct imb_rules rules = {0, NULL, NULL};
	int quiet = 0, rc, first;
	char err[4096];
	const struct mw_cliopt opts[] = {
		{.name = "json", .kind = MW_CLIOPT_STRING, .dst = &json, .arg = "FILE",
		 .help = "write the analysis as JSON to FILE"},
		{.name = "html", .kind = MW_CLIOPT_STRING, .dst = &html, .arg = "FILE",
		 .help = "write the interactive page to FILE"},
		{.name = "svg", .kind = MW_CLIOPT_STRING, .dst = &svg, .arg = "FILE",
		 .help = "write the static chart to FILE"},
		{.name = "threshold", .kind = MW_CLIOPT_CUSTOM, .dst = &th, .parse = parse_threshold,
		 .arg = "PCT%|TIMEus|TIMEms|TIMEs",
		 .what = "a percentage (0.1%) or a time (500us, 2ms, 1s)",
		 .help = "drop functions below this share of the job's time, or time"},
		{.name = "groups", .kind = MW_CLIOPT_STRING, .dst = &rules_path, .arg = "RULES",
		 .help = "'pattern = group' lines that name the groups"},
		{.name = "quiet", .shortname = 'q', .kind = MW_CLIOPT_FLAG, .dst = &quiet,
		 .help = "no text report on standard output"},
		{.name = NULL},
	};
	const struct mw_cliopt_cmd cmd = {
		.prog = ME, .lead = "DIR", .intro = imb_intro, .epilog = imb_epilog, .opts = opts,
	};

	if ((rc = mw_cli_options(&cmd, argc, argv, &first)) >= 0)
		return rc;
	rc = 0;
	if (first != argc - 1) {
		fprintf(stderr, ME ": expected exactly one profile directory\n");
		mw_cli_usage(&cmd, stderr);
		return 2;
	}
	if (rules_path) {
		char *buf;
		size_t len;
		if (imb_read_file(rules_path, &buf, &len) < 0) {
			fprintf(stderr, ME ": %s: %s\n", rules_path, strerror(errno));
			return 2;
		}
		int r = imb_rules_parse(buf, len, rules_path, &rules, err, sizeof(err));
		free(buf);
		if (r < 0) {
			fprintf(stderr, "%s\n", err);
			return 2;
		}
	}
	struct imb_job job;
	struct imb_analysis a;
	if (imb_job_load_progress(argv[first], &job, err, sizeof(err), isatty(2) ? progress : NULL,
				  NULL) < 0) {
		fprintf(stderr, ME ": %s\n", err);
		imb_rules_free(&rules);
		return 2;
	}
	if (imb_analyze(&job, &th, &rules, &a) < 0) {
		fprintf(stderr, ME ": %s\n", strerror(errno));
		imb_job_free(&job);
		imb_rules_free(&rules);
		return 2;
	}
	struct imb_fluct_result fl;
	if (imb_fluct_of_dir(job.dir, NULL, &fl) < 0) {
		fprintf(stderr, ME ": %s\n", strerror(errno));
		imb_analysis_free(&a);
		imb_job_free(&job);
		imb_rules_free(&rules);
		return 2;
	}
	int to_stdout = (json && !strcmp(json, "-")) || (svg && !strcmp(svg, "-")) ||
			(html && !strcmp(html, "-"));
	struct json_object *doc = html || json ? imb_report_doc(&a, &job, &fl) : NULL;
	/* serialized once for both outputs (the page embeds the same text) */
	const char *doc_json = doc ? json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN) : NULL;
	if (html) {
		FILE *f = open_out(html);
		if (!f || !doc_json || imb_report_html_text(f, doc_json) < 0)
			rc = 2;
		if (f && close_out(f, html) < 0)
			rc = 2;
	}
	if (json) {
		FILE *f = open_out(json);
		if (!f || !doc_json || fputs(doc_json, f) < 0 ||
		    fputc('\n', f) < 0)
			rc = 2;
		if (f && close_out(f, json) < 0)
			rc = 2;
	}
	json_object_put(doc);
	if (svg) {
		FILE *f = open_out(svg);
		if (!f || imb_report_svg(f, &a) < 0)
			rc = 2;
		if (f && close_out(f, svg) < 0)
			rc = 2;
	}
	if (!quiet && !to_stdout) {
		imb_report_text(stdout, &a, &job);
		imb_fluct_text(stdout, &fl);
	}
	imb_fluct_free(&fl);
	imb_analysis_free(&a);
	imb_job_free(&job);
	imb_rules_free(&rules);
	return rc;
}

MW_CLI_COMMAND(analyze_imbalance, "analyze imbalance",
	       "rank the load imbalance of TAU profiles", run_imbalance)

int mw_cli_imbalance_report(const char *profdir, const char *outdir, const char *calibration)
{
	char err[4096];
	struct imb_fluct_result fl;
	struct imb_fluct_opts fo;
	struct imb_nodecal k;
	imb_fluct_defaults(&fo);
	if (calibration && imb_nodecal_load(calibration, &k, err, sizeof err) == 0) {
		fo.cal = &k; /* this machine's, for its ranks (node "": every node) */
		fo.ncal = 1;
	}
	if (imb_write_reports(profdir, outdir, "", &fo, &fl, err, sizeof err) < 0) {
		fprintf(stderr, "mpiwatch: no imbalance analysis: %s\n", err);
		return -1;
	}
	fprintf(stderr, "mpiwatch: load imbalance in %s/imbalance.txt (view: imbalance.html)\n", outdir);
	for (size_t i = 0; i < fl.nnode; i++)
		fprintf(stderr, "mpiwatch: %s\n", fl.node_message[i]);
	for (size_t i = 0; i < fl.n; i++)
		fprintf(stderr, "mpiwatch: %s\n", fl.f[i].message);
	for (size_t i = 0; i < fl.nunjudged; i++)
		fprintf(stderr, "mpiwatch: %s\n", fl.unjudged[i].message);
	imb_fluct_free(&fl);
	return 0;
}
