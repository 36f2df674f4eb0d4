/* Unit tests for shared/mw_json.c: the one set of checked JSON readers. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "mw_json.h"

/* One object read by every case: each member's type and value. */
static const char doc[] =
	"{\"i\": 42, \"neg\": -7, \"big\": 99999999999999999999, \"d\": 2.5, \"inf\": 1e400,"
	" \"s\": \"node1\", \"ctl\": \"a\\u0001b\", \"nul\": \"a\\u0000b\", \"t\": true, \"f\": false,"
	" \"a\": [1, 2], \"o\": {}, \"n\": null, \"si\": \"12\"}";

static const struct {
	const char *key;
	int64_t lo, hi;
	int rv;       /* mw_json_int's answer */
	int64_t val;  /* its value when 0 */
} int_cases[] = {
	{"i", 0, 100, 0, 42},
	{"i", 0, 41, -1, 0},     /* above the range */
	{"i", 43, 100, -1, 0},   /* below */
	{"neg", -10, 0, 0, -7},
	{"big", 0, 1000000, -1, 0}, /* beyond int64_t: never within a range */
	{"d", 0, 100, -1, 0},    /* a double is not an integer */
	{"s", 0, 100, -1, 0},
	{"si", 0, 100, -1, 0},   /* a string of digits is not an integer */
	{"t", 0, 100, -1, 0},
	{"n", 0, 100, -1, 0},
	{"missing", 0, 100, -1, 0},
};

static const struct {
	const char *key;
	size_t max;
	const char *want; /* mw_json_str's answer, NULL for an error */
	const char *text; /* mw_json_text's answer */
} str_cases[] = {
	{"s", 16, "node1", "node1"},
	{"s", 5, "node1", "node1"},
	{"s", 4, NULL, "node1"}, /* longer than max */
	{"ctl", 16, NULL, "a\001b"}, /* a control character */
	{"nul", 16, NULL, NULL}, /* a NUL inside */
	{"i", 16, NULL, NULL},
	{"n", 16, NULL, NULL},
	{"missing", 16, NULL, NULL},
};

static json_object *root(void)
{
	json_object *o = json_tokener_parse(doc);
	ck_assert_ptr_nonnull(o);
	return o;
}

START_TEST(test_int)
{
	json_object *o = root();
	int64_t v = 0;
	ck_assert_int_eq(mw_json_int(o, int_cases[_i].key, int_cases[_i].lo, int_cases[_i].hi, &v), int_cases[_i].rv);
	if (int_cases[_i].rv == 0)
		ck_assert_int_eq(v, int_cases[_i].val);
	json_object_put(o);
}
END_TEST

START_TEST(test_str)
{
	json_object *o = root();
	const char *s = mw_json_str(o, str_cases[_i].key, str_cases[_i].max);
	const char *t = mw_json_text(o, str_cases[_i].key);
	if (str_cases[_i].want)
		ck_assert_str_eq(s, str_cases[_i].want);
	else
		ck_assert_ptr_null(s);
	if (str_cases[_i].text)
		ck_assert_str_eq(t, str_cases[_i].text);
	else
		ck_assert_ptr_null(t);
	json_object_put(o);
}
END_TEST

START_TEST(test_num_long_bool_array)
{
	json_object *o = root();
	double d = 0;
	long long l = 0;
	ck_assert_int_eq(mw_json_num(o, "d", 0, 3, &d), 0);
	ck_assert(d == 2.5);
	ck_assert_int_eq(mw_json_num(o, "i", 0, 100, &d), 0); /* an integer is a number */
	ck_assert(d == 42);
	ck_assert_int_eq(mw_json_num(o, "d", 0, 2.5, &d), -1); /* hi is excluded */
	ck_assert_int_eq(mw_json_num(o, "inf", -HUGE_VAL, HUGE_VAL, &d), -1); /* not finite */
	ck_assert_int_eq(mw_json_num(o, "s", 0, 100, &d), -1);
	ck_assert_int_eq(mw_json_long(o, "i", &l), 0);
	ck_assert_int_eq(l, 42);
	ck_assert_int_eq(mw_json_long(o, "d", &l), 0); /* Slurm's numbers may be doubles */
	ck_assert_int_eq(l, 2);
	ck_assert_int_eq(mw_json_long(o, "s", &l), -1);
	ck_assert_int_eq(mw_json_long(o, "missing", &l), -1);
	ck_assert_int_eq(mw_json_true(o, "t"), 1);
	ck_assert_int_eq(mw_json_true(o, "f"), 0);
	ck_assert_int_eq(mw_json_true(o, "i"), 0); /* 42 is not true */
	ck_assert_int_eq(mw_json_true(o, "missing"), 0);
	ck_assert_ptr_nonnull(mw_json_array(o, "a"));
	ck_assert_ptr_null(mw_json_array(o, "o"));
	ck_assert_ptr_null(mw_json_array(o, "missing"));
	ck_assert_ptr_null(mw_json_member(o, "n")); /* a JSON null is no member */
	ck_assert_ptr_nonnull(mw_json_member(o, "o"));
	/* not an object: every reader says no */
	json_object *a = mw_json_array(o, "a");
	ck_assert_ptr_null(mw_json_member(a, "i"));
	ck_assert_ptr_null(mw_json_member(NULL, "i"));
	ck_assert_ptr_null(mw_json_text(a, "s"));
	json_object_put(o);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mw_json");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_int, 0, sizeof(int_cases) / sizeof(int_cases[0]));
	tcase_add_loop_test(tc, test_str, 0, sizeof(str_cases) / sizeof(str_cases[0]));
	tcase_add_test(tc, test_num_long_bool_array);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
