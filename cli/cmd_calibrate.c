/* cmd_calibrate.c - "mpiwatch calibrate": can this node tell a real slowdown
 * from timer noise? (calib/, doc/calibrate.md).  Exit status: 0 calibrated,
 * 1 the node cannot do high-precision detection, 2 usage or other error. */
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cal_calib.h"
#include "cal_report.h"
#include "cli.h"
#include "conf.h"

#define ME "mpiwatch calibrate"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: mpiwatch calibrate [--json] [--quick] [--samples N] [--quantiles LOW,HIGH]\n"
		"                          [--tolerance PCT] [--threshold NS] [--alpha A] [--q Q]\n"
		"                          [--growth G] [--step PCT] [--steps N] [--interleave]\n"
		"                          [--flush-kib K]\n"
		"       mpiwatch calibrate --emit ADDS [--count N] [--slowdown PCT] [--flush-kib K]\n\n"
		"Measure what this node's timers can resolve: the cost of the timers\n"
		"(rdtsc/rdtscp and clock_gettime), the shortest interval whose central\n"
		"quantiles (LOW,HIGH, default 5,95 %%) lie within +-PCT (default 5 %%) of the\n"
		"expected value on both clocks, the smallest difference of medians a\n"
		"Wilcoxon rank-sum test finds significant there (the resolution: rounds\n"
		"PCT longer each, default 0.25 %% x 40, 0.5 %% x 10 with --quick, measured one\n"
		"after the other, or sample by sample with --interleave), and the\n"
		"criterion 'mpiwatch analyze fluctuation' uses.  A node whose median\n"
		"passes the threshold (default 10000 ns) first cannot do high-precision\n"
		"detection.  --quick: fewer samples (40 instead of 200), a smaller cache\n"
		"flush, under 2 s.  --json: the result as JSON (doc/schemas/calibrate.schema.json)\n"
		"on standard output instead of text.  --emit prints COUNT (default 1000) raw wall\n"
		"intervals in ns of the workload of ADDS additions, PCT %% more with\n"
		"--slowdown: real timings for tests and benchmarks.\n"
		"Exit status: 0 calibrated, 1 no high-precision detection on this node,\n"
		"2 error.  See mpiwatch-calibrate(1) and doc/calibrate.md.\n");
}

static void put_line(double ns, void *arg)
{
	(void)arg;
	printf("%.0f\n", ns);
}

/* "LOW,HIGH" in percent -> fractions. */
static int parse_quantiles(const char *s, double *lo, double *hi)
{
	char buf[64], *comma;
	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	comma = strchr(buf, ',');
	if (!comma)
		return -1;
	*comma = 0;
	if (mw_conf_parse_double(buf, 0, 49.999, lo) < 0 ||
	    mw_conf_parse_double(comma + 1, 50.001, 100, hi) < 0)
		return -1;
	*lo /= 100;
	*hi /= 100;
	return 0;
}

