/* Unit tests for shared/runcmd.c: commands run without a shell, with their
 * output collected, their input fed, and a time limit. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runcmd.h"
#include "unit.h"

static const struct {
	const char *cmd; /* sh -c script */
	const char *input;
	double timeout;
	int want;        /* exit status, or -1 */
	const char *out;
} run_cases[] = {
	{"echo hello", NULL, 5, 0, "hello\n"},
	{"echo err >&2; exit 3", NULL, 5, 3, "err\n"},
	{"cat", "from stdin", 5, 0, "from stdin"},
	{"kill -9 $$", NULL, 5, 128 + 9, ""},
	{"sleep 10", NULL, 0.3, -1, NULL},
	{"exec 0<&-; sleep 10 & exit 0", NULL, 0.5, -1, NULL}, /* a child holding stdout: bounded */
};

START_TEST(test_run)
{
	char *argv[] = {"/bin/sh", "-c", (char *)run_cases[_i].cmd, NULL}, *out = NULL;
	int rc = mw_run_command(argv, run_cases[_i].input, run_cases[_i].timeout, &out);
	ck_assert_int_eq(rc, run_cases[_i].want);
	if (rc == -1) {
		ck_assert_int_eq(errno, ETIMEDOUT);
		ck_assert_ptr_null(out);
		return;
	}
	ck_assert_str_eq(out, run_cases[_i].out);
	free(out);
}
END_TEST

START_TEST(test_run_missing)
{
	char *argv[] = {"/nonexistent/scontrol", NULL}, *out = NULL;
	ck_assert_int_eq(mw_run_command(argv, NULL, 5, &out), 127);
	free(out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("runcmd");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_run, 0, sizeof(run_cases) / sizeof(run_cases[0]));
	tcase_add_test(tc, test_run_missing);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
