/* Unit tests for nodehealthd's calibration (nhd_calib.c): the degraded rule
 * on faked observations (backward steps, TSC and CLOCK_MONOTONIC rates that
 * disagree, noise above the bound), the job-step scan of a fake slurmd spool,
 * the health merge, and one real quick calibration. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cal_report.h"
#include "nhd_calib.h"
#include "probe.h"

static const struct {
	struct nhd_calib_obs obs;
	double max_noise, max_rate_diff;
	int degraded;
	const char *detail; /* substring */
} rule_cases[] = {
	/* healthy: constant TSC rate, resolution 0.4 % */
	{{0, 2.1, 2.1, 1, 0.004}, 0.05, 0.001, 0, "timers ok, resolution 0.4 %"},
	/* the faked untrustworthy timer: one backward step */
	{{1, 2.1, 2.1, 1, 0.004}, 0.05, 0.001, 1, "1 backward steps"},
	/* the TSC's rate against CLOCK_MONOTONIC changed by 1 % > 0.1 % */
	{{0, 2.0, 2.02, 1, 0.004}, 0.05, 0.001, 1, "rates disagree by 1 % > 0.1 %"},
	/* ... by 0.05 %: within the bound */
	{{0, 2.0, 2.001, 1, 0.004}, 0.05, 0.001, 0, "timers ok"},
	/* a rate before but none after: untrustworthy */
	{{0, 2.0, 0, 1, 0.004}, 0.05, 0.001, 1, "rates disagree"},
	/* no cycle counter (other architectures): the wall clock alone is fine */
	{{0, 0, 0, 1, 0.004}, 0.05, 0.001, 0, "timers ok"},
	/* noise: resolution 8 % > 5 % */
	{{0, 2.1, 2.1, 1, 0.08}, 0.05, 0.001, 1, "resolution 8 % > 5 %"},
	/* no trustworthy interval, no resolution */
	{{0, 2.1, 2.1, 0, -1}, 0.05, 0.001, 1, "no trustworthy interval"},
	{{0, 2.1, 2.1, 1, -1}, 0.05, 0.001, 1, "no slowdown resolved"},
	/* noise bound off (0): noisy is not degraded, untrustworthy still is */
	{{0, 2.1, 2.1, 0, -1}, 0, 0.001, 0, "no trustworthy interval (noise not bounded)"},
	{{0, 2.1, 2.1, 1, 0.5}, 0, 0.001, 0, "timers ok"},
	{{3, 2.1, 2.1, 1, 0.004}, 0, 0.001, 1, "3 backward steps"},
};

START_TEST(test_rule)
{
	struct nhd_conf c;
	char detail[120];
	double rd;
	ck_assert_int_eq(nhd_conf_defaults(&c), 0);
	c.calibrate_max_noise = rule_cases[_i].max_noise;
	c.calibrate_max_rate_diff = rule_cases[_i].max_rate_diff;
	ck_assert_int_eq(nhd_calib_judge(&rule_cases[_i].obs, &c, &rd, detail, sizeof(detail)),
			 rule_cases[_i].degraded);
	ck_assert_msg(strstr(detail, rule_cases[_i].detail), "case %d: '%s' lacks '%s'", _i, detail,
		      rule_cases[_i].detail);
	mw_conf_free(nhd_conf_keys, &c);
}
END_TEST

START_TEST(test_defaults)
{
	struct nhd_conf c;
	ck_assert_int_eq(nhd_conf_defaults(&c), 0);
	ck_assert_int_eq(c.calibrate, 1);
	ck_assert(c.calibrate_max_noise == 0.05);
	ck_assert(c.calibrate_max_rate_diff == 0.001);
	ck_assert_str_eq(c.slurmd_spool_dir, "/var/spool/slurmd");
	mw_conf_free(nhd_conf_keys, &c);
}
END_TEST

/* A step socket: a live one listens (its fd is returned, to close at the
 * end); a stale one, left by a killed slurmstepd, is bound and closed (-1). */
static int make_socket(const char *dir, const char *name, int live)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/%s", dir, name);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	if (live) {
		ck_assert_int_eq(listen(fd, 4), 0);
		return fd;
	}
	close(fd);
	return -1;
}

START_TEST(test_busy_steps)
{
	char dir[] = "/tmp/test_nhd_calib.XXXXXX", path[256];
	FILE *f;
	int fds[4];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(nhd_calib_busy_steps(dir, "n1"), 0);
	fds[0] = make_socket(dir, "n1_42.4294967292", 1); /* the extern step: no ranks */
	fds[1] = make_socket(dir, "n2_42.0", 1);          /* another node's (multiple slurmd) */
	ck_assert_int_eq(nhd_calib_busy_steps(dir, "n1"), 0);
	fds[2] = make_socket(dir, "n1_42.0", 1);
	fds[3] = make_socket(dir, "n1_43.4294967291", 1); /* a batch script */
	make_socket(dir, "n1_45.0", 0);                   /* a killed step's stale socket */
	snprintf(path, sizeof(path), "%s/n1_44.0", dir); /* not a socket */
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	ck_assert_int_eq(nhd_calib_busy_steps(dir, "n1"), 2);
	ck_assert_int_eq(nhd_calib_busy_steps(dir, "n2"), 1);
	ck_assert_int_eq(nhd_calib_busy_steps(dir, "n"), 0);
	for (int i = 0; i < 4; i++)
		close(fds[i]);
	ck_assert_int_eq(nhd_calib_busy_steps(dir, "n1"), 0); /* every step gone */
	for (const char *const *n = (const char *const[]){"n1_42.4294967292", "n2_42.0", "n1_42.0",
							   "n1_43.4294967291", "n1_44.0", "n1_45.0", NULL};
	     *n; n++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *n);
		unlink(path);
	}
	rmdir(dir);
	ck_assert_int_eq(nhd_calib_busy_steps(dir, "n1"), -1);
}
END_TEST

