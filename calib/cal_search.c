/* cal_search.c - the shortest trustworthy interval and the resolution
 * (cal_search.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cal_search.h"
#include "cal_stats.h"

void cal_search_defaults(struct cal_search_opts *o)
{
	o->q_lo = 0.05;
	o->q_hi = 0.95;
	o->tol = 0.05;
	o->threshold_ns = 10000;
	o->alpha = 0.01;
}

/* lo, median and hi quantiles of x[0..n-1] (a sorted copy is made); the
 * fraction outside [e_lo, e_hi] in *outside. */
static int summarise(const double *x, size_t n, const struct cal_search_opts *o, double e_lo,
		     double e_hi, double *lo, double *med, double *hi, double *outside)
{
	double *s = malloc(n * sizeof(*s));
	if (!s)
		return -1;
	memcpy(s, x, n * sizeof(*s));
	cal_sort(s, n);
	*lo = cal_quantile_sorted(s, n, o->q_lo);
	*med = cal_quantile_sorted(s, n, 0.5);
	*hi = cal_quantile_sorted(s, n, o->q_hi);
	size_t out = 0;
	for (size_t i = 0; i < n; i++)
		out += s[i] < e_lo || s[i] > e_hi;
	*outside = (double)out / (double)n;
	free(s);
	return 0;
}

int cal_round_check(const struct cal_round *r, const struct cal_rate *rate,
		    const struct cal_search_opts *o, struct cal_round_stat *st)
{
	double dummy;
	if (r->n == 0 || !r->ns) {
		errno = EINVAL;
		return -1;
	}
	memset(st, 0, sizeof(*st));
	st->adds = r->adds;
	st->exp_ns = (double)r->adds * rate->ns_per_add;
	st->band_lo_ns = st->exp_ns * (rate->lo_ns > 0 ? rate->lo_ns : 1) * (1 - o->tol);
	st->band_hi_ns = st->exp_ns * (rate->hi_ns > 0 ? rate->hi_ns : 1) * (1 + o->tol);
	if (summarise(r->ns, r->n, o, st->band_lo_ns, st->band_hi_ns, &st->lo_ns, &st->med_ns, &st->hi_ns,
		      &st->outside_ns) < 0)
		return -1;
	st->pass_ns = st->lo_ns >= st->band_lo_ns && st->hi_ns <= st->band_hi_ns;
	st->pass_cy = 1;
	if (r->cy) {
		st->exp_cy = (double)r->adds * rate->cy_per_add;
		st->band_lo_cy = st->exp_cy * (rate->lo_cy > 0 ? rate->lo_cy : 1) * (1 - o->tol);
		st->band_hi_cy = st->exp_cy * (rate->hi_cy > 0 ? rate->hi_cy : 1) * (1 + o->tol);
		if (summarise(r->cy, r->n, o, st->band_lo_cy, st->band_hi_cy, &st->lo_cy, &st->med_cy,
			      &st->hi_cy, &dummy) < 0)
			return -1;
		st->pass_cy = st->lo_cy >= st->band_lo_cy && st->hi_cy <= st->band_hi_cy;
	}
	return st->pass_ns && st->pass_cy;
}

int cal_interval_step(struct cal_interval *out, size_t r, const struct cal_round_stat *st, int pass,
		      const struct cal_search_opts *o)
{
	out->round = r;
	if (pass) {
		out->found = 1;
		out->cy = st->med_cy;
		out->ns = st->med_ns;
		return 1;
	}
	if (st->med_ns > o->threshold_ns) {
		out->unable = 1;
		return 1;
	}
	return 0;
}

int cal_find_interval(const struct cal_round *rounds, size_t nr, const struct cal_rate *rate,
		      const struct cal_search_opts *o, struct cal_round_stat *stats,
		      struct cal_interval *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t r = 0; r < nr; r++) {
		struct cal_round_stat st;
		int pass = cal_round_check(&rounds[r], rate, o, &st);
		if (pass < 0)
			return -1;
		if (stats)
			stats[r] = st;
		if (cal_interval_step(out, r, &st, pass, o))
			return (int)(r + 1);
	}
	return (int)nr;
}

