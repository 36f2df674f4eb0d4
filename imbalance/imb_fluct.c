/* imb_fluct.c - the compute-phase fluctuation flag (imb_phases.h,
 * doc/imbalance.md "Compute-phase fluctuations"): each rank's intervals of a
 * phase against the pooled intervals of the same phase on the other ranks,
 * judged by calib/'s criterion (cal_judge: Mann-Whitney U, the resolution,
 * the quantile band). */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cal_criterion.h"
#include "imb_phases.h"

void imb_fluct_defaults(struct imb_fluct_opts *o)
{
	o->alpha = 0.001;
	o->min_rel = 0.02;
	o->q = 0.5;
	o->min_samples = 20;
	o->min_ns = 10000;
	o->max_peers = 8192;
	o->cal = NULL;
	o->ncal = 0;
}

const struct imb_nodecal *imb_nodecal_find(const struct imb_fluct_opts *o, const char *node)
{
	const struct imb_nodecal *any = NULL;
	for (size_t i = 0; o && node && i < o->ncal; i++) {
		if (!strcmp(o->cal[i].node, node))
			return &o->cal[i];
		if (!o->cal[i].node[0] && !any)
			any = &o->cal[i];
	}
	return any;
}

int imb_nodecal_can_judge(const struct imb_nodecal *k, double med_ns)
{
	if (!k)
		return 1;
	return !k->degraded && med_ns >= k->interval_ns;
}

/* A duration for people: "3.5 us", "25 ns", or "none" (0). */
static void fmt_ns(char *buf, size_t len, double ns)
{
	if (!(ns > 0))
		snprintf(buf, len, "none");
	else if (ns >= 1e6)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(buf, len, "%.3g us", ns / 1e3);
	else
		snprintf(buf, len, "%.3g ns", ns);
}

/* "interval 3.5 us, resolution 25 ns[, degraded]" of k. */
static void cal_figures(char *buf, size_t len, const struct imb_nodecal *k)
{
	char iv[32], rs[32];
	fmt_ns(iv, sizeof iv, k->interval_ns);
	fmt_ns(rs, sizeof rs, k->resolution_ns);
	snprintf(buf, len, "interval %s, resolution %s%s", iv, rs, k->degraded ? ", degraded" : "");
}

/* Count one rank-phase of node as not judged. */
static int unjudged_add(struct imb_fluct_result *out, const char *node)
{
	size_t i;
	for (i = 0; i < out->nunjudged; i++)
		if (!strcmp(out->unjudged[i].node, node))
			break;
	if (i == out->nunjudged) {
		struct imb_fluct_unjudged *n = realloc(out->unjudged, (i + 1) * sizeof(*n));
		if (!n)
			return -1;
		out->unjudged = n;
		memset(&n[i], 0, sizeof(n[i]));
		out->nunjudged++;
		if (!(n[i].node = strdup(node)))
			return -1;
	}
	out->unjudged[i].rank_phases++;
	return 0;
}

/* The calibrations of o that apply to the nodes in ph, one per node under
 * its name, copied into out->opts (the result owns them).  Return 0, or -1
 * (ENOMEM). */
static int keep_cals(const struct imb_phases *ph, const struct imb_fluct_opts *o, struct imb_fluct_result *out)
{
	struct imb_nodecal *c = NULL;
	size_t n = 0;
	out->opts.cal = NULL;
	out->opts.ncal = 0;
	for (size_t r = 0; r < ph->nrank; r++) {
		const struct imb_nodecal *k = imb_nodecal_find(o, ph->r[r].node);
		if (!k || imb_nodecal_find(&out->opts, ph->r[r].node))
			continue;
		struct imb_nodecal *nc = realloc(c, (n + 1) * sizeof(*nc));
		if (!nc) {
			free(c);
			out->opts.cal = NULL;
			out->opts.ncal = 0;
			return -1;
		}
		c = nc;
		c[n] = *k;
		snprintf(c[n].node, sizeof c[n].node, "%s", ph->r[r].node);
		n++;
		out->opts.cal = c;
		out->opts.ncal = n;
	}
	return 0;
}

/* Whether the job has ranks on a node other than rank self's. */
static int multi_node(const struct imb_phases *ph, size_t self)
{
	for (size_t k = 0; k < ph->nrank; k++)
		if (strcmp(ph->r[k].node, ph->r[self].node))
			return 1;
	return 0;
}

static const struct imb_phase *find_phase(const struct imb_phases_rank *r, const char *key)
{
	for (size_t i = 0; i < r->nphase; i++)
		if (!strcmp(r->phase[i].key, key))
			return &r->phase[i];
	return NULL;
}

