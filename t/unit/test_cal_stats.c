/* Unit tests of calib/cal_stats.c, cal_criterion.c, cal_timings.c and the
 * /proc/cpuinfo check of cal_timer.c.  Reference values: R's wilcox.test
 * documentation examples (also in /work/shared/FACTS.md, recomputed there by
 * exhaustive enumeration) and cases computed by hand in the comments. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cal_criterion.h"
#include "cal_stats.h"
#include "cal_timer.h"
#include "cal_timings.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define near(got, want, tol) ck_assert_msg(fabs((got) - (want)) <= (tol), "%s = %.10g, expected %.10g", #got, (double)(got), (double)(want))

/* R: x <- c(0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46)
 *    y <- c(1.15, 0.88, 0.90, 0.74, 1.21)
 *    wilcox.test(x, y, alternative = "g")        W = 35, p-value = 0.1272061
 *    wilcox.test(x, y, alternative = "g", exact = FALSE, correct = FALSE)
 *                                                W = 35, p-value = 0.1103 */
static const double perm_x[] = {0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
static const double perm_y[] = {1.15, 0.88, 0.90, 0.74, 1.21};

START_TEST(test_ranksum_permeability_exact)
{
	struct cal_test t;
	ck_assert_int_eq(cal_ranksum(perm_x, N(perm_x), perm_y, N(perm_y), NULL, &t), 0);
	ck_assert_int_eq(t.exact, 1);
	ck_assert_int_eq(t.ties, 0);
	near(t.statistic, 35, 0);
	near(t.rank_sum, 90, 0); /* W + n1 (n1 + 1) / 2 = 35 + 55 */
	near(t.p_greater, 0.1272061, 5e-8);
	/* Two-sided: W > n1 n2 / 2 = 25, so 2 P(U >= 35) = 0.2544122544 */
	near(t.p_two_sided, 0.2544122544, 1e-9);
	/* P(U <= 35) = 2693 / 3003 by enumeration of the C(15, 10) = 3003 rankings */
	near(t.p_less, 2693.0 / 3003.0, 1e-12);
}
END_TEST

START_TEST(test_ranksum_permeability_normal)
{
	struct cal_test t;
	struct cal_test_opts o = {CAL_EXACT_NEVER, 0};
	ck_assert_int_eq(cal_ranksum(perm_x, N(perm_x), perm_y, N(perm_y), &o, &t), 0);
	ck_assert_int_eq(t.exact, 0);
	near(t.statistic, 35, 0);
	near(t.p_greater, 0.1103, 5e-5);
	near(t.p_greater, 0.1103356810, 1e-9);
	/* With the continuity correction (R's default for exact = FALSE):
	 * z = (35 - 25 - 0.5) / sqrt(10 * 5 / 12 * 16) = 9.5 / 8.164966 = 1.163508,
	 * P(Z > z) = 0.1223118 */
	o.correct = 1;
	ck_assert_int_eq(cal_ranksum(perm_x, N(perm_x), perm_y, N(perm_y), &o, &t), 0);
	near(t.p_greater, 0.1223118026, 1e-9);
	near(t.p_two_sided, 0.2446236051, 1e-9);
}
END_TEST

/* A case with ties, by hand: x = (1, 2, 2, 4), y = (2, 3, 5).
 * Pooled and sorted: 1x 2x 2x 2y 3y 4x 5y; the three 2s share ranks 2, 3, 4,
 * so each gets 3.  Ranks of x: 1 + 3 + 3 + 6 = 13, U = 13 - 4*5/2 = 3.
 * Mean n1 n2 / 2 = 6, so z0 = U - 6 = -3.
 * Tie correction: one group of t = 3, sum(t^3 - t) = 24, N = 7:
 * var = n1 n2 / 12 * ((N + 1) - 24 / (N (N - 1))) = 1 * (8 - 24/42) = 7.4285714,
 * sigma = 2.7255406.
 * Two-sided, corrected: z = (-3 + 0.5) / sigma = -0.9172488,
 *   p = 2 P(Z < z) = 0.3590121.   Uncorrected: z = -3 / sigma, p = 0.2710276.
 * Less, corrected: z = (-3 + 0.5) / sigma, p = P(Z < z) = 0.1795060.
 * Greater, corrected: z = (-3 - 0.5) / sigma = -1.2841, p = P(Z > z) = 0.9004551. */
START_TEST(test_ranksum_ties)
{
	static const double x[] = {1, 2, 2, 4}, y[] = {2, 3, 5};
	struct cal_test t;
	struct cal_test_opts o = {CAL_EXACT_AUTO, 1};
	ck_assert_int_eq(cal_ranksum(x, 4, y, 3, &o, &t), 0);
	ck_assert_int_eq(t.ties, 1);
	ck_assert_int_eq(t.exact, 0); /* ties: never exact */
	near(t.rank_sum, 13, 0);
	near(t.statistic, 3, 0);
	near(t.z, -0.9172488, 1e-6);
	near(t.p_two_sided, 0.3590120538, 1e-9);
	near(t.p_less, 0.1795060269, 1e-9);
	near(t.p_greater, 1 - 0.0995449261, 1e-9);
	o.correct = 0;
	ck_assert_int_eq(cal_ranksum(x, 4, y, 3, &o, &t), 0);
	near(t.p_two_sided, 0.2710276474, 1e-9);
}
END_TEST

/* Exact distribution by hand for n1 = 2, n2 = 1: U in {0, 1, 2}, one
 * arrangement each; x = (2, 3), y = (1): U = 2, P(U >= 2) = 1/3. */
START_TEST(test_ranksum_tiny_exact)
{
	static const double x[] = {2, 3}, y[] = {1};
	struct cal_test t;
	ck_assert_int_eq(cal_ranksum(x, 2, y, 1, NULL, &t), 0);
	ck_assert_int_eq(t.exact, 1);
	near(t.statistic, 2, 0);
	near(t.p_greater, 1.0 / 3, 1e-15);
	near(t.p_less, 1, 1e-15);
	near(t.p_two_sided, 2.0 / 3, 1e-15);
}
END_TEST

/* Exact and normal agree for larger samples without ties (n = 40, 45:
 * exact under AUTO); and ALWAYS is exact beyond CAL_EXACT_MAX. */
START_TEST(test_ranksum_exact_vs_normal)
{
	double x[60], y[60];
	for (int i = 0; i < 60; i++) {
		x[i] = 2 * i + 1.5; /* interleaved, x shifted up a little */
		y[i] = 2 * i;
	}
	struct cal_test e, n;
	struct cal_test_opts on = {CAL_EXACT_NEVER, 1}, oa = {CAL_EXACT_ALWAYS, 1};
	ck_assert_int_eq(cal_ranksum(x, 40, y, 45, NULL, &e), 0);
	ck_assert_int_eq(e.exact, 1);
	ck_assert_int_eq(cal_ranksum(x, 40, y, 45, &on, &n), 0);
	near(e.p_two_sided, n.p_two_sided, 0.01);
	ck_assert_int_eq(cal_ranksum(x, 60, y, 60, NULL, &e), 0);
	ck_assert_int_eq(e.exact, 0);
	ck_assert_int_eq(cal_ranksum(x, 60, y, 60, &oa, &e), 0);
	ck_assert_int_eq(e.exact, 1);
	ck_assert_int_eq(cal_ranksum(x, 60, y, 60, &on, &n), 0);
	near(e.p_two_sided, n.p_two_sided, 0.01);
}
END_TEST

START_TEST(test_ranksum_errors)
{
	double x[] = {1, NAN};
	struct cal_test t;
	ck_assert_int_eq(cal_ranksum(x, 0, x, 1, NULL, &t), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cal_ranksum(x, 2, x, 1, NULL, &t), -1);
	ck_assert_int_eq(errno, EINVAL);
	/* All equal: no information, p = 1. */
	double s[] = {5, 5, 5};
	ck_assert_int_eq(cal_ranksum(s, 3, s, 2, NULL, &t), 0);
	near(t.p_two_sided, 1, 0);
}
END_TEST

/* R: x <- c(1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30)
 *    y <- c(0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29)
 *    wilcox.test(x, y, paired = TRUE, alternative = "greater")
 *                                                V = 40, p-value = 0.01953 */
START_TEST(test_signedrank_paired)
{
	static const double x[] = {1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30};
	static const double y[] = {0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29};
	struct cal_test t;
	ck_assert_int_eq(cal_signedrank(x, y, 9, NULL, &t), 0);
	ck_assert_int_eq(t.exact, 1);
	near(t.statistic, 40, 0);
	near(t.p_greater, 0.01953125, 1e-12);      /* 10 / 512 */
	near(t.p_less, 505.0 / 512, 1e-12);        /* by enumeration of the 2^9 signs */
	near(t.p_two_sided, 0.0390625, 1e-12);
}
END_TEST

/* Signed-rank with a zero and ties, by hand: d = (1, -2, 2, 3, 0).  The zero
 * is dropped (n = 4); |d| = 1, 2, 2, 3 get ranks 1, 2.5, 2.5, 4; V = 1 + 2.5
 * + 4 = 7.5.  Mean n (n + 1) / 4 = 5, z0 = 2.5.  One tie group of 2:
 * var = n (n + 1) (2n + 1) / 24 - (2^3 - 2) / 48 = 7.5 - 0.125 = 7.375,
 * sigma = 2.7156951.  Two-sided corrected: z = (2.5 - 0.5) / sigma =
 * 0.7364596, p = 0.4614510; greater: p = 0.2307255; uncorrected two-sided:
 * z = 2.5 / sigma, p = 0.3572726. */
START_TEST(test_signedrank_ties)
{
	static const double d[] = {1, -2, 2, 3, 0};
	struct cal_test t;
	struct cal_test_opts o = {CAL_EXACT_AUTO, 1};
	ck_assert_int_eq(cal_signedrank(d, NULL, 5, &o, &t), 0);
	ck_assert_int_eq(t.exact, 0);
	ck_assert_int_eq(t.ties, 1);
	ck_assert_uint_eq(t.zeros, 1);
	ck_assert_uint_eq(t.n1, 4);
	near(t.statistic, 7.5, 0);
	near(t.p_two_sided, 0.4614509878, 1e-9);
	near(t.p_greater, 0.2307254939, 1e-9);
	o.correct = 0;
	ck_assert_int_eq(cal_signedrank(d, NULL, 5, &o, &t), 0);
	near(t.p_two_sided, 0.3572725590, 1e-9);
	static const double z[] = {0, 0};
	ck_assert_int_eq(cal_signedrank(z, NULL, 2, NULL, &t), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* Quantiles, type 7 (R's default): with h = (n - 1) p,
 * x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]).
 * R: quantile(1:10, c(0, .1, .25, .5, .9, 1)) = 1, 1.9, 3.25, 5.5, 9.1, 10;
 * quantile(c(3, 1, 4, 1, 5), c(.25, .3, .5, .9)) = 1, 1.4, 3, 4.6
 * (sorted 1 1 3 4 5; p = .3: h = 1.2, 1 + 0.2 (3 - 1) = 1.4;
 *  p = .9: h = 3.6, 4 + 0.6 (5 - 4) = 4.6). */
static const struct {
	int set;
	double p, want;
} q_cases[] = {
	{0, 0, 1}, {0, 0.1, 1.9}, {0, 0.25, 3.25}, {0, 0.5, 5.5}, {0, 0.9, 9.1}, {0, 1, 10},
	{1, 0.25, 1}, {1, 0.3, 1.4}, {1, 0.5, 3}, {1, 0.9, 4.6},
};

START_TEST(test_quantile)
{
	static const double ten[] = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, five[] = {3, 1, 4, 1, 5};
	double got;
	const double *x = q_cases[_i].set ? five : ten;
	size_t n = q_cases[_i].set ? 5 : 10;
	ck_assert_int_eq(cal_quantile(x, n, q_cases[_i].p, &got), 0);
	near(got, q_cases[_i].want, 1e-12);
}
END_TEST

START_TEST(test_quantile_edges)
{
	double one = 7, got;
	ck_assert_int_eq(cal_median(&one, 1, &got), 0);
	near(got, 7, 0);
	ck_assert_int_eq(cal_median(&one, 0, &got), -1);
	ck_assert_int_eq(cal_quantile(&one, 1, 1.5, &got), -1);
	ck_assert(isnan(cal_quantile_sorted(&one, 1, -0.1)));
	double two[] = {4, 2};
	ck_assert_int_eq(cal_median(two, 2, &got), 0);
	near(got, 3, 0);
	near(two[0], 4, 0); /* not sorted in place */
}
END_TEST

/* Binomial tail by hand: P(X >= 2) for X ~ B(3, 0.5) = (3 + 1) / 8. */
START_TEST(test_binom)
{
	near(cal_binom_sf(2, 3, 0.5), 0.5, 1e-12);
	near(cal_binom_sf(0, 3, 0.5), 1, 0);
	near(cal_binom_sf(4, 3, 0.5), 0, 0);
	near(cal_binom_sf(1, 10, 0.05), 1 - pow(0.95, 10), 1e-12);
	near(cal_norm_sf(0), 0.5, 1e-15);
	near(cal_norm_sf(1.959963985), 0.025, 1e-9);
}
END_TEST

/* The criterion on synthetic timings. */
START_TEST(test_judge)
{
	enum { n = 200 };
	double a[n], same[n], slow[n], tiny[n];
	for (int i = 0; i < n; i++) {
		double noise = (double)((i * 37) % 41) - 20; /* -20..20, evenly spread */
		a[i] = 1000 + noise;
		same[n - 1 - i] = a[i];                         /* the same values, reversed */
		slow[i] = 1100 + noise;                         /* +10 % */
		tiny[i] = 1003 + noise;                         /* +3 ns: below a 5 ns resolution */
	}
	struct cal_criterion c;
	struct cal_verdict v;
	cal_criterion_defaults(&c);
	c.resolution = 5;
	ck_assert_int_eq(cal_judge(a, n, same, n, &c, &v), 0);
	ck_assert_int_eq(v.real, 0);
	near(v.diff, 0, 0);
	ck_assert_int_eq(cal_judge(a, n, slow, n, &c, &v), 0);
	ck_assert_int_eq(v.real, 1);
	near(v.diff, 100, 0);
	near(v.rel, 100 / v.med_a, 1e-12);
	ck_assert_int_eq(v.significant, 1);
	ck_assert_int_eq(v.beyond_band, 1);
	/* Band of a: type-7 quantiles 0.025 and 0.975 of -20..20 (+1000), -/+ 5 */
	ck_assert(v.band_lo < 1000 - 18 - 5 + 1e-9 && v.band_hi > 1000 + 18 + 5 - 1e-9);
	ck_assert_int_eq(cal_judge(a, n, tiny, n, &c, &v), 0);
	ck_assert_int_eq(v.above_resolution, 0);
	ck_assert_int_eq(v.real, 0);
	/* A relative resolution of 1 % of A's median (about 10) wins over 5. */
	c.relative = 0.01;
	ck_assert_int_eq(cal_judge(a, n, slow, n, &c, &v), 0);
	near(v.delta, 0.01 * v.med_a, 1e-12);
	ck_assert_int_eq(v.real, 1);
	c.relative = 0.2; /* 20 %: the 10 % shift is below it */
	ck_assert_int_eq(cal_judge(a, n, slow, n, &c, &v), 0);
	ck_assert_int_eq(v.above_resolution, 0);
	ck_assert_int_eq(v.real, 0);
	c.relative = 0;
	c.q = 2;
	ck_assert_int_eq(cal_judge(a, n, slow, n, &c, &v), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* The criterion for a set (issue 32): B's band moved, not how many of its
 * samples lie beyond A's band.  A has a heavy tail of interference (every
 * fifth sample 50..400 ns slower); B is the same work 5 % slower, tail and
 * all: a real fluctuation, though few of B's samples pass A's tail.  C is the
 * same work with more and longer interference (55 % of its samples 400..800
 * ns slower): its median moves, its lower edge does not, timing error. */
START_TEST(test_judge_band_edge)
{
	enum { n = 200 };
	double a[n], b[n], c5[n];
	for (int i = 0; i < n; i++) {
		double noise = (double)((i * 37) % 11) - 5;            /* -5..5 */
		double tail = i % 5 == 0 ? 50 + (double)((i * 53) % 351) : 0; /* 20 %: 50..400 */
		a[i] = 1000 + noise + tail;
		b[i] = 1.05 * (1000 + noise + tail);
		c5[i] = 1000 + noise + ((i * 11) % 20 < 11 ? 400 + (double)((i * 29) % 401) : 0);
	}
	struct cal_criterion c;
	struct cal_verdict v;
	cal_criterion_defaults(&c);
	c.resolution = 10;
	ck_assert_int_eq(cal_judge(a, n, b, n, &c, &v), 0);
	ck_assert_int_eq(v.significant, 1);
	ck_assert_int_eq(v.above_resolution, 1);
	ck_assert_int_eq(v.beyond_band, 1);
	ck_assert_int_eq(v.real, 1);
	ck_assert_int_eq(cal_judge(a, n, c5, n, &c, &v), 0);
	ck_assert_int_eq(v.significant, 1);
	ck_assert_int_eq(v.above_resolution, 1);
	ck_assert_int_eq(v.beyond_band, 0);
	ck_assert_int_eq(v.real, 0);
	/* The job's flag (upper) counts C's samples above A's band: slowed. */
	c.upper = 1;
	ck_assert_int_eq(cal_judge(a, n, c5, n, &c, &v), 0);
	ck_assert_int_eq(v.real, 1);
}
END_TEST

static const struct {
	const char *text;
	size_t n;        /* values, or 0 for an error */
	double last;     /* the last value */
	const char *err; /* a substring of the message */
} t_cases[] = {
	{"1\n2\n3\n", 3, 3, NULL},
	{"  10 \n\n# comment\n\t2.5e3\r\n", 2, 2500, NULL},
	{"7", 1, 7, NULL},
	{"0\n", 1, 0, NULL},
	{"", 0, 0, "t: no timings"},
	{"# only\n\n", 0, 0, "t: no timings"},
	{"1\n2\nx\n", 0, 0, "t:3: 'x' is not a timing (not a number"},
	{"1\n-4\n", 0, 0, "t:2: '-4' is not a timing (negative"},
	{"1e999\n", 0, 0, "t:1: '1e999' is not a timing (out of range"},
	{"nan\n", 0, 0, "t:1: 'nan' is not a timing (out of range"},
	{"1 2\n", 0, 0, "t:1: '1 2' is not a timing"},
	{"12345678901234567890123456789012345678901234567890123456789012345\n", 0, 0, "too long"},
};

START_TEST(test_timings_parse)
{
	double *v = NULL;
	size_t n = 99;
	char err[256] = "";
	int rc = cal_timings_parse(t_cases[_i].text, strlen(t_cases[_i].text), "t", &v, &n, err, sizeof(err));
	if (t_cases[_i].n) {
		ck_assert_msg(rc == 0, "%s", err);
		ck_assert_uint_eq(n, t_cases[_i].n);
		near(v[n - 1], t_cases[_i].last, 0);
	} else {
		ck_assert_int_eq(rc, -1);
		ck_assert_msg(strstr(err, t_cases[_i].err), "'%s' lacks '%s'", err, t_cases[_i].err);
		ck_assert_ptr_null(v);
	}
	free(v);
}
END_TEST

START_TEST(test_timings_nul)
{
	double *v;
	size_t n;
	char err[256];
	ck_assert_int_eq(cal_timings_parse("1\n2\0\n", 5, "f", &v, &n, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "f:2:") && strstr(err, "NUL"), "%s", err);
	ck_assert_int_eq(cal_timings_read("/nonexistent/x", &v, &n, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "/nonexistent/x: "), "%s", err);
}
END_TEST

static const struct {
	const char *text;
	int want;
} ci_cases[] = {
	{"processor\t: 0\nflags\t\t: fpu tsc constant_tsc rep_good nonstop_tsc cpuid\n", 1},
	{"flags\t\t: fpu tsc constant_tsc rep_good\n", 0},
	{"flags\t\t: nonstop_tsc_x constant_tsc\n", 0},
	{"flags\t\t: constant_tsc nonstop_tsc", 1},
	{"model name\t: constant_tsc nonstop_tsc\n", 0},
	{"", 0},
};

START_TEST(test_cpuinfo)
{
	ck_assert_int_eq(cal_cpuinfo_invariant(ci_cases[_i].text, strlen(ci_cases[_i].text)), ci_cases[_i].want);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cal_stats");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_ranksum_permeability_exact);
	tcase_add_test(tc, test_ranksum_permeability_normal);
	tcase_add_test(tc, test_ranksum_ties);
	tcase_add_test(tc, test_ranksum_tiny_exact);
	tcase_add_test(tc, test_ranksum_exact_vs_normal);
	tcase_add_test(tc, test_ranksum_errors);
	tcase_add_test(tc, test_signedrank_paired);
	tcase_add_test(tc, test_signedrank_ties);
	tcase_add_loop_test(tc, test_quantile, 0, N(q_cases));
	tcase_add_test(tc, test_quantile_edges);
	tcase_add_test(tc, test_binom);
	tcase_add_test(tc, test_judge);
	tcase_add_test(tc, test_judge_band_edge);
	tcase_add_loop_test(tc, test_timings_parse, 0, N(t_cases));
	tcase_add_test(tc, test_timings_nul);
	tcase_add_loop_test(tc, test_cpuinfo, 0, N(ci_cases));
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
