/* test_monitor_stall.c - the watcher's stall rule (seed 002 counters A/B and
 * the polling rule) and the timeout from the settings file (the monitor's
 * only source). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mwm.h"
#include "ops.h"
#include "runtime.h"
#include "stall.h"

#define S 1000000000ull

/* One observation of a slot, as the watcher and the agent make it. */
struct obs {
	uint64_t t;         /* clock, ns */
	uint32_t state;
	uint64_t a, b;
	int blocking;
	uint32_t kind;
	uint64_t calls, completions, tests, motion;
	uint32_t pending;
	int expect;         /* enum mw_stall_class */
	int dump;           /* the watcher dumps: 0 no, 1 stuck, 2 polling */
};

#define F MW_STALL_FINE
#define ST MW_STALL_STUCK
#define PO MW_STALL_POLLING
#define SL MW_STALL_SLOW
#define CO MW_STALL_COMPUTING
#define IN MW_STATE_IN_MPI
#define OUT MW_STATE_COMPUTING

/* The stall-rule table: both the watcher (mwm_stall_check, which dumps) and
 * the agent (mw_stall_rule, which sends heartbeats) run every case, so they
 * cannot disagree on stuck, polling, slow or computing. */
static const struct {
	const char *name;
	double timeout;
	struct obs o[8];
	int n;
} cases[] = {
	{"blocked past timeout", 2.0,
	 {{1 * S, IN, 5, 4, 1, MW_KIND_RECV, 9, 4, 0, 0, 0, F, 0},
	  {2 * S, IN, 5, 4, 1, MW_KIND_RECV, 9, 4, 0, 0, 0, F, 0},
	  {3 * S + 1, IN, 5, 4, 1, MW_KIND_RECV, 9, 4, 0, 0, 0, ST, 1},
	  {4 * S, IN, 5, 4, 1, MW_KIND_RECV, 9, 4, 0, 0, 0, ST, 0}}, 4},
	{"returned in time", 2.0,
	 {{1 * S, IN, 5, 4, 1, MW_KIND_RECV, 9, 4, 0, 0, 0, F, 0},
	  {2 * S, OUT, 5, 5, 1, MW_KIND_RECV, 9, 5, 0, 0, 0, F, 0},
	  {2 * S + S / 2, OUT, 5, 5, 1, MW_KIND_RECV, 9, 5, 0, 0, 0, F, 0}}, 3},
	{"computing for long", 1.0,
	 {{1 * S, OUT, 3, 3, 1, MW_KIND_SEND, 7, 3, 0, 0, 0, F, 0},
	  {5 * S, OUT, 3, 3, 1, MW_KIND_SEND, 7, 3, 0, 0, 0, CO, 0},
	  {50 * S, OUT, 3, 3, 1, MW_KIND_SEND, 7, 3, 0, 0, 0, CO, 0}}, 3},
	{"progress between ticks", 1.0,
	 {{1 * S, IN, 5, 4, 1, MW_KIND_RECV, 9, 4, 0, 0, 0, F, 0},
	  {3 * S, IN, 6, 5, 1, MW_KIND_RECV, 10, 5, 0, 0, 0, F, 0},
	  {3 * S + S / 2, IN, 7, 6, 1, MW_KIND_RECV, 11, 6, 0, 0, 0, F, 0}}, 3},
	/* computing counts from the return of the blocking call (seen at 3 s),
	 * not from its start: at 3 s the rank has just left MPI */
	{"stuck twice, entered after a long computation", 1.0,
	 {{1 * S, IN, 2, 1, 1, MW_KIND_COLLECTIVE, 3, 1, 0, 0, 0, F, 0},
	  {2 * S, IN, 2, 1, 1, MW_KIND_COLLECTIVE, 3, 1, 0, 0, 0, ST, 1},
	  {3 * S, OUT, 2, 2, 1, MW_KIND_COLLECTIVE, 3, 2, 0, 0, 0, F, 0},
	  {3 * S + S / 2, OUT, 2, 2, 1, MW_KIND_COLLECTIVE, 3, 2, 0, 0, 0, F, 0},
	  {4 * S, OUT, 2, 2, 1, MW_KIND_COLLECTIVE, 3, 2, 0, 0, 0, CO, 0},
	  {9 * S, IN, 3, 2, 1, MW_KIND_COLLECTIVE, 4, 2, 0, 0, 0, F, 0},
	  {9 * S + S / 2, IN, 3, 2, 1, MW_KIND_COLLECTIVE, 4, 2, 0, 0, 0, F, 0},
	  {10 * S, IN, 3, 2, 1, MW_KIND_COLLECTIVE, 4, 2, 0, 0, 0, ST, 1}}, 8},
	{"polling without completion", 1.0,
	 {{1 * S, OUT, 1, 1, 0, MW_KIND_TEST, 20, 1, 10, 0, 1, F, 0},
	  {1 * S + S / 2, IN, 1, 1, 0, MW_KIND_TEST, 500, 1, 500, 0, 1, F, 0},
	  {2 * S + 1, OUT, 1, 1, 0, MW_KIND_TEST, 900, 1, 900, 0, 1, PO, 2},
	  {3 * S, OUT, 1, 1, 0, MW_KIND_TEST, 1900, 1, 1900, 0, 1, PO, 0}}, 4},
	{"polling with completions", 1.0,
	 {{1 * S, OUT, 1, 1, 0, MW_KIND_TEST, 20, 1, 10, 0, 1, F, 0},
	  {2 * S, OUT, 1, 1, 0, MW_KIND_TEST, 500, 2, 500, 0, 1, F, 0},
	  {3 * S, OUT, 1, 1, 0, MW_KIND_TEST, 900, 3, 900, 0, 1, F, 0}}, 3},
	{"one test then compute", 1.0,
	 {{1 * S, OUT, 1, 1, 0, MW_KIND_TEST, 5, 1, 1, 0, 1, F, 0},
	  {2 * S, OUT, 1, 1, 0, MW_KIND_TEST, 6, 1, 2, 0, 1, F, 0},
	  {5 * S, OUT, 1, 1, 0, MW_KIND_TEST, 6, 1, 2, 0, 1, CO, 0},
	  {9 * S, OUT, 1, 1, 0, MW_KIND_TEST, 6, 1, 2, 0, 1, CO, 0}}, 4},
	{"nonblocking call is not stuck", 1.0,
	 {{1 * S, IN, 4, 4, 0, MW_KIND_NONBLOCKING, 8, 4, 0, 0, 1, F, 0},
	  {9 * S, IN, 4, 4, 0, MW_KIND_NONBLOCKING, 8, 4, 0, 0, 1, F, 0}}, 2},
	{"slow transfer: the receive moves, then stalls", 1.0,
	 {{1 * S, IN, 5, 4, 1, MW_KIND_WAIT, 9, 4, 0, 0, 1, F, 0},
	  {2 * S, IN, 5, 4, 1, MW_KIND_WAIT, 9, 4, 0, 1, 1, SL, 0},
	  {3 * S, IN, 5, 4, 1, MW_KIND_WAIT, 9, 4, 0, 2, 1, SL, 0},
	  {3 * S + S / 2, IN, 5, 4, 1, MW_KIND_WAIT, 9, 4, 0, 2, 1, SL, 0},
	  {4 * S, IN, 5, 4, 1, MW_KIND_WAIT, 9, 4, 0, 2, 1, ST, 1},
	  {5 * S, IN, 6, 6, 1, MW_KIND_WAIT, 10, 5, 0, 2, 0, F, 0}}, 6},
	{"slow polling", 1.0,
	 {{1 * S, OUT, 1, 1, 0, MW_KIND_TEST, 20, 1, 10, 0, 1, F, 0},
	  {2 * S + 1, OUT, 1, 1, 0, MW_KIND_TEST, 900, 1, 900, 3, 1, SL, 0},
	  {3 * S, OUT, 1, 1, 0, MW_KIND_TEST, 1900, 1, 1900, 4, 1, SL, 0}}, 3},
};

