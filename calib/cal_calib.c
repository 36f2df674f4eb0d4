/* cal_calib.c - the calibration driver (cal_calib.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cal_calib.h"
#include "cal_stats.h"

void cal_opts_defaults(struct cal_opts *o, int quick)
{
	memset(o, 0, sizeof(*o));
	cal_search_defaults(&o->search);
	o->quick = quick;
	o->samples = quick ? 40 : 200;
	o->timer_samples = quick ? 2000 : 20000;
	o->growth = 4;
	o->max_adds = (uint64_t)1 << 24;
	o->step = quick ? 0.005 : 0.0025;
	o->steps = quick ? 10 : 12;
	o->blocks = quick ? 3 : 5;
	o->flush_bytes = cal_flush_default(quick ? (size_t)1 << 20 : (size_t)4 << 20);
	o->q = o->search.q_lo + (1 - o->search.q_hi); /* 0.1 */
	o->procs = quick ? 0 : 32;
}

/* A macro's value as a string literal, for the messages below. */
#define CAL_STR_(x) #x
#define CAL_STR(x) CAL_STR_(x)

int cal_opts_check(const struct cal_opts *o, char *err, size_t errlen)
{
	const char *bad = NULL;
	const struct cal_search_opts *s = &o->search;
	if (!(s->q_lo >= 0 && s->q_lo < 0.5 && s->q_hi > 0.5 && s->q_hi <= 1))
		bad = "the quantiles must satisfy 0 <= low < 0.5 < high <= 1";
	else if (!(s->tol > 0 && s->tol < 1))
		bad = "the tolerance must be in (0, 100) %";
	else if (!(s->threshold_ns > 0))
		bad = "the detection threshold must be positive";
	else if (!(s->alpha > 0 && s->alpha < 0.5))
		bad = "alpha must be in (0, 0.5)";
	else if (o->samples < 5 || o->samples > 100000)
		bad = "samples must be in 5..100000";
	else if (o->timer_samples < 1 || o->timer_samples > 10000000)
		bad = "timer samples must be in 1..10000000";
	else if (!(o->growth >= 1.05 && o->growth <= 4))
		bad = "growth must be in 1.05..4";
	else if (!(o->step > 0 && o->step <= 0.5))
		bad = "the resolution step must be in (0, 50] %";
	else if (o->steps < 1 || o->steps > 40)
		bad = "steps must be in 1..40";
	else if (o->step * pow(M_SQRT2, o->steps - 1) > 4)
		bad = "the largest resolution step (step * 2^((steps - 1) / 2)) must be at most 400 %";
	else if (o->blocks < 1 || o->blocks > CAL_BLOCKS_MAX)
		bad = "blocks must be in 1.." CAL_STR(CAL_BLOCKS_MAX);
	else if (!(o->at >= 0 && o->at <= 1e10))
		bad = "the interval of the resolution must be in 0..1e10";
	else if (o->flush_bytes > ((size_t)1 << 30))
		bad = "the flush size must be at most 1 GiB";
	else if (!(o->q > 0 && o->q < 1))
		bad = "q must be in (0, 1)";
	else if (o->procs > CAL_APART_MAX)
		bad = "processes must be in 0.." CAL_STR(CAL_APART_MAX);
	else if (o->max_adds < CAL_GROUP)
		bad = "max additions too small";
	if (bad) {
		snprintf(err, errlen, "%s", bad);
		errno = EINVAL;
		return -1;
	}
	return 0;
}

static double now_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t round_adds(double a)
{
	uint64_t g = (uint64_t)ceil(a / CAL_GROUP);
	return (g ? g : 1) * CAL_GROUP;
}

/* The workload's rate from a round of long chains (timer cost below
 * 0.1 %): medians per addition. */
static int rate_of(const struct cal_round *ref, struct cal_rate *rate)
{
	double m_ns, m_cy = 0;
	if (cal_median(ref->ns, ref->n, &m_ns) < 0 || (ref->cy && cal_median(ref->cy, ref->n, &m_cy) < 0))
		return -1;
	rate->ns_per_add = m_ns / (double)ref->adds;
	rate->cy_per_add = m_cy / (double)ref->adds;
	return 0;
}

