/* cal_report.c - text and JSON of a calibration (cal_report.h). */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "cal_report.h"

static struct json_object *num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static struct json_object *num_or_null(int have, double v)
{
	return have ? num(v) : NULL;
}

static void add(struct json_object *o, const char *k, struct json_object *v)
{
	json_object_object_add(o, k, v);
}

struct json_object *cal_report_json(const struct cal_result *r)
{
	const struct cal_opts *o = &r->opts;
	const struct cal_timer_info *t = &r->timer;
	int cy = t->have_cycles;
	char host[256] = "";
	struct json_object *j = json_object_new_object(), *x;
	if (!j)
		return NULL;
	gethostname(host, sizeof(host) - 1);
	add(j, "version", json_object_new_int(1));
	add(j, "host", json_object_new_string(host));
#if defined(__x86_64__)
	add(j, "arch", json_object_new_string("x86_64"));
#else
	add(j, "arch", json_object_new_string("other"));
#endif
	add(j, "quick", json_object_new_boolean(o->quick));
	add(j, "seconds", num(r->seconds));
	add(j, "cpu_seconds", num(r->cpu_seconds));

	x = json_object_new_object();
	add(x, "samples", json_object_new_int64((int64_t)o->samples));
	add(x, "timer_samples", json_object_new_int64((int64_t)o->timer_samples));
	add(x, "quantile_low", num(o->search.q_lo));
	add(x, "quantile_high", num(o->search.q_hi));
	add(x, "tolerance", num(o->search.tol));
	add(x, "threshold_ns", num(o->search.threshold_ns));
	add(x, "alpha", num(o->search.alpha));
	add(x, "growth", num(o->growth));
	add(x, "step", num(o->step));
	add(x, "steps", json_object_new_int((int)o->steps));
	add(x, "interleave", json_object_new_boolean(o->interleave));
	add(x, "blocks", json_object_new_int((int)o->blocks));
	add(x, "at", o->at > 0 ? num(o->at) : NULL);
	add(x, "at_unit", o->at > 0 ? json_object_new_string(o->at_cycles ? "cycles" : "ns") : NULL);
	add(x, "flush_bytes", json_object_new_int64((int64_t)o->flush_bytes));
	add(x, "q", num(o->q));
	add(x, "processes", json_object_new_int((int)o->procs));
	add(j, "options", x);

	x = json_object_new_object();
	add(x, "cycles", json_object_new_boolean(cy));
	add(x, "rdtscp", json_object_new_boolean(t->rdtscp));
	add(x, "invariant_tsc", json_object_new_boolean(t->invariant_tsc));
	add(x, "invariant_how", json_object_new_string(t->invariant_how));
	add(x, "tsc_ghz", num_or_null(cy, t->tsc_ghz));
	add(x, "read_cy", num_or_null(cy, t->read_cycles_cy));
	add(x, "read_ns", num(t->read_ns_ns));
	add(x, "l_cy", num_or_null(cy, t->l_cy));
	add(x, "l_ts", num(t->l_ts));
	add(x, "samples", json_object_new_int64((int64_t)t->samples));
	add(x, "backward_steps", json_object_new_int64(t->backward_steps));
	add(x, "step_ns", num(t->step_ns));
	add(j, "timers", x);

	x = json_object_new_object();
	add(x, "cy_per_add", num_or_null(cy, r->rate.cy_per_add));
	add(x, "ns_per_add", num(r->rate.ns_per_add));
	add(x, "noise_adds", json_object_new_int64((int64_t)r->noise_adds));
	add(x, "low_ns", num(r->rate.lo_ns));
	add(x, "high_ns", num(r->rate.hi_ns));
	add(x, "low_cy", num_or_null(cy, r->rate.lo_cy));
	add(x, "high_cy", num_or_null(cy, r->rate.hi_cy));
	add(j, "rate", x);

