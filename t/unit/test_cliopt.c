/* Unit tests for shared/cliopt.c: options from one table per command, one
 * wording for every error, --help from the table. */
#include <check.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliopt.h"

/* A settings table, as shared/jobconf.c's (ranges written once). */
struct cfg {
	double timeout;
	int profile;
};
static const struct mw_conf_key keys[] = {
	{.name = "timeout", .type = MW_CONF_DOUBLE, .offset = offsetof(struct cfg, timeout), .min = 1,
	 .max = 604800, .unit = "seconds"},
	{.name = "profile", .type = MW_CONF_BOOL, .offset = offsetof(struct cfg, profile)},
	{.name = NULL},
};

/* What one parse filled. */
struct out {
	long num;
	double ratio;
	int flag, verbose, mode, num_given;
	const char *file, *custom, *timeout_text, *profile_text;
	struct cfg conf;
};

static const char *const modes[] = {"report", "cancel", "requeue", NULL};

/* CUSTOM: "even" numbers only. */
static int parse_even(const char *v, void *dst)
{
	long n;
	if (mw_conf_parse_long(v, 0, 100, &n) < 0 || n % 2)
		return -1;
	*(const char **)dst = v;
	return 0;
}

/* The table under test, filling o. */
static void table(struct out *o, struct mw_cliopt *t)
{
	const struct mw_cliopt opts[] = {
		{.name = "num", .shortname = 'n', .kind = MW_CLIOPT_LONG, .dst = &o->num, .arg = "N",
		 .min = 1, .max = 10, .unit = "a count", .given = &o->num_given, .help = "how many"},
		{.name = "name-ratio", .kind = MW_CLIOPT_DOUBLE, .dst = &o->ratio, .arg = "R", .min = 0,
		 .max = 1, .help = "a ratio"},
		{.name = "flag", .shortname = 'f', .kind = MW_CLIOPT_FLAG, .dst = &o->flag, .help = "a flag"},
		{.name = "verbose", .shortname = 'v', .kind = MW_CLIOPT_FLAG, .dst = &o->verbose, .ival = 2,
		 .help = "more"},
		{.name = "mode", .kind = MW_CLIOPT_CHOICE, .dst = &o->mode, .choices = modes, .arg = "M",
		 .help = "what to do"},
		{.name = "file", .shortname = 'o', .kind = MW_CLIOPT_STRING, .dst = &o->file, .arg = "FILE",
		 .help = "where it goes\nsecond line"},
		{.name = "timeout", .shortname = 't', .kind = MW_CLIOPT_SETTING, .setting = "timeout",
		 .arg = "S", .text = &o->timeout_text, .help = "the setting"},
		{.name = "profile", .kind = MW_CLIOPT_SETTING, .setting = "profile", .fixed = "yes",
		 .text = &o->profile_text, .help = "a setting flag"},
		{.name = "even", .kind = MW_CLIOPT_CUSTOM, .dst = &o->custom, .parse = parse_even,
		 .what = "an even number", .arg = "E", .help = "custom"},
		{.name = NULL},
	};
	memcpy(t, opts, sizeof(opts));
}
#define NOPTS 10