/* Whether rank i is a peer of rank self: another rank, on another node when
 * the job has other nodes (so that a node all of whose ranks are slow
 * stands out against the rest), else on the same one. */
static int is_peer(const struct imb_phases *ph, size_t self, size_t i)
{
	const char *node = ph->r[self].node;
	if (i == self)
		return 0;
	return !multi_node(ph, self) || strcmp(ph->r[i].node, node) != 0;
}

/* The peers' samples of key (at least min_samples each), thinned evenly to
 * at most max.  Return the count (0: no peers), -1 on ENOMEM. */
static long peers_of(const struct imb_phases *ph, size_t self, const char *key, const struct imb_fluct_opts *o,
		     double **out)
{
	size_t total = 0, n = 0, stride;
	double *v;
	for (size_t i = 0; i < ph->nrank; i++) {
		const struct imb_phase *p = !is_peer(ph, self, i) ? NULL : find_phase(&ph->r[i], key);
		if (p && p->n >= o->min_samples)
			total += p->n;
	}
	if (!total)
		return 0;
	stride = (total + o->max_peers - 1) / o->max_peers;
	v = malloc((total / stride + 1) * sizeof(*v));
	if (!v)
		return -1;
	for (size_t i = 0, k = 0; i < ph->nrank; i++) {
		const struct imb_phase *p = !is_peer(ph, self, i) ? NULL : find_phase(&ph->r[i], key);
		if (!p || p->n < o->min_samples)
			continue;
		for (size_t j = 0; j < p->n; j++, k++)
			if (k % stride == 0)
				v[n++] = p->ns[j];
	}
	*out = v;
	return (long)n;
}

static char *sentence(int rank, const char *node, int other_nodes, double rel, double p)
{
	char *s, pv[32];
	if (p < 0.001)
		snprintf(pv, sizeof(pv), "p < 0.001");
	else
		snprintf(pv, sizeof(pv), "p = %.2g", p);
	if (asprintf(&s, "rank %d on %s: the same compute phase is %.0f%% slower than on the other %s, %s"
			 " \xe2\x80\x94 a slow node?",
		     rank, node, rel * 100, other_nodes ? "nodes' ranks" : "ranks", pv) < 0)
		return NULL;
	return s;
}

void imb_fluct_free(struct imb_fluct_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->f[i].node);
		free(r->f[i].key);
		free(r->f[i].message);
	}
	free(r->f);
	for (size_t i = 0; i < r->nnode; i++)
		free(r->node_message[i]);
	free(r->node_message);
	for (size_t i = 0; i < r->nunjudged; i++) {
		free(r->unjudged[i].node);
		free(r->unjudged[i].message);
	}
	free(r->unjudged);
	free((void *)r->opts.cal);
	memset(r, 0, sizeof(*r));
}

/* Node-level lines: a node with flagged ranks, all of its judged ranks
 * flagged, while some rank elsewhere was judged and not flagged. */
static int node_lines(const struct imb_phases *ph, const int *judged, struct imb_fluct_result *out)
{
	for (size_t i = 0; i < out->n; i++) {
		const char *node = out->f[i].node;
		int seen = 0, nj = 0, nf = 0, other_ok = 0;
		for (size_t k = 0; k < i; k++)
			seen |= !strcmp(out->f[k].node, node);
		if (seen)
			continue;
		for (size_t r = 0; r < ph->nrank; r++) {
			int flagged = 0;
			if (!judged[r])
				continue;
			for (size_t k = 0; k < out->n; k++)
				flagged |= out->f[k].rank == ph->r[r].rank;
			if (!strcmp(ph->r[r].node, node)) {
				nj++;
				nf += flagged;
			} else if (!flagged) {
				other_ok = 1;
			}
		}
		if (nf == nj && other_ok) {
			char **nm = realloc(out->node_message, (out->nnode + 1) * sizeof(*nm));
			if (!nm)
				return -1;
			out->node_message = nm;
			if (asprintf(&nm[out->nnode], "node %s: %s %d rank%s slower than the ranks of the other nodes"
						       " in the same compute phases \xe2\x80\x94 a slow node?",
				     node, nj == 1 ? "its" : "all its", nj, nj == 1 ? " is" : "s are") < 0)
				return -1;
			out->nnode++;
		}
	}
	return 0;
}