static void fill(struct mw_slot *s, const struct obs *o)
{
	memset(s, 0, sizeof(*s));
	s->state = o->state;
	s->a = o->a;
	s->b = o->b;
	s->call.blocking = (uint32_t)o->blocking;
	s->call.kind = o->kind;
	s->calls = o->calls;
	s->completions = o->completions;
	s->tests = o->tests;
	s->motion = o->motion;
	s->pending = o->pending;
}

START_TEST(test_rule)
{
	struct mwm_stall w;      /* the watcher's, on its ns clock */
	struct mw_stall agent;   /* the agent's, on a clock 1000 s later */
	static struct mw_slot s;
	memset(&w, 0, sizeof(w));
	memset(&agent, 0, sizeof(agent));
	for (int i = 0; i < cases[_i].n; i++) {
		const struct obs *o = &cases[_i].o[i];
		fill(&s, o);
		int d = mwm_stall_check(&w, &s, o->t, cases[_i].timeout);
		int c = mw_stall_rule(&agent, &s, 1000.0 + (double)o->t / 1e9, cases[_i].timeout);
		ck_assert_msg(c == o->expect, "%s: observation %d: the agent sees %s, expected %s", cases[_i].name,
			      i, mw_stall_name(c), mw_stall_name(o->expect));
		ck_assert_msg(w.rule.init && d == o->dump, "%s: observation %d: the watcher dumps %d, expected %d",
			      cases[_i].name, i, d, o->dump);
	}
}
END_TEST