	x = json_object_new_array();
	for (size_t i = 0; i < r->nrounds; i++) {
		const struct cal_round_stat *s = &r->rounds[i];
		struct json_object *e = json_object_new_object();
		add(e, "adds", json_object_new_int64((int64_t)s->adds));
		add(e, "expected_ns", num(s->exp_ns));
		add(e, "low_ns", num(s->lo_ns));
		add(e, "median_ns", num(s->med_ns));
		add(e, "high_ns", num(s->hi_ns));
		add(e, "expected_cy", num_or_null(cy, s->exp_cy));
		add(e, "low_cy", num_or_null(cy, s->lo_cy));
		add(e, "median_cy", num_or_null(cy, s->med_cy));
		add(e, "high_cy", num_or_null(cy, s->hi_cy));
		add(e, "band_low_ns", num(s->band_lo_ns));
		add(e, "band_high_ns", num(s->band_hi_ns));
		add(e, "band_low_cy", num_or_null(cy, s->band_lo_cy));
		add(e, "band_high_cy", num_or_null(cy, s->band_hi_cy));
		add(e, "outside", num(s->outside_ns));
		add(e, "pass", json_object_new_boolean(s->pass_ns && s->pass_cy && !s->coarse));
		add(e, "coarse", json_object_new_boolean(s->coarse));
		json_object_array_add(x, e);
	}
	add(j, "rounds", x);

	const struct cal_interval *iv = &r->interval;
	x = json_object_new_object();
	add(x, "found", json_object_new_boolean(iv->found));
	add(x, "round", iv->found ? json_object_new_int((int)iv->round) : NULL);
	add(x, "adds", iv->found ? json_object_new_int64((int64_t)r->rounds[iv->round].adds) : NULL);
	add(x, "ns", num_or_null(iv->found, iv->ns));
	add(x, "cy", num_or_null(iv->found && cy, iv->cy));
	add(j, "interval", x);
	add(j, "high_precision", json_object_new_boolean(r->high_precision));

	const struct cal_resolution *rs = &r->resolution;
	int res = r->base_adds && rs->found;
	x = json_object_new_object();
	add(x, "found", json_object_new_boolean(res));
	add(x, "base_adds", r->base_adds ? json_object_new_int64((int64_t)r->base_adds) : NULL);
	add(x, "step_adds", r->base_adds ? json_object_new_int64((int64_t)r->step_adds) : NULL);
	add(x, "adds", res ? json_object_new_int64((int64_t)(r->base_adds + cal_step_adds(r->base_adds, o->step,
											 (unsigned)rs->step)))
			   : NULL);
	add(x, "ns", num_or_null(res, rs->d_ns));
	add(x, "cy", num_or_null(res && cy, rs->d_cy));
	add(x, "relative", num_or_null(res, rs->rel));
	add(x, "p_ns", num_or_null(res, rs->p_ns));
	add(x, "p_cy", num_or_null(res && cy, rs->p_cy));
	add(x, "drift_ns", num_or_null(res, rs->drift_ns));
	add(x, "drift_cy", num_or_null(res && cy, rs->drift_cy));
	add(x, "drift_bound", json_object_new_boolean(res && rs->drift_bound));
	add(x, "clock_bound", json_object_new_boolean(res && rs->clock_bound));
	add(x, "blocks", json_object_new_int((int)rs->blocks));
	add(x, "blocks_found", json_object_new_int((int)rs->blocks_found));
	add(x, "low_ns", num_or_null(rs->blocks_found, rs->lo_ns));
	add(x, "high_ns", num_or_null(rs->blocks_found, rs->hi_ns));
	add(x, "low_cy", num_or_null(rs->blocks_found && cy, rs->lo_cy));
	add(x, "high_cy", num_or_null(rs->blocks_found && cy, rs->hi_cy));
	const struct cal_apart *ap = &rs->apart;
	struct json_object *a = json_object_new_object();
	add(a, "processes", json_object_new_int((int)ap->procs));
	add(a, "measured", json_object_new_int((int)ap->measured));
	add(a, "slowed", json_object_new_int((int)ap->slowed));
	add(a, "edge_quantile", num_or_null(ap->measured, ap->q_edge));
	add(a, "low_ns", num_or_null(ap->measured, ap->lo_ns));
	add(a, "high_ns", num_or_null(ap->measured, ap->hi_ns));
	int two = cal_apart_bounded(ap);
	add(a, "sd_ns", num_or_null(two, ap->sd_ns));
	add(a, "excess_ns", num_or_null(two, ap->excess_ns));
	add(a, "bound_sd_ns", num_or_null(two, ap->bound_sd_ns));
	add(a, "bound_tail_ns", num_or_null(two, ap->bound_tail_ns));
	add(a, "bound_ns", num_or_null(two, ap->bound_ns));
	add(a, "low_cy", num_or_null(ap->measured && cy, ap->lo_cy));
	add(a, "high_cy", num_or_null(ap->measured && cy, ap->hi_cy));
	add(a, "sd_cy", num_or_null(two && cy, ap->sd_cy));
	add(a, "bound_cy", num_or_null(two && cy, ap->bound_cy));
	add(x, "runs_apart", a);
	add(j, "resolution", x);