int imb_fluct_analyze(const struct imb_phases *ph, const struct imb_fluct_opts *o,
		      struct imb_fluct_result *out)
{
	struct imb_fluct_opts def;
	struct cal_criterion crit;
	int *judged = NULL;
	if (!o) {
		imb_fluct_defaults(&def);
		o = &def;
	}
	memset(out, 0, sizeof(*out));
	out->opts = *o;
	out->ranks = ph->nrank;
	if (keep_cals(ph, o, out) < 0)
		goto oom;
	cal_criterion_defaults(&crit);
	crit.q = o->q;
	crit.alpha = o->alpha;
	crit.relative = o->min_rel;
	crit.upper = 1; /* the flag asks "slower?": B's intervals above A's band */
	if (ph->nrank && !(judged = calloc(ph->nrank, sizeof(*judged))))
		goto oom;
	for (size_t i = 0; i < ph->nrank; i++) {
		const struct imb_phases_rank *r = &ph->r[i];
		struct imb_fluct best = {.rank = r->rank};
		const struct imb_nodecal *nc = imb_nodecal_find(o, r->node);
		int have = 0;
		/* The node's own resolution, when it is known: the relative one
		 * (min_rel of the peers' median) still applies above it. */
		crit.resolution = nc && nc->resolution_ns > 0 ? nc->resolution_ns : 0;
		for (size_t k = 0; k < r->nphase; k++) {
			const struct imb_phase *p = &r->phase[k];
			struct cal_verdict v;
			double *peers = NULL;
			long np;
			if (p->n < o->min_samples)
				continue;
			np = peers_of(ph, i, p->key, o, &peers);
			if (np < 0)
				goto oom;
			if ((size_t)np < o->min_samples) {
				free(peers);
				continue;
			}
			if (cal_judge(peers, (size_t)np, p->ns, p->n, &crit, &v) < 0) {
				free(peers);
				goto oom;
			}
			free(peers);
			if (v.med_a < o->min_ns)
				continue;
			/* Shorter than what the rank's node can resolve: not judged. */
			if (!imb_nodecal_can_judge(nc, fmin(v.med_a, v.med_b))) {
				if (unjudged_add(out, r->node) < 0)
					goto oom;
				continue;
			}
			best.tested++;
			judged[i] = 1;
			if (!(v.real && v.diff > 0))
				continue;
			best.flagged++;
			if (!have || v.rel > best.rel) {
				best.key = p->key;
				best.rel = v.rel;
				best.p = v.test.p_two_sided;
				best.med = v.med_b;
				best.peer_med = v.med_a;
				best.n = p->n;
				best.npeers = (size_t)np;
				have = 1;
			}
		}
		out->phases_tested += (size_t)best.tested;
		out->ranks_tested += judged[i];
		if (have) {
			struct imb_fluct *nf = realloc(out->f, (out->n + 1) * sizeof(*nf));
			if (!nf)
				goto oom;
			out->f = nf;
			best.node = strdup(r->node);
			best.key = strdup(best.key);
			best.message = sentence(r->rank, r->node, multi_node(ph, i), best.rel,
						best.p);
			out->f[out->n++] = best;
			if (!best.node || !best.key || !best.message)
				goto oom;
		}
	}
	if (node_lines(ph, judged, out) < 0)
		goto oom;
	for (size_t i = 0; i < out->nunjudged; i++) {
		struct imb_fluct_unjudged *u = &out->unjudged[i];
		char fig[128];
		cal_figures(fig, sizeof fig, imb_nodecal_find(&out->opts, u->node));
		if (asprintf(&u->message, "not judged: below what node %s can resolve (%s): %zu rank-phase%s", u->node,
			     fig, u->rank_phases, u->rank_phases == 1 ? "" : "s") < 0) {
			u->message = NULL;
			goto oom;
		}
	}
	free(judged);
	return 0;
oom:
	free(judged);
	imb_fluct_free(out);
	errno = ENOMEM;
	return -1;
}

int imb_fluct_text(FILE *f, const struct imb_fluct_result *r)
{
	fprintf(f, "\nCompute-phase fluctuations (each rank's intervals between the same two MPI calls\n"
		   "against the other ranks': rank-sum p < %g, slower by more than %g%%, more of it above their band):\n",
		r->opts.alpha, r->opts.min_rel * 100);
	for (size_t i = 0; i < r->opts.ncal; i++) {
		char fig[128];
		cal_figures(fig, sizeof fig, &r->opts.cal[i]);
		fprintf(f, "  node %s's calibration used: %s\n", r->opts.cal[i].node, fig);
	}
	for (size_t i = 0; i < r->nunjudged; i++)
		fprintf(f, "  %s\n", r->unjudged[i].message);
	if (r->error[0])
		fprintf(f, "  not judged: %s\n", r->error);
	else if (!r->ranks)
		fprintf(f, "  not judged: no compute-phase samples (phases.N files)\n");
	else if (!r->ranks_tested)
		fprintf(f, "  not judged: no phase of at least %g us with %zu samples on two ranks or more\n",
			r->opts.min_ns / 1e3, r->opts.min_samples);
	else if (!r->n)
		fprintf(f, "  none: %zu ranks judged over %zu rank-phases; no rank is slower than its peers\n",
			r->ranks_tested, r->phases_tested);
	for (size_t i = 0; i < r->nnode; i++)
		fprintf(f, "  %s\n", r->node_message[i]);
	for (size_t i = 0; i < r->n; i++) {
		const struct imb_fluct *x = &r->f[i];
		fprintf(f, "  %s\n    phase %s: median %.1f us against %.1f us (%zu against %zu samples);"
			   " %d of %d phases flagged\n",
			x->message, x->key, x->med / 1e3, x->peer_med / 1e3, x->n, x->npeers, x->flagged, x->tested);
	}
	return ferror(f) ? -1 : 0;
}

