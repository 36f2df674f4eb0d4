/* cal_stats.h - order statistics and rank tests for the calibration
 * (doc/calibrate.md): quantiles (R's type 7), the median, the Wilcoxon
 * rank-sum / Mann-Whitney U test and the Wilcoxon signed-rank test, with the
 * exact null distribution for small samples without ties and the normal
 * approximation (tie correction, optional continuity correction) otherwise,
 * as R's wilcox.test computes them.  No function here prints or exits. */
#ifndef CAL_STATS_H
#define CAL_STATS_H

#include <stddef.h>

/* Largest sample size (each side) for which the exact distribution is used
 * when the caller asks for CAL_EXACT_AUTO: R's wilcox.test uses 50. */
#define CAL_EXACT_MAX 50

enum cal_exact {
	CAL_EXACT_AUTO = -1, /* exact iff both sizes < CAL_EXACT_MAX and no ties (R's default) */
	CAL_EXACT_NEVER = 0, /* always the normal approximation */
	CAL_EXACT_ALWAYS = 1 /* exact whenever there are no ties (any size up to 1000) */
};

struct cal_test_opts {
	enum cal_exact exact;
	int correct; /* 1: continuity correction in the normal approximation (R's default) */
};

/* The result of a rank test.  p-values are for the location shift of x
 * relative to y (rank-sum) or of the differences x - y (signed-rank):
 * p_greater for "x is larger", p_less for "x is smaller". */
struct cal_test {
	double statistic; /* rank-sum: U of x (R's W); signed-rank: V, the sum of positive ranks */
	double rank_sum;  /* rank-sum: sum of x's ranks in the pooled sample; signed-rank: V */
	size_t n1, n2;    /* rank-sum: sizes of x and y; signed-rank: non-zero differences, 0 */
	size_t zeros;     /* signed-rank: differences equal to 0 (dropped, as R does) */
	int ties;         /* 1 if tied values were found (then never exact) */
	int exact;        /* 1 if the p-values come from the exact distribution */
	double z;         /* the normal approximation's z (0 when exact) */
	double p_two_sided, p_greater, p_less;
};

/* Sort x[0..n-1] in increasing order (NaNs are not allowed). */
void cal_sort(double *x, size_t n);

/* Quantile p (0 <= p <= 1) of the SORTED sample x[0..n-1], n >= 1, by
 * Hyndman and Fan's definition 7 (R's default): with h = (n - 1) p,
 * x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]).
 * Return the quantile, or NaN if n == 0 or p is outside [0, 1]. */
double cal_quantile_sorted(const double *x, size_t n, double p);

/* The same on an unsorted sample (x is not changed; a sorted copy is made).
 * Return 0 with *out set, or -1 with errno set (EINVAL: n == 0 or p outside
 * [0, 1]; ENOMEM). */
int cal_quantile(const double *x, size_t n, double p, double *out);

/* Median (type-7 quantile 0.5) of an unsorted sample.  Return 0 with *out
 * set, or -1 with errno set (EINVAL: n == 0; ENOMEM). */
int cal_median(const double *x, size_t n, double *out);

/* Wilcoxon rank-sum / Mann-Whitney U test of x[0..nx-1] against
 * y[0..ny-1] (nx, ny >= 1).  opts may be NULL (AUTO, continuity corrected).
 * Return 0 with *r filled, or -1 with errno set (EINVAL: an empty sample or a
 * NaN; ENOMEM). */
int cal_ranksum(const double *x, size_t nx, const double *y, size_t ny,
		const struct cal_test_opts *opts, struct cal_test *r);

/* Wilcoxon signed-rank test of the paired differences x[i] - y[i], i < n
 * (y may be NULL: x holds the differences).  Zero differences are dropped
 * (R's behaviour); with zeros or ties the normal approximation is used.
 * Return 0 with *r filled, or -1 with errno set (EINVAL: n == 0, a NaN, or
 * every difference zero; ENOMEM). */
int cal_signedrank(const double *x, const double *y, size_t n, const struct cal_test_opts *opts,
		   struct cal_test *r);

/* Upper tail of the standard normal distribution, P(Z > z). */
double cal_norm_sf(double z);

/* P(X >= k) for X ~ Binomial(n, p), 0 <= p <= 1. */
double cal_binom_sf(size_t k, size_t n, double p);

#endif