static const struct {
	const char *args[8]; /* after argv[0] "cmd", NULL-ended */
	int in_order;
	int rc;
	const char *err;     /* the whole error, or NULL */
	long num;
	int flag;
	const char *operands; /* the operands after parsing, space-joined */
} cases[] = {
	{{"--num", "5"}, 0, MW_CLIOPT_OK, NULL, 5, 0, ""},
	{{"--num=5"}, 0, MW_CLIOPT_OK, NULL, 5, 0, ""},
	{{"-n5"}, 0, MW_CLIOPT_OK, NULL, 5, 0, ""},
	{{"-n", "5"}, 0, MW_CLIOPT_OK, NULL, 5, 0, ""},
	{{"--nu", "6"}, 0, MW_CLIOPT_OK, NULL, 6, 0, ""},                 /* a prefix */
	{{"--num", "7", "--num", "8"}, 0, MW_CLIOPT_OK, NULL, 8, 0, ""}, /* the last wins */
	{{"-fv"}, 0, MW_CLIOPT_OK, NULL, 0, 1, ""},                       /* grouped flags */
	{{"-fn3"}, 0, MW_CLIOPT_OK, NULL, 3, 1, ""},
	{{"a", "--num", "3", "b", "-f", "c"}, 0, MW_CLIOPT_OK, NULL, 3, 1, "a b c"},
	{{"-", "--flag"}, 0, MW_CLIOPT_OK, NULL, 0, 1, "-"},
	{{"--flag", "--", "--num", "x"}, 0, MW_CLIOPT_OK, NULL, 0, 1, "--num x"},
	{{"--num", "2", "prog", "--num", "x"}, 1, MW_CLIOPT_OK, NULL, 2, 0, "prog --num x"},
	{{"--num", "2", "--", "prog"}, 1, MW_CLIOPT_OK, NULL, 2, 0, "prog"},
	{{"--help"}, 0, MW_CLIOPT_HELP, NULL, 0, 0, NULL},
	{{"-h", "--bogus"}, 0, MW_CLIOPT_HELP, NULL, 0, 0, NULL},
	{{"--he"}, 0, MW_CLIOPT_HELP, NULL, 0, 0, NULL},
	/* One wording: the option as typed, the value, what is expected. */
	{{"--num", "abc"}, 0, MW_CLIOPT_ERROR, "--num abc: expected a count, a whole number from 1 to 10", 0, 0, NULL},
	{{"--num=0"}, 0, MW_CLIOPT_ERROR, "--num 0: expected a count, a whole number from 1 to 10", 0, 0, NULL},
	{{"--nu=11"}, 0, MW_CLIOPT_ERROR, "--num 11: expected a count, a whole number from 1 to 10", 0, 0, NULL},
	{{"-n", "-1"}, 0, MW_CLIOPT_ERROR, "-n -1: expected a count, a whole number from 1 to 10", 0, 0, NULL},
	{{"-n11"}, 0, MW_CLIOPT_ERROR, "-n 11: expected a count, a whole number from 1 to 10", 0, 0, NULL},
	{{"--name-ratio", "2"}, 0, MW_CLIOPT_ERROR, "--name-ratio 2: expected a number from 0 to 1", 0, 0, NULL},
	{{"--mode", "kill"}, 0, MW_CLIOPT_ERROR, "--mode kill: expected report, cancel or requeue", 0, 0, NULL},
	{{"--even", "3"}, 0, MW_CLIOPT_ERROR, "--even 3: expected an even number", 0, 0, NULL},
	{{"--timeout", "abc"}, 0, MW_CLIOPT_ERROR,
	 "--timeout abc: expected seconds, a number from 1 to 604800", 0, 0, NULL},
	{{"-t0.5"}, 0, MW_CLIOPT_ERROR,
	 "-t 0.5: expected seconds, a number from 1 to 604800", 0, 0, NULL},
	/* Missing values, unknown options, values to flags: the same shape. */
	{{"--num"}, 0, MW_CLIOPT_ERROR, "--num: expected a count, a whole number from 1 to 10", 0, 0, NULL},
	{{"-f", "-n"}, 0, MW_CLIOPT_ERROR, "-n: expected a count, a whole number from 1 to 10", 0, 0, NULL},
	{{"--file"}, 0, MW_CLIOPT_ERROR, "--file: expected FILE", 0, 0, NULL},
	{{"--bogus"}, 0, MW_CLIOPT_ERROR, "--bogus: unknown option (see mpiwatch cmd --help)", 0, 0, NULL},
	{{"--bogus=1"}, 0, MW_CLIOPT_ERROR, "--bogus: unknown option (see mpiwatch cmd --help)", 0, 0, NULL},
	{{"-z"}, 0, MW_CLIOPT_ERROR, "-z: unknown option (see mpiwatch cmd --help)", 0, 0, NULL},
	{{"-fz"}, 0, MW_CLIOPT_ERROR, "-z: unknown option (see mpiwatch cmd --help)", 0, 0, NULL},
	{{"--n", "1"}, 0, MW_CLIOPT_ERROR, "--n: ambiguous option (see mpiwatch cmd --help)", 0, 0, NULL},
	{{"--o", "1"}, 0, MW_CLIOPT_ERROR, "--o: unknown option (see mpiwatch cmd --help)", 0, 0, NULL},
	{{"--flag=1"}, 0, MW_CLIOPT_ERROR, "--flag=1: takes no value", 0, 0, NULL},
	{{"--help=x"}, 0, MW_CLIOPT_ERROR, "--help=x: takes no value", 0, 0, NULL},
	{{"--profile=no"}, 0, MW_CLIOPT_ERROR, "--profile=no: takes no value", 0, 0, NULL},
	/* One line: the user's control characters are not printed. */
	{{"--num", "1\n2\033"}, 0, MW_CLIOPT_ERROR, "--num 1?2?: expected a count, a whole number from 1 to 10", 0, 0, NULL},
	{{"--bo\ngus"}, 0, MW_CLIOPT_ERROR, "--bo?gus: unknown option (see mpiwatch cmd --help)", 0, 0, NULL},
};

