/* Unit tests for imbalance/imb_profile.c and imb_load.c: TAU profiles written
 * by hand in TAU's format (t/data/imbalance), malformed files (file:line). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "imb.h"

#define DATA MW_SRCDIR "/t/data/imbalance"

static const char good[] =
	"3 templated_functions_MULTI_TIME\n"
	"# Name Calls Subrs Excl Incl ProfileCalls # <metadata><attribute><name>Node Name</name>"
	"<value>n1</value></attribute></metadata>\n"
	"\".TAU application\" 1 2 12.5 3.5E+06 0 GROUP=\"TAU_DEFAULT\"\n"
	"\"void f(std::map<int, \"x\">) [{a.cpp} {3,1}-{9,1}]\" 4 0 1.25e+03 1.5E3 0 GROUP=\"TAU_USER\"\n"
	"\".TAU application => MPI_Send()\" 200 0 56.216 56.216 0 GROUP=\"MPI|TAU_CALLPATH\"\n"
	"0 aggregates\n"
	"1 userevents\n"
	"# eventname numevents max min mean sumsqr\n"
	"\"Message size for MPI_Send()\" 200 4 4 4.000 3.2E+03\n";

/* File names: profile.N.C.T with digits only, each within an int. */
START_TEST(test_profile_name)
{
	int n = -1, c = -1, t = -1;
	ck_assert_int_eq(imb_profile_name("profile.12.0.3", &n, &c, &t), 0);
	ck_assert_int_eq(n, 12);
	ck_assert_int_eq(c, 0);
	ck_assert_int_eq(t, 3);
	ck_assert_int_eq(imb_profile_name("profile.2147483647.0.0", &n, &c, &t), 0);
	ck_assert_int_eq(n, 2147483647);
	static const char *const bad[] = {"profile.2147483648.0.0", "profile.99999999999999999999.0.0",
					  "profile.-1.0.0", "profile.+1.0.0", "profile. 1.0.0", "profile.1.0",
					  "profile.1.0.0.", "profile.1.0.0x", "profile.1..0", "profile.",
					  "Profile.1.0.0", "profile.1.0.0.0", ""};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(imb_profile_name(bad[i], &n, &c, &t) == -1, "%s accepted", bad[i]);
}
END_TEST

START_TEST(test_parse_good)
{
	struct imb_profile p;
	char err[256];
	ck_assert_int_eq(imb_profile_parse(good, strlen(good), "g", &p, err, sizeof(err)), 0);
	ck_assert_str_eq(p.metric, "TIME");
	ck_assert_uint_eq(p.nfunc, 3);
	ck_assert_str_eq(p.func[0].name, ".TAU application");
	ck_assert_double_eq(p.func[0].incl, 3.5e6);
	ck_assert_str_eq(p.func[1].name, "void f(std::map<int, \"x\">) [{a.cpp} {3,1}-{9,1}]");
	ck_assert_double_eq(p.func[1].excl, 1250);
	ck_assert_str_eq(p.func[1].group, "TAU_USER");
	ck_assert_str_eq(p.func[2].name, ".TAU application => MPI_Send()");
	ck_assert_str_eq(p.func[2].group, "MPI|TAU_CALLPATH");
	ck_assert_double_eq_tol(p.func[2].excl, 56.216, 1e-9);
	ck_assert_ptr_nonnull(strstr(p.metadata, "<value>n1</value>"));
	ck_assert_uint_eq(p.nevent, 1);
	ck_assert_str_eq(p.event[0].name, "Message size for MPI_Send()");
	ck_assert_double_eq(p.event[0].sumsqr, 3200);
	imb_profile_free(&p);
}
END_TEST

/* Each malformed input and the "file:line: ..." its error must start with. */
static const struct {
	const char *text, *where, *what;
} bad_cases[] = {
	{"", "b:0: ", "empty file"},
	{"x templated_functions_MULTI_TIME\n", "b:1: ", "templated_functions"},
	{"1 templated_functions_MULTI_TIME\n# Nom\n", "b:2: ", "# Name"},
	{"1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n"
	 "\"f\" 1 0 2 2 0\n", "b:3: ", "GROUP"},
	{"1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n"
	 "\"f\" 1 0 2x 2 0 GROUP=\"U\"\n", "b:3: ", "'excl' is not a number"},
	{"1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n"
	 "\"f\" 1 0 nan 2 0 GROUP=\"U\"\n", "b:3: ", "not a number"},
	{"1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n"
	 "\"f\" 1 0 2 2 GROUP=\"U\"\n", "b:3: ", "missing 'profcalls'"},
	{"1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n"
	 "f 1 0 2 2 0 GROUP=\"U\"\n", "b:3: ", "must start with"},
	{"2 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n"
	 "\"f\" 1 0 2 2 0 GROUP=\"U\"\n", "b:3: ", "1 of 2 function lines"},
	{"1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n"
	 "\"f\" 1 0 2 2 0 GROUP=\"U\"\n", "b:3: ", "aggregates"},
	{"1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n"
	 "\"f\" 1 0 2 2 0 GROUP=\"U\"\n0 aggregates\n2 userevents\n"
	 "# eventname numevents max min mean sumsqr\n\"e\" 1 2 3 4 5\n", "b:7: ", "1 of 2 user event"},
	{"1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n"
	 "\"f\" 1 0 2 2 0 GROUP=\"U\"\n0 aggregates\n1 userevents\n"
	 "# eventname numevents max min mean sumsqr\n\"e\" 1 2 3 4\n", "b:7: ", "missing 'sumsqr'"},
	{"1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n"
	 "\"f\" 1 0 2 2 0 GROUP=\"U\"\n0 aggregates\n0 userevents\ntrailing\n", "b:6: ", "unexpected text"},
	{"1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls # <metadata>\n",
	 "b:2: ", "</metadata>"},
	{"1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n"
	 "\"f\" -1 0 2 2 0 GROUP=\"U\"\n", "b:3: ", "negative"},
};