int cal_find_resolution(const struct cal_round *base, const struct cal_round *steps, size_t ns,
			const struct cal_search_opts *o, struct cal_resolution *out)
{
	struct cal_test t;
	double mb_ns, mb_cy = 0, m_ns, m_cy = 0;
	memset(out, 0, sizeof(*out));
	if (base->n == 0 || cal_median(base->ns, base->n, &mb_ns) < 0 ||
	    (base->cy && cal_median(base->cy, base->n, &mb_cy) < 0)) {
		if (base->n == 0)
			errno = EINVAL;
		return -1;
	}
	/* From the largest step down: stop at the first that is not significant. */
	for (size_t k = ns; k-- > 0;) {
		const struct cal_round *s = &steps[k];
		double p_ns, p_cy = 0;
		if (s->n == 0 || cal_ranksum(s->ns, s->n, base->ns, base->n, NULL, &t) < 0)
			return -1;
		p_ns = t.p_two_sided;
		if (cal_median(s->ns, s->n, &m_ns) < 0)
			return -1;
		int sig = p_ns < o->alpha && m_ns > mb_ns;
		if (base->cy && s->cy) {
			if (cal_ranksum(s->cy, s->n, base->cy, base->n, NULL, &t) < 0 ||
			    cal_median(s->cy, s->n, &m_cy) < 0)
				return -1;
			p_cy = t.p_two_sided;
			sig = sig && p_cy < o->alpha && m_cy > mb_cy;
		}
		if (!sig)
			break;
		out->found = 1;
		out->step = k;
		out->d_ns = m_ns - mb_ns;
		out->d_cy = base->cy && s->cy ? m_cy - mb_cy : 0;
		out->rel = mb_ns > 0 ? out->d_ns / mb_ns : 0;
		out->p_ns = p_ns;
		out->p_cy = p_cy;
	}
	return 0;
}

int cal_resolution_drift(struct cal_resolution *r, const struct cal_round *bases, size_t nb)
{
	double lo_ns = 0, hi_ns = 0, lo_cy = 0, hi_cy = 0, b0 = 0;
	int cy = 1;
	if (!r->found || nb < 2)
		return 0;
	for (size_t i = 0; i < nb; i++) {
		double m_ns, m_cy = 0;
		if (bases[i].n == 0) {
			errno = EINVAL;
			return -1;
		}
		cy = cy && bases[i].cy;
		if (cal_median(bases[i].ns, bases[i].n, &m_ns) < 0 ||
		    (cy && cal_median(bases[i].cy, bases[i].n, &m_cy) < 0))
			return -1;
		if (i == 0)
			b0 = lo_ns = hi_ns = m_ns, lo_cy = hi_cy = m_cy;
		lo_ns = fmin(lo_ns, m_ns), hi_ns = fmax(hi_ns, m_ns);
		lo_cy = fmin(lo_cy, m_cy), hi_cy = fmax(hi_cy, m_cy);
	}
	r->drift_ns = hi_ns - lo_ns;
	r->drift_cy = cy ? hi_cy - lo_cy : 0;
	if (r->drift_ns > r->d_ns) {
		r->drift_bound = 1;
		r->d_ns = r->drift_ns;
		if (r->drift_cy > r->d_cy)
			r->d_cy = r->drift_cy;
		r->rel = b0 > 0 ? r->d_ns / b0 : 0;
	}
	return 0;
}

/* Whether block a sorts after block b: resolved before unresolved, then by d_ns. */
static int after(const struct cal_resolution *a, const struct cal_resolution *b)
{
	if (a->found != b->found)
		return !a->found;
	return a->d_ns > b->d_ns;
}

