/* overhead-stats.c - is B (runs with the monitor) slower than A (without)?
 *
 *   overhead-stats [--label L] A B
 *
 * A and B are timings files (one number per line, '#' comments: the format
 * of "mpiwatch analyze fluctuation", read by calib/cal_timings).  Prints one
 * line: the medians, the Wilcoxon rank-sum / Mann-Whitney U test of B against
 * A (calib/cal_stats, the test "mpiwatch analyze fluctuation" uses), and the
 * Hodges-Lehmann estimate of the shift B - A (the median of all pairwise
 * differences) with its distribution-free 95 % confidence interval (Bauer
 * 1972; the normal approximation of the U distribution, as R's wilcox.test
 * with conf.int = TRUE and exact = FALSE), absolute and relative to A's
 * median.
 *
 * When A and B have the same length, line i of each being the two runs of
 * pair i (bench/overhead.sh interleaves them), a second line judges the
 * pairs: the Wilcoxon signed-rank test of the log ratios ln(B[i] / A[i])
 * (calib/cal_stats) and their Hodges-Lehmann estimate (the median of the
 * Walsh averages) with its distribution-free 95 % interval, as a relative
 * overhead exp(.) - 1, and the same estimate and interval of the
 * differences B[i] - A[i] in the timings' unit (a fixed cost per run shows
 * there).  Pairing removes the machine's drift between pairs, which
 * dominates the unpaired interval on a shared machine.  Exit status 0, or 2
 * on bad input. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cal_stats.h"
#include "cal_timings.h"

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The Hodges-Lehmann estimate of v's pseudo-median (the median of its
 * n (n + 1) / 2 Walsh averages) and its distribution-free 95 % interval:
 * the K-th smallest and largest Walsh averages, K = m / 2 - z(0.975)
 * sqrt(n (n + 1) (2n + 1) / 24).  Return 0, or -1 on allocation failure. */
static int walsh_hl(const double *v, size_t n, double *hl, double *lo, double *hi)
{
	size_t m = n * (n + 1) / 2, j = 0, kk;
	double *w = malloc(m * sizeof(*w)), sd, k;
	if (!w)
		return -1;
	for (size_t i = 0; i < n; i++)
		for (size_t i2 = i; i2 < n; i2++)
			w[j++] = (v[i] + v[i2]) / 2;
	qsort(w, m, sizeof(*w), cmp);
	*hl = m % 2 ? w[m / 2] : (w[m / 2 - 1] + w[m / 2]) / 2;
	sd = sqrt((double)n * (double)(n + 1) * (double)(2 * n + 1) / 24.0);
	k = floor((double)m / 2.0 - 1.959964 * sd);
	kk = k < 1 ? 1 : (size_t)k;
	*lo = w[kk - 1];
	*hi = w[m - kk];
	free(w);
	return 0;
}

/* The paired judgement (see the head comment): print one line, return 0,
 * or -1 on allocation failure or a non-positive timing. */
static int paired(const char *label, const double *a, const double *b, size_t n)
{
	double *r = malloc(n * sizeof(*r)), *d = malloc(n * sizeof(*d)), *zero = calloc(n, sizeof(*zero));
	double hl, lo, hi, dhl, dlo, dhi;
	struct cal_test t;
	int rv = -1;
	if (!r || !d || !zero)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (!(a[i] > 0) || !(b[i] > 0)) {
			errno = EDOM;
			goto out;
		}
		r[i] = log(b[i] / a[i]);
		d[i] = b[i] - a[i];
	}
	if (walsh_hl(r, n, &hl, &lo, &hi) < 0 || walsh_hl(d, n, &dhl, &dlo, &dhi) < 0 ||
	    cal_signedrank(r, zero, n, NULL, &t) < 0)
		goto out;
	printf("%s%spaired: %zu pairs; signed-rank V %.1f p(two-sided) %.3g p(B>A) %.3g%s; "
	       "Hodges-Lehmann B/A - 1 = %+.2f %% [95%% CI %+.2f, %+.2f]; B - A = %+.4g [95%% CI %+.4g, %+.4g]\n",
	       label, *label ? ": " : "", n, t.statistic, t.p_two_sided, t.p_greater, t.exact ? " (exact)" : "",
	       100 * expm1(hl), 100 * expm1(lo), 100 * expm1(hi), dhl, dlo, dhi);
	rv = 0;
out:
	free(r);
	free(d);
	free(zero);
	return rv;
}

int main(int argc, char **argv)
{
	const char *label = "", *fa, *fb;
	double *a = NULL, *b = NULL, *d, ma, mb, hl, lo, hi, sd, k;
	size_t na, nb, nd, n = 0, ka;
	char err[512];
	struct cal_test t;
	if (argc == 5 && !strcmp(argv[1], "--label")) {
		label = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: overhead-stats [--label L] A B\n");
		return 2;
	}
	fa = argv[1];
	fb = argv[2];
	if (cal_timings_read(fa, &a, &na, err, sizeof err) < 0 || cal_timings_read(fb, &b, &nb, err, sizeof err) < 0) {
		fprintf(stderr, "overhead-stats: %s\n", err);
		return 2;
	}
	if (cal_median(a, na, &ma) < 0 || cal_median(b, nb, &mb) < 0 || cal_ranksum(b, nb, a, na, NULL, &t) < 0) {
		perror("overhead-stats");
		return 2;
	}
	nd = na * nb;
	d = malloc(nd * sizeof(*d));
	if (!d) {
		perror("overhead-stats");
		return 2;
	}
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			d[n++] = b[j] - a[i];
	qsort(d, nd, sizeof(*d), cmp);
	hl = nd % 2 ? d[nd / 2] : (d[nd / 2 - 1] + d[nd / 2]) / 2;
	/* the C-th smallest and largest pairwise differences bound the shift:
	 * C = n_a n_b / 2 - z(0.975) sqrt(n_a n_b (n_a + n_b + 1) / 12) */
	sd = sqrt((double)na * (double)nb * (double)(na + nb + 1) / 12.0);
	k = floor((double)nd / 2.0 - 1.959964 * sd);
	ka = k < 1 ? 1 : (size_t)k;
	lo = d[ka - 1];
	hi = d[nd - ka];
	printf("%s%sA %s: n %zu median %.6g; B %s: n %zu median %.6g; rank-sum U %.1f p(two-sided) %.3g "
	       "p(B>A) %.3g%s; Hodges-Lehmann shift B-A %.4g [95%% CI %.4g, %.4g] = %+.2f %% [%+.2f, %+.2f] of A's median\n",
	       label, *label ? ": " : "", fa, na, ma, fb, nb, mb, t.statistic, t.p_two_sided, t.p_greater,
	       t.exact ? " (exact)" : "", hl, lo, hi, 100 * hl / ma, 100 * lo / ma, 100 * hi / ma);
	free(d);
	if (na == nb && na >= 2 && paired(label, a, b, na) < 0) {
		perror("overhead-stats");
		return 2;
	}
	free(a);
	free(b);
	return 0;
}