START_TEST(test_parse_bad)
{
	struct imb_profile p;
	char err[256];
	const char *t = bad_cases[_i].text;
	ck_assert_int_eq(imb_profile_parse(t, strlen(t), "b", &p, err, sizeof(err)), -1);
	ck_assert_msg(!strncmp(err, bad_cases[_i].where, strlen(bad_cases[_i].where)),
		      "case %d: '%s' does not start with '%s'", _i, err, bad_cases[_i].where);
	ck_assert_msg(strstr(err, bad_cases[_i].what), "case %d: '%s' lacks '%s'", _i, err,
		      bad_cases[_i].what);
	ck_assert_uint_eq(p.nfunc, 0);
}
END_TEST

/* mpiwatch's monitor writes the column line after "0 userevents" too */
START_TEST(test_parse_zero_events_with_header)
{
	static const char t[] = "1 templated_functions_MULTI_TIME\n"
				"# Name Calls Subrs Excl Incl ProfileCalls #\n"
				"\"MPI_Barrier()\" 5 0 321422.243 321422.243 0 GROUP=\"MPI|MPI_COLLECTIVE\"\n"
				"0 aggregates\n0 userevents\n# eventname numevents max min mean sumsqr\n";
	struct imb_profile p;
	char err[128];
	ck_assert_msg(imb_profile_parse(t, sizeof(t) - 1, "z", &p, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(p.nevent, 0);
	imb_profile_free(&p);
}
END_TEST

START_TEST(test_parse_nul)
{
	static const char t[] = "1 templated_functions_MULTI_TIME\n#\0x";
	struct imb_profile p;
	char err[128];
	ck_assert_int_eq(imb_profile_parse(t, sizeof(t) - 1, "n", &p, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "n:2: NUL"));
}
END_TEST

START_TEST(test_load_dir)
{
	struct imb_job j;
	char err[512];
	ck_assert_msg(imb_job_load(DATA "/tau4", &j, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(j.nproc, 4);
	ck_assert_uint_eq(j.nmissing, 0);
	for (int r = 0; r < 4; r++) {
		ck_assert_int_eq(j.proc[r].node, r);
		ck_assert_uint_eq(j.proc[r].nfunc, 10);
		ck_assert_double_eq(j.proc[r].func[2].excl, (r + 1) * 1e6);
		ck_assert_uint_eq(j.proc[r].nevent, 2);
	}
	imb_job_free(&j);
}
END_TEST

START_TEST(test_load_multi_takes_time)
{
	struct imb_job j;
	char err[512];
	ck_assert_msg(imb_job_load(DATA "/multi", &j, err, sizeof(err)) == 0, "%s", err);
	ck_assert_ptr_nonnull(strstr(j.dir, "MULTI__TIME"));
	ck_assert_uint_eq(j.nproc, 2);
	ck_assert_str_eq(j.proc[0].metric, "TIME");
	ck_assert_double_eq(j.proc[0].func[0].excl, 10000);
	imb_job_free(&j);
}
END_TEST

START_TEST(test_load_gap_reported)
{
	struct imb_job j;
	char err[512];
	ck_assert_msg(imb_job_load(DATA "/gap", &j, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(j.nproc, 3);
	ck_assert_uint_eq(j.nmissing, 1);
	ck_assert_int_eq(j.missing[0], 2);
	ck_assert_int_eq(j.proc[2].node, 3); /* rank 3 stays rank 3 */
	imb_job_free(&j);
}
END_TEST

START_TEST(test_load_bad_file_names_file_and_line)
{
	char dir[] = "/tmp/imbtestXXXXXX", path[64], err[512];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/profile.0.0.0", dir);
	FILE *f = fopen(path, "w");
	fputs("1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n"
	      "\"f\" 1 0 oops 2 0 GROUP=\"U\"\n0 aggregates\n", f);
	fclose(f);
	struct imb_job j;
	ck_assert_int_eq(imb_job_load(dir, &j, err, sizeof(err)), -1);
	char want[96];
	snprintf(want, sizeof(want), "%s:3: ", path);
	ck_assert_msg(!strncmp(err, want, strlen(want)), "%s", err);
	unlink(path);
	ck_assert_int_eq(imb_job_load(dir, &j, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "no profile.N.C.T file"));
	rmdir(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("imb_profile");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_parse_good);
	tcase_add_loop_test(tc, test_parse_bad, 0, sizeof(bad_cases) / sizeof(bad_cases[0]));
	tcase_add_test(tc, test_parse_nul);
	tcase_add_test(tc, test_parse_zero_events_with_header);
	tcase_add_test(tc, test_load_dir);
	tcase_add_test(tc, test_load_multi_takes_time);
	tcase_add_test(tc, test_load_gap_reported);
	tcase_add_test(tc, test_load_bad_file_names_file_and_line);
	tcase_add_test(tc, test_profile_name);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
