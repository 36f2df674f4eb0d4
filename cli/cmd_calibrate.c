/* cmd_calibrate.c - "mpiwatch calibrate": can this node tell a real slowdown
 * from timer noise? (calib/, doc/calibrate.md).  Exit status: 0 calibrated,
 * 1 the node cannot do high-precision detection, 2 usage or other error. */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cal_calib.h"
#include "cal_history.h"
#include "cal_report.h"
#include "cal_timings.h"
#include "cli.h"
#include "conf.h"
#include "fsutil.h"
#include "runcmd.h"

#define ME "mpiwatch calibrate"

static const char cal_more[] =
	"       mpiwatch calibrate --emit ADDS [--count N] [--slowdown PCT] [--flush-kib K]";

static const char cal_intro[] =
	"Measure what this node's timers can resolve: the cost of the timers\n"
	"(rdtsc/rdtscp and clock_gettime), the shortest interval whose central\n"
	"quantiles (LOW,HIGH, default 5,95 %) lie within +-PCT (default 5 %) of the\n"
	"expected value on both clocks, the smallest difference of medians a\n"
	"Wilcoxon rank-sum test finds significant there, or at --at NS (the\n"
	"resolution: steps PCT longer, then sqrt(2) times further each, default\n"
	"0.25 % x 12, 0.5 % x 10 with --quick, measured one after the other, or\n"
	"sample by sample with --interleave, in 5 blocks, 3 with --quick: the\n"
	"median and the spread over the blocks are reported), and the\n"
	"criterion 'mpiwatch analyze fluctuation' uses.  A node whose median\n"
	"passes the threshold (default 10000 ns) first cannot do high-precision\n"
	"detection.  --quick: fewer samples (40 instead of 200), a smaller cache\n"
	"flush, under 2 s.  --json: the result as JSON (doc/schemas/calibrate.schema.json)\n"
	"on standard output instead of text.  --emit prints COUNT (default 1000) raw wall\n"
	"intervals in ns of the workload of ADDS additions, PCT % more with\n"
	"--slowdown: real timings for tests and benchmarks.";

static const char cal_epilog[] =
	"Exit status: 0 calibrated, 1 no high-precision detection on this node,\n"
	"2 error.  See mpiwatch-calibrate(1) and doc/calibrate.md.";

static void put_line(double ns, void *arg)
{
	(void)arg;
	printf("%.0f\n", ns);
}

/* The full calibration's fresh processes (struct cal_fresh): this program
 * run again as "mpiwatch calibrate --emit", its raw intervals read back
 * with the timings parser.  An exec'd process, as a user's runs are. */
static int fresh_emit(uint64_t adds, size_t n, size_t flush_bytes, double *ns, void *arg)
{
	char a[32], c[32], fk[32], err[128];
	char *argv[] = {"/proc/self/exe", "calibrate", "--emit", a, "--count", c, "--flush-kib", fk, NULL};
	struct mw_runcmd_opts ro = {.timeout_s = 60, .stop_at_max = 1};
	struct mw_runcmd_result res;
	double *v = NULL;
	size_t got = 0;
	(void)arg;
	snprintf(a, sizeof(a), "%llu", (unsigned long long)adds);
	snprintf(c, sizeof(c), "%zu", n);
	snprintf(fk, sizeof(fk), "%zu", flush_bytes / 1024);
	if (mw_run_command_ex(argv, NULL, &ro, &res) < 0)
		return -1;
	int ok = res.status == 0 && cal_timings_parse(res.output, res.len, "--emit", &v, &got, err, sizeof(err)) == 0 &&
		 got == n;
	if (ok)
		memcpy(ns, v, n * sizeof(*ns));
	free(v);
	free(res.output);
	return ok ? 0 : -1;
}

/* "LOW,HIGH" in percent -> fractions (dst: double[2]). */
static int parse_quantiles(const char *s, void *dst)
{
	char buf[64], *comma;
	double *lohi = dst, lo, hi;
	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	comma = strchr(buf, ',');
	if (!comma)
		return -1;
	*comma = 0;
	if (mw_conf_parse_double(buf, 0, 49.999, &lo) < 0 ||
	    mw_conf_parse_double(comma + 1, 50.001, 100, &hi) < 0)
		return -1;
	lohi[0] = lo / 100;
	lohi[1] = hi / 100;
	return 0;
}