START_TEST(test_parse)
{
	struct out o = {0};
	struct mw_cliopt t[NOPTS];
	char *argv[10] = {"cmd"}, err[512] = "x", ops[256] = "";
	int argc = 1, first = -1, rc;

	table(&o, t);
	struct mw_cliopt_cmd c = {.prog = "mpiwatch cmd", .in_order = cases[_i].in_order, .keys = keys,
				  .conf = &o.conf, .opts = t};
	for (int i = 0; cases[_i].args[i]; i++)
		argv[argc++] = (char *)cases[_i].args[i];
	rc = mw_cliopt_parse(&c, argc, argv, &first, err, sizeof(err));
	ck_assert_int_eq(rc, cases[_i].rc);
	if (cases[_i].err)
		ck_assert_str_eq(err, cases[_i].err);
	if (rc != MW_CLIOPT_OK)
		return;
	ck_assert_int_eq(o.num, cases[_i].num);
	ck_assert_int_eq(o.num_given, cases[_i].num != 0);
	ck_assert_int_eq(o.flag, cases[_i].flag);
	ck_assert_int_ge(first, 1);
	ck_assert_int_le(first, argc);
	for (int i = first; i < argc; i++)
		snprintf(ops + strlen(ops), sizeof(ops) - strlen(ops), "%s%s", i > first ? " " : "", argv[i]);
	ck_assert_str_eq(ops, cases[_i].operands);
}
END_TEST

/* Each kind stores what it reads where the table says. */
START_TEST(test_kinds)
{
	struct out o = {0};
	struct mw_cliopt t[NOPTS];
	char *argv[] = {"cmd", "--name-ratio=0.25", "-v", "--mode", "requeue", "-o", "f.json", "-t", "30",
			"--profile", "--even", "42", "--file=-"};
	char err[512];
	int first;

	table(&o, t);
	struct mw_cliopt_cmd c = {.prog = "mpiwatch cmd", .keys = keys, .conf = &o.conf, .opts = t};
	ck_assert_int_eq(mw_cliopt_parse(&c, 13, argv, &first, err, sizeof(err)), MW_CLIOPT_OK);
	ck_assert_double_eq_tol(o.ratio, 0.25, 1e-12);
	ck_assert_int_eq(o.verbose, 2);
	ck_assert_int_eq(o.mode, 2);
	ck_assert_str_eq(o.file, "-");
	ck_assert_double_eq_tol(o.conf.timeout, 30, 1e-12);
	ck_assert_str_eq(o.timeout_text, "30");
	ck_assert_int_eq(o.conf.profile, 1);
	ck_assert_str_eq(o.profile_text, "yes");
	ck_assert_str_eq(o.custom, "42");
	ck_assert_int_eq(first, 13);
}
END_TEST

/* A failed parse leaves argv as it was. */
START_TEST(test_argv_kept_on_error)
{
	struct out o = {0};
	struct mw_cliopt t[NOPTS];
	char *argv[] = {"cmd", "a", "--num", "x"};
	char err[512];
	int first;

	table(&o, t);
	struct mw_cliopt_cmd c = {.prog = "mpiwatch cmd", .keys = keys, .conf = &o.conf, .opts = t};
	ck_assert_int_eq(mw_cliopt_parse(&c, 4, argv, &first, err, sizeof(err)), MW_CLIOPT_ERROR);
	ck_assert_str_eq(argv[1], "a");
	ck_assert_str_eq(argv[3], "x");
}
END_TEST

