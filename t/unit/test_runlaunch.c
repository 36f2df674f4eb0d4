/* Unit tests for cli/runlaunch.c: reading rank deaths from launcher output. */
#include <check.h>
#include <string.h>
#include <sys/wait.h>

#include "runlaunch.h"

static const struct {
	const char *lines[4];
	int found; /* reports completed by the last line */
	int rank;
	int pid;
	int sig;  /* expected WTERMSIG, or 0 */
	int code; /* expected WEXITSTATUS when sig == 0 */
} cases[] = {
	{{"mpirun.openmpi noticed that process rank 1 with PID 0 on node vm exited on signal 11 (Segmentation fault).", NULL}, 1, 1, 0, 11, 0},
	{{"mpirun noticed that process rank 3 with PID 4242 on node n2 exited on signal 9 (Killed).", NULL}, 1, 3, 4242, 9, 0},
	{{"=   PID 6441 RUNNING AT vm", "=   EXIT CODE: 11", "=   CLEANING UP REMAINING PROCESSES", "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Segmentation fault (signal 11)"}, 1, -1, 6441, 11, 0},
	{{"=   PID 77 RUNNING AT n1", "=   EXIT CODE: 3", NULL}, 1, -1, 77, 0, 3},
	{{"[vm:16603:0:16603] Caught signal 11 (Segmentation fault: address not mapped to object at address 0xc)", NULL}, 1, -1, 16603, 11, 0},
	{{"just some output from the program", NULL}, 0, 0, 0, 0, 0},
	{{"=   EXIT CODE: 3", NULL}, 0, 0, 0, 0, 0}, /* no PID line before it */
	{{"process rank x with PID y exited on signal z", NULL}, 0, 0, 0, 0, 0},
	{{"process rank 1 with PID 5 exited on signal 99", NULL}, 0, 0, 0, 0, 0},
};

START_TEST(test_parse_death)
{
	pid_t state = 0;
	struct mw_run_death d = {0, 0, 0};
	int r = 0;
	for (int i = 0; i < 4 && cases[_i].lines[i]; i++) {
		struct mw_run_death t;
		if (mw_run_parse_death(cases[_i].lines[i], &state, &t)) {
			r = 1;
			d = t;
		}
	}
	ck_assert_int_eq(r, cases[_i].found);
	if (!r)
		return;
	ck_assert_int_eq(d.rank, cases[_i].rank);
	ck_assert_int_eq(d.pid, cases[_i].pid);
	if (cases[_i].sig) {
		ck_assert(WIFSIGNALED(d.wait_status));
		ck_assert_int_eq(WTERMSIG(d.wait_status), cases[_i].sig);
	} else {
		ck_assert(WIFEXITED(d.wait_status));
		ck_assert_int_eq(WEXITSTATUS(d.wait_status), cases[_i].code);
	}
}
END_TEST

/* The MPI library's own error line for a rank it ends. */
START_TEST(test_parse_mpi_error)
{
	struct dl_mpierr_state st = {"", -1};
	char msg[256];
	int rank = -9;
	ck_assert(!dl_mpierr_parse("[vm:18088] *** An error occurred in MPI_Bcast", &st, &rank, msg, sizeof msg));
	ck_assert(!dl_mpierr_parse("[vm:18088] *** reported by process [711524353,1]", &st, &rank, msg, sizeof msg));
	ck_assert(!dl_mpierr_parse("[vm:18088] *** on communicator MPI_COMM_WORLD", &st, &rank, msg, sizeof msg));
	ck_assert(dl_mpierr_parse("[vm:18088] *** MPI_ERR_COUNT: invalid count argument", &st, &rank, msg, sizeof msg));
	ck_assert_int_eq(rank, 1);
	ck_assert_str_eq(msg, "MPI_Bcast: MPI_ERR_COUNT: invalid count argument");
	/* the block is over: a stray line does not complete another */
	ck_assert(!dl_mpierr_parse("[vm:18088] *** MPI_ERR_COUNT: again", &st, &rank, msg, sizeof msg));
	ck_assert(dl_mpierr_parse("Abort(738796802) on node 1 (rank 1 in comm 0): Fatal error in internal_Bcast: "
					 "Invalid count, error stack:", &st, &rank, msg, sizeof msg));
	ck_assert_int_eq(rank, 1);
	ck_assert_str_eq(msg, "Fatal error in internal_Bcast: Invalid count");
	ck_assert(!dl_mpierr_parse("Abort(1) on node x (rank y in comm 0): z", &st, &rank, msg, sizeof msg));
	ck_assert(!dl_mpierr_parse("just output", &st, &rank, msg, sizeof msg));
	ck_assert(!dl_mpierr_parse("*** reported by process [1,2]", &st, &rank, msg, sizeof msg));
}
END_TEST