static int run_calibrate(int argc, char **argv)
{
	/* Options are applied after the defaults, so --quick may come anywhere. */
	int json = 0, quick = 0, interleave = 0, rc, first;
	int s_quant = 0, s_samples = 0, s_steps = 0, s_flush = 0, s_tol = 0, s_step = 0, s_thr = 0,
	    s_alpha = 0, s_q = 0, s_growth = 0, s_blocks = 0, s_procs = 0;
	long emit = 0, count = 1000, samples = 0, steps = 0, flush_kib = 0, blocks = 0, procs = 0;
	double quant[2] = {0, 0}, tol = 0, step = 0, thr = 0, alpha = 0, q = 0, growth = 0,
	       slowdown = 0, at = 0;
	char err[512];
	const char *history = NULL;
	const struct mw_cliopt opts[] = {
		{.name = "json", .kind = MW_CLIOPT_FLAG, .dst = &json, .help = "the result as JSON"},
		{.name = "quick", .kind = MW_CLIOPT_FLAG, .dst = &quick, .help = "fewer samples, under 2 s"},
		{.name = "samples", .kind = MW_CLIOPT_LONG, .dst = &samples, .given = &s_samples,
		 .arg = "N", .min = 5, .max = 100000, .help = "samples per interval (default 200)"},
		{.name = "quantiles", .kind = MW_CLIOPT_CUSTOM, .dst = quant, .given = &s_quant,
		 .parse = parse_quantiles, .arg = "LOW,HIGH",
		 .what = "LOW,HIGH percentages with 0 <= LOW < 50 < HIGH <= 100",
		 .help = "the central quantiles, in % (default 5,95)"},
		{.name = "tolerance", .kind = MW_CLIOPT_DOUBLE, .dst = &tol, .given = &s_tol, .arg = "PCT",
		 .min = 0.001, .max = 50, .unit = "a percentage",
		 .help = "the quantiles' band around the expected value (default 5)"},
		{.name = "threshold", .kind = MW_CLIOPT_DOUBLE, .dst = &thr, .given = &s_thr, .arg = "NS",
		 .min = 1, .max = 1e9, .unit = "ns", .help = "the interval above which the node cannot "
							 "do high-precision detection (default 10000)"},
		{.name = "alpha", .kind = MW_CLIOPT_DOUBLE, .dst = &alpha, .given = &s_alpha, .arg = "A",
		 .min = 1e-12, .max = 0.499, .unit = "a probability",
		 .help = "the rank-sum test's significance level"},
		{.name = "q", .kind = MW_CLIOPT_DOUBLE, .dst = &q, .given = &s_q, .arg = "Q", .min = 1e-6,
		 .max = 0.999, .unit = "a fraction",
		 .help = "the criterion's q (default: what the quantiles let through)"},
		{.name = "growth", .kind = MW_CLIOPT_DOUBLE, .dst = &growth, .given = &s_growth,
		 .arg = "G", .min = 1.05, .max = 4, .unit = "a factor",
		 .help = "the interval's growth from one try to the next"},
		{.name = "step", .kind = MW_CLIOPT_DOUBLE, .dst = &step, .given = &s_step, .arg = "PCT",
		 .min = 0.001, .max = 50, .unit = "a percentage",
		 .help = "how much longer the first step of the resolution is (default 0.25)"},
		{.name = "steps", .kind = MW_CLIOPT_LONG, .dst = &steps, .given = &s_steps, .arg = "N",
		 .min = 1, .max = 40, .help = "steps of the resolution per block, each sqrt(2) further (default 12)"},
		{.name = "blocks", .kind = MW_CLIOPT_LONG, .dst = &blocks, .given = &s_blocks, .arg = "N",
		 .min = 1, .max = CAL_BLOCKS_MAX, .help = "the resolution measured N times: its median and spread (default 5)"},
		{.name = "processes", .kind = MW_CLIOPT_LONG, .dst = &procs, .given = &s_procs, .arg = "N",
		 .min = 0, .max = CAL_APART_MAX,
		 .help = "the base round timed again in N fresh processes: what separates two runs (default 32, --quick 0)"},
		{.name = "history", .kind = MW_CLIOPT_STRING, .dst = &history, .arg = "FILE",
		 .help = "the node's last calibrations: read, this one added, the criterion judged "
			 "over them, written back (doc/calibrate.md section 6)"},
		{.name = "at", .kind = MW_CLIOPT_DOUBLE, .dst = &at, .arg = "NS", .min = 1, .max = 1e10,
		 .unit = "ns", .help = "the resolution at this interval instead of the shortest trustworthy one"},
		{.name = "interleave", .kind = MW_CLIOPT_FLAG, .dst = &interleave,
		 .help = "measure the rounds sample by sample"},
		{.name = "flush-kib", .kind = MW_CLIOPT_LONG, .dst = &flush_kib, .given = &s_flush,
		 .arg = "K", .min = 0, .max = 1048576, .unit = "KiB", .help = "the cache flush between samples"},
		{.name = "emit", .kind = MW_CLIOPT_LONG, .dst = &emit, .arg = "ADDS", .min = CAL_GROUP,
		 .max = 1L << 30, .unit = "a number of additions",
		 .help = "print raw intervals of ADDS additions instead"},
		{.name = "count", .kind = MW_CLIOPT_LONG, .dst = &count, .arg = "N", .min = 1,
		 .max = 10000000, .help = "--emit: how many (default 1000)"},
		{.name = "slowdown", .kind = MW_CLIOPT_DOUBLE, .dst = &slowdown, .arg = "PCT", .min = 0,
		 .max = 1000, .unit = "a percentage", .help = "--emit: PCT % more additions"},
		{.name = NULL},
	};
	const struct mw_cliopt_cmd cmd = {
		.prog = ME, .more = cal_more, .intro = cal_intro, .epilog = cal_epilog, .opts = opts,
	};

	if ((rc = mw_cli_options(&cmd, argc, argv, &first)) >= 0)
		return rc;
	if (first != argc) {
		fprintf(stderr, ME ": unexpected argument '%s'\n", argv[first]);
		mw_cli_usage(&cmd, stderr);
		return 2;
	}
	struct cal_opts o;
	cal_opts_defaults(&o, quick);
	if (s_flush)
		o.flush_bytes = (size_t)flush_kib * 1024;
	if (emit) {
		if (cal_emit((uint64_t)emit, slowdown / 100, (size_t)count, o.flush_bytes, put_line, NULL) < 0 ||
		    fflush(stdout) != 0) {
			fprintf(stderr, ME ": --emit: %s\n", strerror(errno));
			return 2;
		}
		return 0;
	}
	if (s_samples) o.samples = (size_t)samples;
	if (s_quant) o.search.q_lo = quant[0], o.search.q_hi = quant[1];
	if (s_tol) o.search.tol = tol / 100;
	if (s_thr) o.search.threshold_ns = thr;
	if (s_alpha) o.search.alpha = alpha;
	/* q follows the quantiles unless given: what the search lets through. */
	o.q = s_q ? q : o.search.q_lo + (1 - o.search.q_hi);
	if (s_growth) o.growth = growth;
	if (s_step) o.step = step / 100;
	if (s_steps) o.steps = (unsigned)steps;
	if (s_blocks) o.blocks = (unsigned)blocks;
	if (s_procs) o.procs = (unsigned)procs;
	o.fresh.run = fresh_emit;
	o.at = at;
	o.interleave = interleave;
	if (cal_opts_check(&o, err, sizeof(err)) < 0) {
		fprintf(stderr, ME ": %s\n", err);
		return 2;
	}
	/* A history that does not parse is refused before anything is
	 * measured, and left as it is. */
	struct cal_history h = {0};
	if (history && cal_history_load(history, &h, err, sizeof(err)) < 0) {
		fprintf(stderr, ME ": --history %s\n", err);
		return 2;
	}
	struct cal_result r;
	if (cal_run(&o, &r) < 0) {
		fprintf(stderr, ME ": %s\n", strerror(errno));
		return 2;
	}
	rc = r.high_precision ? 0 : 1;
	/* Read again: another calibration of the node may have ended during
	 * this one's 20 s (a boot's and a cron's), and its entry is kept. */
	if (history && cal_history_load(history, &h, err, sizeof(err)) < 0) {
		fprintf(stderr, ME ": --history %s: this calibration is judged alone and not kept\n", err);
		memset(&h, 0, sizeof(h));
		history = NULL;
		rc = 2;
	}
	/* Without --history the node is this calibration alone. */
	if (cal_history_apply(&h, &r, (int64_t)time(NULL)) < 0) {
		fprintf(stderr, ME ": --history: %s\n", strerror(errno));
		rc = 2;
	} else if (history && cal_history_save(history, &h, err, sizeof(err)) < 0) {
		fprintf(stderr, ME ": --history: %s: this calibration is not kept for the next\n", err);
		rc = 2;
	}
	if (json) {
		struct json_object *j = cal_report_json(&r);
		if (!j || puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
			rc = 2;
		json_object_put(j);
	} else if (cal_report_text(stdout, &r) < 0) {
		rc = 2;
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, ME ": write error: %s\n", strerror(errno));
		rc = 2;
	}
	cal_result_free(&r);
	return rc;
}

#define QUICK_FILE_BUDGET_S 2.0

int mw_cli_calibrate_quick_file(const char *path, char *err, size_t errlen)
{
	struct cal_opts o;
	struct cal_result r;
	struct json_object *j;
	const char *txt;
	int rc = -1;
	cal_opts_defaults(&o, 1);
	o.budget_s = QUICK_FILE_BUDGET_S;
	if (cal_run(&o, &r) < 0) {
		snprintf(err, errlen, "calibration: %s", strerror(errno));
		return -1;
	}
	j = cal_report_json(&r);
	txt = j ? json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE) : NULL;
	if (!txt)
		snprintf(err, errlen, "calibration: %s", strerror(ENOMEM));
	else if (mw_write_atomic(path, txt, strlen(txt), 0644, (uid_t)-1, (gid_t)-1) < 0)
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	else
		rc = 0;
	json_object_put(j);
	cal_result_free(&r);
	return rc;
}

MW_CLI_COMMAND(calibrate, "calibrate",
	       "measure the timers' cost and resolution (can this node see a slowdown?)",
	       run_calibrate)
