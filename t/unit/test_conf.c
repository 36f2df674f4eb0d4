/* Unit tests for shared/conf.c: the "key = value" parser. */
#include <check.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"

struct cfg {
	long port;
	double timeout;
	int drain;
	char *name;
	struct mw_strlist hooks;
	int mode;
};

static const char *const modes[] = {"report", "cancel", "requeue", NULL};
static const struct mw_conf_key keys[] = {
	{.name = "port", .type = MW_CONF_INT, .offset = offsetof(struct cfg, port), .min = 1, .max = 65535, .choices = NULL},
	{.name = "timeout", .type = MW_CONF_DOUBLE, .offset = offsetof(struct cfg, timeout), .min = 1, .max = 86400, .choices = NULL},
	{.name = "drain", .type = MW_CONF_BOOL, .offset = offsetof(struct cfg, drain), .min = 0, .max = 0, .choices = NULL},
	{.name = "name", .type = MW_CONF_STRING, .offset = offsetof(struct cfg, name), .min = 0, .max = 0, .choices = NULL},
	{.name = "hook", .type = MW_CONF_LIST, .offset = offsetof(struct cfg, hooks), .min = 0, .max = 0, .choices = NULL},
	{.name = "mode", .type = MW_CONF_ENUM, .offset = offsetof(struct cfg, mode), .min = 0, .max = 0, .choices = modes},
	{.name = NULL},
};

static const struct {
	const char *text;
	int nerr;
	const char *first_err; /* substring of the first error, or NULL */
	long port;
	double timeout;
	int drain;
	const char *name;
	size_t nhooks;
	int mode;
} cases[] = {
	{"", 0, NULL, 7, 60, 0, NULL, 0, 0},
	{"# comment only\n\n   \n", 0, NULL, 7, 60, 0, NULL, 0, 0},
	{"port = 99\n", 0, NULL, 99, 60, 0, NULL, 0, 0},
	{"port=0x10", 0, NULL, 16, 60, 0, NULL, 0, 0},
	{"timeout = 2.5 # trailing comment\n", 0, NULL, 7, 2.5, 0, NULL, 0, 0},
	{"drain = yes\nmode = cancel\n", 0, NULL, 7, 60, 1, NULL, 0, 1},
	{"name = \"a # not a comment \\\" q\"\n", 0, NULL, 7, 60, 0, "a # not a comment \" q", 0, 0},
	{"name = plain words  \n", 0, NULL, 7, 60, 0, "plain words", 0, 0},
	{"hook = /a\nhook = /b\r\n", 0, NULL, 7, 60, 0, NULL, 2, 0},
	{"port = 70000\n", 1, "test.conf:1: port = '70000' is out of range", 7, 60, 0, NULL, 0, 0},
	{"port = 12x\n", 1, "test.conf:1: port = '12x' is not an integer", 7, 60, 0, NULL, 0, 0},
	{"\n\nbogus = 1\n", 1, "test.conf:3: unknown key 'bogus'", 7, 60, 0, NULL, 0, 0},
	{"drain = maybe\n", 1, "is not yes/no", 7, 60, 0, NULL, 0, 0},
	{"mode = explode\n", 1, "is not one of report|cancel|requeue", 7, 60, 0, NULL, 0, 0},
	{"timeout = nan\n", 1, "is not a number", 7, 60, 0, NULL, 0, 0},
	{"timeout = 0.5\n", 1, "out of range", 7, 60, 0, NULL, 0, 0},
	{"port 5\n", 1, "test.conf:1: expected 'key = value'", 7, 60, 0, NULL, 0, 0},
	{"= 5\n", 1, "expected a key", 7, 60, 0, NULL, 0, 0},
	{"name = \"open\n", 1, "unterminated quoted value", 7, 60, 0, NULL, 0, 0},
	{"name = \"a\" b\n", 1, "unexpected text after quoted value", 7, 60, 0, NULL, 0, 0},
	{"hook =\n", 1, "hook needs a value", 7, 60, 0, NULL, 0, 0},
	/* All errors are reported, and good lines still apply. */
	{"bogus = 1\nport = 5\nport = x\nother = 2\n", 3, "test.conf:1:", 5, 60, 0, NULL, 0, 0},
};