static const struct {
	const char *in;
	double out;
	int bad;
} tmo[] = {
	{NULL, 60, 0}, {"", 60, 0}, {"2", 2, 0}, {"1.5", 1.5, 0}, {" 3 ", 3, 0}, {"1", 1, 0},
	{"0.5", 60, 1}, {"0", 60, 1}, {"-4", 60, 1}, {"abc", 60, 1}, {"5s", 60, 1}, {"nan", 60, 1},
	{"inf", 60, 1}, {"1e9", 60, 1},
	/* The shared range (jobconf.h): the same ends as the plugin, agent, collector. */
	{"604800", 604800, 0}, {"604801", 60, 1}, {"100000", 100000, 0},
};

/* Each value as the line "timeout = IN" of a settings file (NULL: no
 * settings file; "": a file without a timeout line).  A bad value is
 * said (why) and the default used. */
START_TEST(test_timeout)
{
	char path[] = "/tmp/test_monitor_stall.XXXXXX", why[600];
	struct mwm_settings st;
	int fd = mkstemp(path), bad, read;
	ck_assert_int_ge(fd, 0);
	if (tmo[_i].in && *tmo[_i].in)
		ck_assert_int_gt(dprintf(fd, "timeout = %s\n", tmo[_i].in), 0);
	close(fd);
	/* a stray variable of the environment changes nothing */
	setenv("MPIWATCH_TIMEOUT", "7", 1);
	read = mwm_settings_read(tmo[_i].in ? path : NULL, "n1", &st, why, sizeof why);
	unlink(path);
	bad = why[0] != 0;
	ck_assert_msg(st.timeout_s == tmo[_i].out && bad == tmo[_i].bad, "\"%s\": %g bad=%d (%s)",
		      tmo[_i].in ? tmo[_i].in : "(null)", st.timeout_s, bad, why);
	ck_assert_int_eq(read, tmo[_i].in && !tmo[_i].bad);
}
END_TEST

/* mpit and monitor_debug come from the settings file; MPIWATCH_MPIT and
 * MPIWATCH_DEBUG are not read. */
