/* cal_criterion.c - the fluctuation criterion (cal_criterion.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cal_criterion.h"

void cal_criterion_defaults(struct cal_criterion *c)
{
	c->q = 0.1;
	c->resolution = 0;
	c->relative = 0;
	c->alpha = 0.01;
	c->upper = 0;
}

void cal_band(const double *sorted, size_t n, double q, double delta, double *lo,
	      double *hi)
{
	*lo = cal_quantile_sorted(sorted, n, q / 2) - delta;
	*hi = cal_quantile_sorted(sorted, n, 1 - q / 2) + delta;
}

int cal_judge(const double *a, size_t na, const double *b, size_t nb,
	      const struct cal_criterion *c, struct cal_verdict *v)
{
	if (na == 0 || nb == 0 || !(c->q >= 0 && c->q <= 1) || !(c->resolution >= 0) || !(c->relative >= 0) ||
	    !(c->alpha > 0 && c->alpha < 1)) {
		errno = EINVAL;
		return -1;
	}
	memset(v, 0, sizeof(*v));
	if (cal_ranksum(b, nb, a, na, NULL, &v->test) < 0)
		return -1;
	double *sa = malloc(na * sizeof(*sa)), *sb = malloc(nb * sizeof(*sb));
	if (!sa || !sb) {
		free(sa);
		free(sb);
		return -1;
	}
	memcpy(sa, a, na * sizeof(*sa));
	memcpy(sb, b, nb * sizeof(*sb));
	cal_sort(sa, na);
	cal_sort(sb, nb);
	v->med_a = cal_quantile_sorted(sa, na, 0.5);
	v->med_b = cal_quantile_sorted(sb, nb, 0.5);
	v->diff = v->med_b - v->med_a;
	v->rel = v->med_a != 0 ? v->diff / fabs(v->med_a) : 0;
	v->delta = fmax(c->resolution, c->relative * fabs(v->med_a));
	cal_band(sa, na, c->q, v->delta, &v->band_lo, &v->band_hi);
	for (size_t i = 0; i < nb; i++)
		v->outside += (!c->upper && sb[i] < v->band_lo) || sb[i] > v->band_hi;
	v->p_band = cal_binom_sf(v->outside, nb, c->upper ? c->q / 2 : c->q);
	v->edge_a = cal_quantile_sorted(sa, na, c->q / 2);
	v->edge_b = cal_quantile_sorted(sb, nb, c->q / 2);
	v->significant = v->test.p_two_sided < c->alpha;
	v->above_resolution = fabs(v->diff) > v->delta;
	if (c->upper)
		v->beyond_band = v->p_band < c->alpha;
	else
		v->beyond_band = (v->diff >= 0 ? v->edge_b - v->edge_a : v->edge_a - v->edge_b) > v->delta;
	v->real = v->significant && v->above_resolution && v->beyond_band;
	free(sa);
	free(sb);
	return 0;
}
