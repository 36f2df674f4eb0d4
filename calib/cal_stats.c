/* cal_stats.c - quantiles and Wilcoxon rank tests (cal_stats.h).  The
 * p-values follow R's wilcox.test: the same exact distributions, the same
 * tie and continuity corrections; doc/calibrate.md writes them out. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cal_stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void cal_sort(double *x, size_t n)
{
	if (n > 1)
		qsort(x, n, sizeof(*x), cmp_double);
}

double cal_quantile_sorted(const double *x, size_t n, double p)
{
	if (n == 0 || !(p >= 0 && p <= 1))
		return NAN;
	double h = (double)(n - 1) * p;
	size_t lo = (size_t)floor(h);
	if (lo >= n - 1)
		return x[n - 1];
	return x[lo] + (h - (double)lo) * (x[lo + 1] - x[lo]);
}

int cal_quantile(const double *x, size_t n, double p, double *out)
{
	if (n == 0 || !(p >= 0 && p <= 1)) {
		errno = EINVAL;
		return -1;
	}
	double *s = malloc(n * sizeof(*s));
	if (!s)
		return -1;
	memcpy(s, x, n * sizeof(*s));
	cal_sort(s, n);
	*out = cal_quantile_sorted(s, n, p);
	free(s);
	return 0;
}

int cal_median(const double *x, size_t n, double *out)
{
	return cal_quantile(x, n, 0.5, out);
}

double cal_norm_sf(double z)
{
	return 0.5 * erfc(z / M_SQRT2);
}

double cal_binom_sf(size_t k, size_t n, double p)
{
	if (k == 0)
		return 1;
	if (k > n || p <= 0)
		return 0;
	if (p >= 1)
		return 1;
	double lp = log(p), lq = log1p(-p), lnf = lgamma((double)n + 1), s = 0;
	for (size_t i = k; i <= n; i++)
		s += exp(lnf - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) + (double)i * lp +
			 (double)(n - i) * lq);
	return s > 1 ? 1 : s;
}

/* A value and where it came from, for ranking a pooled sample. */
struct tagged {
	double v;
	int from_x;
};

static int cmp_tagged(const void *a, const void *b)
{
	return cmp_double(&((const struct tagged *)a)->v, &((const struct tagged *)b)->v);
}

/* Rank t[0..n-1] (sorted here) with average ranks for ties; rank[i] is the
 * rank of sorted element i.  *tie_sum = sum over tie groups of (t^3 - t). */
static void rank_sorted(struct tagged *t, size_t n, double *rank, double *tie_sum)
{
	qsort(t, n, sizeof(*t), cmp_tagged);
	*tie_sum = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && t[j].v == t[i].v)
			j++;
		double avg = ((double)(i + 1) + (double)j) / 2, g = (double)(j - i);
		for (size_t k = i; k < j; k++)
			rank[k] = avg;
		*tie_sum += g * g * g - g;
		i = j;
	}
}

/* p-values from the normal approximation: z0 the statistic minus its mean,
 * sigma its standard deviation. */
static void normal_p(double z0, double sigma, int correct, struct cal_test *r)
{
	r->exact = 0;
	if (!(sigma > 0)) {
		r->z = 0;
		r->p_two_sided = r->p_greater = r->p_less = 1;
		return;
	}
	double c = correct ? 0.5 : 0;
	double ct = correct ? (z0 > 0 ? 0.5 : z0 < 0 ? -0.5 : 0) : 0;
	r->z = (z0 - ct) / sigma;
	double p = 2 * fmin(cal_norm_sf(r->z), cal_norm_sf(-r->z));
	r->p_two_sided = p > 1 ? 1 : p;
	r->p_greater = cal_norm_sf((z0 - c) / sigma);
	r->p_less = cal_norm_sf(-(z0 + c) / sigma);
}

/* p-values from an exact distribution: count[0..max] the number of
 * arrangements giving each value of the (integer) statistic s. */
static void exact_p(const double *count, size_t max, size_t s, struct cal_test *r)
{
	double total = 0, le = 0, ge = 0;
	for (size_t u = 0; u <= max; u++) {
		total += count[u];
		if (u <= s)
			le += count[u];
		if (u >= s)
			ge += count[u];
	}
	r->exact = 1;
	r->z = 0;
	r->p_less = le / total;
	r->p_greater = ge / total;
	double p = 2 * ((double)s > (double)max / 2 ? r->p_greater : r->p_less);
	r->p_two_sided = p > 1 ? 1 : p;
}

/* The exact null distribution of U for sample sizes m and n: the
 * coefficients of the Gaussian binomial [m+n choose m]_q, built with
 * [N,k] = [N-1,k-1] + q^k [N-1,k] (additions only: no cancellation).  Terms
 * above degree m n are dropped (they never reach [m+n,m]).  Return a new
 * array of m n + 1 counts, or NULL (ENOMEM). */
static double *ranksum_counts(size_t m, size_t n)
{
	size_t deg = m * n, w = deg + 1;
	double *poly = calloc((m + 1) * w, sizeof(*poly));
	if (!poly)
		return NULL;
	poly[0] = 1; /* [0,0] = 1 */
	for (size_t N = 1; N <= m + n; N++) {
		size_t kmax = N < m ? N : m;
		for (size_t k = kmax; k >= 1; k--) {
			double *pk = poly + k * w, *pk1 = poly + (k - 1) * w;
			for (size_t u = deg + 1; u-- > 0;)
				pk[u] = (u >= k ? pk[u - k] : 0) + pk1[u];
		}
	}
	double *out = malloc(w * sizeof(*out));
	if (out)
		memcpy(out, poly + m * w, w * sizeof(*out));
	free(poly);
	return out;
}