	/* The node over its calibrations at this chain (--history; without,
	 * this calibration alone): what the criterion judges with. */
	const struct cal_resolution *nd = &r->node;
	int nres = r->base_adds && nd->found, nap = cal_apart_bounded(&nd->apart);
	x = json_object_new_object();
	add(x, "calibrations", json_object_new_int((int)r->node_calibrations));
	add(x, "found", json_object_new_boolean(nres));
	add(x, "ns", num_or_null(nres, nd->d_ns));
	add(x, "cy", num_or_null(nres && cy, nd->d_cy));
	add(x, "blocks", json_object_new_int((int)nd->blocks));
	add(x, "blocks_found", json_object_new_int((int)nd->blocks_found));
	add(x, "low_ns", num_or_null(nd->blocks_found, nd->lo_ns));
	add(x, "high_ns", num_or_null(nd->blocks_found, nd->hi_ns));
	add(x, "low_cy", num_or_null(nd->blocks_found && cy, nd->lo_cy));
	add(x, "high_cy", num_or_null(nd->blocks_found && cy, nd->hi_cy));
	add(x, "runs_apart_ns", num_or_null(nap, nd->apart.bound_ns));
	add(x, "runs_apart_cy", num_or_null(nap && cy, nd->apart.bound_cy));
	add(j, "node", x);

	x = json_object_new_object();
	add(x, "q", num(o->q));
	add(x, "alpha", num(o->search.alpha));
	add(x, "band", json_object_new_string("[Q(q/2) - R, Q(1 - q/2) + R], R = max(resolution, resolution_relative * median)"));
	/* The criterion judges with the node's figures (cal_resolution_judged:
	 * the same rule as nodehealthd's probe reply). */
	double up_ns, up_cy, up_rel;
	cal_resolution_judged(nd, r->timer.step_ns, &up_ns, &up_cy, &up_rel);
	add(x, "resolution_ns", num_or_null(nres, up_ns));
	add(x, "resolution_cy", num_or_null(nres && cy, up_cy));
	/* Unresolved: the largest difference tested is all that can be said. */
	add(x, "resolution_relative", num(nres ? up_rel : cal_largest_step(o)));
	add(j, "criterion", x);
	return j;
}

