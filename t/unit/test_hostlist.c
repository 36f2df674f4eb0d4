/* Unit tests for shared/hostlist.c: Slurm hostlist expressions and rank ranges. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"

static const struct {
	const char *expr;
	const char *expect; /* names joined by spaces, or NULL for an error */
	int err;
} expand_cases[] = {
	{"n1", "n1", 0},
	{"n[1-3]", "n1 n2 n3", 0},
	{"n[1-3,5]", "n1 n2 n3 n5", 0},
	{"n[01-03]", "n01 n02 n03", 0},
	{"n[8-11]", "n8 n9 n10 n11", 0},
	{"a,b,c", "a b c", 0},
	{"n[1-2],gpu[7,9]", "n1 n2 gpu7 gpu9", 0},
	{"r[1-2]n[1-2]", "r1n1 r1n2 r2n1 r2n2", 0},
	{"node[1-2]-ib", "node1-ib node2-ib", 0},
	{"n1 n2", "n1 n2", 0},
	{"", NULL, EINVAL},
	{"n[", NULL, EINVAL},
	{"n[1-", NULL, EINVAL},
	{"n[3-1]", NULL, EINVAL},
	{"n[a-b]", NULL, EINVAL},
	{"n[]", NULL, EINVAL},
	{"n[1,]", NULL, EINVAL},
	{"n]1[", NULL, EINVAL},
	{"n[[1]]", NULL, EINVAL},
	{"a,,b", NULL, EINVAL},
	{"a,", NULL, EINVAL},
	{"n[0-999999]", NULL, E2BIG},
	{"a[1-1000]b[1-1000]", NULL, E2BIG},
};

START_TEST(test_expand)
{
	struct mw_hostlist hl;
	char got[1024] = "";
	int r = mw_hostlist_expand(expand_cases[_i].expr, 1000, &hl);

	if (!expand_cases[_i].expect) {
		ck_assert_msg(r == -1, "'%s' should fail", expand_cases[_i].expr);
		ck_assert_int_eq(errno, expand_cases[_i].err);
		ck_assert_uint_eq(hl.n, 0);
		return;
	}
	ck_assert_msg(r == 0, "'%s' failed", expand_cases[_i].expr);
	for (size_t i = 0; i < hl.n; i++) {
		if (i)
			strcat(got, " ");
		strcat(got, hl.host[i]);
	}
	ck_assert_str_eq(got, expand_cases[_i].expect);
	mw_hostlist_free(&hl);
}
END_TEST

static const struct {
	const char *in;  /* expression to expand first */
	const char *out; /* compressed */
} compress_cases[] = {
	{"n1,n2,n3", "n[1-3]"},
	{"n3,n1,n2,n5", "n[1-3,5]"},
	{"n01,n02", "n[01-02]"},
	{"a,b", "a,b"},
	{"n1,m1,n2", "n[1-2],m1"},
	{"n7", "n7"},
};

START_TEST(test_compress)
{
	struct mw_hostlist hl;
	char buf[256];
	ck_assert_int_eq(mw_hostlist_expand(compress_cases[_i].in, 100, &hl), 0);
	size_t need = mw_hostlist_compress(&hl, buf, sizeof(buf));
	ck_assert_str_eq(buf, compress_cases[_i].out);
	ck_assert_uint_eq(need, strlen(compress_cases[_i].out));
	/* Round trip. */
	struct mw_hostlist back;
	ck_assert_int_eq(mw_hostlist_expand(buf, 100, &back), 0);
	ck_assert_uint_eq(back.n, hl.n);
	mw_hostlist_free(&back);
	mw_hostlist_free(&hl);
}
END_TEST

static const struct {
	int v[8];
	size_t n;
	const char *out;
} ranges_cases[] = {
	{{0, 1, 2, 3, 5}, 5, "0-3,5"},
	{{5, 3, 2, 1, 0}, 5, "0-3,5"},
	{{7}, 1, "7"},
	{{1, 1, 2}, 3, "1-2"},
	{{0, 2, 4}, 3, "0,2,4"},
	{{0}, 0, ""},
};

START_TEST(test_ranges_format)
{
	char buf[64];
	mw_ranges_format(ranges_cases[_i].v, ranges_cases[_i].n, buf, sizeof(buf));
	ck_assert_str_eq(buf, ranges_cases[_i].out);
}
END_TEST

START_TEST(test_ranges_cut_at_whole_items)
{
	/* A list too long for its buffer ends with whole numbers and "...",
	 * never a number cut in the middle ("ranks 9,19,311,317,3"). */
	int v[] = {0, 2, 4, 6, 8, 10, 12, 14, 16};
	char buf[12];
	size_t need = mw_ranges_format(v, 9, buf, sizeof(buf));
	ck_assert_uint_eq(need, strlen("0,2,4,6,8,10,12,14,16"));
	ck_assert_str_eq(buf, "0,2,4,6,...");
}
END_TEST

START_TEST(test_ranges_truncates_safely)
{
	int v[] = {0, 2, 4, 6, 8, 10};
	char buf[4];
	size_t need = mw_ranges_format(v, 6, buf, sizeof(buf));
	ck_assert_uint_eq(need, strlen("0,2,4,6,8,10"));
	ck_assert_uint_lt(strlen(buf), sizeof(buf));
}
END_TEST

static const struct {
	const char *in;
	long n;
	int first, last;
} parse_cases[] = {
	{"0-3,5", 5, 0, 5}, {"7", 1, 7, 7}, {"", -1, 0, 0},     {"3-1", -1, 0, 0},
	{"1,", -1, 0, 0},   {"a", -1, 0, 0}, {"0-99999", -1, 0, 0}, {"-1", -1, 0, 0},
};

START_TEST(test_ranges_parse)
{
	int *v = NULL;
	long n = mw_ranges_parse(parse_cases[_i].in, 1000, &v);
	ck_assert_int_eq(n, parse_cases[_i].n);
	if (n > 0) {
		ck_assert_int_eq(v[0], parse_cases[_i].first);
		ck_assert_int_eq(v[n - 1], parse_cases[_i].last);
	}
	free(v);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hostlist");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_expand, 0, sizeof(expand_cases) / sizeof(expand_cases[0]));
	tcase_add_loop_test(tc, test_compress, 0, sizeof(compress_cases) / sizeof(compress_cases[0]));
	tcase_add_loop_test(tc, test_ranges_format, 0, sizeof(ranges_cases) / sizeof(ranges_cases[0]));
	tcase_add_test(tc, test_ranges_truncates_safely);
	tcase_add_test(tc, test_ranges_cut_at_whole_items);
	tcase_add_loop_test(tc, test_ranges_parse, 0, sizeof(parse_cases) / sizeof(parse_cases[0]));
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
