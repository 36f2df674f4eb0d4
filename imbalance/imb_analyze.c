/* imb_analyze.c - steps 1, 3 and 4 of seed 004 (filter, totals, load
 * similarity), the usual imbalance metrics and the POP efficiencies. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imb.h"

int imb_threshold_parse(const char *s, struct imb_threshold *t)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v < 0 || (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')))
		return -1;
	t->frac = 0, t->abs_us = 0;
	if (!strcmp(end, "%")) {
		if (v > 100)
			return -1;
		t->frac = v / 100;
	} else if (!strcmp(end, "us") || (!*end && v == 0)) {
		t->abs_us = v;
	} else if (!strcmp(end, "ms")) {
		t->abs_us = v * 1e3;
	} else if (!strcmp(end, "s")) {
		t->abs_us = v * 1e6;
	} else {
		return -1;
	}
	return 0;
}

/* ---- a name -> function index table (open addressing, FNV-1a) ---- */
struct ftab {
	size_t cap;
	int32_t *slot; /* index into a->fn, or -1 */
};

static uint64_t fnv(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int ftab_grow(struct ftab *t, const struct imb_analysis *a)
{
	size_t cap = t->cap ? t->cap * 2 : 1024;
	int32_t *s = malloc(cap * sizeof(*s));
	if (!s)
		return -1;
	memset(s, 0xff, cap * sizeof(*s));
	for (size_t i = 0; i < a->nfn; i++) {
		size_t h = fnv(a->fn[i].name) & (cap - 1);
		while (s[h] >= 0)
			h = (h + 1) & (cap - 1);
		s[h] = (int32_t)i;
	}
	free(t->slot);
	t->slot = s, t->cap = cap;
	return 0;
}

/* Index of src's name in a->fn, adding it (zeroed time vector, step 2's
 * group from its name and TAU group where first seen) if new; -1 on ENOMEM. */
static long fn_index(struct ftab *t, struct imb_analysis *a, const struct imb_func *src,
		     const struct imb_rules *rules, size_t *cap)
{
	if ((a->nfn + 1) * 2 > t->cap && ftab_grow(t, a) < 0)
		return -1;
	const char *name = src->name;
	size_t h = fnv(name) & (t->cap - 1);
	while (t->slot[h] >= 0) {
		if (!strcmp(a->fn[t->slot[h]].name, name))
			return t->slot[h];
		h = (h + 1) & (t->cap - 1);
	}
	if (a->nfn == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		struct imb_fn *nf = realloc(a->fn, nc * sizeof(*nf));
		if (!nf)
			return -1;
		a->fn = nf, *cap = nc;
	}
	struct imb_fn *f = &a->fn[a->nfn];
	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	f->t = calloc(a->nproc ? a->nproc : 1, sizeof(double));
	if (!f->name || !f->t) {
		free(f->name);
		free(f->t);
		return -1;
	}
	f->group = imb_classify(name, src->group, rules);
	t->slot[h] = (int32_t)a->nfn;
	return (long)a->nfn++;
}

void imb_analysis_free(struct imb_analysis *a)
{
	for (size_t i = 0; a->fn && i < a->nfn; i++) {
		free(a->fn[i].name);
		free(a->fn[i].t);
	}
	free(a->fn);
	for (size_t i = 0; a->label && i < a->nproc; i++)
		free(a->label[i]);
	free(a->label);
	free(a->rank);
	for (int g = 0; g < IMB_NGROUPS; g++)
		free(a->gt[g]);
	memset(a, 0, sizeof(*a));
}

int imb_filter(const struct imb_job *job, const struct imb_threshold *th,
	       const struct imb_rules *rules, struct imb_analysis *a)
{
	struct ftab t = {0, NULL};
	size_t cap = 0;
	int threads = 0;
	memset(a, 0, sizeof(*a));
	a->nproc = job->nproc;
	a->rank = calloc(job->nproc + 1, sizeof(int));
	a->label = calloc(job->nproc + 1, sizeof(char *));
	if (!a->rank || !a->label)
		goto fail;
	for (size_t p = 0; p < job->nproc; p++)
		threads |= job->proc[p].context || job->proc[p].thread;
	for (size_t p = 0; p < job->nproc; p++) {
		const struct imb_profile *pr = &job->proc[p];
		a->rank[p] = pr->node;
		if ((threads ? asprintf(&a->label[p], "%d.%d.%d", pr->node, pr->context, pr->thread)
			     : asprintf(&a->label[p], "%d", pr->node)) < 0) {
			a->label[p] = NULL;
			goto fail;
		}
		for (size_t i = 0; i < pr->nfunc; i++) {
			const struct imb_func *f = &pr->func[i];
			if (strstr(f->name, " => ")) { /* call path: its time is in the flat entry */
				a->ncallpaths++;
				continue;
			}
			long k = fn_index(&t, a, f, rules, &cap);
			if (k < 0)
				goto fail;
			double x = f->excl > 0 ? f->excl : 0; /* TAU's overhead compensation can go below 0 */
			a->fn[k].t[p] += x;
			a->fn[k].total += x;
			a->total_time += x;
		}
	}
	a->threshold = th->frac * a->total_time;
	if (th->abs_us > a->threshold)
		a->threshold = th->abs_us;
	size_t keep = 0;
	for (size_t i = 0; i < a->nfn; i++) {
		struct imb_fn *f = &a->fn[i];
		if (f->total < a->threshold) {
			a->ndropped++;
			a->dropped_time += f->total;
			free(f->name);
			free(f->t);
			continue;
		}
		a->fn[keep++] = *f;
	}
	a->nfn = keep;
	free(t.slot);
	return 0;
fail:
	free(t.slot);
	imb_analysis_free(a);
	errno = ENOMEM;
	return -1;
}

int imb_totals(struct imb_analysis *a)
{
	for (int g = 0; g < IMB_NGROUPS; g++) {
		free(a->gt[g]);
		if (!(a->gt[g] = calloc(a->nproc ? a->nproc : 1, sizeof(double)))) {
			errno = ENOMEM;
			return -1;
		}
	}
	for (size_t i = 0; i < a->nfn; i++) /* leaves into their level-2 group */
		for (size_t p = 0; p < a->nproc; p++)
			a->gt[a->fn[i].group][p] += a->fn[i].t[p];
	for (int lvl = 2; lvl >= 1; lvl--) /* then each level into its parent */
		for (int g = 0; g < IMB_NGROUPS; g++)
			if (imb_group_level(g) == lvl)
				for (size_t p = 0; p < a->nproc; p++)
					a->gt[imb_group_parent(g)][p] += a->gt[g][p];
	return 0;
}

double imb_similarity(const double *c, const double *p, size_t n)
{
	double cs = 0, ps = 0, d = 0;
	for (size_t i = 0; i < n; i++)
		cs += c[i], ps += p[i];
	if (!(cs > 0) || !(ps > 0))
		return -1;
	for (size_t i = 0; i < n; i++)
		d += fabs(c[i] / cs - p[i] / ps);
	double s = 1 - 0.5 * d;
	return s < 0 ? 0 : s > 1 ? 1 : s;
}

void imb_stats(const double *v, size_t n, struct imb_stat *s)
{
	memset(s, 0, sizeof(*s));
	if (!n)
		return;
	double sum = 0, sq = 0;
	s->max = s->min = v[0];
	for (size_t i = 0; i < n; i++) {
		sum += v[i];
		if (v[i] > s->max)
			s->max = v[i], s->argmax = (int)i;
		if (v[i] < s->min)
			s->min = v[i];
	}
	s->mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += (v[i] - s->mean) * (v[i] - s->mean);
	if (s->mean > 0) {
		s->cov = sqrt(sq / (double)n) / s->mean;
		s->maxmean = s->max / s->mean;
	}
}

void imb_pop(const double *useful, const double *runtime, size_t n, double *lb, double *ce,
	     double *pe)
{
	struct imb_stat u, r;
	imb_stats(useful, n, &u);
	imb_stats(runtime, n, &r);
	*lb = u.max > 0 ? u.mean / u.max : 0;
	*ce = r.max > 0 ? u.max / r.max : 0;
	*pe = r.max > 0 ? u.mean / r.max : 0;
}

size_t imb_top(const struct imb_analysis *a, const double *v, const struct imb_stat *s, int *idx)
{
	size_t k = 0;
	if (!(s->max > s->mean))
		return 0;
	double cut = s->mean + 0.5 * (s->max - s->mean);
	for (size_t p = 0; p < a->nproc; p++)
		if (v[p] >= cut)
			idx[k++] = (int)p;
	return k;
}

int imb_analyze(const struct imb_job *job, const struct imb_threshold *th,
		const struct imb_rules *rules, struct imb_analysis *a)
{
	if (imb_filter(job, th, rules, a) < 0)
		return -1;
	if (imb_totals(a) < 0) {
		imb_analysis_free(a);
		return -1;
	}
	for (int g = 0; g < IMB_NGROUPS; g++) {
		int par = imb_group_parent(g);
		a->sim[g] = par < 0 ? 1 : imb_similarity(a->gt[g], a->gt[par], a->nproc);
		imb_stats(a->gt[g], a->nproc, &a->stat[g]);
	}
	for (size_t i = 0; i < a->nfn; i++) { /* the leaves: each function to its group */
		struct imb_fn *f = &a->fn[i];
		f->sim = imb_similarity(f->t, a->gt[f->group], a->nproc);
		imb_stats(f->t, a->nproc, &f->st);
	}
	double *useful = malloc((a->nproc ? a->nproc : 1) * sizeof(double));
	if (!useful) {
		imb_analysis_free(a);
		errno = ENOMEM;
		return -1;
	}
	for (size_t p = 0; p < a->nproc; p++) /* useful = computation + I/O (doc/imbalance.md) */
		useful[p] = a->gt[IMB_G_COMP][p] + a->gt[IMB_G_IO][p];
	imb_pop(useful, a->gt[IMB_G_ALL], a->nproc, &a->pop_lb, &a->pop_ce, &a->pop_pe);
	free(useful);
	return 0;
}