int cal_report_text(FILE *f, const struct cal_result *r)
{
	const struct cal_timer_info *t = &r->timer;
	const struct cal_opts *o = &r->opts;
	int cy = t->have_cycles;
	fprintf(f, "mpiwatch calibrate%s: %.2f s (%.2f s CPU), %zu samples per round\n",
		o->quick ? " --quick" : "", r->seconds, r->cpu_seconds, o->samples);
	if (cy)
		fprintf(f, "timers: TSC %s (%s), %s, %.3f GHz; clock_gettime(CLOCK_MONOTONIC)\n",
			t->invariant_tsc ? "invariant" : "NOT invariant", t->invariant_how,
			t->rdtscp ? "rdtscp" : "lfence;rdtsc", t->tsc_ghz);
	else
		fprintf(f, "timers: clock_gettime(CLOCK_MONOTONIC) only (no cycle counter here)\n");
	if (cy)
		fprintf(f, "timer cost: one read %.0f cycles / %.0f ns; empty measurement L_cy = %.0f cycles, L_ts = %.0f ns\n",
			t->read_cycles_cy, t->read_ns_ns, t->l_cy, t->l_ts);
	else
		fprintf(f, "timer cost: one read %.0f ns; empty measurement L_ts = %.0f ns\n", t->read_ns_ns,
			t->l_ts);
	if (t->step_ns > 1)
		fprintf(f, "wall clock: steps of %.0f ns (the resolution judged with is at least two)\n", t->step_ns);
	if (t->backward_steps)
		fprintf(f, "WARNING: the timers went backwards %ld times\n", t->backward_steps);
	fprintf(f, "workload: %.4f ns per addition", r->rate.ns_per_add);
	if (cy)
		fprintf(f, ", %.4f cycles", r->rate.cy_per_add);
	fprintf(f, "; band: quantiles %g-%g within +-%g%% of expected\n", o->search.q_lo, o->search.q_hi,
		o->search.tol * 100);
	if (r->noise_adds && r->rate.hi_ns > 0)
		fprintf(f, "the work's own spread (noise round, %llu additions): %+.1f%% / %+.1f%% of its median"
			   " (quantiles %g, %g), the band widened by it\n",
			(unsigned long long)r->noise_adds, (r->rate.lo_ns - 1) * 100, (r->rate.hi_ns - 1) * 100,
			o->search.q_lo, o->search.q_hi);
	fprintf(f, "%10s %10s %10s %10s %10s", "additions", "exp_ns", "low_ns", "median_ns", "high_ns");
	if (cy)
		fprintf(f, " %10s %10s %10s %10s", "exp_cy", "low_cy", "median_cy", "high_cy");
	fputc('\n', f);
	for (size_t i = 0; i < r->nrounds; i++) {
		const struct cal_round_stat *s = &r->rounds[i];
		fprintf(f, "%10llu %10.1f %10.1f %10.1f %10.1f", (unsigned long long)s->adds, s->exp_ns,
			s->lo_ns, s->med_ns, s->hi_ns);
		if (cy)
			fprintf(f, " %10.1f %10.1f %10.1f %10.1f", s->exp_cy, s->lo_cy, s->med_cy, s->hi_cy);
		fprintf(f, "  %s\n", s->coarse ? "coarse" : s->pass_ns && s->pass_cy ? "pass" : "");
	}
	if (r->interval.found) {
		fprintf(f, "shortest trustworthy interval: %.0f ns", r->interval.ns);
		if (cy)
			fprintf(f, " / %.0f cycles", r->interval.cy);
		fprintf(f, " (%llu additions)", (unsigned long long)r->rounds[r->interval.round].adds);
		/* The ladder is coarse (growth 4): what the node can time lies
		 * between the round before, which did not pass, and this one. */
		if (r->interval.round > 0) {
			const struct cal_round_stat *b = &r->rounds[r->interval.round - 1];
			fprintf(f, "; not at %.0f ns (%llu additions%s)", b->med_ns, (unsigned long long)b->adds,
				b->coarse ? ", shorter than the clock's steps allow" : "");
		}
		fputc('\n', f);
	} else {
		fprintf(f, "shortest trustworthy interval: none below %.0f ns: this node cannot do "
			   "high-precision detection\n",
			o->search.threshold_ns);
	}
	const struct cal_resolution *rs = &r->resolution;
	if (r->base_adds && rs->found) {
		fprintf(f, "resolution %.0f ns (%.0f\xe2\x80\x93%.0f over %u blocks", rs->d_ns, rs->lo_ns, rs->hi_ns,
			rs->blocks);
		if (rs->blocks_found < rs->blocks)
			fprintf(f, ", %u resolved", rs->blocks_found);
		fputc(')', f);
		if (cy)
			fprintf(f, " / %.0f cycles (%.0f\xe2\x80\x93%.0f)", rs->d_cy, rs->lo_cy, rs->hi_cy);
		fprintf(f, " at %llu additions: %.2f%% of the interval; %s\n", (unsigned long long)r->base_adds,
			rs->rel * 100,
			rs->clock_bound   ? "two steps of the wall clock (the rank-sum test resolved less)"
			: rs->drift_bound ? "the base round moved that much from one block to the next, more than "
					    "the smallest significant step"
					  : "the smallest step significant from there on (rank-sum)");
	} else if (r->base_adds) {
		fprintf(f, "resolution: not resolved in %u of %u blocks of %u steps up to %.1f%% of %llu additions\n",
			rs->blocks - rs->blocks_found, rs->blocks, o->steps, cal_largest_step(o) * 100,
			(unsigned long long)r->base_adds);
	}
	const struct cal_apart *ap = &rs->apart;
	if (cal_apart_bounded(ap)) {
		fprintf(f, "runs apart: the lower edge (quantile %g) of %u fresh processes %.0f\xe2\x80\x93%.0f ns, SD %.1f ns",
			ap->q_edge, ap->measured - ap->slowed, ap->lo_ns, ap->hi_ns, ap->sd_ns);
		if (ap->slowed)
			fprintf(f, " (%u more left out: slowed by other load)", ap->slowed);
		fprintf(f, ", mean excess over the lowest %.1f ns: two runs differ by more than %.0f ns in 1 %% of pairs",
			ap->excess_ns, ap->bound_ns);
		if (cy)
			fprintf(f, " (%.0f cycles)", ap->bound_cy);
		if (ap->bound_tail_ns > 0)
			fprintf(f, " (most runs on the lowest step: the larger of the tail bound %.0f ns and the SD's %.0f)",
				ap->bound_tail_ns, ap->bound_sd_ns);
		else
			fprintf(f, " (the SD's: the runs spread over several steps)");
		fputc('\n', f);
	} else if (ap->procs) {
		fprintf(f, "runs apart: not measured (%u of %u fresh processes reported, %u of them slowed)\n",
			ap->measured, ap->procs, ap->slowed);
	}
	const struct cal_resolution *nd = &r->node;
	if (r->node_calibrations > 1) {
		fprintf(f, "this node over its last %u calibrations at %llu additions (--history): ",
			r->node_calibrations, (unsigned long long)r->base_adds);
		if (nd->found)
			fprintf(f, "resolution %.0f ns (%.0f\xe2\x80\x93%.0f over %u blocks", nd->d_ns, nd->lo_ns,
				nd->hi_ns, nd->blocks);
		else
			fprintf(f, "no resolution (%u of %u blocks", nd->blocks_found, nd->blocks);
		fprintf(f, "%s)", nd->found && nd->blocks_found < nd->blocks ? ", some unresolved" : " resolved");
		if (cal_apart_bounded(&nd->apart))
			fprintf(f, ", runs apart up to %.0f ns (the largest of their bounds)", nd->apart.bound_ns);
		fputc('\n', f);
	}
	fprintf(f, "criterion: a fluctuation is real when the band [Q(%g), Q(%g)] moves: its lower edge "
		   "by more than res (q = %g)",
		o->q / 2, 1 - o->q / 2, o->q);
	if (r->base_adds && nd->found) {
		double up_ns, up_cy, up_rel;
		cal_resolution_judged(nd, t->step_ns, &up_ns, &up_cy, &up_rel);
		fprintf(f, "; res = %.0f ns (%.2f%%)", up_ns, up_rel * 100);
		if (cy)
			fprintf(f, " / %.0f cycles", up_cy);
		fprintf(f, ", %s%s", up_ns > nd->d_ns && up_ns == nd->apart.bound_ns ? "what separates two runs"
				     : up_ns > nd->d_ns ? "the upper end of the blocks' spread" : "the resolution",
			r->node_calibrations > 1 ? " over the node's calibrations" : "");
	}
	fputc('\n', f);
	return ferror(f) ? -1 : 0;
}