START_TEST(test_monitor_settings)
{
	char path[] = "/tmp/test_monitor_stall.XXXXXX", why[600];
	struct mwm_settings st;
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_gt(dprintf(fd, "mpit = no\nmonitor_debug = yes\nslot_dir = /s/%%h\n"), 0);
	close(fd);
	setenv("MPIWATCH_MPIT", "1", 1);
	setenv("MPIWATCH_DEBUG", "", 1);
	setenv("MPIWATCH_DIR", "/stray", 1);
	setenv("MPIWATCH_PROFILE", "/stray", 1);
	ck_assert_int_eq(mwm_settings_read(path, "n1", &st, why, sizeof why), 1);
	ck_assert_str_eq(why, "");
	ck_assert_int_eq(st.mpit, MW_JC_MPIT_NO);
	ck_assert_int_eq(st.debug, 1);
	ck_assert_str_eq(st.slots, "/s/%h");
	ck_assert_str_eq(st.dir, "");
	ck_assert_str_eq(st.profile, "");
	unlink(path);
	ck_assert_int_eq(mwm_settings_read(NULL, "n1", &st, why, sizeof why), 0);
	ck_assert_int_eq(st.mpit, MW_JC_MPIT_AUTO);
	ck_assert_int_eq(st.debug, 0);
	ck_assert_str_eq(st.dir, "");
	ck_assert_str_eq(st.profile, "");
}
END_TEST

START_TEST(test_op_table)
{
	ck_assert_int_eq(mwm_nops, MWM_NOPS);
	ck_assert_str_eq(mwm_ops[MWM_OP_Recv].name, "MPI_Recv");
	ck_assert_int_eq(mwm_ops[MWM_OP_Recv].blocking, 1);
	ck_assert_int_eq(mwm_ops[MWM_OP_Isend].blocking, 0);
	ck_assert_int_eq(mwm_ops[MWM_OP_Testsome].kind, MW_KIND_TEST);
	ck_assert_int_eq(mwm_ops[MWM_OP_Win_fence].kind, MW_KIND_RMA_SYNC);
	ck_assert_int_eq(mwm_ops[MWM_OP_File_read_all].kind, MW_KIND_IO);
	ck_assert_int_eq(mwm_ops[MWM_OP_Comm_split].blocking, 1);
	ck_assert_str_eq(mwm_op_group(MWM_OP_Irecv), "MPI_P2P_NONBLOCKING");
	ck_assert_str_eq(mwm_op_group(MWM_OP_Ibarrier), "MPI_COLLECTIVE");
	ck_assert_str_eq(mwm_op_group(MWM_OP_Send), "MPI_P2P_BLOCKING");
	ck_assert_str_eq(mwm_op_group(MWM_OP_Win_lock), "MPI_ONESIDED");
	for (int i = 0; i < mwm_nops; i++)
		ck_assert_int_eq(strncmp(mwm_ops[i].name, "MPI_", 4), 0);
}
END_TEST

