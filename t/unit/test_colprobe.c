/* Unit tests of the collector's probe round (collector/colprobe.c) on a
 * real event loop: what the round asks of the outside world (Slurm about a
 * node up without nodehealthd, names to resolve) must not block the loop.
 * The probes are the test's (struct col_env); Slurm is a fake sinfo found
 * by PATH (shared/slurm.c's mw_slurm_prog), which either answers or never
 * does.  Nothing asserts a duration. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <uv.h>

#include "colctx.h"
#include "colprobe.h"
#include "colresolve.h"
#include "coltree.h"
#include "log.h"
#include "mwt_plan.h"
#include "probe_responder.h"
#include "unit.h"

#define NNODES 3

static enum mw_probe_state answer[NNODES]; /* each node's probe answer: n1..n3 */
static struct col_opts O;
static struct collector C;
static uv_loop_t L;
static char dir[] = "/tmp/test_colprobe.XXXXXX";

static void f_probe(void *arg, const char *const *names, size_t n, struct mw_probe_result *out)
{
	(void)arg;
	for (size_t i = 0; i < n; i++) {
		int k = atoi(names[i] + 1) - 1; /* "nK" */
		memset(&out[i], 0, sizeof out[i]);
		out[i].state = k >= 0 && k < NNODES ? answer[k] : MW_PROBE_DEAD;
		out[i].tries = 1;
	}
}

/* Our fake sinfo: body is the shell script's body. */
static void fake_sinfo(const char *body)
{
	char p[256], text[1024];
	snprintf(text, sizeof text, "#!/bin/sh\n%s\n", body);
	mw_unit_put(dir, "sinfo", text);
	snprintf(p, sizeof p, "%s/sinfo", dir);
	ck_assert_int_eq(chmod(p, 0755), 0);
}

/* A job on n1..n3; n3 answers the probe without nodehealthd. */
static void setup(void)
{
	struct col_env env = {.probe = f_probe};
	const char *old = getenv("PATH");
	char path[8192];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	/* our folder first: sinfo is ours (each test runs in its own process) */
	snprintf(path, sizeof path, "%s:%s", dir, old ? old : "/usr/bin:/bin");
	setenv("PATH", path, 1);
	for (int i = 0; i < NNODES; i++)
		answer[i] = MW_PROBE_ALIVE;
	answer[2] = MW_PROBE_NODAEMON;
	col_opts_default(&O);
	snprintf(O.job, sizeof O.job, "4242");
	snprintf(O.nodes, sizeof O.nodes, "n[1-3]");
	mw_settings_reset();
	mw_unit_set(MW_SET_DIR, dir);
	mw_unit_set(MW_SET_JOB_CHECK, "0");
	ck_assert_int_eq(col_ctx_init(&C, &O, &env), 0);
	ck_assert_int_eq(uv_loop_init(&L), 0);
	C.loop = &L;
}

static void teardown(void)
{
	char cmd[128];
	col_ctx_free(&C);
	uv_run(&L, UV_RUN_DEFAULT); /* what was killed ends, its handles close */
	ck_assert_int_eq(uv_loop_close(&L), 0);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(dir, sizeof dir, "/tmp/test_colprobe.XXXXXX");
}

static int ticks;
static void on_tick(uv_timer_t *t)
{
	if (++ticks >= 3)
		uv_timer_stop(t);
}

START_TEST(test_slurm_silent_loop_serves)
{
	/* Slurm never answers about n3: the round waits for it on the loop,
	 * and the loop goes on serving (a timer's three ticks come). */
	static uv_timer_t t; /* closed by the teardown's loop run */
	fake_sinfo("exec sleep 600");
	ck_assert_int_eq(col_probe_own_ready(&C), 0);
	ck_assert_int_eq(uv_timer_init(&L, &t), 0);
	ck_assert_int_eq(uv_timer_start(&t, on_tick, 1, 1), 0);
	ticks = 0;
	while (ticks < 3)
		uv_run(&L, UV_RUN_ONCE);
	ck_assert_int_eq(col_probe_own_ready(&C), 0); /* still waiting for Slurm */
	ck_assert_int_eq(C.s.nodes[2].probed, 0);
	uv_close((uv_handle_t *)&t, NULL);
}
END_TEST