/* The work's own spread from the noise round (cal_rate): its q_lo and q_hi
 * quantiles over its median, for each clock. */
static int spread_of(const struct cal_round *nz, const struct cal_search_opts *o, struct cal_rate *rate)
{
	double *x[2] = {nz->ns, nz->cy};
	double *lo[2] = {&rate->lo_ns, &rate->lo_cy}, *hi[2] = {&rate->hi_ns, &rate->hi_cy};
	double *s = malloc(nz->n * sizeof(*s));
	if (!s)
		return -1;
	for (int c = 0; c < 2; c++) {
		*lo[c] = *hi[c] = 0;
		if (!x[c])
			continue;
		memcpy(s, x[c], nz->n * sizeof(*s));
		cal_sort(s, nz->n);
		double m = cal_quantile_sorted(s, nz->n, 0.5);
		if (m > 0) {
			*lo[c] = cal_quantile_sorted(s, nz->n, o->q_lo) / m;
			*hi[c] = cal_quantile_sorted(s, nz->n, o->q_hi) / m;
		}
	}
	free(s);
	return 0;
}

/* Run the workload for about ms milliseconds, so the core leaves its idle
 * frequency before anything is measured. */
static void warm_up(unsigned ms)
{
	uint64_t t0 = cal_now_ns();
	while (cal_now_ns() - t0 < (uint64_t)ms * 1000000u)
		__asm__ volatile("" ::"r"(cal_chain(1024)));
}

/* Whether o's wall or CPU budget, counted from t0 and c0, is used up. */
static int over_budget(const struct cal_opts *o, double t0, double c0)
{
	return (o->budget_s > 0 && now_s(CLOCK_MONOTONIC) - t0 > o->budget_s) ||
	       (o->budget_cpu_s > 0 && now_s(CLOCK_THREAD_CPUTIME_ID) - c0 > o->budget_cpu_s);
}

uint64_t cal_step_adds(uint64_t base_adds, double step, unsigned k)
{
	uint64_t prev = 0;
	for (unsigned i = 0; i <= k; i++) {
		uint64_t a = round_adds((double)base_adds * step * pow(M_SQRT2, i));
		prev = a > prev ? a : prev + CAL_GROUP;
	}
	return prev;
}

double cal_largest_step(const struct cal_opts *o)
{
	return o->step * pow(M_SQRT2, o->steps ? o->steps - 1 : 0);
}

/* Measure the rounds rs[0..n) one after the other (or interleaved, sample by
 * sample).  Return how many were measured before the budget ran out (at
 * least min). */
static unsigned measure_rounds(const struct cal_opts *o, struct cal_round *rs, unsigned n, unsigned min,
			       const struct cal_sampler *s)
{
	if (o->interleave) {
		for (size_t i = 0; n && i < rs[0].n; i++)
			for (unsigned k = 0; k < n; k++)
				s->take(&rs[k], i, s->arg);
		return n;
	}
	for (unsigned k = 0; k < n; k++) {
		if (k >= min && s->over && s->over(s->arg))
			return k;
		for (size_t i = 0; i < o->samples; i++)
			s->take(&rs[k], i, s->arg);
	}
	return n;
}

