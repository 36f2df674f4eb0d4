/* cmd_analyze.c - "mpiwatch analyze deadlock DIR": the offline deadlock
 * detector over the monitor's state dumps (see analyze/dl.h, doc/deadlock.md).
 * Exit status: 0 no deadlock, 1 deadlock found, 2 usage error or no readable
 * dump, 3 incomplete (a rank's dump unreadable, no deadlock among the rest). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "conf.h"
#include "dl.h"

static const char analyze_intro[] =
	"Read every rank-*.json state dump in DIR and report deadlocks: collective\n"
	"mismatches, wait-for cycles and knots, with a diagnosis. FILE may be '-' for\n"
	"standard output.";

static const char analyze_epilog[] =
	"Exit status: 0 no deadlock, 1 deadlock found, 2 usage error or no readable dump,\n"
	"3 incomplete: a rank's dump is unreadable and the others show no deadlock (no\n"
	"verdict on it). See mpiwatch-analyze(1).";

/* --skew: seconds from 0 to 86400, or "off" (-1). */
static int parse_skew(const char *v, void *dst)
{
	if (!strcmp(v, "off")) {
		*(double *)dst = -1;
		return 0;
	}
	return mw_conf_parse_double(v, 0, 86400, (double *)dst);
}

static int write_to(const char *path, int (*fn)(FILE *, const struct dl_result *),
		    const struct dl_result *r)
{
	if (!strcmp(path, "-"))
		return fn(stdout, r) < 0 || fflush(stdout) ? -1 : 0;
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "mpiwatch analyze: %s: %s\n", path, strerror(errno));
		return -1;
	}
	int rc = fn(f, r);
	if (fclose(f) != 0)
		rc = -1;
	if (rc < 0)
		fprintf(stderr, "mpiwatch analyze: %s: write error: %s\n", path, strerror(errno));
	return rc;
}

/* The analysis's progress line on stderr, rewritten in place. */
static void show_progress(void *arg, size_t done, size_t total, int last)
{
	(void)arg;
	fprintf(stderr, "\rmpiwatch: reading dumps: %zu/%zu%s", done, total, last ? "\n" : "");
}

/* MPIWATCH_DL_TIMING=1: the analysis's phase times on stderr (for bench/). */
static void show_phases(void *arg, const double phase_s[4])
{
	(void)arg;
	fprintf(stderr, "mpiwatch: analysis phases: load %.3f s, symbols %.3f s, graph %.3f s, "
		"diagnosis+report %.3f s\n", phase_s[0], phase_s[1], phase_s[2], phase_s[3]);
}

static int run_analyze(int argc, char **argv)
{
	struct dl_options opt;
	const char *json = NULL, *dot = NULL;
	int quiet = 0, rc, first;
	long expect_size, top, eager_limit;

	dl_options_init(&opt);
	opt.on_progress = show_progress;
	if (getenv("MPIWATCH_DL_TIMING"))
		opt.on_phases = show_phases;
	expect_size = opt.expect_size;
	top = opt.top;
	eager_limit = opt.eager_limit;
	const struct mw_cliopt opts[] = {
		{.name = "json", .shortname = 'j', .kind = MW_CLIOPT_STRING, .dst = &json, .arg = "FILE",
		 .help = "write the result as JSON to FILE"},
		{.name = "dot", .shortname = 'd', .kind = MW_CLIOPT_STRING, .dst = &dot, .arg = "FILE",
		 .help = "write the wait-for graph (Graphviz) to FILE"},
		{.name = "expect-size", .shortname = 'n', .kind = MW_CLIOPT_LONG, .dst = &expect_size,
		 .arg = "N", .min = 1, .max = 16777216, .unit = "a rank count",
		 .help = "the job's ranks (default: from the dumps)"},
		{.name = "top", .shortname = 't', .kind = MW_CLIOPT_LONG, .dst = &top, .arg = "N", .min = 0,
		 .max = 1000, .help = "least-similar ranks named per finding (default 3)"},
		{.name = "eager-limit", .shortname = 'e', .kind = MW_CLIOPT_LONG, .dst = &eager_limit,
		 .arg = "BYTES", .min = 0, .max = 1099511627776.0, .unit = "bytes",
		 .help = "a pending send larger than this needs its receiver (default 4096)"},
		{.name = "schema", .shortname = 's', .kind = MW_CLIOPT_STRING, .dst = &opt.schema_path,
		 .arg = "FILE|none", .help = "the dump schema to check with, or none (built-in checks only)"},
		{.name = "skew", .kind = MW_CLIOPT_CUSTOM, .dst = &opt.skew, .parse = parse_skew,
		 .what = "seconds, a number from 0 to 86400, or off", .arg = "SECONDS|off",
		 .help = "a finding needs one moment all its ranks were stuck, within "
			 "this slack (default 0.5); off: do not check"},
		{.name = "no-symbols", .kind = MW_CLIOPT_FLAG, .dst = &opt.no_symbols,
		 .help = "do not look up file:line of frames without it"},
		{.name = "quiet", .shortname = 'q', .kind = MW_CLIOPT_FLAG, .dst = &quiet,
		 .help = "no text report on standard output"},
		{.name = "progress", .kind = MW_CLIOPT_FLAG, .dst = &opt.progress, .ival = 1,
		 .help = "always show progress on stderr (default: from 5000 files on)"},
		{.name = "no-progress", .kind = MW_CLIOPT_FLAG, .dst = &opt.progress, .ival = -1,
		 .help = "never show progress"},
		{.name = NULL},
	};
	const struct mw_cliopt_cmd cmd = {
		.prog = "mpiwatch analyze deadlock", .lead = "DIR", .intro = analyze_intro,
		.epilog = analyze_epilog, .opts = opts,
	};

	if ((rc = mw_cli_options(&cmd, argc, argv, &first)) >= 0)
		return rc;
	opt.expect_size = (int)expect_size;
	opt.top = (int)top;
	opt.eager_limit = eager_limit;
	if (first != argc - 1) {
		fprintf(stderr, "mpiwatch analyze deadlock: expected exactly one dump directory\n");
		mw_cli_usage(&cmd, stderr);
		return 2;
	}
	const char *dir = argv[first];
	struct dl_result *r = NULL;
	if (dl_analyze_dir(dir, &opt, &r) < 0) {
		fprintf(stderr, "mpiwatch analyze: %s: %s\n",
			opt.schema_path && errno != ENOENT && errno != ENOTDIR ? opt.schema_path : dir,
			strerror(errno));
		return 2;
	}
	rc = dl_result_found(r) ? 1 : dl_result_incomplete(r) ? 3 : 0;
	if (json && write_to(json, dl_write_json, r) < 0)
		rc = 2;
	if (dot && write_to(dot, dl_write_dot, r) < 0)
		rc = 2;
	int json_on_stdout = json && !strcmp(json, "-");
	if (!quiet && !json_on_stdout)
		dl_write_text(stdout, r);
	if (dl_result_dumps(r) == 0) {
		fprintf(stderr, "mpiwatch analyze: %s: no readable dump (rank-*.json)\n", dir);
		rc = 2;
	}
	dl_result_free(r);
	return rc;
}

MW_CLI_COMMAND(analyze_deadlock, "analyze deadlock",
	       "find deadlocks in the ranks' state dumps", run_analyze)
