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
 * median.  Exit status 0, or 2 on bad input. */
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
	free(a);
	free(b);
	return 0;
}