static int get_num(struct json_object *o, const char *k, double *v, int *isnull)
{
	struct json_object *x;
	*isnull = 0;
	if (!json_object_object_get_ex(o, k, &x))
		return -1;
	if (!x) {
		*isnull = 1;
		return 0;
	}
	if (!json_object_is_type(x, json_type_double) && !json_object_is_type(x, json_type_int))
		return -1;
	*v = json_object_get_double(x);
	return isfinite(*v) ? 0 : -1;
}

/* The JSON of the calibration file path, or NULL with a message naming it
 * in err (errno set). */
static struct json_object *load_file(const char *path, char *err, size_t errlen)
{
	struct json_object *j = json_object_from_file(path);
	if (!j) {
		int saved = errno;
		if (access(path, R_OK) < 0)
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		else
			snprintf(err, errlen, "%s: not JSON (%s)", path, json_util_get_last_err());
		errno = saved ? saved : EINVAL;
	}
	return j;
}

/* cal_criterion_load on the file's JSON j (not released). */
static int criterion_of(struct json_object *j, const char *path, int cycles, struct cal_criterion *c,
			int *resolved, char *err, size_t errlen)
{
	struct json_object *crit, *ver;
	double q, alpha, res = 0, rel = 0;
	int qn, an, rn, reln;
	if (!json_object_object_get_ex(j, "version", &ver) || json_object_get_int(ver) != 1 ||
	    !json_object_object_get_ex(j, "criterion", &crit) || !crit ||
	    get_num(crit, "q", &q, &qn) < 0 || qn || get_num(crit, "alpha", &alpha, &an) < 0 || an ||
	    get_num(crit, cycles ? "resolution_cy" : "resolution_ns", &res, &rn) < 0 ||
	    get_num(crit, "resolution_relative", &rel, &reln) < 0 || reln || !(rel >= 0 && rel < 1) ||
	    !(q > 0 && q < 1) || !(alpha > 0 && alpha < 1) || (!rn && !(res >= 0))) {
		snprintf(err, errlen, "%s: not a calibration (mpiwatch calibrate --json, version 1)", path);
		errno = EINVAL;
		return -1;
	}
	if (rn && cycles) {
		struct json_object *tm, *hc;
		if (json_object_object_get_ex(j, "timers", &tm) && json_object_object_get_ex(tm, "cycles", &hc) &&
		    !json_object_get_boolean(hc)) {
			snprintf(err, errlen, "%s: the calibrated node has no cycle counter: use --unit ns", path);
			errno = EINVAL;
			return -1;
		}
	}
	c->q = q;
	c->alpha = alpha;
	c->resolution = rn ? 0 : res;
	c->relative = rel;
	*resolved = !rn;
	return 0;
}

