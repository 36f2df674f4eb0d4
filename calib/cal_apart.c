/* cal_apart.c - what separates two runs of the same work (cal_apart.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cal_apart.h"
#include "cal_stats.h"

double cal_t995(unsigned df)
{
	/* Student's t, two-sided 99 % (one-sided 0.995), df 1..30. */
	static const double t[30] = {63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355, 3.250, 3.169,
				     3.106,  3.055, 3.012, 2.977, 2.947, 2.921, 2.898, 2.878, 2.861, 2.845,
				     2.831,  2.819, 2.807, 2.797, 2.787, 2.779, 2.771, 2.763, 2.756, 2.750};
	/* Beyond 30, linear in 1/df through 40, 60, 120 and infinity. */
	static const double inv[4] = {1.0 / 40, 1.0 / 60, 1.0 / 120, 0}, tv[4] = {2.704, 2.660, 2.617, 2.576};
	if (df == 0)
		return NAN;
	if (df <= 30)
		return t[df - 1];
	double x = 1.0 / df, x0 = 1.0 / 30, t0 = t[29];
	for (int i = 0; i < 4; i++) {
		if (x >= inv[i])
			return t0 + (tv[i] - t0) * (x0 - x) / (x0 - inv[i]);
		x0 = inv[i], t0 = tv[i];
	}
	return tv[3];
}

/* lo, hi and sample SD of x[0..k). */
static void spread(const double *x, size_t k, double *lo, double *hi, double *sd)
{
	double m = 0, ss = 0;
	*lo = *hi = k ? x[0] : 0;
	for (size_t i = 0; i < k; i++) {
		m += x[i];
		*lo = fmin(*lo, x[i]), *hi = fmax(*hi, x[i]);
	}
	m = k ? m / (double)k : 0;
	for (size_t i = 0; i < k; i++)
		ss += (x[i] - m) * (x[i] - m);
	*sd = k > 1 ? sqrt(ss / (double)(k - 1)) : 0;
}

/* The tail bound over x[0..n), n >= 2, sorted, on a clock of step g ns
 * (see struct cal_apart): each run's excess over the lowest edge in whole
 * steps k_i (rounded), their mean m raised by one standard error of a
 * geometric's, sqrt(m (1 + m) / n), and to at least 3 / (2 n) (what n equal
 * edges cannot rule out); with k geometric, P(k >= j) = r^j, r = m / (1 +
 * m), two runs differ by j steps or more with probability 2 r^j / (1 + r);
 * the fewest j where that is at most 1 % gives (j - 1/2) steps, the half
 * step for the timer cost's sub-step share.  *excess_ns = m (not raised)
 * in ns. */
static double tail_bound(const double *x, size_t n, double g, double *excess_ns)
{
	double m = 0, up, r, j = 1;
	for (size_t i = 0; i < n; i++)
		m += round((x[i] - x[0]) / g);
	m /= (double)n;
	*excess_ns = m * g;
	up = fmax(m + sqrt(fmax(m, 1.0 / (double)n) * (1 + m) / (double)n), 1.5 / (double)n);
	r = up / (1 + up);
	while (2 * pow(r, j) / (1 + r) > 0.01 && j < 1000)
		j++;
	return (j - 0.5) * g;
}

void cal_apart_bound(const double *edge_ns, size_t k, double tol, double cy_per_ns, struct cal_apart *out)
{
	double kept[CAL_APART_MAX], med;
	size_t n = 0;
	out->measured = (unsigned)k;
	out->slowed = 0;
	out->lo_ns = out->hi_ns = out->lo_cy = out->hi_cy = 0;
	out->sd_ns = out->sd_cy = out->bound_ns = out->bound_cy = 0;
	out->excess_ns = out->bound_sd_ns = out->bound_tail_ns = 0;
	if (k == 0 || k > CAL_APART_MAX)
		return;
	memcpy(kept, edge_ns, k * sizeof(*edge_ns));
	cal_sort(kept, k);
	med = cal_quantile_sorted(kept, k, 0.5);
	/* sorted: the runs kept are a prefix, the slowed the rest */
	while (n < k && !(kept[n] > med + tol * fabs(med)))
		n++;
	out->slowed = (unsigned)(k - n);
	spread(kept, n, &out->lo_ns, &out->hi_ns, &out->sd_ns);
	if (cal_apart_bounded(out)) {
		out->bound_sd_ns = cal_t995((unsigned)(n - 1)) * M_SQRT2 * out->sd_ns;
		double g = out->step_ns > 0 ? out->step_ns : 1, t;
		t = tail_bound(kept, n, g, &out->excess_ns);
		/* the tail only where half the runs or more sit on the lowest step */
		if (cal_quantile_sorted(kept, n, 0.5) - kept[0] < g / 2)
			out->bound_tail_ns = t;
		out->bound_ns = fmax(out->bound_sd_ns, out->bound_tail_ns);
	}
	out->lo_cy = out->lo_ns * cy_per_ns, out->hi_cy = out->hi_ns * cy_per_ns;
	out->sd_cy = out->sd_ns * cy_per_ns, out->bound_cy = out->bound_ns * cy_per_ns;
}

int cal_apart_bounded(const struct cal_apart *a)
{
	return a->measured > a->slowed + 1;
}

int cal_apart_measure(unsigned procs, uint64_t adds, size_t samples, double q_edge,
		      const struct cal_timer_info *ti, size_t flush_bytes, const struct cal_fresh *fresh,
		      double *edge_ns, size_t *k)
{
	double *ns;
	if (samples == 0 || samples > 100000 || !(q_edge >= 0 && q_edge <= 1) || adds == 0) {
		errno = EINVAL;
		return -1;
	}
	if (procs == 0 || !fresh || !fresh->run)
		return 0;
	ns = malloc(samples * sizeof(*ns));
	if (!ns)
		return -1;
	for (unsigned p = 0; p < procs; p++) {
		if (fresh->run(adds, samples, flush_bytes, ns, fresh->arg) < 0)
			continue;
		for (size_t i = 0; i < samples; i++)
			ns[i] -= ti->l_ts;
		cal_sort(ns, samples);
		edge_ns[(*k)++] = cal_quantile_sorted(ns, samples, q_edge);
	}
	free(ns);
	return 0;
}