static int run_calibrate(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},
		{"quick", no_argument, NULL, 'Q'},
		{"interleave", no_argument, NULL, 'I'},
		{"samples", required_argument, NULL, 'n'},
		{"quantiles", required_argument, NULL, 'u'},
		{"tolerance", required_argument, NULL, 't'},
		{"threshold", required_argument, NULL, 'T'},
		{"alpha", required_argument, NULL, 'a'},
		{"q", required_argument, NULL, 'q'},
		{"growth", required_argument, NULL, 'g'},
		{"step", required_argument, NULL, 's'},
		{"steps", required_argument, NULL, 'S'},
		{"flush-kib", required_argument, NULL, 'f'},
		{"emit", required_argument, NULL, 'e'},
		{"count", required_argument, NULL, 'c'},
		{"slowdown", required_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	/* Options are applied after the defaults, so --quick may come anywhere. */
	struct {
		int set;
		double v;
	} val[128];
	int json = 0, quick = 0, interleave = 0, ch, idx = 0;
	long emit = 0, count = 1000, l;
	double d, slowdown = 0;
	char err[256];
	memset(val, 0, sizeof(val));
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "h", longopts, &idx)) != -1) {
		const char *bad = NULL;
		switch (ch) {
		case 'j': json = 1; break;
		case 'Q': quick = 1; break;
		case 'I': interleave = 1; break;
		case 'h': usage(stdout); return 0;
		case 'u': {
			double lo, hi;
			if (parse_quantiles(optarg, &lo, &hi) < 0) {
				bad = "LOW,HIGH percentages with 0 <= LOW < 50 < HIGH <= 100";
				break;
			}
			val['u'].set = val['U'].set = 1;
			val['u'].v = lo;
			val['U'].v = hi;
			break;
		}
		case 'n':
			if (mw_conf_parse_long(optarg, 5, 100000, &l) < 0)
				bad = "a number in 5..100000";
			else
				val[ch].set = 1, val[ch].v = (double)l;
			break;
		case 'S':
			if (mw_conf_parse_long(optarg, 1, 200, &l) < 0)
				bad = "a number in 1..200";
			else
				val[ch].set = 1, val[ch].v = (double)l;
			break;
		case 'f':
			if (mw_conf_parse_long(optarg, 0, 1048576, &l) < 0)
				bad = "KiB in 0..1048576";
			else
				val[ch].set = 1, val[ch].v = (double)l;
			break;
		case 't':
		case 's':
			if (mw_conf_parse_double(optarg, 0.001, 50, &d) < 0)
				bad = "a percentage in 0.001..50";
			else
				val[ch].set = 1, val[ch].v = d / 100;
			break;
		case 'T':
			if (mw_conf_parse_double(optarg, 1, 1e9, &d) < 0)
				bad = "ns in 1..1e9";
			else
				val[ch].set = 1, val[ch].v = d;
			break;
		case 'a':
			if (mw_conf_parse_double(optarg, 1e-12, 0.499, &d) < 0)
				bad = "a probability in (0, 0.5)";
			else
				val[ch].set = 1, val[ch].v = d;
			break;
		case 'q':
			if (mw_conf_parse_double(optarg, 1e-6, 0.999, &d) < 0)
				bad = "a fraction in (0, 1)";
			else
				val[ch].set = 1, val[ch].v = d;
			break;
		case 'g':
			if (mw_conf_parse_double(optarg, 1.05, 4, &d) < 0)
				bad = "a factor in 1.05..4";
			else
				val[ch].set = 1, val[ch].v = d;
			break;
		case 'e':
			if (mw_conf_parse_long(optarg, CAL_GROUP, 1L << 30, &emit) < 0)
				bad = "a number of additions in 8..2^30";
			break;
		case 'c':
			if (mw_conf_parse_long(optarg, 1, 10000000, &count) < 0)
				bad = "a number in 1..10000000";
			break;
		case 'd':
			if (mw_conf_parse_double(optarg, 0, 1000, &slowdown) < 0)
				bad = "a percentage in 0..1000";
			break;
		default:
			fprintf(stderr, ME ": bad option '%s'\n", argv[optind - 1]);
			usage(stderr);
			return 2;
		}
		if (bad) {
			fprintf(stderr, ME ": --%s: '%s' is not %s\n", longopts[idx].name, optarg, bad);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, ME ": unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	struct cal_opts o;
	cal_opts_defaults(&o, quick);
	if (val['f'].set)
		o.flush_bytes = (size_t)val['f'].v * 1024;
	if (emit) {
		if (cal_emit((uint64_t)emit, slowdown / 100, (size_t)count, o.flush_bytes, put_line, NULL) < 0 ||
		    fflush(stdout) != 0) {
			fprintf(stderr, ME ": --emit: %s\n", strerror(errno));
			return 2;
		}
		return 0;
	}
	if (val['n'].set) o.samples = (size_t)val['n'].v;
	if (val['u'].set) o.search.q_lo = val['u'].v, o.search.q_hi = val['U'].v;
	if (val['t'].set) o.search.tol = val['t'].v;
	if (val['T'].set) o.search.threshold_ns = val['T'].v;
	if (val['a'].set) o.search.alpha = val['a'].v;
	/* q follows the quantiles unless given: what the search lets through. */
	o.q = val['q'].set ? val['q'].v : o.search.q_lo + (1 - o.search.q_hi);
	if (val['g'].set) o.growth = val['g'].v;
	if (val['s'].set) o.step = val['s'].v;
	if (val['S'].set) o.steps = (unsigned)val['S'].v;
	o.interleave = interleave;
	if (cal_opts_check(&o, err, sizeof(err)) < 0) {
		fprintf(stderr, ME ": %s\n", err);
		return 2;
	}
	struct cal_result r;
	if (cal_run(&o, &r) < 0) {
		fprintf(stderr, ME ": %s\n", strerror(errno));
		return 2;
	}
	int rc = r.high_precision ? 0 : 1;
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

MW_CLI_COMMAND(calibrate, "calibrate", "calibrate [--json] [--quick] [OPTIONS]",
	       "measure the timers' cost and resolution (can this node see a slowdown?)",
	       run_calibrate)
