/* Unit tests of tree/mwt_counts.c: the BE counts file of "mpiwatch topo". */
#include <check.h>
#include <string.h>

#include "mwt_counts.h"
#include "unit.h"

START_TEST(test_counts_ok)
{
	const char *t = "# node count\n"
			"n01 2\n"
			"\n"
			"n02\t0   # idle\n"
			"a 1 load=2 mem=16000 cores=8 health=degraded rtt=0.2\r\n"
			"last 3";
	struct mw_conf_errors errs = {0};
	struct mwt_counts c;
	ck_assert_int_eq(mwt_counts_parse(t, strlen(t), "f", &c, &errs), 0);
	ck_assert_uint_eq(c.n, 4);
	ck_assert_str_eq(c.host[0].name, "n01");
	ck_assert_int_eq(c.host[0].be, 2);
	ck_assert_int_eq(c.host[1].be, 0);
	ck_assert(c.host[1].f.load < 0); /* unknown */
	ck_assert_int_eq(c.host[1].f.health, MWT_HEALTH_UNKNOWN);
	ck_assert(c.host[2].f.load == 2);
	ck_assert(c.host[2].f.mem_free_mb == 16000);
	ck_assert_int_eq(c.host[2].f.cores, 8);
	ck_assert_int_eq(c.host[2].f.health, MWT_HEALTH_DEGRADED);
	ck_assert(c.host[2].f.rtt_ms == 0.2);
	ck_assert_str_eq(c.host[3].name, "last");
	ck_assert_int_eq(c.host[3].be, 3);
	mwt_counts_free(&c);
}
END_TEST

/* Every bad line is reported with its line number, not just the first. */
START_TEST(test_counts_errors)
{
	const char *t = "n01 1\n"
			"n02 x\n"
			"n03\n"
			"-n 1\n"
			"n04 1 foo=1\n"
			"n05 1 health=sick load=-1\n"
			"n06 70000\n";
	struct mw_conf_errors errs = {0};
	struct mwt_counts c;
	ck_assert_int_eq(mwt_counts_parse(t, strlen(t), "counts.txt", &c, &errs), 7);
	ck_assert_ptr_null(c.host);
	ck_assert_str_eq(errs.msg[0], "counts.txt:2: count 'x' of node n02: expected an integer in [0, 65536]");
	ck_assert_str_eq(errs.msg[1], "counts.txt:3: node n03 without a count: expected NODE COUNT");
	ck_assert_str_eq(errs.msg[2], "counts.txt:4: '-n' is not a node name");
	ck_assert_str_eq(errs.msg[3], "counts.txt:5: unknown key 'foo' (load, mem, cores, health, rtt)");
	ck_assert_str_eq(errs.msg[4], "counts.txt:6: health 'sick': expected ok, degraded, down or unknown");
	ck_assert_str_eq(errs.msg[5], "counts.txt:6: load '-1': not a number in range");
	ck_assert_str_eq(errs.msg[6], "counts.txt:7: count '70000' of node n06: expected an integer in [0, 65536]");
	mw_conf_errors_free(&errs);
}
END_TEST

START_TEST(test_counts_twice_empty_nul)
{
	struct mw_conf_errors errs = {0};
	struct mwt_counts c;
	ck_assert_int_eq(mwt_counts_parse("b 1\na 1\nb 2\n", 12, "f", &c, &errs), 1);
	ck_assert_str_eq(errs.msg[0], "f: node b given twice");
	mw_conf_errors_free(&errs);
	ck_assert_int_eq(mwt_counts_parse("# nothing\n\n", 11, "f", &c, &errs), 1);
	ck_assert_str_eq(errs.msg[0], "f: no NODE COUNT line");
	mw_conf_errors_free(&errs);
	ck_assert_int_eq(mwt_counts_parse("a 1\nb\0 1\n", 9, "f", &c, &errs), 1);
	ck_assert_str_eq(errs.msg[0], "f:2: NUL byte");
	mw_conf_errors_free(&errs);
	ck_assert_int_eq(mwt_counts_read("/nonexistent/counts", &c, &errs), 1);
	ck_assert_str_eq(errs.msg[0], "/nonexistent/counts: No such file or directory");
	mw_conf_errors_free(&errs);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tree_counts");
	TCase *tc = tcase_create("counts");
	tcase_add_test(tc, test_counts_ok);
	tcase_add_test(tc, test_counts_errors);
	tcase_add_test(tc, test_counts_twice_empty_nul);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
