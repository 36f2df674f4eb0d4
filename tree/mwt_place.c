/* mwt_place.c - CP placement: best-effort average and fuzzy evaluation
 * (seed 003; doc/tree.md has the steps and a worked example). */
#include "mwt_place.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Step 5: every host not yet in RS whose BEs exceed its target keeps its
 * BEs only (TS[i] = OS[i]), joins RS, and leaves the sum.  Return how many
 * joined. */
static size_t step5(const int *os, size_t m, long *ts, unsigned char *in_rs, long *sum)
{
	size_t i, added = 0;
	for (i = 0; i < m; i++)
		if (!in_rs[i] && os[i] > ts[i]) {
			ts[i] = os[i];
			in_rs[i] = 1;
			*sum -= os[i];
			added++;
		}
	return added;
}

int mwt_place_average(const int *os, size_t m, int ncp, int *ts_out, int *as, struct mwt_avg_info *info)
{
	long total = ncp, sum, quo, rem, *ts = NULL;
	unsigned char *in_rs = NULL;
	size_t i, nrs = 0, added;
	int rounds = 0, rv = -1;

	if (ncp < 0 || (m == 0 && ncp > 0)) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < m; i++) {
		if (os[i] < 0) {
			errno = EINVAL;
			return -1;
		}
		total += os[i];
		if (total > INT_MAX) {
			errno = EINVAL;
			return -1;
		}
	}
	if (m == 0) {
		if (info)
			memset(info, 0, sizeof(*info));
		return 0;
	}
	ts = calloc(m, sizeof(*ts));
	in_rs = calloc(m, 1);
	if (!ts || !in_rs) {
		errno = ENOMEM;
		goto fail;
	}
	/* (1) TS cleared (calloc); (2) quo, rem = sum / m, sum % m */
	sum = total;
	quo = sum / (long)m;
	rem = sum % (long)m;
	/* (3) TS[i] = quo; (4) the first rem elements + 1 */
	for (i = 0; i < m; i++)
		ts[i] = quo + ((long)i < rem ? 1 : 0);
	/* (5) hosts whose BEs exceed their share go to RS */
	added = step5(os, m, ts, in_rs, &sum);
	nrs += added;
	/* (6) while RS keeps growing: (7) share what is left among the others */
	while (added && nrs < m) {
		long k = (long)(m - nrs);
		long given = 0;
		quo = sum / k;
		rem = sum % k;
		for (i = 0; i < m; i++)
			if (!in_rs[i])
				ts[i] = quo;
		/* the rem smallest elements + 1: outside RS every element is quo
		 * (and every element of RS is larger), so the first rem of them */
		for (i = 0; i < m && given < rem; i++)
			if (!in_rs[i]) {
				ts[i]++;
				given++;
			}
		rounds++;
		added = step5(os, m, ts, in_rs, &sum);
		nrs += added;
	}
	/* (8) AS[i] = TS[i] - OS[i] where positive */
	for (i = 0; i < m; i++) {
		as[i] = ts[i] > os[i] ? (int)(ts[i] - os[i]) : 0;
		if (ts_out)
			ts_out[i] = (int)ts[i];
	}
	if (info) {
		info->rounds = rounds;
		info->nrs = nrs;
		info->sum = sum;
	}
	rv = 0;
fail:
	free(ts);
	free(in_rs);
	return rv;
}

static const double default_weights[MWT_NF] = {0.3, 0.2, 0.1, 0.3, 0.1};

const double *mwt_fuzzy_default_weights(void)
{
	return default_weights;
}

const char *mwt_factor_name(int f)
{
	static const char *const names[MWT_NF] = {"load", "memory", "cores", "health", "rtt"};
	return f >= 0 && f < MWT_NF ? names[f] : "?";
}

const char *mwt_judgement_name(int j)
{
	static const char *const names[MWT_NJ] = {"good", "fair", "poor"};
	return j >= 0 && j < MWT_NJ ? names[j] : "?";
}

static const char *const health_names[] = {"unknown", "ok", "degraded", "down"};

int mwt_health_parse(const char *s)
{
	int h;
	for (h = 0; h < 4; h++)
		if (strcmp(s, health_names[h]) == 0)
			return h;
	return -1;
}

const char *mwt_health_name(int h)
{
	return h >= 0 && h < 4 ? health_names[h] : "?";
}

static double clamp01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

/* Goodness of each factor of f, given the largest memory and cores and the
 * smallest round-trip among the hosts (0 when none is known). */
