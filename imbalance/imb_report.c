/* imb_report.c - the ranked text summary and the JSON document
 * (doc/schemas/imbalance.schema.json) of an imbalance analysis. */
#include <json-c/json.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "mw_jnum.h"
#include "imb.h"

static const char *fmt_time(double us, char *buf, size_t len)
{
	if (us >= 1e6)
		snprintf(buf, len, "%.2f s", us / 1e6);
	else if (us >= 1e3)
		snprintf(buf, len, "%.2f ms", us / 1e3);
	else
		snprintf(buf, len, "%.0f us", us);
	return buf;
}

/* "rank 5" / "ranks 0-3,7" (rank numbers) or "processes 0.0.1,..." */
static void fmt_procs(const struct imb_analysis *a, const int *idx, size_t n, char *buf, size_t len)
{
	int *r = malloc((n ? n : 1) * sizeof(int));
	int plain = 1;
	for (size_t i = 0; i < n; i++)
		plain &= strchr(a->label[idx[i]], '.') == NULL;
	if (!r || !plain) {
		size_t off = (size_t)snprintf(buf, len, "%s", n == 1 ? "process " : "processes ");
		for (size_t i = 0; i < n && off < len; i++)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? "," : "", a->label[idx[i]]);
		free(r);
		return;
	}
	for (size_t i = 0; i < n; i++)
		r[i] = a->rank[idx[i]];
	size_t off = (size_t)snprintf(buf, len, "%s", n == 1 ? "rank " : "ranks ");
	if (off < len)
		mw_ranges_format(r, n, buf + off, len - off);
	free(r);
}

/* Where the findings go: printed (f, indented by depth) or added to a JSON
 * array (arr, as {"depth", "text"}).  The one place their wording is made is
 * findings() below; the text and the JSON (and the page) both take it. */
struct sink {
	FILE *f;
	struct json_object *arr;
};