int cal_resolution_measure(const struct cal_opts *o, uint64_t base_adds, int with_cycles,
			   const struct cal_sampler *s, struct cal_resolution *out, struct cal_block *blocks,
			   int *truncated)
{
	/* Each block its own rounds: a base, the steps, and the base again
	 * (its close), which bounds the block's resolution by the drift.  No
	 * round is shared between blocks: one burst of load during one round
	 * then spoils one block, not two, and the median over the blocks
	 * stays what the undisturbed ones resolve (issue 32: with the next
	 * block's base as the close, a burst during it inflated two of three
	 * blocks, and the median with them). */
	unsigned per = o->steps + 2, nb = 0;
	struct cal_resolution blk[CAL_BLOCKS_MAX];
	size_t nrs = (size_t)o->blocks * per;
	struct cal_round *rs;
	int rv = -1;
	*truncated = 0;
	if (base_adds == 0 || o->blocks < 1 || o->blocks > CAL_BLOCKS_MAX) {
		errno = EINVAL;
		return -1;
	}
	rs = calloc(nrs, sizeof(*rs));
	if (!rs)
		return -1;
	for (size_t i = 0; i < nrs; i++) {
		unsigned k = (unsigned)(i % per);
		uint64_t adds = base_adds + (k && k <= o->steps ? cal_step_adds(base_adds, o->step, k - 1) : 0);
		if (cal_round_init(&rs[i], adds, o->samples, with_cycles) < 0)
			goto out;
	}
	for (unsigned b = 0; b < o->blocks; b++) {
		struct cal_round *x = &rs[(size_t)b * per];
		/* The first block is judged on whatever steps the budget
		 * allowed (at least one); a later one is measured whole or not
		 * used. */
		if (b && s->over && s->over(s->arg)) {
			*truncated = 1;
			break;
		}
		measure_rounds(o, x, 1, 1, s);
		unsigned got = measure_rounds(o, &x[1], o->steps, b ? o->steps : 1, s);
		if (got < o->steps && b) {
			*truncated = 1;
			break;
		}
		if (cal_find_resolution(&x[0], &x[1], got, &o->search, &blk[nb]) < 0)
			goto out;
		int close = got == o->steps && measure_rounds(o, &x[per - 1], 1, 0, s) == 1;
		if (close) {
			struct cal_round pair[2] = {x[0], x[per - 1]};
			if (cal_resolution_drift(&blk[nb], pair, 2) < 0)
				goto out;
		}
		nb++;
		if (!close) {
			*truncated = 1;
			break;
		}
		if (s->after_block)
			s->after_block(b, s->arg);
	}
	rv = cal_resolution_blocks(blk, nb, out);
	for (unsigned b = 0; blocks && rv == 0 && b < nb; b++)
		blocks[b] = (struct cal_block){.found = blk[b].found, .ns = blk[b].d_ns, .cy = blk[b].d_cy, .rel = blk[b].rel};
out:
	for (size_t i = 0; i < nrs; i++)
		cal_round_free(&rs[i]);
	free(rs);
	return rv;
}

/* cal_run's sampler: the real workload with its timers and flusher, and its
 * budget counted from its start. */
struct run_sampler {
	const struct cal_opts *o;
	const struct cal_timer_info *ti;
	struct cal_flush *fl;
	double t0, c0;
	uint64_t base_adds;
	/* The fresh processes' edges (cal_apart_measure), and whether
	 * measuring them failed (errno kept). */
	double edge_ns[CAL_APART_MAX];
	size_t nedge;
	int apart_err;
};

static void run_take(struct cal_round *r, size_t i, void *arg)
{
	struct run_sampler *rs = arg;
	cal_measure(r, i, rs->ti, rs->fl);
}

static int run_over(void *arg)
{
	struct run_sampler *rs = arg;
	return over_budget(rs->o, rs->t0, rs->c0);
}

/* After block b: its share of o->procs fresh processes (the last block
 * takes what is left), each timing the base round (cal_apart_measure). */
static void run_after_block(unsigned b, void *arg)
{
	struct run_sampler *rs = arg;
	const struct cal_opts *o = rs->o;
	unsigned share = o->procs / o->blocks + (b < o->procs % o->blocks);
	if (share == 0 || rs->apart_err)
		return;
	if (cal_apart_measure(share, rs->base_adds, o->samples, o->q / 2, rs->ti, o->flush_bytes, &o->fresh, rs->edge_ns,
			      &rs->nedge) < 0)
		rs->apart_err = errno ? errno : EIO;
}