struct json_object *imb_fluct_json(const struct imb_fluct_result *r)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array(),
			   *nodes = json_object_new_array(), *crit = json_object_new_object();
	json_object_object_add(crit, "alpha", json_object_new_double(r->opts.alpha));
	json_object_object_add(crit, "min_rel", json_object_new_double(r->opts.min_rel));
	json_object_object_add(crit, "q", json_object_new_double(r->opts.q));
	json_object_object_add(crit, "min_samples", json_object_new_int64((int64_t)r->opts.min_samples));
	json_object_object_add(crit, "min_ns", json_object_new_double(r->opts.min_ns));
	json_object_object_add(o, "criterion", crit);
	json_object_object_add(o, "ranks", json_object_new_int64((int64_t)r->ranks));
	json_object_object_add(o, "ranks_judged", json_object_new_int64((int64_t)r->ranks_tested));
	json_object_object_add(o, "rank_phases_judged", json_object_new_int64((int64_t)r->phases_tested));
	for (size_t i = 0; i < r->n; i++) {
		const struct imb_fluct *x = &r->f[i];
		struct json_object *e = json_object_new_object();
		json_object_object_add(e, "rank", json_object_new_int(x->rank));
		json_object_object_add(e, "node", json_object_new_string(x->node));
		json_object_object_add(e, "phase", json_object_new_string(x->key));
		json_object_object_add(e, "slower", json_object_new_double(x->rel));
		json_object_object_add(e, "p", json_object_new_double(x->p));
		json_object_object_add(e, "median_ns", json_object_new_double(x->med));
		json_object_object_add(e, "peers_median_ns", json_object_new_double(x->peer_med));
		json_object_object_add(e, "samples", json_object_new_int64((int64_t)x->n));
		json_object_object_add(e, "peer_samples", json_object_new_int64((int64_t)x->npeers));
		json_object_object_add(e, "phases_flagged", json_object_new_int(x->flagged));
		json_object_object_add(e, "phases_judged", json_object_new_int(x->tested));
		json_object_object_add(e, "message", json_object_new_string(x->message));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "flagged", a);
	if (r->error[0])
		json_object_object_add(o, "error", json_object_new_string(r->error));
	for (size_t i = 0; i < r->nnode; i++)
		json_object_array_add(nodes, json_object_new_string(r->node_message[i]));
	json_object_object_add(o, "nodes", nodes);
	struct json_object *cals = json_object_new_array(), *un = json_object_new_array();
	for (size_t i = 0; i < r->opts.ncal; i++) {
		const struct imb_nodecal *k = &r->opts.cal[i];
		struct json_object *e = json_object_new_object();
		json_object_object_add(e, "node", json_object_new_string(k->node));
		json_object_object_add(e, "interval_ns",
				       k->interval_ns > 0 ? json_object_new_double(k->interval_ns) : NULL);
		json_object_object_add(e, "resolution_ns",
				       k->resolution_ns > 0 ? json_object_new_double(k->resolution_ns) : NULL);
		json_object_object_add(e, "degraded", json_object_new_boolean(k->degraded));
		json_object_array_add(cals, e);
	}
	json_object_object_add(o, "node_calibration", cals);
	for (size_t i = 0; i < r->nunjudged; i++) {
		struct json_object *e = json_object_new_object();
		json_object_object_add(e, "node", json_object_new_string(r->unjudged[i].node));
		json_object_object_add(e, "rank_phases", json_object_new_int64((int64_t)r->unjudged[i].rank_phases));
		json_object_object_add(e, "message", json_object_new_string(r->unjudged[i].message));
		json_object_array_add(un, e);
	}
	json_object_object_add(o, "not_judged", un);
	return o;
}