static void say(struct sink *k, int depth, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(struct sink *k, int depth, const char *fmt, ...)
{
	static const char *const indent[] = {"", "   ", "       "};
	va_list ap;
	va_start(ap, fmt);
	if (k->f) {
		fputs(indent[depth], k->f);
		vfprintf(k->f, fmt, ap);
		fputc('\n', k->f);
	} else {
		char *t = NULL;
		if (vasprintf(&t, fmt, ap) >= 0) {
			struct json_object *e = json_object_new_object();
			json_object_object_add(e, "depth", json_object_new_int(depth));
			json_object_object_add(e, "text", json_object_new_string(t));
			json_object_array_add(k->arr, e);
			free(t);
		}
	}
	va_end(ap);
}

/* The function of group g (subtree) with the largest max - mean. */
static const struct imb_fn *worst_fn(const struct imb_analysis *a, int g, struct imb_stat *st)
{
	const struct imb_fn *best = NULL;
	double bd = -1;
	for (size_t i = 0; i < a->nfn; i++) {
		int h = a->fn[i].group;
		while (h >= 0 && h != g)
			h = imb_group_parent(h);
		if (h != g)
			continue;
		const struct imb_stat *s = &a->fn[i].st;
		if (s->max - s->mean > bd)
			bd = s->max - s->mean, best = &a->fn[i], *st = *s;
	}
	return best;
}

static int by_cost(const void *x, const void *y, void *arg)
{
	const struct imb_analysis *a = arg;
	const int *g = x, *h = y;
	double cg = a->stat[*g].max - a->stat[*g].mean, ch = a->stat[*h].max - a->stat[*h].mean;
	return (cg < ch) - (cg > ch);
}

static int is_comm(int g)
{
	while (g > IMB_G_IO)
		g = imb_group_parent(g);
	return g == IMB_G_COMM;
}

/* Is the waiting in communication group g a consequence of the slow
 * processes slow[0..ns): are its waiters (top processes) all outside them,
 * and is the computation's spread (max - min) at least half the waiting's?
 * The spreads, not the excesses above the mean: when two ranks share the
 * slowest computation, the computation's excess is small while the one
 * rank that waits for both has a large one, and the mirror is the same. */
static int consequence(const struct imb_analysis *a, int g, const int *slow, size_t ns)
{
	const struct imb_stat *c = &a->stat[IMB_G_COMP], *w = &a->stat[g];
	if (!(w->max > w->mean) || c->max - c->min < 0.5 * (w->max - w->min))
		return 0;
	int *top = malloc(a->nproc * sizeof(int));
	if (!top)
		return 0;
	size_t nt = imb_top(a, a->gt[g], w, top), i, j;
	for (i = 0; i < nt; i++)
		for (j = 0; j < ns; j++)
			if (top[i] == slow[j]) {
				free(top);
				return 0;
			}
	free(top);
	return nt > 0;
}

/* The lines for group g: its figures, who is above the mean, and where;
 * head ("1. ", "- ") starts the first line at depth, the others are at depth + 1. */
static void group_line(struct sink *k, const struct imb_analysis *a, int g, const char *head,
		       int depth, int *idx, const char *slow)
{
	const struct imb_stat *s = &a->stat[g];
	char procs[256], who[64], t1[32], t2[32], sim[160] = "";
	size_t n = imb_top(a, a->gt[g], s, idx);
	int comm = is_comm(g);
	if (a->sim[g] >= 0 && g != IMB_G_ALL)
		snprintf(sim, sizeof(sim), ", similarity to %s %.2f", imb_group_label(imb_group_parent(g)),
			 a->sim[g]);
	say(k, depth, "%s%s: max/mean %.2f, COV %.2f%s", head, imb_group_label(g), s->maxmean, s->cov, sim);
	if (!n) {
		say(k, depth + 1, "balanced: every process spends %s", fmt_time(s->mean, t1, sizeof(t1)));
		return;
	}
	fmt_procs(a, idx, n, procs, sizeof(procs));
	say(k, depth + 1, "%s %s up to %.1fx the mean (%s against %s)", procs,
	    comm ? (n == 1 ? "waits" : "wait") : (n == 1 ? "spends" : "spend"), s->maxmean,
	    fmt_time(s->max, t1, sizeof(t1)), fmt_time(s->mean, t2, sizeof(t2)));
	struct imb_stat fs;
	const struct imb_fn *w = worst_fn(a, g, &fs);
	if (w && fs.max > fs.mean) {
		int kk = fs.argmax;
		fmt_procs(a, &kk, 1, who, sizeof(who));
		sim[0] = 0;
		if (w->sim >= 0)
			snprintf(sim, sizeof(sim), "; similarity to %s %.2f", imb_group_label(w->group), w->sim);
		say(k, depth + 1, "worst function: %s %s %.1fx the mean in %s (%s against %s%s)", who,
		    comm ? "waits" : "spends", fs.maxmean, w->name, fmt_time(fs.max, t1, sizeof(t1)),
		    fmt_time(fs.mean, t2, sizeof(t2)), sim);
	}
	if (comm && slow && *slow && a->stat[g].max > a->stat[g].mean)
		say(k, depth + 1, "a consequence: they wait for the slow %s of computation", slow);
}

/* The ranking: the most imbalanced group, then every level-1 group and its
 * level-2 children ranked by max - mean (doc/imbalance.md, "Ranking"). */
static int findings(struct sink *k, const struct imb_analysis *a)
{
	int *idx = malloc((a->nproc ? a->nproc : 1) * sizeof(int));
	if (!idx)
		return -1;
	int l1[3] = {IMB_G_COMP, IMB_G_COMM, IMB_G_IO}, nl1 = 0, order[3];
	for (int i = 0; i < 3; i++)
		if (a->stat[l1[i]].max > 0)
			order[nl1++] = l1[i];
	qsort_r(order, (size_t)nl1, sizeof(int), by_cost, (void *)a);
	char slow[256] = "";
	size_t ns = imb_top(a, a->gt[IMB_G_COMP], &a->stat[IMB_G_COMP], idx);
	if (ns && consequence(a, IMB_G_COMM, idx, ns)) {
		fmt_procs(a, idx, ns, slow, sizeof(slow));
		/* the waiting is the consequence of the computation's imbalance: the
		 * computation leads (doc/imbalance.md, "Ranking") */
		for (int i = 1; i < nl1; i++)
			if (order[i] == IMB_G_COMP && order[0] == IMB_G_COMM) {
				order[i] = IMB_G_COMM;
				order[0] = IMB_G_COMP;
			}
	}
	if (nl1 && a->stat[order[0]].maxmean > 1)
		say(k, 0, "%s is the most imbalanced group.", imb_group_label(order[0]));
	say(k, 0, "Groups ranked by imbalance (time of the slowest process above the mean):");
	for (int i = 0; i < nl1; i++) {
		char head[16];
		snprintf(head, sizeof(head), "%d. ", i + 1);
		group_line(k, a, order[i], head, 0, idx, order[i] == IMB_G_COMM ? slow : NULL);
		int kids[IMB_NGROUPS], nk = 0;
		for (int g = 0; g < IMB_NGROUPS; g++)
			if (imb_group_parent(g) == order[i] && a->stat[g].max > 0)
				kids[nk++] = g;
		qsort_r(kids, (size_t)nk, sizeof(int), by_cost, (void *)a);
		for (int j = 0; j < nk && nk > 1; j++)
			group_line(k, a, kids[j], "- ", 1, idx, is_comm(kids[j]) && j == 0 ? slow : NULL);
	}
	free(idx);
	return 0;
}

int imb_report_text(FILE *f, const struct imb_analysis *a, const struct imb_job *job)
{
	char buf[512], t1[32];
	struct sink k = {f, NULL};
	fprintf(f, "Load imbalance of %zu process%s from %s\n", a->nproc, a->nproc == 1 ? "" : "es",
		job->dir);
	if (job->nmissing) {
		mw_ranges_format(job->missing, job->nmissing, buf, sizeof(buf));
		fprintf(f, "WARNING: no profile for rank%s %s: %s not analysed\n",
			job->nmissing == 1 ? "" : "s", buf, job->nmissing == 1 ? "it is" : "they are");
	}
	fprintf(f, "Functions: %zu kept; %zu below the threshold of %s dropped (%.3f%% of the time); "
		   "%zu call-path entries ignored\n",
		a->nfn, a->ndropped, fmt_time(a->threshold, t1, sizeof(t1)),
		a->total_time > 0 ? 100 * a->dropped_time / a->total_time : 0.0, a->ncallpaths);
	fprintf(f, "POP: parallel efficiency %.2f = load balance %.2f x communication efficiency %.2f "
		   "(useful = computation + I/O)\n"
		   "     not computed: serialisation and transfer efficiency (they need a trace, not a "
		   "profile)\n\n",
		a->pop_pe, a->pop_lb, a->pop_ce);
	if (findings(&k, a) < 0)
		return -1;
	return ferror(f) ? -1 : 0;
}

/* Every number of the document, the per-process arrays' millions among them,
 * written by mw_jnum (the same values, read back, as json-c's own format). */
static struct json_object *num(double v) { return mw_jnum_new(v); }

static struct json_object *vec(const double *v, size_t n)
{
	struct json_object *a = json_object_new_array_ext((int)n);
	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, num(v[i]));
	return a;
}

