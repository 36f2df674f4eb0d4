/* Unit tests of collector/nodecal.c (issue 32): the job's nodes'
 * calibrations for the compute-phase flag.  From the probe (the test's,
 * struct col_env): a node whose reply carried the calibration block gets
 * its figures, a node without one (an older daemon, no calibration yet)
 * or dead is left out; with --calibration FILE, that file's figures stand
 * for every node (one entry, node ""), and a file that is not a
 * calibration leaves the flag its fixed criterion.  Without a test's probe,
 * the probe at the job's end runs on the collector's event loop: a node's
 * nodehealthd answering on that same loop (probe_responder.h) is heard,
 * which a round that blocked the loop would not. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "colctx.h"
#include "imb_phases.h"
#include "nodecal.h"
#include "probe_responder.h"
#include "unit.h"

static struct col_opts O;
static struct collector C;
static int rounds;

/* n1: calibrated (2295 ns, 25 ns), n2: answers without a block, n3: dead. */
static void f_probe(void *arg, const char *const *names, size_t n, struct mw_probe_result *out)
{
	(void)arg;
	rounds++;
	for (size_t i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof out[i]);
		out[i].state = strcmp(names[i], "n3") ? MW_PROBE_ALIVE : MW_PROBE_DEAD;
		if (!strcmp(names[i], "n1")) {
			out[i].has_calib = 1;
			out[i].cal.interval_ns = 2295;
			out[i].cal.resolution_ns = 25;
		}
	}
}

static void setup(void)
{
	struct col_env env = {.probe = f_probe};
	rounds = 0;
	col_opts_default(&O);
	snprintf(O.job, sizeof O.job, "4242");
	snprintf(O.nodes, sizeof O.nodes, "n[1-3]");
	O.ranks = 3;
	mw_settings_reset();
	mw_unit_set(MW_SET_JOB_CHECK, "0");
	ck_assert_int_eq(col_ctx_init(&C, &O, &env), 0);
	ck_assert_int_eq((int)C.s.nnodes, 3);
}

static void teardown(void)
{
	col_ctx_free(&C);
}

START_TEST(test_from_probe)
{
	struct imb_nodecal *t;
	size_t n;
	ck_assert_int_eq(col_nodecal_get(&C, &t, &n), 0);
	ck_assert_int_eq(rounds, 1);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(t[0].node, "n1");
	ck_assert(t[0].interval_ns == 2295 && t[0].resolution_ns == 25 && !t[0].degraded);
	free(t);
}
END_TEST

START_TEST(test_of_probe)
{
	struct mw_probe_result r;
	struct imb_nodecal k;
	memset(&r, 0, sizeof r);
	r.state = MW_PROBE_DEGRADED;
	r.has_calib = 1;
	r.cal.degraded = 1;
	ck_assert_int_eq(col_nodecal_of_probe("n7", &r, &k), 1);
	ck_assert_str_eq(k.node, "n7");
	ck_assert_int_eq(k.degraded, 1);
	r.state = MW_PROBE_DEAD; /* a dead node's old figures are not taken */
	ck_assert_int_eq(col_nodecal_of_probe("n7", &r, &k), 0);
}
END_TEST

START_TEST(test_from_file)
{
	char path[] = "/tmp/test_nodecal.XXXXXX";
	int fd = mkstemp(path);
	const char *cal = "{\"version\": 1, \"interval\": {\"found\": true, \"ns\": 3500.5},"
			  " \"criterion\": {\"q\": 0.1, \"alpha\": 0.01, \"resolution_ns\": 40,"
			  " \"resolution_cy\": null, \"resolution_relative\": 0.011}}";
	struct imb_nodecal *t;
	size_t n;
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, cal, strlen(cal)), (int)strlen(cal));
	close(fd);
	snprintf(O.calibration, sizeof O.calibration, "%s", path);
	ck_assert_int_eq(col_nodecal_get(&C, &t, &n), 0);
	ck_assert_int_eq(rounds, 0); /* no probe */
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(t[0].node, "");
	ck_assert(t[0].interval_ns == 3500.5 && t[0].resolution_ns == 40);
	free(t);
	/* not a calibration: none, the fixed criterion */
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_eq(write(fd, "{}", 2), 2);
	close(fd);
	ck_assert_int_eq(col_nodecal_get(&C, &t, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(t);
	unlink(path);
}
END_TEST

/* n1's nodehealthd answers on the collector's loop (127.0.0.1) with its
 * calibration; nothing listens on n2's address (127.0.0.2): the port is
 * closed. */
START_TEST(test_on_the_loop)
{
	static const struct mw_probe_calib cal = {.interval_ns = 1800, .resolution_ns = 30};
	struct col_opts o;
	struct collector c;
	struct probe_responder r;
	struct imb_nodecal *t;
	uv_loop_t loop;
	size_t n;

	memset(&c, 0, sizeof c);
	col_opts_default(&o);
	snprintf(o.job, sizeof o.job, "4242");
	snprintf(o.nodes, sizeof o.nodes, "n[1-2]");
	o.ranks = 2;
	mw_settings_reset();
	mw_unit_set(MW_SET_JOB_CHECK, "0");
	mw_unit_set(MW_SET_PROBE_BUDGET, "2"); /* at most NODECAL_BUDGET_S (1 s) is used */
	ck_assert_int_eq(uv_loop_init(&loop), 0);
	probe_responder_start(&loop, &r, "127.0.0.1", NULL, &cal);
	{
		char port[16];
		snprintf(port, sizeof port, "%d", r.port);
		mw_unit_set(MW_SET_PROBE_PORT, port);
	}
	ck_assert_int_eq(col_ctx_init(&c, &o, NULL), 0);
	c.loop = &loop;
	snprintf(c.s.agents[0].addr, sizeof c.s.agents[0].addr, "127.0.0.1");
	snprintf(c.s.agents[1].addr, sizeof c.s.agents[1].addr, "127.0.0.2");
	ck_assert_int_eq(col_nodecal_get(&c, &t, &n), 0);
	ck_assert_int_ge(r.probes, 1);
	ck_assert_uint_eq(n, 1); /* n1's, heard on the loop */
	ck_assert_str_eq(t[0].node, "n1");
	ck_assert(t[0].interval_ns == 1800 && t[0].resolution_ns == 30);
	free(t);
	probe_responder_stop(&r);
	col_ctx_free(&c);
	uv_run(&loop, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nodecal");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_from_probe);
	tcase_add_test(tc, test_of_probe);
	tcase_add_test(tc, test_from_file);
	suite_add_tcase(s, tc);
	tc = tcase_create("loop");
	tcase_add_test(tc, test_on_the_loop);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