int cal_run(const struct cal_opts *o, struct cal_result *r)
{
	struct cal_opts def;
	struct cal_flush *fl = NULL;
	size_t cap = 0;
	char err[128];
	int rv = -1;
	if (!o) {
		cal_opts_defaults(&def, 0);
		o = &def;
	}
	memset(r, 0, sizeof(*r));
	if (cal_opts_check(o, err, sizeof(err)) < 0)
		return -1;
	r->opts = *o;
	double t0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_THREAD_CPUTIME_ID);
	if (cal_timer_measure(&r->timer, o->timer_samples, o->quick ? 20 : 100) < 0)
		goto fail;
	fl = cal_flush_create(o->flush_bytes, 0x2545f4914f6cdd1dull);
	if (!fl)
		goto fail;
	warm_up(o->quick ? 20 : 100);
	uint64_t ref_adds = (uint64_t)1 << (o->quick ? 16 : 18);
	/* The noise round: the chain expected to take the detection threshold
	 * (10 us), where the timers' error is negligible (a few tens of ns) and
	 * what spreads is the work itself; the rate from a few long chains. */
	{
		struct cal_round ref;
		if (cal_round_init(&ref, ref_adds, 10, r->timer.have_cycles) < 0)
			goto fail;
		for (size_t i = 0; i < ref.n; i++)
			cal_measure(&ref, i, &r->timer, NULL);
		int bad = rate_of(&ref, &r->rate);
		cal_round_free(&ref);
		if (bad < 0)
			goto fail;
		double a = r->rate.ns_per_add > 0 ? o->search.threshold_ns / r->rate.ns_per_add : (double)o->max_adds;
		/* At most the reference chain's length: a large --threshold must
		 * not make every sample milliseconds long. */
		r->noise_adds = round_adds(a < (double)ref_adds ? a : (double)ref_adds);
	}

	/* Step 3: rounds of growing chains until one passes. */
	for (uint64_t adds = CAL_GROUP; adds <= o->max_adds;) {
		struct cal_round round, ref, nz;
		struct cal_round_stat st;
		if (over_budget(o, t0, c0)) {
			r->truncated = 1;
			break;
		}
		if (r->nrounds == cap) {
			size_t nc = cap ? 2 * cap : 32;
			struct cal_round_stat *n = realloc(r->rounds, nc * sizeof(*n));
			if (!n)
				goto fail;
			r->rounds = n;
			cap = nc;
		}
		/* The round's samples interleaved with long chains: the expected
		 * value follows the clock frequency of that moment. */
		if (cal_round_init(&round, adds, o->samples, r->timer.have_cycles) < 0)
			goto fail;
		if (cal_round_init(&ref, ref_adds, o->samples, r->timer.have_cycles) < 0) {
			cal_round_free(&round);
			goto fail;
		}
		if (cal_round_init(&nz, r->noise_adds, o->samples, r->timer.have_cycles) < 0) {
			cal_round_free(&round);
			cal_round_free(&ref);
			goto fail;
		}
		/* ... and with the noise round: the band follows the work's own
		 * spread at that moment (cal_rate, doc/calibrate.md section 3). */
		for (size_t i = 0; i < o->samples; i++) {
			cal_measure(&round, i, &r->timer, fl);
			cal_measure(&ref, i, &r->timer, NULL); /* long: no flush needed */
			cal_measure(&nz, i, &r->timer, NULL);
		}
		int pass = rate_of(&ref, &r->rate);
		if (pass == 0)
			pass = spread_of(&nz, &o->search, &r->rate);
		if (pass == 0)
			pass = cal_round_check(&round, &r->rate, &o->search, &st);
		if (pass == 1 && !cal_clock_fine(st.med_ns, r->timer.step_ns, o->search.tol))
			pass = 0, st.coarse = 1;
		cal_round_free(&round);
		cal_round_free(&ref);
		cal_round_free(&nz);
		if (pass < 0)
			goto fail;
		r->rounds[r->nrounds++] = st;
		if (cal_interval_step(&r->interval, r->nrounds - 1, &st, pass, &o->search))
			break;
		uint64_t next = round_adds((double)adds * o->growth);
		adds = next > adds ? next : adds + CAL_GROUP;
	}
	/* A round can pass above the threshold: found, but not high precision. */
	r->high_precision = r->interval.found && r->interval.ns <= o->search.threshold_ns;

	/* Step 4: the resolution at R0 (or at the interval asked for), in
	 * blocks one after the other: each block a base round and steps
	 * growing by sqrt(2) (measured one after the other: the drift between
	 * them is part of what a comparison of two runs sees, or interleaved
	 * sample by sample), its resolution bounded by how far the next
	 * block's base moved.  The median over the blocks is the resolution,
	 * their smallest and largest its spread (doc/calibrate.md). */
	if (o->at > 0 && r->nrounds > 0) {
		double per = o->at_cycles ? r->rate.cy_per_add : r->rate.ns_per_add;
		if (!(per > 0)) {
			errno = EINVAL; /* cycles asked for without a cycle counter */
			goto fail;
		}
		r->base_adds = round_adds(o->at / per);
	} else if (r->interval.found) {
		r->base_adds = r->rounds[r->interval.round].adds;
	}
	if (r->base_adds) {
		struct run_sampler *rsm = calloc(1, sizeof(*rsm));
		if (!rsm)
			goto fail;
		*rsm = (struct run_sampler){.o = o, .ti = &r->timer, .fl = fl, .t0 = t0, .c0 = c0, .base_adds = r->base_adds};
		struct cal_sampler smp = {.take = run_take, .over = run_over, .after_block = run_after_block, .arg = rsm};
		int trunc;
		r->step_adds = cal_step_adds(r->base_adds, o->step, 0);
		if (cal_resolution_measure(o, r->base_adds, r->timer.have_cycles, &smp, &r->resolution,
					   r->block, &trunc) < 0 ||
		    rsm->apart_err) {
			if (rsm->apart_err)
				errno = rsm->apart_err;
			free(rsm);
			goto fail;
		}
		cal_resolution_floor(&r->resolution, r->timer.step_ns);
		r->truncated = r->truncated || trunc;
		/* What separates two runs: the base round in fresh processes
		 * after each block, each edge the criterion's (its q/2
		 * quantile). */
		struct cal_apart *ap = &r->resolution.apart;
		ap->procs = o->procs;
		ap->q_edge = o->q / 2;
		ap->step_ns = r->timer.step_ns;
		cal_apart_bound(rsm->edge_ns, rsm->nedge, o->search.tol, r->timer.have_cycles ? r->timer.tsc_ghz : 0, ap);
		free(rsm);
	}
	r->node = r->resolution;
	r->node_calibrations = r->base_adds ? 1 : 0;
	r->seconds = now_s(CLOCK_MONOTONIC) - t0;
	r->cpu_seconds = now_s(CLOCK_THREAD_CPUTIME_ID) - c0;
	rv = 0;