/* Whether the exact distribution is affordable for sizes m, n. */
static int exact_affordable(size_t m, size_t n)
{
	size_t lo = m < n ? m : n;
	if (m > 100000 || n > 100000)
		return 0;
	return (double)(m + n) * (double)lo * (double)(m * n + 1) <= 2e8;
}

int cal_ranksum(const double *x, size_t nx, const double *y, size_t ny,
		const struct cal_test_opts *opts, struct cal_test *r)
{
	struct cal_test_opts def = {CAL_EXACT_AUTO, 1};
	int rv = -1;
	if (!opts)
		opts = &def;
	if (nx == 0 || ny == 0) {
		errno = EINVAL;
		return -1;
	}
	size_t N = nx + ny;
	struct tagged *t = malloc(N * sizeof(*t));
	double *rank = malloc(N * sizeof(*rank)), *count = NULL;
	if (!t || !rank)
		goto fail;
	for (size_t i = 0; i < nx; i++) {
		if (isnan(x[i]))
			goto inval;
		t[i] = (struct tagged){x[i], 1};
	}
	for (size_t i = 0; i < ny; i++) {
		if (isnan(y[i]))
			goto inval;
		t[nx + i] = (struct tagged){y[i], 0};
	}
	double tie_sum, r1 = 0;
	rank_sorted(t, N, rank, &tie_sum);
	for (size_t i = 0; i < N; i++)
		if (t[i].from_x)
			r1 += rank[i];
	memset(r, 0, sizeof(*r));
	r->n1 = nx;
	r->n2 = ny;
	r->rank_sum = r1;
	r->statistic = r1 - (double)nx * ((double)nx + 1) / 2;
	r->ties = tie_sum > 0;
	int exact = 0;
	if (!r->ties) {
		if (opts->exact == CAL_EXACT_AUTO)
			exact = nx < CAL_EXACT_MAX && ny < CAL_EXACT_MAX;
		else if (opts->exact == CAL_EXACT_ALWAYS)
			exact = exact_affordable(nx, ny);
	}
	if (exact) {
		count = ranksum_counts(nx, ny);
		if (!count)
			goto fail;
		exact_p(count, nx * ny, (size_t)llround(r->statistic), r);
	} else {
		double n1 = (double)nx, n2 = (double)ny, n = (double)N;
		double var = n1 * n2 / 12 * ((n + 1) - tie_sum / (n * (n - 1)));
		normal_p(r->statistic - n1 * n2 / 2, sqrt(var > 0 ? var : 0), opts->correct, r);
	}
	rv = 0;
	goto fail;
inval:
	errno = EINVAL;
fail:
	free(t);
	free(rank);
	free(count);
	return rv;
}

int cal_signedrank(const double *x, const double *y, size_t n, const struct cal_test_opts *opts,
		   struct cal_test *r)
{
	struct cal_test_opts def = {CAL_EXACT_AUTO, 1};
	int rv = -1;
	if (!opts)
		opts = &def;
	if (n == 0) {
		errno = EINVAL;
		return -1;
	}
	struct tagged *t = malloc(n * sizeof(*t));
	double *rank = malloc(n * sizeof(*rank)), *count = NULL;
	size_t m = 0, zeros = 0;
	if (!t || !rank)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		double d = y ? x[i] - y[i] : x[i];
		if (isnan(d))
			goto inval;
		if (d == 0) {
			zeros++;
			continue;
		}
		t[m++] = (struct tagged){fabs(d), d > 0};
	}
	if (m == 0)
		goto inval;
	double tie_sum, v = 0;
	rank_sorted(t, m, rank, &tie_sum);
	for (size_t i = 0; i < m; i++)
		if (t[i].from_x)
			v += rank[i];
	memset(r, 0, sizeof(*r));
	r->n1 = m;
	r->zeros = zeros;
	r->statistic = r->rank_sum = v;
	r->ties = tie_sum > 0;
	int exact = 0;
	if (!r->ties && !zeros)
		exact = opts->exact == CAL_EXACT_AUTO ? m < CAL_EXACT_MAX
						      : opts->exact == CAL_EXACT_ALWAYS && m <= 1000;
	if (exact) {
		/* Subset sums of {1..m}: count[s] ways for ranks to sum to s. */
		size_t max = m * (m + 1) / 2;
		count = calloc(max + 1, sizeof(*count));
		if (!count)
			goto fail;
		count[0] = 1;
		for (size_t k = 1; k <= m; k++)
			for (size_t s = max; s >= k; s--)
				count[s] += count[s - k];
		exact_p(count, max, (size_t)llround(v), r);
	} else {
		double nn = (double)m;
		double var = nn * (nn + 1) * (2 * nn + 1) / 24 - tie_sum / 48;
		normal_p(v - nn * (nn + 1) / 4, sqrt(var > 0 ? var : 0), opts->correct, r);
	}
	rv = 0;
	goto fail;
inval:
	errno = EINVAL;
fail:
	free(t);
	free(rank);
	free(count);
	return rv;
}