/* Open MPI's own crash report: its frames, and where they are. */
START_TEST(test_parse_backtrace)
{
	struct dl_crash_bt bt;
	char text[1024];
	memset(&bt, 0, sizeof bt);
	ck_assert(!dl_crash_parse("[vm:31139] *** Process received signal ***", &bt));
	ck_assert_int_eq(bt.pid, 31139);
	ck_assert(!dl_crash_parse("[vm:31139] Signal: Segmentation fault (11)", &bt));
	ck_assert(!dl_crash_parse("[vm:31139] [ 0] /lib/x86_64-linux-gnu/libc.so.6(+0x3c050)[0x7f1285daf050]", &bt));
	ck_assert(!dl_crash_parse("[vm:31139] [ 1] /nonexistent/prog(+0x11a8)[0x5558fa9481a8]", &bt));
	ck_assert(!dl_crash_parse("[vm:7] [ 2] /other/pid(+0x1)[0x1]", &bt)); /* another process */
	ck_assert(!dl_crash_parse("[vm:31139] [ 2] /lib/x86_64-linux-gnu/libc.so.6(__libc_start_main+0x85)[0x7f1285d9a305]", &bt));
	ck_assert(!dl_crash_parse("[vm:31139] [ 3] garbage", &bt));
	ck_assert(dl_crash_parse("[vm:31139] *** End of error message ***", &bt));
	ck_assert_int_eq(bt.n, 3);
	ck_assert_str_eq(bt.f[1].object, "/nonexistent/prog");
	ck_assert(bt.f[1].offset == 0x11a8);
	ck_assert_str_eq(bt.f[2].symbol, "__libc_start_main");
	/* the trampoline is left out; an unreadable object without a symbol too */
	ck_assert_int_eq(dl_crash_text(&bt, text, sizeof text), 1);
	ck_assert_str_eq(text, "__libc_start_main (in libc.so.6)");
	/* UCX's report (MPICH): its own frames before libc's trampoline are dropped */
	memset(&bt, 0, sizeof bt);
	ck_assert(!dl_crash_parse("==== backtrace (tid:  16603) ====", &bt));
	ck_assert(!dl_crash_parse(" 0  /lib/x86_64-linux-gnu/libucs.so.0(ucs_handle_error+0x2dc) [0x7f15ae66ae9c]", &bt));
	ck_assert(!dl_crash_parse(" 3  /lib/x86_64-linux-gnu/libc.so.6(+0x3c050) [0x7f15abc5a050]", &bt));
	ck_assert(!dl_crash_parse(" 4  /nonexistent/run_crash(+0x11c3) [0x55da980431c3]", &bt));
	ck_assert(dl_crash_parse("=================================", &bt));
	ck_assert_int_eq(bt.pid, 16603);
	ck_assert_int_eq(bt.n, 2);
	ck_assert_int_eq(bt.f[0].index, 0);
	ck_assert_str_eq(bt.f[1].object, "/nonexistent/run_crash");
	/* no block open: nothing completes */
	memset(&bt, 0, sizeof bt);
	ck_assert(!dl_crash_parse("[vm:31139] *** End of error message ***", &bt));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("runlaunch");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_parse_death, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, test_parse_mpi_error);
	tcase_add_test(tc, test_parse_backtrace);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