START_TEST(test_parse)
{
	struct cfg c = {7, 60, 0, NULL, {NULL, 0}, 0};
	struct mw_conf_errors errs = {0};
	int n = mw_conf_parse_buffer("test.conf", cases[_i].text, strlen(cases[_i].text), keys,
				     &c, &errs);

	ck_assert_int_eq(n, cases[_i].nerr);
	ck_assert_uint_eq(errs.n, (size_t)cases[_i].nerr);
	if (cases[_i].first_err)
		ck_assert_msg(strstr(errs.msg[0], cases[_i].first_err), "got '%s', want '%s'",
			      errs.msg[0], cases[_i].first_err);
	ck_assert_int_eq(c.port, cases[_i].port);
	ck_assert_double_eq_tol(c.timeout, cases[_i].timeout, 1e-9);
	ck_assert_int_eq(c.drain, cases[_i].drain);
	if (cases[_i].name)
		ck_assert_str_eq(c.name, cases[_i].name);
	else
		ck_assert_ptr_null(c.name);
	ck_assert_uint_eq(c.hooks.n, cases[_i].nhooks);
	ck_assert_int_eq(c.mode, cases[_i].mode);
	mw_conf_free(keys, &c);
	mw_conf_errors_free(&errs);
}
END_TEST

START_TEST(test_nul_and_long_lines)
{
	struct cfg c = {7, 60, 0, NULL, {NULL, 0}, 0};
	struct mw_conf_errors errs = {0};
	char buf[6000];
	memcpy(buf, "port = 9\0\n", 10);
	ck_assert_int_eq(mw_conf_parse_buffer("x", buf, 10, keys, &c, &errs), 1);
	ck_assert_ptr_nonnull(strstr(errs.msg[0], "x:1: NUL byte"));
	mw_conf_errors_free(&errs);
	memset(buf, 'a', sizeof(buf));
	ck_assert_int_eq(mw_conf_parse_buffer("x", buf, sizeof(buf), keys, &c, &errs), 1);
	ck_assert_ptr_nonnull(strstr(errs.msg[0], "line too long"));
	mw_conf_errors_free(&errs);
	mw_conf_free(keys, &c);
}
END_TEST

START_TEST(test_file)
{
	char path[] = "/tmp/mwconfXXXXXX";
	int fd = mkstemp(path);
	struct cfg c = {7, 60, 0, NULL, {NULL, 0}, 0};
	struct mw_conf_errors errs = {0};

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "port = 42\nhook = /x\n", 20), 20);
	close(fd);
	ck_assert_int_eq(mw_conf_parse_file(path, keys, &c, &errs), 0);
	ck_assert_int_eq(c.port, 42);
	ck_assert_str_eq(c.hooks.v[0], "/x");
	unlink(path);
	ck_assert_int_eq(mw_conf_parse_file(path, keys, &c, &errs), 1);
	ck_assert_ptr_nonnull(strstr(errs.msg[0], "No such file"));
	mw_conf_errors_free(&errs);
	mw_conf_free(keys, &c);
}
END_TEST

static const struct {
	const char *s;
	int ok;
	int v;
} bools[] = {{"yes", 1, 1}, {"On", 1, 1}, {"TRUE", 1, 1}, {"1", 1, 1},  {"no", 1, 0},
	     {"off", 1, 0}, {"0", 1, 0},    {"", 0, 0},     {"yess", 0, 0}};

START_TEST(test_bool)
{
	int v = -1;
	int r = mw_conf_parse_bool(bools[_i].s, &v);
	ck_assert_int_eq(r, bools[_i].ok ? 0 : -1);
	if (bools[_i].ok)
		ck_assert_int_eq(v, bools[_i].v);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("conf");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_parse, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, test_nul_and_long_lines);
	tcase_add_test(tc, test_file);
	tcase_add_loop_test(tc, test_bool, 0, sizeof(bools) / sizeof(bools[0]));
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
