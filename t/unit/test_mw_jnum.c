/* Unit tests for shared/mw_jnum.c: JSON doubles that serialize fast must
 * read back as the same double, and say so when they cannot. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mw_jnum.h"

static const struct {
	double v;
	const char *text; /* NULL: mw_jnum_format returns 0 */
} cases[] = {
	{0.0, "0.0"},
	{5.0, "5.0"},
	{-3.0, "-3.0"},
	{0.5, "0.5"},
	{-0.25, "-0.25"},
	{0.001, "0.001"},
	{123.456, "123.456"},
	{100679326.58, "100679326.58"},
	{1e15, "1000000000000000.0"},
	{1e16, NULL},        /* beyond 2^53 */
	{1.0 / 3.0, NULL},   /* needs 17 digits */
	{1e-12, NULL},       /* more than 9 fractional digits */
	{-0.0, NULL},        /* json-c writes "-0.0": left to it */
};

START_TEST(test_cases)
{
	char buf[MW_JNUM_MAX];
	int n = mw_jnum_format(cases[_i].v, buf);
	if (!cases[_i].text) {
		ck_assert_int_eq(n, 0);
		return;
	}
	ck_assert_str_eq(buf, cases[_i].text);
	ck_assert_int_eq(n, (int)strlen(cases[_i].text));
}
END_TEST

START_TEST(test_not_finite)
{
	char buf[MW_JNUM_MAX];
	ck_assert_int_eq(mw_jnum_format(INFINITY, buf), 0);
	ck_assert_int_eq(mw_jnum_format(NAN, buf), 0);
}
END_TEST

/* Every number written reads back as exactly the same double, through the
 * JSON text and json-c's parser, whichever way it was written. */
START_TEST(test_round_trip)
{
	srand48(7);
	json_object *a = json_object_new_array();
	double v[4000];
	for (int i = 0; i < 4000; i++) {
		switch (i % 4) {
		case 0: v[i] = floor(drand48() * 1e8) / 100; break;   /* profile times */
		case 1: v[i] = drand48() * 1e6; break;                /* arbitrary */
		case 2: v[i] = (drand48() - 0.5) * 1e-3; break;       /* small */
		default: v[i] = floor(drand48() * 1e6) * 1e-6; break; /* micro */
		}
		json_object_array_add(a, mw_jnum_new(v[i]));
	}
	const char *s = json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN);
	json_object *b = json_tokener_parse(s);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq((int)json_object_array_length(b), 4000);
	for (int i = 0; i < 4000; i++)
		ck_assert_msg(json_object_get_double(json_object_array_get_idx(b, i)) == v[i],
			      "number %d (%.17g) read back differently", i, v[i]);
	json_object_put(a);
	json_object_put(b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mw_jnum");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_cases, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, test_not_finite);
	tcase_add_test(tc, test_round_trip);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