START_TEST(test_slurm_answer_judges)
{
	/* Slurm's answer, when it comes, judges n3: down by Slurm, dead. */
	fake_sinfo("echo '{\"nodes\":[{\"name\":\"n3\",\"state\":\"down\"},{\"name\":\"n1\",\"state\":\"idle\"}]}'");
	while (!col_probe_own_ready(&C))
		uv_run(&L, UV_RUN_ONCE);
	ck_assert_int_eq(C.s.nodes[0].state, MW_PROBE_ALIVE);
	ck_assert_int_eq(C.s.nodes[2].state, MW_PROBE_DEAD);
	ck_assert_ptr_nonnull(strstr(C.s.nodes[2].summary, "Slurm says the node is DOWN"));
}
END_TEST

START_TEST(test_slurm_up_nodaemon)
{
	/* Slurm says n3 is up: up without nodehealthd, not dead. */
	fake_sinfo("echo '{\"nodes\":[{\"name\":\"n3\",\"state\":\"idle\"}]}'");
	while (!col_probe_own_ready(&C))
		uv_run(&L, UV_RUN_ONCE);
	ck_assert_int_eq(C.s.nodes[2].state, MW_PROBE_NODAEMON);
}
END_TEST

START_TEST(test_final_waits_for_slurm)
{
	/* The last evaluation (shutdown) waits for Slurm's answer in one call. */
	fake_sinfo("echo '{\"nodes\":[{\"name\":\"n3\",\"state\":\"down\"}]}'");
	C.final_eval = 1;
	ck_assert_int_eq(col_probe_own_ready(&C), 1);
	ck_assert_int_eq(C.s.nodes[2].state, MW_PROBE_DEAD);
}
END_TEST

START_TEST(test_no_nodaemon_no_slurm)
{
	/* Every node answers with nodehealthd: Slurm is not asked (a sinfo
	 * that would never answer is never started). */
	answer[2] = MW_PROBE_ALIVE;
	fake_sinfo("exec sleep 600");
	ck_assert_int_eq(col_probe_own_ready(&C), 1);
	ck_assert_int_eq(C.s.nodes[2].state, MW_PROBE_ALIVE);
}
END_TEST

/* A job on localhost and a name that does not resolve, probed by UDP
 * (no agent attached: no address known, the names are looked up). */
static void setup_udp(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	col_opts_default(&O);
	snprintf(O.job, sizeof O.job, "4243");
	snprintf(O.nodes, sizeof O.nodes, "localhost,nosuch.invalid");
	mw_settings_reset();
	mw_unit_set(MW_SET_DIR, dir);
	mw_unit_set(MW_SET_JOB_CHECK, "0");
	mw_unit_set(MW_SET_PROBE_PORT, "9"); /* discard: nobody answers */
	mw_unit_set(MW_SET_PROBE_TRIES, "1");
	mw_unit_set(MW_SET_PROBE_BUDGET, "0.2");
	ck_assert_int_eq(col_ctx_init(&C, &O, NULL), 0);
	ck_assert_int_eq((int)C.s.nnodes, 2);
	ck_assert_int_eq(uv_loop_init(&L), 0);
	C.loop = &L;
}