int cal_criterion_load(const char *path, int cycles, struct cal_criterion *c, int *resolved,
		       char *err, size_t errlen)
{
	struct json_object *j = load_file(path, err, errlen);
	int rc;
	if (!j)
		return -1;
	rc = criterion_of(j, path, cycles, c, resolved, err, errlen);
	json_object_put(j);
	return rc;
}

int cal_node_load(const char *path, double *interval_ns, double *resolution_ns, char *err, size_t errlen)
{
	struct json_object *j = load_file(path, err, errlen), *iv;
	struct cal_criterion c;
	double ns = 0;
	int resolved, isnull = 1;
	if (!j)
		return -1;
	if (criterion_of(j, path, 0, &c, &resolved, err, errlen) < 0) {
		json_object_put(j);
		return -1;
	}
	if (!json_object_object_get_ex(j, "interval", &iv) || !iv || get_num(iv, "ns", &ns, &isnull) < 0 ||
	    (!isnull && !(ns > 0 && ns < 1e12))) {
		snprintf(err, errlen, "%s: not a calibration (mpiwatch calibrate --json, version 1)", path);
		json_object_put(j);
		errno = EINVAL;
		return -1;
	}
	*interval_ns = isnull ? 0 : ns;
	*resolution_ns = resolved ? c.resolution : 0;
	json_object_put(j);
	return 0;
}