START_TEST(test_health_merge)
{
	struct nhd_health h;
	struct nhd_calib k;
	memset(&h, 0, sizeof(h));
	memset(&k, 0, sizeof(k));
	nhd_health_summarize(&h);
	nhd_calib_to_health(&k, &h); /* never ran: nothing added */
	ck_assert_int_eq(h.n, 0);
	k.ran = 1;
	k.degraded = 1;
	snprintf(k.detail, sizeof(k.detail), "timer untrustworthy: 1 backward steps");
	nhd_calib_to_health(&k, &h);
	ck_assert_int_eq(h.n, 1);
	ck_assert_str_eq(h.r[0].name, "calibration");
	ck_assert_int_eq(h.state, MW_PROBE_DEGRADED); /* soft: degraded, never dead */
	ck_assert_str_eq(h.summary, "timer untrustworthy: 1 backward steps");
}
END_TEST

START_TEST(test_real_quick_calibration)
{
	struct nhd_conf c;
	struct nhd_calib k;
	ck_assert_int_eq(nhd_conf_defaults(&c), 0);
	c.calibrate_max_noise = 0;     /* this shared machine's noise is not the point */
	c.calibrate_max_rate_diff = 1; /* nor a VM's TSC rate */
	memset(&k, 0, sizeof(k));
	ck_assert_int_eq(nhd_calib_run(&c, &k), 0);
	ck_assert_int_eq(k.ran, 1);
	ck_assert_int_eq((int)k.gen, 1);
	ck_assert_int_eq((int)k.obs.backward_steps, 0);
	ck_assert_int_eq(k.degraded, 0);
	ck_assert_msg(!strncmp(k.detail, "timers ok", 9), "%s", k.detail);
	ck_assert(k.seconds > 0 && k.cpu_seconds > 0);
	mw_conf_free(nhd_conf_keys, &c);
}
END_TEST

/* One rule for the resolution (issue 32): what nodehealthd sends in its
 * probe reply (k.resolution_ns, the job's flag judges with it) is what the
 * calibration file's criterion judges with (criterion.resolution_ns of
 * `mpiwatch calibrate --json`): the upper end of the spread over blocks, not
 * the median block's.  A synthetic result: median block 20 ns, spread
 * 10-50 ns over 5 blocks, at R0 = 4000 ns. */
START_TEST(test_take_resolution)
{
	struct nhd_conf c;
	struct nhd_calib k;
	struct cal_result r;
	struct json_object *j, *crit, *x;
	ck_assert_int_eq(nhd_conf_defaults(&c), 0);
	memset(&k, 0, sizeof(k));
	memset(&r, 0, sizeof(r));
	cal_opts_defaults(&r.opts, 1);
	struct cal_round_stat st = {.adds = 12000, .exp_ns = 4000, .med_ns = 4000, .pass_ns = 1, .pass_cy = 1};
	r.rounds = &st;
	r.nrounds = 1;
	r.interval.found = 1;
	r.interval.ns = 4000;
	r.high_precision = 1;
	r.timer.invariant_how = "none";
	r.base_adds = 12000;
	r.step_adds = 32;
	r.resolution.found = 1;
	r.resolution.d_ns = 20;
	r.resolution.rel = 20.0 / 4000;
	r.resolution.blocks = 5;
	r.resolution.blocks_found = 5;
	r.resolution.lo_ns = 10;
	r.resolution.hi_ns = 50;
	r.resolution.hi2_ns = 40; /* five blocks resolved: one may be a burst's */
	r.node = r.resolution;    /* as cal_run sets it: the node is this calibration */
	r.node_calibrations = 1;
	nhd_calib_take(&c, &k, &r, 0, 0);
	j = cal_report_json(&r);
	ck_assert_ptr_nonnull(j);
	ck_assert(json_object_object_get_ex(j, "criterion", &crit));
	ck_assert(json_object_object_get_ex(crit, "resolution_ns", &x));
	ck_assert_msg(k.resolution_ns == json_object_get_double(x),
		      "probe reply %g ns, calibration file's criterion %g ns", k.resolution_ns,
		      json_object_get_double(x));
	ck_assert(k.resolution_ns == 40);
	/* The degraded rule's noise is the same resolution relative to R0. */
	ck_assert(json_object_object_get_ex(crit, "resolution_relative", &x));
	ck_assert_msg(k.obs.noise == json_object_get_double(x), "noise %g, criterion %g", k.obs.noise,
		      json_object_get_double(x));
	json_object_put(j);
	mw_conf_free(nhd_conf_keys, &c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nhd_calib");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_rule, 0, sizeof(rule_cases) / sizeof(rule_cases[0]));
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_busy_steps);
	tcase_add_test(tc, test_health_merge);
	tcase_add_test(tc, test_take_resolution);
	tcase_add_test(tc, test_real_quick_calibration);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