static void add_stats(struct json_object *o, const struct imb_analysis *a, const struct imb_stat *s)
{
	json_object_object_add(o, "mean_us", num(s->mean));
	json_object_object_add(o, "max_us", num(s->max));
	json_object_object_add(o, "min_us", num(s->min));
	json_object_object_add(o, "cov", num(s->cov));
	json_object_object_add(o, "max_over_mean", num(s->maxmean));
	json_object_object_add(o, "max_process", json_object_new_string(a->nproc ? a->label[s->argmax] : ""));
}

struct json_object *imb_report_json(const struct imb_analysis *a, const struct imb_job *job)
{
	struct json_object *o = json_object_new_object(), *x;
	int *idx = malloc((a->nproc ? a->nproc : 1) * sizeof(int));
	if (!o || !idx) {
		json_object_put(o);
		free(idx);
		return NULL;
	}
	json_object_object_add(o, "version", json_object_new_int(1));
	json_object_object_add(o, "dir", json_object_new_string(job->dir ? job->dir : ""));
	x = json_object_new_array();
	for (size_t p = 0; p < a->nproc; p++)
		json_object_array_add(x, json_object_new_string(a->label[p]));
	json_object_object_add(o, "processes", x);
	x = json_object_new_array();
	for (size_t i = 0; i < job->nmissing; i++)
		json_object_array_add(x, json_object_new_int(job->missing[i]));
	json_object_object_add(o, "missing_ranks", x);
	x = json_object_new_object();
	json_object_object_add(x, "threshold_us", num(a->threshold));
	json_object_object_add(x, "kept", json_object_new_int64((int64_t)a->nfn));
	json_object_object_add(x, "dropped", json_object_new_int64((int64_t)a->ndropped));
	json_object_object_add(x, "dropped_us", num(a->dropped_time));
	json_object_object_add(x, "callpaths", json_object_new_int64((int64_t)a->ncallpaths));
	json_object_object_add(x, "total_us", num(a->total_time));
	json_object_object_add(o, "filter", x);
	x = json_object_new_object();
	json_object_object_add(x, "load_balance", num(a->pop_lb));
	json_object_object_add(x, "communication_efficiency", num(a->pop_ce));
	json_object_object_add(x, "parallel_efficiency", num(a->pop_pe));
	json_object_object_add(x, "useful", json_object_new_string("computation+io"));
	{
		/* POP splits CommE into these two; a profile has no timing of
		 * individual messages to compute them from. */
		json_object *nc = json_object_new_array();
		json_object_array_add(nc, json_object_new_string("serialisation_efficiency"));
		json_object_array_add(nc, json_object_new_string("transfer_efficiency"));
		json_object_object_add(x, "not_computed", nc);
	}
	json_object_object_add(o, "pop", x);
	struct json_object *gs = json_object_new_array();
	for (int g = 0; g < IMB_NGROUPS; g++) {
		struct json_object *e = json_object_new_object(), *tr = json_object_new_array();
		int par = imb_group_parent(g);
		json_object_object_add(e, "id", json_object_new_string(imb_group_id(g)));
		json_object_object_add(e, "label", json_object_new_string(imb_group_label(g)));
		json_object_object_add(e, "level", json_object_new_int(imb_group_level(g)));
		json_object_object_add(e, "parent", par < 0 ? NULL : json_object_new_string(imb_group_id(par)));
		json_object_object_add(e, "similarity", a->sim[g] < 0 ? NULL : num(a->sim[g]));
		add_stats(e, a, &a->stat[g]);
		size_t n = imb_top(a, a->gt[g], &a->stat[g], idx);
		for (size_t i = 0; i < n; i++)
			json_object_array_add(tr, json_object_new_string(a->label[idx[i]]));
		json_object_object_add(e, "top_processes", tr);
		json_object_object_add(e, "time_us", vec(a->gt[g], a->nproc));
		json_object_array_add(gs, e);
	}
	json_object_object_add(o, "groups", gs);
	struct json_object *fs = json_object_new_array();
	for (size_t i = 0; i < a->nfn; i++) {
		struct json_object *e = json_object_new_object();
		json_object_object_add(e, "name", json_object_new_string(a->fn[i].name));
		json_object_object_add(e, "group", json_object_new_string(imb_group_id(a->fn[i].group)));
		json_object_object_add(e, "total_us", num(a->fn[i].total));
		json_object_object_add(e, "similarity", a->fn[i].sim < 0 ? NULL : num(a->fn[i].sim));
		add_stats(e, a, &a->fn[i].st);
		json_object_object_add(e, "time_us", vec(a->fn[i].t, a->nproc));
		json_object_array_add(fs, e);
	}
	json_object_object_add(o, "functions", fs);
	struct sink k = {NULL, json_object_new_array()};
	if (findings(&k, a) < 0) {
		json_object_put(k.arr);
		json_object_put(o);
		free(idx);
		return NULL;
	}
	json_object_object_add(o, "findings", k.arr);
	free(idx);
	return o;
}