static void goodness(const struct mwt_factors *f, double max_mem, int max_cores, double min_rtt,
		     double *x)
{
	x[MWT_F_LOAD] = f->load >= 0 && f->cores > 0 ? 1 - clamp01(f->load / f->cores) : 0.5;
	x[MWT_F_MEM] = f->mem_free_mb >= 0 && max_mem > 0 ? clamp01(f->mem_free_mb / max_mem) : 0.5;
	x[MWT_F_CORES] = f->cores > 0 && max_cores > 0 ? clamp01((double)f->cores / max_cores) : 0.5;
	switch (f->health) {
	case MWT_HEALTH_OK: x[MWT_F_HEALTH] = 1; break;
	case MWT_HEALTH_DEGRADED: x[MWT_F_HEALTH] = 0.5; break;
	case MWT_HEALTH_DOWN: x[MWT_F_HEALTH] = 0; break;
	default: x[MWT_F_HEALTH] = 0.5; break;
	}
	x[MWT_F_RTT] = f->rtt_ms > 0 && min_rtt > 0 ? clamp01(min_rtt / f->rtt_ms) : 0.5;
	if (f->health == MWT_HEALTH_DOWN) /* down (did not answer): poor on every count */
		for (int i = 0; i < MWT_NF; i++)
			x[i] = 0;
}

/* Memberships compared on a grid of 1e-9, so that rounding noise in B
 * never orders two hosts the hand computation calls equal. */
struct rank_key {
	int judgement;
	long long good, poor;
	size_t idx;
};

static int rank_cmp(const void *pa, const void *pb)
{
	const struct rank_key *a = pa, *b = pb;
	if (a->judgement != b->judgement)
		return a->judgement < b->judgement ? -1 : 1;
	if (a->good != b->good)
		return a->good > b->good ? -1 : 1;
	if (a->poor != b->poor)
		return a->poor < b->poor ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

int mwt_fuzzy_rank(const struct mwt_factors *f, size_t m, const double *w, struct mwt_eval *ev, size_t *rank)
{
	double a[MWT_NF], wsum = 0, max_mem = 0, min_rtt = 0;
	int max_cores = 0, i, j;
	struct rank_key *keys;
	size_t h;

	if (!w)
		w = default_weights;
	for (i = 0; i < MWT_NF; i++) {
		if (!isfinite(w[i]) || w[i] < 0) {
			errno = EINVAL;
			return -1;
		}
		wsum += w[i];
	}
	if (!(wsum > 0)) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < MWT_NF; i++)
		a[i] = w[i] / wsum;
	for (h = 0; h < m; h++) {
		if (f[h].mem_free_mb > max_mem)
			max_mem = f[h].mem_free_mb;
		if (f[h].cores > max_cores)
			max_cores = f[h].cores;
		if (f[h].rtt_ms > 0 && (min_rtt == 0 || f[h].rtt_ms < min_rtt))
			min_rtt = f[h].rtt_ms;
	}
	keys = calloc(m ? m : 1, sizeof(*keys));
	if (!keys) {
		errno = ENOMEM;
		return -1;
	}
	for (h = 0; h < m; h++) {
		struct mwt_eval e;
		goodness(&f[h], max_mem, max_cores, min_rtt, e.x);
		for (i = 0; i < MWT_NF; i++) {
			double x = e.x[i];
			e.r[i][MWT_J_POOR] = x < 0.5 ? 1 - 2 * x : 0;
			e.r[i][MWT_J_FAIR] = 1 - fabs(2 * x - 1);
			e.r[i][MWT_J_GOOD] = x > 0.5 ? 2 * x - 1 : 0;
		}
		/* B = A o R, M(*,+): b_j = sum_i a_i r_ij */
		for (j = 0; j < MWT_NJ; j++) {
			e.b[j] = 0;
			for (i = 0; i < MWT_NF; i++)
				e.b[j] += a[i] * e.r[i][j];
		}
		/* maximum membership; within 1e-12 the better judgement wins */
		e.judgement = MWT_J_GOOD;
		for (j = 1; j < MWT_NJ; j++)
			if (e.b[j] > e.b[e.judgement] + 1e-12)
				e.judgement = j;
		keys[h].judgement = e.judgement;
		keys[h].good = llround(e.b[MWT_J_GOOD] * 1e9);
		keys[h].poor = llround(e.b[MWT_J_POOR] * 1e9);
		keys[h].idx = h;
		if (ev)
			ev[h] = e;
	}
	qsort(keys, m, sizeof(*keys), rank_cmp);
	for (h = 0; h < m; h++)
		rank[h] = keys[h].idx;
	free(keys);
	return 0;
}
