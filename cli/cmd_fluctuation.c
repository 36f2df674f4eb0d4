/* cmd_fluctuation.c - "mpiwatch analyze fluctuation A B": is the difference
 * between two sets of timings a real performance fluctuation, or timing
 * error?  (calib/cal_criterion.h, doc/calibrate.md).  Like cmp(1), the exit
 * status is 0 when it is not, 1 when it is, 2 on error. */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cal_calib.h"
#include "cal_criterion.h"
#include "cal_report.h"
#include "cal_timings.h"
#include "cli.h"
#include "conf.h"

#define ME "mpiwatch analyze fluctuation"

static const char fl_intro[] =
	"A and B hold timings, one non-negative number per line (ns, or cycles with\n"
	"--unit cycles; blank lines and '#' comments are skipped); A is the\n"
	"reference.  B differs from A by a real performance fluctuation when the\n"
	"Wilcoxon rank-sum test finds a difference (two-sided p < alpha, default\n"
	"0.01), the difference of medians exceeds the calibrated resolution R, and\n"
	"B's band moved: its lower edge Q(q/2), which timing error (at most a fraction\n"
	"q of the timings, default 0.1, and only ever slower) does not reach, lies\n"
	"beyond A's by more than R, the way the medians moved.  R is the larger of the calibrated resolution and\n"
	"the calibrated relative resolution times A's median.  The resolution, q and alpha\n"
	"come from --calibration FILE (mpiwatch calibrate --json), else from a quick\n"
	"calibration run now; --resolution, --q and --alpha override them.";

static const char fl_epilog[] =
	"Exit status: 0 not a real fluctuation, 1 a real fluctuation, 2 error.\n"
	"See mpiwatch-calibrate(1) and doc/calibrate.md.";

static const char *const fl_units[] = {"ns", "cycles", NULL};

static const char *method(const struct cal_test *t)
{
	if (t->exact)
		return "exact";
	return t->ties ? "normal approximation, tie and continuity corrected"
		       : "normal approximation, continuity corrected";
}

static struct json_object *jnum(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static struct json_object *side(const char *file, size_t n, double med)
{
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "file", json_object_new_string(file));
	json_object_object_add(o, "n", json_object_new_int64((int64_t)n));
	json_object_object_add(o, "median", jnum(med));
	return o;
}