/* A small err buffer is cut, never overrun. */
START_TEST(test_short_err)
{
	struct out o = {0};
	struct mw_cliopt t[NOPTS];
	char *argv[] = {"cmd", "--timeout", "abc"};
	char err[16];
	int first;

	table(&o, t);
	struct mw_cliopt_cmd c = {.prog = "mpiwatch cmd", .keys = keys, .conf = &o.conf, .opts = t};
	ck_assert_int_eq(mw_cliopt_parse(&c, 3, argv, &first, err, sizeof(err)), MW_CLIOPT_ERROR);
	ck_assert_str_eq(err, "--timeout abc: ");
}
END_TEST

/* --help: the usage line wrapped at 80 columns, a line per option, the
 * texts in their place. */
START_TEST(test_help)
{
	struct out o = {0};
	struct mw_cliopt t[NOPTS];
	char *h, *line, *save = NULL;
	int usage_lines = 0;

	table(&o, t);
	struct mw_cliopt_cmd c = {.prog = "mpiwatch cmd", .lead = "DIR", .args = "-- PROGRAM [ARGS...]",
				  .more = "       mpiwatch cmd --other", .intro = "What it does.",
				  .epilog = "Exit status: 0.", .keys = keys, .conf = &o.conf, .opts = t};
	h = mw_cliopt_help(&c);
	ck_assert_ptr_nonnull(h);
	ck_assert_msg(!strncmp(h, "Usage: mpiwatch cmd DIR [--num N] [--name-ratio R] [--flag]", 59), "%s", h);
	ck_assert_ptr_nonnull(strstr(h, "\n  -n, --num N          how many\n"));
	ck_assert_ptr_nonnull(strstr(h, "\n      --name-ratio R   a ratio\n"));
	ck_assert_ptr_nonnull(strstr(h, "\n  -o, --file FILE      where it goes\n                       second line\n"));
	ck_assert_ptr_nonnull(strstr(h, "\n      --profile        a setting flag\n"));
	ck_assert_ptr_nonnull(strstr(h, "\n  -h, --help           show this help and exit\n"));
	ck_assert_ptr_nonnull(strstr(h, " [--profile]"));
	ck_assert_ptr_nonnull(strstr(h, " [--even E]"));
	ck_assert_ptr_nonnull(strstr(h, "\n       mpiwatch cmd --other\nWhat it does.\n\n"));
	ck_assert_ptr_nonnull(strstr(h, "\n\nExit status: 0.\n"));
	for (line = strtok_r(h, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		ck_assert_msg(strlen(line) <= 79 || line[0] == ' ', "too long: %s", line);
		/* Continuation lines: under the first word after the name. */
		if (!strncmp(line, "Usage:", 6) || (usage_lines && strspn(line, " ") == 20 &&
						    (line[20] == '[' || line[20] == '-')))
			usage_lines++;
	}
	ck_assert_int_ge(usage_lines, 2);
	free(h);
}
END_TEST

/* -h of the table's own is not --help. */
START_TEST(test_own_h)
{
	int host = 0, first;
	const struct mw_cliopt t[] = {
		{.name = "host", .shortname = 'h', .kind = MW_CLIOPT_FLAG, .dst = &host, .help = "a host"},
		{.name = NULL},
	};
	struct mw_cliopt_cmd c = {.prog = "p", .opts = t};
	char *argv[] = {"cmd", "-h"}, *argv2[] = {"cmd", "--help"}, err[128], *h;

	ck_assert_int_eq(mw_cliopt_parse(&c, 2, argv, &first, err, sizeof(err)), MW_CLIOPT_OK);
	ck_assert_int_eq(host, 1);
	ck_assert_int_eq(mw_cliopt_parse(&c, 2, argv2, &first, err, sizeof(err)), MW_CLIOPT_HELP);
	h = mw_cliopt_help(&c);
	ck_assert_ptr_nonnull(strstr(h, "\n      --help           show this help and exit\n"));
	free(h);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cliopt");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_parse, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, test_kinds);
	tcase_add_test(tc, test_argv_kept_on_error);
	tcase_add_test(tc, test_short_err);
	tcase_add_test(tc, test_help);
	tcase_add_test(tc, test_own_h);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