int cal_resolution_blocks(const struct cal_resolution *blk, size_t nb, struct cal_resolution *out)
{
	size_t idx[CAL_POOL_MAX];
	memset(out, 0, sizeof(*out));
	if (nb == 0 || nb > sizeof(idx) / sizeof(idx[0])) {
		errno = EINVAL;
		return -1;
	}
	for (size_t i = 0; i < nb; i++) { /* insertion sort: a few blocks, thread-safe */
		size_t j = i;
		for (; j > 0 && after(&blk[idx[j - 1]], &blk[i]); j--)
			idx[j] = idx[j - 1];
		idx[j] = i;
	}
	const struct cal_resolution *m = &blk[idx[(nb - 1) / 2]]; /* the (lower) median */
	out->blocks = (unsigned)nb;
	for (size_t i = 0; i < nb; i++) {
		const struct cal_resolution *b = &blk[i];
		out->drift_ns = fmax(out->drift_ns, b->drift_ns);
		out->drift_cy = fmax(out->drift_cy, b->drift_cy);
		if (!b->found)
			continue;
		if (out->blocks_found++ == 0) {
			out->lo_ns = out->hi_ns = b->d_ns;
			out->lo_cy = out->hi_cy = b->d_cy;
		} else {
			out->hi2_ns = fmax(out->hi2_ns, fmin(out->hi_ns, b->d_ns));
			out->hi2_cy = fmax(out->hi2_cy, fmin(out->hi_cy, b->d_cy));
		}
		out->lo_ns = fmin(out->lo_ns, b->d_ns), out->hi_ns = fmax(out->hi_ns, b->d_ns);
		out->lo_cy = fmin(out->lo_cy, b->d_cy), out->hi_cy = fmax(out->hi_cy, b->d_cy);
	}
	if (!m->found)
		return 0;
	out->found = 1;
	out->step = m->step;
	out->d_ns = m->d_ns;
	out->d_cy = m->d_cy;
	out->rel = m->rel;
	out->p_ns = m->p_ns;
	out->p_cy = m->p_cy;
	out->drift_bound = m->drift_bound;
	return 0;
}

/* The least difference a wall clock of step step_ns (0: not known) can
 * state: two steps, what two quantiles timed with it may differ by with no
 * change in the work.  The one rule behind cal_resolution_judged,
 * cal_resolution_floor, cal_clock_fine and cal_resolution_at_scale. */
static double clock_least(double step_ns)
{
	return step_ns > 0 ? 2 * step_ns : 0;
}

void cal_resolution_judged(const struct cal_resolution *rs, double step_ns, double *ns, double *cy, double *rel)
{
	double up_ns = rs->blocks_found > 3 ? rs->hi2_ns : rs->hi_ns;
	double up_cy = rs->blocks_found > 3 ? rs->hi2_cy : rs->hi_cy;
	if (!rs->blocks_found)
		up_ns = up_cy = 0;
	/* Two runs are what a user compares: never below what separates
	 * them (cal_apart); measured, it replaces the blocks' upper end,
	 * which stood in for it. */
	if (cal_apart_bounded(&rs->apart))
		up_ns = rs->apart.bound_ns, up_cy = rs->apart.bound_cy;
	*ns = fmax(up_ns, rs->d_ns);
	*cy = fmax(up_cy, rs->d_cy);
	if (*ns < clock_least(step_ns))
		*ns = clock_least(step_ns);
	*rel = rs->d_ns > 0 ? rs->rel * *ns / rs->d_ns : rs->rel;
}

void cal_resolution_floor(struct cal_resolution *rs, double step_ns)
{
	double least = clock_least(step_ns);
	if (!(least > 0))
		return;
	if (rs->found && rs->d_ns < least) {
		if (rs->d_ns > 0)
			rs->rel *= least / rs->d_ns;
		rs->d_ns = least;
		rs->clock_bound = 1;
	}
	if (rs->blocks_found) {
		rs->lo_ns = fmax(rs->lo_ns, least);
		rs->hi_ns = fmax(rs->hi_ns, least);
	}
	if (rs->blocks_found > 1)
		rs->hi2_ns = fmax(rs->hi2_ns, least);
}

int cal_clock_fine(double med_ns, double step_ns, double tol)
{
	return !(step_ns > 0) || clock_least(step_ns) <= med_ns * tol / 2;
}

double cal_resolution_at_scale(const struct cal_resolution *rs, int cycles, double step_ns)
{
	if (!rs->blocks_found)
		return 0;
	return cycles ? rs->lo_cy : fmax(rs->lo_ns, clock_least(step_ns));
}