static int run_fluctuation(int argc, char **argv)
{
	const char *calib = NULL, *unit, *source = "quick calibration at A's median";
	int json = 0, quiet = 0, cycles = 0, resolved = 1, unit_i = 0, first, rc;
	int set_res = 0, set_q = 0, set_alpha = 0, smallest = 0;
	double res = 0, q = 0, alpha = 0, lo = NAN, hi = NAN;
	unsigned blocks = 0;
	char err[512];
	const struct mw_cliopt opts[] = {
		{.name = "json", .kind = MW_CLIOPT_FLAG, .dst = &json,
		 .help = "the result as JSON (doc/schemas/fluctuation.schema.json)"},
		{.name = "unit", .kind = MW_CLIOPT_CHOICE, .dst = &unit_i, .choices = fl_units,
		 .arg = "ns|cycles", .help = "what the timings count (default ns)"},
		{.name = "calibration", .kind = MW_CLIOPT_STRING, .dst = &calib, .arg = "FILE",
		 .help = "the criterion from mpiwatch calibrate --json"},
		{.name = "resolution", .kind = MW_CLIOPT_DOUBLE, .dst = &res, .given = &set_res,
		 .arg = "X", .min = 0, .max = 1e18, .help = "the resolution R, in the unit"},
		{.name = "q", .kind = MW_CLIOPT_DOUBLE, .dst = &q, .given = &set_q, .arg = "Q",
		 .min = 1e-6, .max = 0.999, .unit = "a fraction", .help = "the band's quantiles q/2, 1-q/2"},
		{.name = "alpha", .kind = MW_CLIOPT_DOUBLE, .dst = &alpha, .given = &set_alpha,
		 .arg = "P", .min = 1e-12, .max = 0.499, .unit = "a probability",
		 .help = "the rank-sum test's significance level"},
		{.name = "quiet", .kind = MW_CLIOPT_FLAG, .dst = &quiet,
		 .help = "no text, only the exit status"},
		{.name = NULL},
	};
	const struct mw_cliopt_cmd cmd = {
		.prog = ME, .lead = "A B", .intro = fl_intro, .epilog = fl_epilog, .opts = opts,
	};

	if ((rc = mw_cli_options(&cmd, argc, argv, &first)) >= 0)
		return rc;
	unit = fl_units[unit_i];
	if (first != argc - 2) {
		fprintf(stderr, ME ": expected two timings files, A and B\n");
		mw_cli_usage(&cmd, stderr);
		return 2;
	}
	cycles = !strcmp(unit, "cycles");
	const char *fa = argv[first], *fb = argv[first + 1];
	double *a = NULL, *b = NULL;
	size_t na, nb;
	if (cal_timings_read(fa, &a, &na, err, sizeof(err)) < 0) {
		fprintf(stderr, ME ": %s\n", err);
		return 2;
	}
	if (cal_timings_read(fb, &b, &nb, err, sizeof(err)) < 0) {
		fprintf(stderr, ME ": %s\n", err);
		free(a);
		return 2;
	}

	struct cal_criterion c;
	cal_criterion_defaults(&c);
	rc = 2;
	if (calib) {
		if (cal_criterion_load(calib, cycles, &c, &resolved, err, sizeof(err)) < 0) {
			fprintf(stderr, ME ": %s\n", err);
			goto out;
		}
		source = calib;
	} else if (!set_res) {
		/* Calibrate at the scale of the data judged: the resolution at
		 * A's median, not at the node's shortest trustworthy interval
		 * (timer noise is absolute, drift relative: neither scales the
		 * other's way; doc/calibrate.md "Δ for timings of another length"). */
		struct cal_opts o;
		struct cal_result r;
		double med;
		if (cal_median(a, na, &med) < 0) {
			fprintf(stderr, ME ": %s\n", strerror(errno));
			goto out;
		}
		cal_opts_defaults(&o, 1);
		o.at = med > 0 ? med : 0;
		o.blocks = CAL_BLOCKS_AT_QUICK;
		o.at_cycles = cycles;
		if (cal_run(&o, &r) < 0) {
			fprintf(stderr, ME ": quick calibration: %s\n",
				errno == EINVAL && cycles ? "this node has no cycle counter: use --unit ns"
							  : strerror(errno));
			goto out;
		}
		if (cycles && !r.timer.have_cycles) {
			fprintf(stderr, ME ": this node has no cycle counter: use --unit ns\n");
			cal_result_free(&r);
			goto out;
		}
		const struct cal_resolution *rs = &r.resolution;
		c.resolution = cal_resolution_at_scale(rs, cycles, r.timer.step_ns);
		resolved = smallest = c.resolution > 0;
		c.relative = resolved ? 0 : cal_largest_step(&o);
		if (rs->blocks_found)
			lo = cycles ? rs->lo_cy : rs->lo_ns, hi = cycles ? rs->hi_cy : rs->hi_ns;
		blocks = rs->blocks;
		if (!o.at)
			source = "quick calibration";
		if (r.interval.found && o.at > 0 && med < (cycles ? r.interval.cy : r.interval.ns))
			fprintf(stderr, ME ": warning: A's median (%.6g %s) is below this node's shortest "
					"trustworthy interval (%.6g %s): timing error may dominate\n",
				med, unit, cycles ? r.interval.cy : r.interval.ns, unit);
		cal_result_free(&r);
	}
	if (set_res) {
		smallest = 0;
		c.resolution = res;
		c.relative = 0;
		resolved = 1;
		source = "--resolution";
	}
	if (set_q)
		c.q = q;
	if (set_alpha)
		c.alpha = alpha;
	if (!resolved)
		fprintf(stderr, ME ": warning: the calibration (%s) found no resolution: judging with the "
				"largest difference it tested, %.3g%% of A's median\n",
			source, c.relative * 100);

	struct cal_verdict v;
	if (cal_judge(a, na, b, nb, &c, &v) < 0) {
		fprintf(stderr, ME ": %s\n", strerror(errno));
		goto out;
	}
	rc = v.real ? 1 : 0;
	const char *dir = v.diff > 0 ? "slower" : v.diff < 0 ? "faster" : "same";
	if (json) {
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "version", json_object_new_int(1));
		json_object_object_add(o, "unit", json_object_new_string(unit));
		json_object_object_add(o, "a", side(fa, na, v.med_a));
		json_object_object_add(o, "b", side(fb, nb, v.med_b));
		json_object_object_add(o, "u", jnum(v.test.statistic));
		json_object_object_add(o, "rank_sum", jnum(v.test.rank_sum));
		json_object_object_add(o, "method", json_object_new_string(method(&v.test)));
		json_object_object_add(o, "ties", json_object_new_boolean(v.test.ties));
		json_object_object_add(o, "z", jnum(v.test.z));
		json_object_object_add(o, "p_two_sided", jnum(v.test.p_two_sided));
		json_object_object_add(o, "p_greater", jnum(v.test.p_greater));
		json_object_object_add(o, "p_less", jnum(v.test.p_less));
		json_object_object_add(o, "difference", jnum(v.diff));
		json_object_object_add(o, "relative", jnum(v.rel));
		json_object_object_add(o, "resolution", jnum(v.delta));
		json_object_object_add(o, "resolution_relative", jnum(c.relative));
		json_object_object_add(o, "resolution_from", json_object_new_string(source));
		json_object_object_add(o, "resolution_low", blocks ? jnum(lo) : NULL);
		json_object_object_add(o, "resolution_high", blocks ? jnum(hi) : NULL);
		json_object_object_add(o, "resolution_blocks", blocks ? json_object_new_int((int)blocks) : NULL);
		json_object_object_add(o, "resolved", json_object_new_boolean(resolved));
		json_object_object_add(o, "q", jnum(c.q));
		json_object_object_add(o, "alpha", jnum(c.alpha));
		struct json_object *band = json_object_new_array();
		json_object_array_add(band, jnum(v.band_lo));
		json_object_array_add(band, jnum(v.band_hi));
		json_object_object_add(o, "band", band);
		json_object_object_add(o, "outside", json_object_new_int64((int64_t)v.outside));
		json_object_object_add(o, "p_band", jnum(v.p_band));
		json_object_object_add(o, "edge_a", jnum(v.edge_a));
		json_object_object_add(o, "edge_b", jnum(v.edge_b));
		json_object_object_add(o, "significant", json_object_new_boolean(v.significant));
		json_object_object_add(o, "above_resolution", json_object_new_boolean(v.above_resolution));
		json_object_object_add(o, "beyond_band", json_object_new_boolean(v.beyond_band));
		json_object_object_add(o, "real", json_object_new_boolean(v.real));
		json_object_object_add(o, "direction", json_object_new_string(dir));
		if (puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
			rc = 2;
		json_object_put(o);
	} else if (!quiet) {
		printf("A: %s: %zu timings, median %.6g %s\n", fa, na, v.med_a, unit);
		printf("B: %s: %zu timings, median %.6g %s\n", fb, nb, v.med_b, unit);
		printf("rank-sum test: U = %.6g, p = %.3g two-sided (B greater: %.3g, B less: %.3g; %s)\n",
		       v.test.statistic, v.test.p_two_sided, v.test.p_greater, v.test.p_less, method(&v.test));
		printf("difference of medians: %+.6g %s (%+.2f%%); resolution %.6g %s", v.diff, unit,
		       v.rel * 100, v.delta, unit);
		if (blocks && isfinite(lo))
			printf(" (%.6g\xe2\x80\x93%.6g over %u blocks%s, %s)\n", lo, hi, blocks,
			       smallest ? ", the smallest block's" : "", source);
		else
			printf(" (%s)\n", source);
		printf("band of A: [%.6g, %.6g] %s (quantiles %g and %g, widened by the resolution); "
		       "%zu of B's %zu outside\n",
		       v.band_lo, v.band_hi, unit, c.q / 2, 1 - c.q / 2, v.outside, nb);
		printf("lower edge Q(%g): A %.6g, B %.6g %s (%+.6g, %s the resolution)\n", c.q / 2, v.edge_a, v.edge_b,
		       unit, v.edge_b - v.edge_a, v.beyond_band ? "beyond" : "within");
		if (v.real)
			printf("verdict: a real performance fluctuation: B is %s than A (%+.2f%%)\n", dir,
			       v.rel * 100);
		else
			printf("verdict: not a real performance fluctuation (%s)\n",
			       !v.significant ? "no significant difference"
			       : !v.above_resolution ? "the difference is below the resolution"
						     : "B's band did not move beyond the resolution: timing error");
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, ME ": write error: %s\n", strerror(errno));
		rc = 2;
	}
out:
	free(a);
	free(b);
	return rc;
}

MW_CLI_COMMAND(analyze_fluctuation, "analyze fluctuation",
	       "tell a real performance fluctuation from timing error", run_fluctuation)