START_TEST(test_names_looked_up_on_loop)
{
	/* The round begins with the names being looked up on the loop's pool,
	 * not in line; then the round probes the address found, and a name
	 * that does not resolve says so. */
	ck_assert_int_eq(col_probe_own_ready(&C), 0);
	ck_assert_ptr_null(C.pr.round);
	ck_assert_int_eq(col_resolve_busy(C.pr.resolve), 1);
	while (!col_probe_own_ready(&C))
		uv_run(&L, UV_RUN_ONCE);
	ck_assert_str_eq(C.s.nodes[0].addr, "127.0.0.1");
	ck_assert_int_eq(C.s.nodes[1].state, MW_PROBE_ERROR);
	ck_assert_ptr_nonnull(strstr(C.s.nodes[1].summary, "cannot resolve 'nosuch.invalid'"));
}
END_TEST

START_TEST(test_no_loop_no_blocking_round)
{
	/* Without a loop (and no env.probe) no blocking round is made in line
	 * (that one is the CLI's): the call returns at once, each node told
	 * a local error. */
	C.loop = NULL;
	ck_assert_int_eq(col_probe_own_ready(&C), 1);
	C.loop = &L;
	ck_assert_int_eq(C.s.nodes[0].state, MW_PROBE_ERROR);
	ck_assert_ptr_nonnull(strstr(C.s.nodes[0].summary, "local error"));
}
END_TEST

START_TEST(test_names_final)
{
	/* At the last evaluation the look-ups and the round end in one call. */
	C.final_eval = 1;
	ck_assert_int_eq(col_probe_own_ready(&C), 1);
	ck_assert_str_eq(C.s.nodes[0].addr, "127.0.0.1");
}
END_TEST

START_TEST(test_names_freed_under_way)
{
	/* The round freed while the names are looked up: nothing is left. */
	ck_assert_int_eq(col_probe_own_ready(&C), 0);
	col_probe_free(&C.pr);
	ck_assert_ptr_null(C.pr.resolve);
}
END_TEST

/* tree_strategy=fuzzy: the start-up probe runs on the loop.  Three nodes
 * (tree forced on: threshold 2, one CP); only the last one's nodehealthd
 * answers (on this loop, at 127.0.0.3), with its factors; the others'
 * ports are closed.  The probe is under way after the start (no tree yet)
 * while the loop serves a timer; when it is over the tree is planned with
 * the replies: the one CP goes to the node that answered (the average
 * placement would put it on the first), and the caller is told. */
static int planned;
static void on_planned(void *arg)
{
	ck_assert_ptr_eq(arg, &C);
	planned++;
}

START_TEST(test_fuzzy_startup_on_loop)
{
	static const struct mw_probe_factors f = {.load = 0.1, .mem_free_mb = 8000, .cores = 4};
	static uv_timer_t t;
	static struct probe_responder r; /* closed by the teardown's loop run */

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(uv_loop_init(&L), 0);
	probe_responder_start(&L, &r, "127.0.0.3", &f, NULL);
	col_opts_default(&O);
	snprintf(O.job, sizeof O.job, "4244");
	snprintf(O.nodes, sizeof O.nodes, "127.0.0.1,127.0.0.2,127.0.0.3");
	mw_settings_reset();
	mw_unit_set(MW_SET_DIR, dir);
	mw_unit_set(MW_SET_JOB_CHECK, "0");
	{
		char port[16];
		snprintf(port, sizeof port, "%d", r.port);
		mw_unit_set(MW_SET_PROBE_PORT, port);
	}
	mw_unit_set(MW_SET_PROBE_TRIES, "2");
	mw_unit_set(MW_SET_PROBE_BUDGET, "1");
	mw_unit_set(MW_SET_TREE_THRESHOLD, "2");
	mw_unit_set(MW_SET_TREE_FANOUT, "2");
	mw_unit_set(MW_SET_TREE_CPS, "1");
	mw_unit_set(MW_SET_TREE_STRATEGY, "fuzzy");
	ck_assert_int_eq(col_ctx_init(&C, &O, NULL), 0);
	C.loop = &L;
	ck_assert_ptr_null(C.tree); /* planned after the probe */
	planned = 0;
	ck_assert_int_eq(col_probe_fuzzy_start(&C, on_planned, &C), 1);
	ck_assert_ptr_null(C.tree);
	ck_assert_int_eq(uv_timer_init(&L, &t), 0);
	/* due at once: the loop's first turn serves it before any I/O, whether
	 * or not the answer beats a 1 ms timer (with 1 ms, 'ticks >= 1' failed
	 * in 6 of 20 runs) */
	ck_assert_int_eq(uv_timer_start(&t, on_tick, 0, 1), 0);
	ticks = 0;
	while (!planned)
		uv_run(&L, UV_RUN_ONCE);
	ck_assert_int_eq(planned, 1);
	ck_assert_int_ge(ticks, 1); /* the loop served its timer meanwhile */
	ck_assert_int_ge(r.probes, 1);
	ck_assert_ptr_nonnull(C.tree);
	ck_assert_ptr_eq(C.s.tree, C.tree);
	ck_assert(col_tree_is_cp(C.tree, 2));
	ck_assert(!col_tree_is_cp(C.tree, 0) && !col_tree_is_cp(C.tree, 1));
	ck_assert_ptr_null(C.fuzzy);
	/* once planned, there is nothing more to probe */
	ck_assert_int_eq(col_probe_fuzzy_start(&C, on_planned, &C), 0);
	uv_close((uv_handle_t *)&t, NULL);
	probe_responder_stop(&r);
}
END_TEST

