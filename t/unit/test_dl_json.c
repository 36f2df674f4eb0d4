/* test_dl_json.c - the dumps' JSON reader (analyze/dl_json.c), table-driven. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "dl_json.h"

static const struct {
	const char *in;
	int ok;
	const char *err; /* substring of the error */
} cases[] = {
	{"{}", 1, NULL},
	{" {\"a\": [1, 2.5, -3e2, true, false, null, \"x\"]} \n", 1, NULL},
	{"{\"a\": \"\\u00e9\\ud83d\\ude00\\n\\\"\"}", 1, NULL},
	{"{\"a\": 1", 0, "truncated"},
	{"{\"a\": \"abc", 0, "truncated"},
	{"{\"a\": tru", 0, "truncated"},
	{"{\"a\": [1, 2", 0, "truncated"},
	{"{\"a\": 1,}", 0, "expected a member name"},
	{"{\"a\" 1}", 0, "expected ':'"},
	{"[1 2]", 0, "expected ',' or ']'"},
	{"{\"a\": 01}", 0, "expected ',' or '}'"},
	{"{\"a\": 1.}", 0, "bad number"},
	{"{\"a\": -}", 0, "bad number"},
	{"{\"a\": \"\\x\"}", 0, "bad escape"},
	{"{\"a\": \"\\u12g4\"}", 0, "bad \\u escape"},
	{"{\"a\": \"\\u0000\"}", 0, "\\u0000"},
	{"{\"a\": \"tab\there\"}", 0, "control character"},
	{"{} x", 0, "trailing data"},
	{"nul", 0, "truncated"},
	{"@", 0, "unexpected character"},
	{"", 0, "truncated"},
	{"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", 0, "nested too deeply"},
	{"{\"big\": 123456789012345678901234567890}", 1, NULL},
};

START_TEST(test_parse)
{
	struct dlj_arena a = {0};
	char err[200];
	char *buf = strdup(cases[_i].in);
	const struct dlj *v = dlj_parse(&a, buf, strlen(buf), err, sizeof err);
	ck_assert_msg((v != NULL) == cases[_i].ok, "case %d (%s): %s", _i, cases[_i].in, err);
	if (cases[_i].err)
		ck_assert_msg(strstr(err, cases[_i].err) != NULL, "case %d: '%s' lacks '%s'", _i, err,
			      cases[_i].err);
	free(buf);
	dlj_arena_free(&a);
}
END_TEST

START_TEST(test_values)
{
	struct dlj_arena a = {0};
	char err[200];
	char buf[] = "{\"n\": -42, \"d\": 2.5, \"s\": \"caf\\u00e9\\/x\", \"b\": true, \"z\": null,"
		     " \"arr\": [10, {\"k\": \"v\"}], \"big\": 99999999999999999999}";
	const struct dlj *r = dlj_parse(&a, buf, strlen(buf), err, sizeof err);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->type, DLJ_OBJECT);
	ck_assert_int_eq(r->n, 7);
	const struct dlj *v = dlj_get(&a, r, "n");
	ck_assert(v && v->type == DLJ_INT && v->i == -42);
	v = dlj_get(&a, r, "d");
	ck_assert(v && v->type == DLJ_DOUBLE && v->d == 2.5);
	v = dlj_get(&a, r, "s");
	ck_assert(v && v->type == DLJ_STRING);
	ck_assert_str_eq(v->s, "caf\xc3\xa9/x");
	ck_assert_int_eq(v->slen, 7);
	v = dlj_get(&a, r, "b");
	ck_assert(v && v->type == DLJ_BOOL && v->i == 1);
	v = dlj_get(&a, r, "z");
	ck_assert(v && v->type == DLJ_NULL);
	v = dlj_get(&a, r, "arr");
	ck_assert(v && v->type == DLJ_ARRAY && v->n == 2);
	ck_assert_int_eq(dlj_kid(&a, v, 0)->i, 10);
	ck_assert_str_eq(dlj_get(&a, dlj_kid(&a, v, 1), "k")->s, "v");
	ck_assert_ptr_null(dlj_kid(&a, v, 2));
	ck_assert_int_eq(dlj_get(&a, r, "big")->type, DLJ_DOUBLE);
	ck_assert_ptr_null(dlj_get(&a, r, "missing"));
	/* the arena is reused */
	char buf2[] = "[1]";
	r = dlj_parse(&a, buf2, 3, err, sizeof err);
	ck_assert(r && r->type == DLJ_ARRAY && r->n == 1);
	dlj_arena_free(&a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dl_json");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_parse, 0, (int)(sizeof cases / sizeof cases[0]));
	tcase_add_test(tc, test_values);
	suite_add_tcase(s, tc);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
