/* Unit tests of the agent's watch of its ranks' slots (agent/agwatch.c),
 * on a fake clock: what a rank's slot, as the monitor writes it, makes the
 * agent tell.  The slots are real files in a temporary run directory,
 * written the way the monitor writes them (shared/mw_slot.h); the rank's pid
 * is this process, alive.  Issue 35: a rank left inside MPI_Init is told
 * once, as "in_init", after the timeout, never before, and never while it
 * has not even entered MPI_Init (a long start-up is no stall). */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agstate.h"
#include "log.h"
#include "unit.h"

static char dir[64];
static struct ag_opts opts;
static struct agent ag;
static struct mw_slot *w;

/* One rank (0 of 2) whose monitor made its slot at load: MW_STATE_INIT,
 * no MPI call yet; the job's timeout is 2 s. */
static void setup(void)
{
	char path[1100];
	mw_settings_reset();
	mw_unit_set(MW_SET_TIMEOUT, "2");
	snprintf(dir, sizeof dir, "/tmp/mwtest_agwatchXXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	memset(&opts, 0, sizeof opts);
	ag_opts_default(&opts);
	snprintf(opts.rundir, sizeof opts.rundir, "%s", dir);
	memset(&ag, 0, sizeof ag);
	ag.o = &opts;
	w = mw_slot_create(dir, 0, path, sizeof path);
	ck_assert_ptr_nonnull(w);
	w->world_rank = 0;
	w->world_size = 2;
	w->pid = getpid();
	w->start_ns = 1;
	w->timeout_s = 2;
	w->state = MW_STATE_INIT;
	snprintf(w->host, sizeof w->host, "n1");
	mw_slot_publish(w);
}

static void teardown(void)
{
	char cmd[128];
	ag_watch_free(&ag);
	mw_slot_unmap(w);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	mw_settings_reset();
}

/* The monitor's write of a new state (its seqlock: odd while writing). */
static void slot_state(int state, const char *call)
{
	w->seq++;
	w->state = (uint32_t)state;
	snprintf(w->call.name, sizeof w->call.name, "%s", call);
	w->seq++;
}

/* The rank, looked at while loaded (time 0), enters call (MPI_Init or
 * MPI_Init_thread) and is first seen inside it at time seen. */
static void enter_init(const char *call, double seen)
{
	ag_watch_look(&ag, 0);
	slot_state(MW_STATE_IN_MPI, call);
	ag_watch_look(&ag, seen);
}

static struct ag_rank *rank0(void)
{
	struct ag_rank *x = ag_rank_find(&ag, 0);
	ck_assert_ptr_nonnull(x);
	return x;
}

START_TEST(test_not_in_init_yet_is_never_told)
{
	/* loaded, not yet in MPI_Init: a slow start-up (a big job's module
	 * loads, a shared file system) is no stall, however long */
	for (double t = 0; t <= 60; t += 0.5)
		ag_watch_look(&ag, t);
	ck_assert_int_eq(rank0()->beat_state, 0);
	ck_assert_int_eq(rank0()->beat_unsent, 0);
}
END_TEST

START_TEST(test_in_init_told_once_after_the_timeout)
{
	struct ag_rank *x;
	enter_init("MPI_Init", 10);
	ag_watch_look(&ag, 11.5);
	x = rank0();
	ck_assert_msg(x->beat_state == 0 && !x->beat_unsent, "told after 1.5 s of a 2 s timeout");
	ag_watch_look(&ag, 12.1);
	ck_assert_int_eq(x->beat_state, MW_HB_S_IN_INIT);
	ck_assert_int_eq(x->beat_unsent, 1);
	ck_assert_int_eq(x->beat.state, MW_HB_S_IN_INIT);
	ck_assert_int_eq(x->beat.rank, 0);
	ck_assert_int_eq(x->beat.size, 2);
	ck_assert_int_eq(x->beat.pid, getpid());
	ck_assert_msg(x->beat.idle_s > 2.0 && x->beat.idle_s < 2.2, "idle %g s, not the 2.1 s in MPI_Init",
		      x->beat.idle_s);
	/* once: agent.c sends it and clears beat_unsent; no second one */
	x->beat_unsent = 0;
	for (double t = 12.5; t <= 40; t += 0.5)
		ag_watch_look(&ag, t);
	ck_assert_int_eq(x->beat_unsent, 0);
	ck_assert_int_eq(x->beat_state, MW_HB_S_IN_INIT);
}
END_TEST

START_TEST(test_init_thread_is_init_too)
{
	enter_init("MPI_Init_thread", 1);
	ag_watch_look(&ag, 3.5);
	ck_assert_int_eq(rank0()->beat_state, MW_HB_S_IN_INIT);
}
END_TEST

START_TEST(test_init_returns_resumed)
{
	struct ag_rank *x;
	enter_init("MPI_Init", 1);
	ag_watch_look(&ag, 4);
	x = rank0();
	ck_assert_int_eq(x->beat_state, MW_HB_S_IN_INIT);
	x->beat_unsent = 0;
	/* MPI_Init returned: the rank computes (no call yet) */
	slot_state(MW_STATE_COMPUTING, "");
	w->seq++;
	w->calls++;
	w->seq++;
	ag_watch_look(&ag, 4.5);
	ck_assert_int_eq(x->beat_unsent, 1);
	ck_assert_int_eq(x->beat.state, MW_HB_S_RESUMED);
	ck_assert_int_eq(x->beat_state, 0);
}
END_TEST

START_TEST(test_exit_inside_init_is_exited)
{
	/* a rank that ends inside MPI_Init (killed by a signal) is told
	 * exited, not left in_init: the collector names the others blocked */
	struct ag_rank *x;
	enter_init("MPI_Init", 0.5);
	ck_assert_int_eq(mw_slot_set_exit(w, 11), 0); /* wait status: killed by SIGSEGV */
	ag_watch_look(&ag, 1);
	x = rank0();
	ck_assert_int_eq(x->beat_state, MW_HB_S_EXITED);
	ck_assert_int_eq(x->beat.exit_signal, 11);
	ck_assert_int_eq(x->done, 1);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("agwatch");
	TCase *tc = tcase_create("in_init");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_not_in_init_yet_is_never_told);
	tcase_add_test(tc, test_in_init_told_once_after_the_timeout);
	tcase_add_test(tc, test_init_thread_is_init_too);
	tcase_add_test(tc, test_init_returns_resumed);
	tcase_add_test(tc, test_exit_inside_init_is_exited);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	mw_log_open("test_agwatch", MW_LOG_STDERR, LOG_WARNING);
	return mw_unit_run(suite());
}