fail:
	cal_flush_destroy(fl);
	if (rv < 0) {
		int saved = errno;
		cal_result_free(r);
		errno = saved;
	}
	return rv;
}

void cal_result_free(struct cal_result *r)
{
	free(r->rounds);
	r->rounds = NULL;
	r->nrounds = 0;
}

int cal_emit(uint64_t adds, double extra, size_t n, size_t flush_bytes,
	     void (*put)(double ns, void *arg), void *arg)
{
	struct cal_timer_info ti;
	struct cal_round r;
	if (!(extra >= 0 && extra <= 10) || adds == 0) {
		errno = EINVAL;
		return -1;
	}
	/* Raw intervals, as a user's own timings are: subtracting this
	 * process's estimate of L_ts (which moves in the wall clock's ~10 ns
	 * steps from one process to the next) would add a between-run offset. */
	cal_timer_detect(&ti);
	struct cal_flush *fl = cal_flush_create(flush_bytes, 0x9e3779b97f4a7c15ull);
	if (!fl)
		return -1;
	if (cal_round_init(&r, round_adds((double)adds * (1 + extra)), 1, 0) < 0) {
		cal_flush_destroy(fl);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		cal_measure(&r, 0, &ti, fl);
		put(r.ns[0], arg);
	}
	cal_round_free(&r);
	cal_flush_destroy(fl);
	return 0;
}