/* The collector stops during the start-up probe: it is given up, nothing
 * is left on the loop, the tree is never planned. */
START_TEST(test_fuzzy_startup_given_up)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(uv_loop_init(&L), 0);
	col_opts_default(&O);
	snprintf(O.job, sizeof O.job, "4245");
	snprintf(O.nodes, sizeof O.nodes, "localhost,nosuch.invalid,127.0.0.2");
	mw_settings_reset();
	mw_unit_set(MW_SET_DIR, dir);
	mw_unit_set(MW_SET_JOB_CHECK, "0");
	mw_unit_set(MW_SET_PROBE_PORT, "9");
	mw_unit_set(MW_SET_TREE_THRESHOLD, "2");
	mw_unit_set(MW_SET_TREE_STRATEGY, "fuzzy");
	ck_assert_int_eq(col_ctx_init(&C, &O, NULL), 0);
	C.loop = &L;
	planned = 0;
	ck_assert_int_eq(col_probe_fuzzy_start(&C, on_planned, &C), 1);
	col_probe_fuzzy_free(&C);
	ck_assert_ptr_null(C.fuzzy);
	uv_run(&L, UV_RUN_DEFAULT); /* returns: nothing left running */
	ck_assert_int_eq(planned, 0);
	ck_assert_ptr_null(C.tree);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("colprobe");
	TCase *tc = tcase_create("round");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_slurm_silent_loop_serves);
	tcase_add_test(tc, test_slurm_answer_judges);
	tcase_add_test(tc, test_slurm_up_nodaemon);
	tcase_add_test(tc, test_final_waits_for_slurm);
	tcase_add_test(tc, test_no_nodaemon_no_slurm);
	suite_add_tcase(s, tc);
	tc = tcase_create("names");
	/* nosuch.invalid is asked of DNS: a lost query costs the resolver's 5 s
	 * retry (1 run in about 15 here), above Check's 4 s default */
	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, setup_udp, teardown);
	tcase_add_test(tc, test_names_looked_up_on_loop);
	tcase_add_test(tc, test_names_final);
	tcase_add_test(tc, test_no_loop_no_blocking_round);
	tcase_add_test(tc, test_names_freed_under_way);
	suite_add_tcase(s, tc);
	tc = tcase_create("fuzzy");
	tcase_set_timeout(tc, 30); /* nosuch.invalid again (see names) */
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_fuzzy_startup_on_loop);
	tcase_add_test(tc, test_fuzzy_startup_given_up);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	mw_log_open("test_colprobe", MW_LOG_STDERR, LOG_ERR);
	return mw_unit_run(suite());
}
