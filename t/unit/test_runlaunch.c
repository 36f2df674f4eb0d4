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

int main(void)
{
	Suite *s = suite_create("runlaunch");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_parse_death, 0, sizeof(cases) / sizeof(cases[0]));
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
