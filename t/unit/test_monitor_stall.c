/* test_monitor_stall.c - the watcher's stall rule (seed 002 counters A/B and
 * the polling rule) and MPIWATCH_TIMEOUT parsing. */
#include <check.h>
#include <string.h>

#include "mwm.h"
#include "ops.h"
#include "runtime.h"

#define S 1000000000ull

/* One observation of the slot by the watcher. */
struct obs {
	uint64_t t;         /* watcher time, ns */
	uint32_t state;
	uint64_t a, b;
	int blocking;
	uint32_t kind;
	uint64_t enter;     /* call entry time, ns */
	uint64_t completions, tests;
	int expect;         /* 0 fine, 1 stuck, 2 polling */
};

static const struct {
	const char *name;
	double timeout;
	struct obs o[8];
	int n;
} cases[] = {
	{"blocked past timeout", 2.0,
	 {{1 * S, MW_STATE_IN_MPI, 5, 4, 1, MW_KIND_RECV, 1 * S, 4, 0, 0},
	  {2 * S, MW_STATE_IN_MPI, 5, 4, 1, MW_KIND_RECV, 1 * S, 4, 0, 0},
	  {3 * S + 1, MW_STATE_IN_MPI, 5, 4, 1, MW_KIND_RECV, 1 * S, 4, 0, 1},
	  {4 * S, MW_STATE_IN_MPI, 5, 4, 1, MW_KIND_RECV, 1 * S, 4, 0, 0}}, 4},
	{"returned in time", 2.0,
	 {{1 * S, MW_STATE_IN_MPI, 5, 4, 1, MW_KIND_RECV, 1 * S, 4, 0, 0},
	  {2 * S, MW_STATE_COMPUTING, 5, 5, 1, MW_KIND_RECV, 1 * S, 5, 0, 0},
	  {9 * S, MW_STATE_COMPUTING, 5, 5, 1, MW_KIND_RECV, 1 * S, 5, 0, 0}}, 3},
	{"computing for long", 1.0,
	 {{1 * S, MW_STATE_COMPUTING, 3, 3, 1, MW_KIND_SEND, 0, 3, 0, 0},
	  {5 * S, MW_STATE_COMPUTING, 3, 3, 1, MW_KIND_SEND, 0, 3, 0, 0},
	  {50 * S, MW_STATE_COMPUTING, 3, 3, 1, MW_KIND_SEND, 0, 3, 0, 0}}, 3},
	{"progress between ticks", 1.0,
	 {{1 * S, MW_STATE_IN_MPI, 5, 4, 1, MW_KIND_RECV, 1 * S, 4, 0, 0},
	  {3 * S, MW_STATE_IN_MPI, 6, 5, 1, MW_KIND_RECV, 3 * S, 5, 0, 0},
	  {3 * S + S / 2, MW_STATE_IN_MPI, 7, 6, 1, MW_KIND_RECV, 3 * S + S / 2, 6, 0, 0}}, 3},
	{"stuck twice", 1.0,
	 {{1 * S, MW_STATE_IN_MPI, 2, 1, 1, MW_KIND_COLLECTIVE, 1 * S, 1, 0, 0},
	  {2 * S, MW_STATE_IN_MPI, 2, 1, 1, MW_KIND_COLLECTIVE, 1 * S, 1, 0, 1},
	  {3 * S, MW_STATE_COMPUTING, 2, 2, 1, MW_KIND_COLLECTIVE, 1 * S, 2, 0, 0},
	  {4 * S, MW_STATE_IN_MPI, 3, 2, 1, MW_KIND_COLLECTIVE, 4 * S, 2, 0, 0},
	  {5 * S, MW_STATE_IN_MPI, 3, 2, 1, MW_KIND_COLLECTIVE, 4 * S, 2, 0, 1}}, 5},
	{"polling without completion", 1.0,
	 {{1 * S, MW_STATE_COMPUTING, 1, 1, 0, MW_KIND_TEST, 1 * S, 1, 10, 0},
	  {1 * S + S / 2, MW_STATE_IN_MPI, 1, 1, 0, MW_KIND_TEST, 1 * S, 1, 500, 0},
	  {2 * S + 1, MW_STATE_COMPUTING, 1, 1, 0, MW_KIND_TEST, 2 * S, 1, 900, 2},
	  {3 * S, MW_STATE_COMPUTING, 1, 1, 0, MW_KIND_TEST, 3 * S, 1, 1900, 0}}, 4},
	{"polling with completions", 1.0,
	 {{1 * S, MW_STATE_COMPUTING, 1, 1, 0, MW_KIND_TEST, 1 * S, 1, 10, 0},
	  {2 * S, MW_STATE_COMPUTING, 1, 1, 0, MW_KIND_TEST, 2 * S, 2, 500, 0},
	  {3 * S, MW_STATE_COMPUTING, 1, 1, 0, MW_KIND_TEST, 3 * S, 3, 900, 0}}, 3},
	{"one test then compute", 1.0,
	 {{1 * S, MW_STATE_COMPUTING, 1, 1, 0, MW_KIND_TEST, 1 * S, 1, 1, 0},
	  {5 * S, MW_STATE_COMPUTING, 1, 1, 0, MW_KIND_TEST, 1 * S, 1, 2, 0},
	  {9 * S, MW_STATE_COMPUTING, 1, 1, 0, MW_KIND_TEST, 1 * S, 1, 2, 0}}, 3},
	{"nonblocking call is not stuck", 1.0,
	 {{1 * S, MW_STATE_IN_MPI, 4, 4, 0, MW_KIND_NONBLOCKING, 1 * S, 4, 0, 0},
	  {9 * S, MW_STATE_IN_MPI, 4, 4, 0, MW_KIND_NONBLOCKING, 1 * S, 4, 0, 0}}, 2},
};

START_TEST(test_rule)
{
	struct mwm_stall st;
	static struct mw_slot s;
	memset(&st, 0, sizeof(st));
	for (int i = 0; i < cases[_i].n; i++) {
		const struct obs *o = &cases[_i].o[i];
		memset(&s, 0, sizeof(s));
		s.state = o->state;
		s.a = o->a;
		s.b = o->b;
		s.call.blocking = (uint32_t)o->blocking;
		s.call.kind = o->kind;
		s.call.enter_ns = o->enter;
		s.completions = o->completions;
		s.tests = o->tests;
		int r = mwm_stall_check(&st, &s, o->t, cases[_i].timeout);
		ck_assert_msg(r == o->expect, "%s: observation %d: got %d, expected %d", cases[_i].name, i,
			      r, o->expect);
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
};

START_TEST(test_timeout)
{
	int bad = -1;
	double v = mwm_parse_timeout(tmo[_i].in, &bad);
	ck_assert_msg(v == tmo[_i].out && bad == tmo[_i].bad, "\"%s\": %g bad=%d", tmo[_i].in ? tmo[_i].in : "(null)",
		      v, bad);
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

int main(void)
{
	Suite *s = suite_create("monitor_stall");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int nf;
	tcase_add_loop_test(tc, test_rule, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_loop_test(tc, test_timeout, 0, sizeof(tmo) / sizeof(tmo[0]));
	tcase_add_test(tc, test_op_table);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? 1 : 0;
}