/* The request life cycle the generated wrappers drive (runtime.c). */
START_TEST(test_request_lifecycle)
{
	static struct mw_slot slot;
	struct mwm_req out[8];
	memset(&slot, 0, sizeof(slot));
	mwm.slot = &slot;
	mwm.req_null = 0;
	ck_assert_int_eq(mwm_reqtab_init(&mwm.reqs, 64), 0);
	memset(&mwm.ring, 0, sizeof(mwm.ring));
	/* MPI_Isend(peer 3, tag 5) -> request 0x10 */
	mwm_begin(MWM_OP_Isend, 0, NULL, NULL);
	slot.call.peer = 3;
	slot.call.tag = 5;
	slot.call.mode = MW_MODE_STANDARD;
	mwm_commit();
	mwm_req_new(0x10, MWM_TABLE_SEND, 0);
	mwm_finish(0);
	/* MPI_Recv_init(peer 1, tag 6) -> persistent request 0x20 */
	mwm_begin(MWM_OP_Recv_init, 0, NULL, NULL);
	slot.call.peer = 1;
	slot.call.tag = 6;
	mwm_commit();
	mwm_req_new(0x20, MWM_TABLE_RECV, 1);
	mwm_finish(0);
	ck_assert_int_eq(mwm_reqtab_snapshot(&mwm.reqs, out, 8), 2);
	ck_assert_int_eq((int)slot.pending, 2);
	ck_assert_int_eq((int)slot.calls, 2);
	ck_assert_int_eq((int)slot.a, 0); /* nonblocking calls do not move A */
	ck_assert_int_eq(mwm_reqtab_find(&mwm.reqs, 0x20)->active, 0);
	mwm_req_start(0x20);
	ck_assert_int_eq(mwm_reqtab_find(&mwm.reqs, 0x20)->active, 1);
	/* MPI_Waitall on both: the send goes to the ring, the persistent one stays inactive */
	mwm_begin(MWM_OP_Waitall, 0, NULL, NULL);
	mwm_commit();
	ck_assert_int_eq((int)slot.a, 1);
	unsigned n = mwm_req_done(0x10) + mwm_req_done(0x20) + mwm_req_done(0); /* 0 = MPI_REQUEST_NULL */
	mwm_finish(n);
	ck_assert_int_eq((int)n, 2);
	ck_assert_int_eq((int)slot.b, 1);
	ck_assert_int_eq((int)slot.completions, 2);
	ck_assert_int_eq(mwm_ring_snapshot(&mwm.ring, out), 1);
	ck_assert_int_eq(out[0].peer, 3);
	ck_assert_int_eq(out[0].tag, 5);
	ck_assert_ptr_null(mwm_reqtab_find(&mwm.reqs, 0x10));
	ck_assert_int_eq(mwm_reqtab_find(&mwm.reqs, 0x20)->active, 0);
	/* MPI_Request_free removes the persistent request */
	mwm_req_free(0x20);
	ck_assert_int_eq(mwm_reqtab_snapshot(&mwm.reqs, out, 8), 0);
	/* a blocking MPI_Sendrecv: the send half goes to the ring */
	mwm_begin(MWM_OP_Sendrecv, 0, NULL, NULL);
	slot.call.peer = 2;
	slot.call.tag = 8;
	slot.call.send_peer = 4;
	slot.call.send_tag = 9;
	mwm_commit();
	mwm_sent();
	mwm_finish(1);
	ck_assert_int_eq(mwm_ring_snapshot(&mwm.ring, out), 2);
	ck_assert_int_eq(out[0].peer, 4);
	ck_assert_int_eq(out[0].tag, 9);
	ck_assert_int_eq((int)(slot.seq % 2), 0);
	mwm_reqtab_destroy(&mwm.reqs);
}
END_TEST

/* Repeated polls (slot version 3): a poll that repeats the call record counts
 * itself in the slot's polls alone; every reader's snapshot shows it in calls
 * and tests, the watcher's resolution of the record stays valid across
 * repeats, and the watcher and the agent judge the rank by the one rule from
 * those copies: polling while the repeats go on with nothing completed,
 * computing once they stop. */
START_TEST(test_repeated_polls)
{
	static struct mw_slot slot;
	struct mw_slot_snap sn;
	struct mwm_stall w;
	struct mw_stall agent;
	memset(&slot, 0, sizeof(slot));
	memset(&w, 0, sizeof(w));
	memset(&agent, 0, sizeof(agent));
	mwm.slot = &slot;
	ck_assert_int_eq(mwm_reqtab_init(&mwm.reqs, 64), 0);
	/* MPI_Irecv -> request 0x10, then MPI_Testany over it: the record */
	mwm_begin(MWM_OP_Irecv, 0, NULL, NULL);
	mwm_commit();
	mwm_req_new(0x10, MWM_TABLE_RECV, 0);
	mwm_finish(0);
	mwm.clock_ns = 1 * S;
	struct mw_slot_call *c = mwm_begin(MWM_OP_Testany, 0, (void *)0x400100, (void *)0x7ff0);
	c->nreqs = 1;
	mwm_commit_as(c, 0, 1);
	mwm_poll_finish(0, 1);
	ck_assert_int_eq(mw_slot_snapshot(&slot, &sn), 0);
	ck_assert_int_eq((int)sn.s.calls, 2);
	ck_assert_int_eq((int)sn.s.tests, 1);
	/* the watcher resolves the record as it stands (watcher.c) */
	slot.resolved_calls = sn.s.calls - sn.s.polls;
	uint64_t t;
	for (t = 1; t <= 8; t++) {
		mwm.clock_ns = t * S;
		for (int i = 0; i < 1000; i++) {
			ck_assert(mwm_poll_again(MWM_OP_Testany, 0, (void *)0x400100, (void *)0x7ff0));
			mwm_poll_enter();
			ck_assert_int_eq((int)slot.state, MW_STATE_IN_MPI);
			mwm_poll_finish(0, 1);
		}
		ck_assert_int_eq(mw_slot_snapshot(&slot, &sn), 0);
		ck_assert_int_eq((int)sn.s.calls, 2 + 1000 * (int)t);
		ck_assert_int_eq((int)sn.s.tests, 1 + 1000 * (int)t);
		ck_assert_int_eq((int)sn.s.state, MW_STATE_COMPUTING);
		ck_assert(sn.s.call.enter_ns == t * S);
		ck_assert(sn.s.resolved_calls == sn.s.calls); /* the resolution still describes the record */
		ck_assert_int_eq((int)(slot.seq % 2), 0);
		int d = mwm_stall_check(&w, &sn.s, t * S, 2.0);
		int a = mw_stall_rule(&agent, &sn.s, 500.0 + (double)t, 2.0);
		ck_assert_msg(a == (t >= 3 ? MW_STALL_POLLING : MW_STALL_FINE), "second %d: the agent sees %s", (int)t,
			      mw_stall_name(a));
		ck_assert_msg(d == (t == 3 ? 2 : 0), "second %d: the watcher dumps %d", (int)t, d);
	}
	/* the polls stop, the rank computes: computing after the timeout */
	for (; t <= 12; t++) {
		ck_assert_int_eq(mw_slot_snapshot(&slot, &sn), 0);
		mwm_stall_check(&w, &sn.s, t * S, 2.0);
		int a = mw_stall_rule(&agent, &sn.s, 500.0 + (double)t, 2.0);
		ck_assert_msg(a == (t >= 10 ? MW_STALL_COMPUTING : MW_STALL_POLLING) || (t < 10 && a == MW_STALL_FINE),
			      "second %d after the polls: the agent sees %s", (int)t, mw_stall_name(a));
	}
	ck_assert_int_eq(mw_stall_rule(&agent, &sn.s, 500.0 + 12.0, 2.0), MW_STALL_COMPUTING);
	/* another record (a full write) makes the resolution stale */
	c = mwm_begin(MWM_OP_Test, 0, (void *)0x400200, (void *)0x7ff0);
	c->nreqs = 1;
	mwm_commit_as(c, 0, 1);
	mwm_poll_finish(0, 1);
	ck_assert_int_eq(mw_slot_snapshot(&slot, &sn), 0);
	ck_assert(sn.s.resolved_calls != sn.s.calls);
	ck_assert_int_eq((int)sn.s.calls, 2 + 8000 + 1);
	mwm_reqtab_destroy(&mwm.reqs);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("monitor_stall");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int nf;
	tcase_add_loop_test(tc, test_rule, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, test_monitor_settings);
	tcase_add_loop_test(tc, test_timeout, 0, sizeof(tmo) / sizeof(tmo[0]));
	tcase_add_test(tc, test_op_table);
	tcase_add_test(tc, test_request_lifecycle);
	tcase_add_test(tc, test_repeated_polls);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? 1 : 0;
}
