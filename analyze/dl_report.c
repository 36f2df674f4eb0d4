/* dl_report.c - the JSON report (doc/schemas/deadlock.schema.json), the
 * STAT-style text report built from it, and the Graphviz DOT wait-for graph. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_int.h"

#define DOT_MAX_NODES 2000

static struct json_object *int_array(const int *v, int n)
{
	struct json_object *a = json_object_new_array_ext(n > 0 ? n : 1);
	if (!a)
		return NULL;
	for (int i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_int(v[i]));
	return a;
}

static void add_ranges(struct json_object *o, const char *key, const int *v, int n)
{
	char *s = dl_ranges_str(v, (size_t)n);
	json_object_object_add(o, key, json_object_new_string(s ? s : ""));
	free(s);
}

struct dp {
	const char *d;
	int rank;
};

static int dp_cmp(const void *a, const void *b)
{
	const struct dp *x = a, *y = b;
	if (x->d != y->d)
		return x->d < y->d ? -1 : 1;
	return x->rank - y->rank;
}

struct grp {
	int first, start, n;
};

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static int grp_cmp(const void *a, const void *b)
{
	const struct grp *x = a, *y = b;
	return x->first - y->first;
}

/* The interned description of rank r's call (absolute or relative peers). */
static const char *desc_of(struct dl_ctx *c, int r, int rel)
{
	const char ***cache = rel ? &c->desc_rel : &c->desc_abs;
	if (!*cache)
		*cache = calloc((size_t)c->size + 1, sizeof **cache);
	if (*cache && (*cache)[r])
		return (*cache)[r];
	char d[600];
	dl_describe_call(c, c->ranks[r], rel, d, sizeof d);
	const char *s = dl_intern(c->pool, d);
	if (*cache)
		(*cache)[r] = s;
	return s;
}

/* Group v[0..m) (sorted by description) into groups; return their count. */
static int group_by_desc(struct dp *v, int m, struct grp *g)
{
	int ng = 0;
	for (int i = 0; i < m;) {
		int j = i;
		while (j < m && v[j].d == v[i].d)
			j++;
		g[ng++] = (struct grp){v[i].rank, i, j - i};
		i = j;
	}
	return ng;
}

/* The pending request of rank x that its wait is on, or NULL; *send says
 * which table.  Of nonblocking collectives the first started (the lowest
 * seq: every rank must start them in the same order, so that is where a
 * call-order mismatch shows), else the first of its requests the dump lists
 * as pending. */
static const struct dl_msg *waited_request(const struct dl_rank *x, int *send)
{
	const struct dl_msg *best = NULL;
	for (int i = 0; i < x->call.nrequests; i++)
		for (int j = 0; j < x->nprecv; j++)
			if (x->precv[j].req == x->call.requests[i] && x->precv[j].seq > 0 &&
			    (!best || x->precv[j].seq < best->seq))
				best = &x->precv[j];
	if (best) {
		*send = 0;
		return best;
	}
	for (int i = 0; i < x->call.nrequests; i++) {
		for (int j = 0; j < x->nprecv; j++)
			if (x->precv[j].req == x->call.requests[i]) {
				*send = 0;
				return &x->precv[j];
			}
		for (int j = 0; j < x->npsend; j++)
			if (x->psend[j].req == x->call.requests[i]) {
				*send = 1;
				return &x->psend[j];
			}
	}
	return NULL;
}

/* "to rank 1, tag 5" / "from any rank" of message m (a send or not). */
static void peer_tag(const struct dl_msg *m, int send, char *buf, size_t len)
{
	char peer[32], tag[24];
	if (m->peer == DL_ANY_SOURCE || m->peer_world < 0)
		snprintf(peer, sizeof peer, "%s", m->peer == DL_ANY_SOURCE ? "any rank" : "?");
	else
		snprintf(peer, sizeof peer, "rank %d", m->peer_world);
	if (m->tag == DL_ANY_TAG)
		snprintf(tag, sizeof tag, "any tag");
	else if (m->tag == DL_NO_TAG)
		tag[0] = 0;
	else
		snprintf(tag, sizeof tag, "tag %d", m->tag);
	snprintf(buf, len, "%s %s%s%s", send ? "to" : "from", peer, tag[0] ? ", " : "", tag);
}

/* Issue 35 item 4: a wait is named with the call that posted its request,
 * the line to change: " on the receive posted at x.c:9 (from rank 1, tag
 * 8)", " on the send posted at x.c:21 (to rank 1, tag 5)", " on the
 * MPI_Ibarrier posted at x.c:30".  Appended to buf (used n of len). */
static void posted_at(const struct dl_rank *x, char *buf, size_t n, size_t len)
{
	int send = 0;
	const struct dl_msg *m = x->call.nrequests ? waited_request(x, &send) : NULL;
	if (!m || !m->site.file || m->site.line <= 0 || n >= len)
		return;
	int coll = m->op && strncmp(m->op, "MPI_I", 5) == 0 && m->peer < 0 && m->peer != DL_ANY_SOURCE;
	if (coll) {
		snprintf(buf + n, len - n, " on the %s posted at %s:%d", m->op, m->site.file, m->site.line);
		return;
	}
	char pt[64];
	peer_tag(m, send, pt, sizeof pt);
	snprintf(buf + n, len - n, " on the %s posted at %s:%d (%s)", send ? "send" : "receive",
		 m->site.file, m->site.line, pt);
}

/* Issue 35 item 11: what ranks in MPI_Finalize or MPI_Buffer_detach still
 * wait for: the buffered sends made since the last MPI_Buffer_detach, which
 * the library delivers before either returns.  Of the ranks v[0..n), the
 * first with any: "rank 0's buffered send posted at x.c:18 (to rank 1, tag
 * 5) was never received", or, with several, "rank 0's 3 buffered sends
 * since its last MPI_Buffer_detach were not all received (the last posted
 * at x.c:18, to rank 1, tag 5)".  Return 1 if written into buf. */
static int bsend_waits(const struct dl_ctx *c, const int *v, int n, char *buf, size_t len)
{
	for (int i = 0; i < n; i++) {
		const struct dl_rank *x = c->ranks[v[i]];
		if (!x || !x->has_call || !x->nbsend || !x->call.name ||
		    (strcmp(x->call.name, "MPI_Finalize") && strcmp(x->call.name, "MPI_Buffer_detach")))
			continue;
		const struct dl_msg *m = &x->bsend[0]; /* the newest */
		char pt[64], at[300] = "";
		peer_tag(m, 1, pt, sizeof pt);
		if (m->site.file && m->site.line > 0)
			snprintf(at, sizeof at, " posted at %s:%d", m->site.file, m->site.line);
		if (x->nbsend_total <= 1)
			snprintf(buf, len, "rank %d's buffered send%s (%s) was never received", v[i], at, pt);
		else
			snprintf(buf, len,
				 "rank %d's %ld buffered sends since its last MPI_Buffer_detach were not all "
				 "received (the last%s, %s)", v[i], x->nbsend_total, at, pt);
		return 1;
	}
	return 0;
}

/* Where rank r is: "MPI_Recv (deadlock.c:16)", or "MPI_Recv (in solve, no
 * source line: no debug info)" when the site has no file ("...: /x/prog has
 * changed since the run" when that is why). */
static void call_at(const struct dl_ctx *c, int r, char *buf, size_t len)
{
	const struct dl_rank *x = c->ranks[r];
	if (!x || !x->has_call) {
		snprintf(buf, len, "%s", x && x->state == DLS_COMPUTING ? "computing" : "an unknown place");
		return;
	}
	const struct dl_frame *f = &x->call.site;
	if (f->file && f->line > 0) {
		int n = snprintf(buf, len, "%s (%s:%d)", x->call.name, f->file, f->line);
		if (n > 0)
			posted_at(x, buf, (size_t)n, len);
	}
	else if (f->symbol)
		snprintf(buf, len, "%s (in %s, no source line: %s)", x->call.name, f->symbol,
			 f->nosrc ? f->nosrc : "no debug info");
	else
		snprintf(buf, len, "%s (no source line: %s)", x->call.name, f->nosrc ? f->nosrc : "no debug info");
}

/* STAT-style classes of the given ranks: [{ranks, count, description}].
 * Ranks are grouped by their call with absolute peers ("src=0"); the ranks
 * left alone are grouped again by the call with relative peers
 * ("src=rank-1"), so a ring is one class and so are workers that all wait
 * for rank 0. */
static struct json_object *classes(struct dl_ctx *c, const int *ranks, int n)
{
	struct json_object *arr = json_object_new_array();
	struct dp *v = malloc(((size_t)n + 1) * sizeof *v);
	struct dp *w = malloc(((size_t)n + 1) * sizeof *w);
	struct grp *g = malloc(((size_t)n + 1) * sizeof *g);
	struct grp *g2 = malloc(((size_t)n + 1) * sizeof *g2);
	struct grp *all = malloc(((size_t)n + 1) * sizeof *all);
	int *tmp = malloc(((size_t)n + 1) * sizeof *tmp);
	if (!arr || !v || !w || !g || !g2 || !all || !tmp)
		goto out;
	int m = 0;
	for (int i = 0; i < n; i++) {
		const struct dl_rank *r = c->ranks[ranks[i]];
		if (!r)
			continue;
		v[m].d = desc_of(c, ranks[i], 0);
		v[m].rank = ranks[i];
		if (!v[m].d)
			goto out;
		m++;
	}
	qsort(v, (size_t)m, sizeof *v, dp_cmp);
	int ng = group_by_desc(v, m, g);
	/* singletons: by relative description */
	int nw = 0;
	for (int i = 0; i < ng; i++) {
		if (g[i].n != 1)
			continue;
		w[nw].d = desc_of(c, g[i].first, 1);
		w[nw].rank = g[i].first;
		if (!w[nw].d)
			goto out;
		nw++;
	}
	qsort(w, (size_t)nw, sizeof *w, dp_cmp);
	int ng2 = group_by_desc(w, nw, g2);
	/* all groups: the multi-member absolute ones (flag n>0 via start >= 0
	 * into v) and the relative ones (start encoded as -(start+1) into w) */
	int na = 0;
	for (int i = 0; i < ng; i++)
		if (g[i].n > 1)
			all[na++] = g[i];
	for (int i = 0; i < ng2; i++)
		all[na++] = (struct grp){g2[i].first, -(g2[i].start + 1), g2[i].n};
	qsort(all, (size_t)na, sizeof *all, grp_cmp);
	for (int i = 0; i < na; i++) {
		struct json_object *o = json_object_new_object();
		const struct dp *src = all[i].start >= 0 ? v + all[i].start : w + (-all[i].start - 1);
		for (int j = 0; j < all[i].n; j++)
			tmp[j] = src[j].rank;
		if (all[i].n > 1)
			qsort(tmp, (size_t)all[i].n, sizeof *tmp, int_cmp);
		add_ranges(o, "ranks", tmp, all[i].n);
		json_object_object_add(o, "count", json_object_new_int(all[i].n));
		char wh[200];
		call_at(c, tmp[0], wh, sizeof wh);
		json_object_object_add(o, "where", json_object_new_string(wh));
		char wf[400];
		if (bsend_waits(c, tmp, all[i].n, wf, sizeof wf))
			json_object_object_add(o, "waits_for", json_object_new_string(wf));
		if (all[i].n == 1) {
			json_object_object_add(o, "description", json_object_new_string(desc_of(c, tmp[0], 0)));
		} else {
			json_object_object_add(o, "description", json_object_new_string(src[0].d));
		}
		json_object_array_add(arr, o);
	}
out:
	free(v);
	free(w);
	free(g);
	free(g2);
	free(all);
	free(tmp);
	return arr;
}

static void vnode_desc(const struct dl_ctx *c, int vi, char *buf, size_t len)
{
	const struct dl_vnode *v = &c->v[vi];
	if (v->root >= 0)
		snprintf(buf, len, "%s(root=%d) on %s", v->name, v->root, dl_comm_label(c, v->comm));
	else
		snprintf(buf, len, "%s on %s", v->name, dl_comm_label(c, v->comm));
}

static const char *kind_title(const char *k)
{
	if (!strcmp(k, "collective_mismatch"))
		return "collective mismatch";
	if (!strcmp(k, "cycle"))
		return "wait-for cycle";
	if (!strcmp(k, "knot"))
		return "wait-for knot (MPI_ANY_SOURCE / waitany alternatives all blocked)";
	if (!strcmp(k, "missing_send"))
		return "missing send";
	if (!strcmp(k, "missing_recv"))
		return "missing receive";
	return k;
}

#define SENT_GROUPS 4

/* Append to buf (used n of len) where f's ranks are: its core when
 * only_waiting is 0, the ranks that only wait for it (f->waiting) when 1.
 * " in MPI_Recv (x.c:16)" when they are at one place and one_line, else
 * ": ranks 0-1 in A, rank 2 in B" (at most SENT_GROUPS places, then how
 * many more).  Return the new n. */
static size_t places(struct dl_ctx *c, const struct dl_finding *f, int only_waiting, size_t n, char *buf,
		     size_t len, int one_line)
{
	char where[SENT_GROUPS][200];
	int *gr[SENT_GROUPS] = {0}, gn[SENT_GROUPS] = {0}, ng = 0, others = 0;

	for (int i = 0; i < f->nranks; i++) {
		char w[200];
		int g;
		if (dl_finding_waits(f, f->ranks[i]) != only_waiting)
			continue;
		call_at(c, f->ranks[i], w, sizeof w);
		for (g = 0; g < ng && strcmp(where[g], w); g++)
			;
		if (g == ng) {
			if (ng == SENT_GROUPS) {
				others++;
				continue;
			}
			snprintf(where[ng], sizeof where[ng], "%s", w);
			gr[ng] = malloc((size_t)f->nranks * sizeof(int));
			if (!gr[ng])
				break;
			ng++;
		}
		gr[g][gn[g]++] = f->ranks[i];
	}
	if (ng == 1 && !others && one_line) {
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, " in %s", where[0]);
	} else {
		for (int g = 0; g < ng && n < len; g++) {
			char *gs = dl_ranges_str(gr[g], (size_t)gn[g]);
			n += (size_t)snprintf(buf + n, len - n, "%s rank%s %s in %s", g ? "," : ":",
					      gn[g] > 1 ? "s" : "", gs ? gs : "?", where[g]);
			free(gs);
		}
		if (others && n < len)
			n += (size_t)snprintf(buf + n, len - n, ", %d more rank%s elsewhere", others,
					      others > 1 ? "s" : "");
	}
	for (int g = 0; g < ng; g++)
		free(gr[g]);
	return n < len ? n : len;
}

/* The one-line answer of finding fi (doc/deadlock.md, "The one-line
 * answer"): "deadlock: ranks 0-3 wait for each other in MPI_Recv
 * (deadlock.c:16)", the places of the ranks grouped when they differ, and
 * the first short diagnosis ("rank 1 sent tag 7, rank 0 receives tag 8 —
 * wrong tag").  Ranks that only wait for the others (issue 35 item 8) come
 * last: "...; ranks 2-3 wait for them in MPI_Barrier (x.c:19)".  Written to
 * buf (len bytes). */
static void finding_sentence(struct dl_ctx *c, const struct dl_finding *f, char *buf, size_t len)
{
	int ncore = f->nranks - f->nwaiting, *core = malloc(((size_t)ncore + 1) * sizeof(int));
	size_t n;

	if (!core) {
		snprintf(buf, len, "deadlock");
		return;
	}
	for (int i = 0, k = 0; i < f->nranks; i++)
		if (!dl_finding_waits(f, f->ranks[i]))
			core[k++] = f->ranks[i];
	char *rs = dl_ranges_str(core, (size_t)ncore);
	free(core);
	if (!strcmp(f->kind, "collective_mismatch"))
		n = (size_t)snprintf(buf, len, "deadlock: ranks %s are in different collectives on %s",
				     rs ? rs : "?", dl_comm_label(c, f->comm));
	else
		n = (size_t)snprintf(buf, len, "deadlock: %s %s %s", ncore > 1 ? "ranks" : "rank",
				     rs ? rs : "?", ncore > 1 ? "wait for each other" : "waits forever");
	free(rs);
	n = places(c, f, 0, n < len ? n : len, buf, len, strcmp(f->kind, "collective_mismatch") != 0);
	/* What is wrong: the first short diagnosis, else the kind's own. */
	const char *brief = NULL;
	int waits = !strcmp(f->kind, "cycle") || !strcmp(f->kind, "knot");
	for (size_t j = 0; f->diag && j < json_object_array_length(f->diag) && !brief; j++) {
		struct json_object *b, *d = json_object_array_get_idx(f->diag, j), *t;
		/* In a cycle every receive misses its send: not news. */
		if (waits && json_object_object_get_ex(d, "type", &t) &&
		    !strcmp(json_object_get_string(t), "missing_send"))
			continue;
		if (json_object_object_get_ex(d, "brief", &b))
			brief = json_object_get_string(b);
	}
	if (!brief && !strcmp(f->kind, "cycle"))
		brief = "a cycle: each waits for the next, none can go first";
	else if (!brief && !strcmp(f->kind, "knot"))
		brief = "every alternative each one waits for is blocked too (a knot)";
	else if (!brief && !strcmp(f->kind, "missing_recv"))
		brief = "a send nobody receives \u2014 missing receive";
	else if (!brief && !strcmp(f->kind, "missing_send"))
		brief = "a message nobody sends \u2014 missing send";
	else if (!brief && f->cause && !strcmp(f->cause, "root_mismatch"))
		brief = "the same collective with different roots";
	if (brief && n < len)
		n += (size_t)snprintf(buf + n, len - n, ": %s", brief);
	if (f->nwaiting && n < len) {
		char *ws = dl_ranges_str(f->waiting, (size_t)f->nwaiting);
		n += (size_t)snprintf(buf + n, len - n, "; %s %s %s for them", f->nwaiting > 1 ? "ranks" : "rank",
				      ws ? ws : "?", f->nwaiting > 1 ? "wait" : "waits");
		free(ws);
		if (n < len)
			places(c, f, 1, n, buf, len, 1);
	}
}

static struct json_object *finding_json(struct dl_ctx *c, int fi)
{
	struct dl_finding *f = &c->findings[fi];
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "kind", json_object_new_string(f->kind));
	json_object_object_add(o, "cause", f->cause ? json_object_new_string(f->cause) : NULL);
	json_object_object_add(o, "comm", f->comm >= 0 ? json_object_new_string(dl_comm_label(c, f->comm))
						     : NULL);
	json_object_object_add(o, "ranks", int_array(f->ranks, f->nranks));
	add_ranges(o, "ranks_text", f->ranks, f->nranks);
	json_object_object_add(o, "waiting_ranks", int_array(f->waiting, f->nwaiting));
	add_ranges(o, "waiting_ranks_text", f->waiting, f->nwaiting);
	json_object_object_add(o, "terminal_ranks", int_array(f->terminal, f->nterminal));
	json_object_object_add(o, "classes", classes(c, f->ranks, f->nranks));
	struct json_object *path = json_object_new_array();
	for (int i = 0; i < f->npath; i++) {
		struct json_object *p = json_object_new_object();
		char d[600];
		int x = f->path[i];
		if (x < c->size) {
			json_object_object_add(p, "rank", json_object_new_int(x));
			dl_describe_call(c, c->ranks[x], 0, d, sizeof d);
		} else {
			vnode_desc(c, x - c->size, d, sizeof d);
			json_object_object_add(p, "rank", NULL);
		}
		json_object_object_add(p, "call", json_object_new_string(d));
		json_object_array_add(path, p);
	}
	json_object_object_add(o, "path", path);
	json_object_object_add(o, "path_closed", json_object_new_boolean(f->path_cycle));
	if (f->path_cycle)
		json_object_object_add(o, "path_loop_at", json_object_new_int(f->loop_at));
	/* one-line summary */
	char sum[1024];
	char *rs = dl_ranges_str(f->ranks, (size_t)f->nranks);
	if (!strcmp(f->kind, "collective_mismatch")) {
		snprintf(sum, sizeof sum, "%s on %s: ranks %s are in different collectives%s",
			 kind_title(f->kind), dl_comm_label(c, f->comm), rs ? rs : "?",
			 f->cause && !strcmp(f->cause, "root_mismatch") ? " (same call, different roots)"
									 : "");
	} else {
		snprintf(sum, sizeof sum, "%s among ranks %s%s%s", kind_title(f->kind), rs ? rs : "?",
			 f->cause ? ": " : "", f->cause ? f->cause : "");
	}
	free(rs);
	json_object_object_add(o, "summary", json_object_new_string(sum));
	finding_sentence(c, f, sum, sizeof sum);
	json_object_object_add(o, "sentence", json_object_new_string(sum));
	json_object_object_add(o, "diagnosis_omitted", json_object_new_int(f->ndiag_omitted));
	return o;
}

/* The "reason" and "stuck" of a report without a confirmed deadlock;
 * incomplete (the report's incomplete_reason, or NULL) is the reason when
 * given. */
static void not_deadlocked_reason(struct dl_ctx *c, struct json_object *rep, const char *incomplete)
{
	struct json_object *stuck = json_object_new_array();
	int nblocked = 0, shown = 0, nunknown = 0;
	for (int r = 0; r < c->size; r++) {
		if (!c->ranks[r])
			continue;
		if (c->nstate[r] == DLN_UNKNOWN)
			nunknown++;
		if (c->nstate[r] != DLN_BLOCKED || !c->released[r])
			continue;
		nblocked++;
		if (shown >= 10)
			continue;
		shown++;
		char d[600], m[2048];
		dl_describe_call(c, c->ranks[r], 0, d, sizeof d);
		int by = c->why ? c->why[r] : -1;
		if (by < 0)
			snprintf(m, sizeof m, "rank %d: %s: what it waits for is already there (a matching "
				 "message or receive); it is slow, not deadlocked", r, d);
		else if (by < c->size && c->unreadable && c->unreadable[by])
			snprintf(m, sizeof m, "rank %d: %s: waits for rank %d; rank %d's dump is unreadable "
				 "(%s): no verdict", r, d, by, by, c->unreadable[by]);
		else if (by < c->size && !c->ranks[by])
			snprintf(m, sizeof m, "rank %d: %s: can go on when rank %d acts; rank %d wrote no "
				 "dump (computing, finished, or not stuck for the timeout)", r, d, by, by);
		else if (by < c->size && c->nstate[by] == DLN_FREE)
			snprintf(m, sizeof m, "rank %d: %s: can go on when rank %d acts; rank %d is computing",
				 r, d, by, by);
		else if (by < c->size && c->nstate[by] == DLN_UNKNOWN)
			snprintf(m, sizeof m, "rank %d: %s: can go on when rank %d acts; rank %d is in a call "
				 "this analysis does not model", r, d, by, by);
		else if (by >= c->size) {
			char v[300];
			vnode_desc(c, by - c->size, v, sizeof v);
			snprintf(m, sizeof m, "rank %d: %s: the other members can still join %s", r, d, v);
		} else
			snprintf(m, sizeof m, "rank %d: %s: can go on once rank %d goes on", r, d, by);
		json_object_array_add(stuck, json_object_new_string(m));
	}
	char reason[2048];
	if (incomplete) {
		snprintf(reason, sizeof reason, "%s", incomplete);
	} else if (c->nfindings > c->nconfirmed) {
		char *rs = dl_ranges_str(c->findings[c->nconfirmed].ranks,
					 (size_t)c->findings[c->nconfirmed].nranks);
		snprintf(reason, sizeof reason, "ranks %s seem to wait on each other, but %s",
			 rs ? rs : "?", c->findings[c->nconfirmed].stale_msg);
		free(rs);
	} else if (c->ndumps == 0)
		snprintf(reason, sizeof reason, "no readable dump in the directory");
	else if (nblocked == 0)
		snprintf(reason, sizeof reason, "no rank is blocked in a point-to-point or collective "
			 "call (%d dumps, %d in calls not modelled)", c->ndumps, nunknown);
	else
		snprintf(reason, sizeof reason,
			 "every stuck rank can still go on: what it waits for depends on ranks that are "
			 "not stuck (computing, finished, or not yet past the timeout) or is already "
			 "available; the ranks are slow or computing, not deadlocked");
	json_object_object_add(rep, "reason", json_object_new_string(reason));
	json_object_object_add(rep, "stuck", stuck);
}

/* Whether node x's release (c->why, followed) came from an unreadable rank:
 * then x "waits for" that rank and has no verdict.  memo (per node: 0 not
 * known yet, 1 yes, 2 no) and path (room for c->nnodes) make a whole pass
 * over the ranks linear (a ring of 100,000 with one unreadable dump). */
static int waits_on_unreadable(const struct dl_ctx *c, int x, unsigned char *memo, int *path)
{
	int np = 0, res = 2;
	while (x >= 0 && x < c->nnodes && np < c->nnodes) {
		if (memo[x]) {
			res = memo[x];
			break;
		}
		if (x < c->size && !c->ranks[x]) {
			res = c->unreadable[x] ? 1 : 2;
			break;
		}
		memo[x] = 2; /* a loop ends here: no */
		path[np++] = x;
		if (c->nstate[x] != DLN_BLOCKED || !c->why)
			break;
		x = c->why[x];
	}
	while (np > 0)
		memo[path[--np]] = (unsigned char)res;
	return res == 1;
}

/* Issue 35 item 6: the report's incomplete_reason into buf ("rank 1's dump
 * is unreadable (rank-1.json: truncated JSON ...): no deadlock among the
 * ranks that could be read, but no verdict on rank 1 and the ranks that wait
 * for it (0,2-3)"), or "" when every rank's file was read (ranks that wrote
 * no file are not stuck, by the monitor's rule: not a gap).  *ur and *nur: the
 * unreadable ranks (the caller frees *ur). */
static void incomplete_reason(struct dl_ctx *c, int found, char *buf, size_t len, int **ur, int *nur)
{
	int *u = malloc(((size_t)c->size + 1) * sizeof *u);
	int *w = malloc(((size_t)c->size + 1) * sizeof *w);
	int *path = malloc(((size_t)c->nnodes + 1) * sizeof *path);
	unsigned char *memo = calloc((size_t)c->nnodes + 1, 1);
	int nu = 0, nw = 0;
	size_t n = 0;
	buf[0] = '\0';
	*ur = u;
	*nur = 0;
	if (!c->nunreadable || !u || !w || !path || !memo) {
		if (c->nunreadable) /* out of memory: still say it, without the details */
			snprintf(buf, len, "%d rank(s)' dumps are unreadable (see invalid_files): no verdict "
				 "on them", c->nunreadable);
		free(w);
		free(path);
		free(memo);
		return;
	}
	for (int r = 0; r < c->size; r++) {
		if (c->unreadable[r])
			u[nu++] = r;
		else if (c->ranks[r] && waits_on_unreadable(c, r, memo, path))
			w[nw++] = r;
	}
	free(path);
	free(memo);
	*nur = nu;
	char *us = dl_ranges_str(u, (size_t)nu), *ws = dl_ranges_str(w, (size_t)nw);
	n = (size_t)snprintf(buf, len, "%s %s's %s unreadable (", nu > 1 ? "ranks" : "rank", us ? us : "?",
			     nu > 1 ? "dumps are" : "dump is");
	for (int i = 0; i < nu && i < 3 && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "; " : "", c->unreadable[u[i]]);
	if (nu > 3 && n < len)
		n += (size_t)snprintf(buf + n, len - n, "; %d more", nu - 3);
	if (n < len && found)
		snprintf(buf + n, len - n, "): the deadlock found holds whatever %s %s",
			 nu > 1 ? "they" : "it", nu > 1 ? "do" : "does");
	else if (n < len && nw)
		snprintf(buf + n, len - n, "): no deadlock among the ranks that could be read, but no verdict "
			 "on %s %s and the ranks that wait for %s (%s)", nu > 1 ? "ranks" : "rank",
			 us ? us : "?", nu > 1 ? "them" : "it", ws ? ws : "?");
	else if (n < len)
		snprintf(buf + n, len - n, "): no deadlock among the ranks that could be read, but no verdict "
			 "on %s %s", nu > 1 ? "ranks" : "rank", us ? us : "?");
	free(us);
	free(ws);
	free(w);
}

/* ---- text ---- */
static const char *js(struct json_object *o, const char *k)
{
	struct json_object *v;
	if (!json_object_object_get_ex(o, k, &v) || !v)
		return NULL;
	return json_object_get_string(v);
}

/* ---- stack classes as a tree (STAT) ---- */
#define TREE_MAX_NODES 4000
#define TREE_MAX_DEPTH 64

struct tnode {
	const char *label; /* interned */
	int child, sibling;
	int *ranks;
	int n, cap;
};

/* "solve (cg.c:42)", "solve", or "" for a frame not worth a level (the
 * system's libraries, a frame with nothing known). */
static const char *frame_label(struct dl_ctx *c, const struct dl_frame *fr)
{
	char b[400];
	if (fr->object && (!strncmp(fr->object, "/lib/", 5) || !strncmp(fr->object, "/usr/lib/", 9) ||
			   !strncmp(fr->object, "/lib64/", 7)))
		return "";
	if (fr->symbol && fr->file && fr->line > 0)
		snprintf(b, sizeof b, "%s (%s:%d)", fr->symbol, fr->file, fr->line);
	else if (fr->file && fr->line > 0)
		snprintf(b, sizeof b, "%s:%d", fr->file, fr->line);
	else if (fr->symbol)
		snprintf(b, sizeof b, "%s", fr->symbol);
	else
		return "";
	return dl_intern(c->pool, b);
}

/* frame_label() of the frames seen before: the frames' strings are the
 * pool's (never freed or changed while c lives), so their addresses and
 * the line name a label; 100,000 ranks share a few dozen frames. */
#define LABEL_CACHE 1024
struct label_cache {
	const struct dl_frame *key[LABEL_CACHE]; /* a frame with these strings */
	const char *label[LABEL_CACHE];
};

static const char *frame_label_cached(struct dl_ctx *c, struct label_cache *lc, const struct dl_frame *fr)
{
	uintptr_t h = ((uintptr_t)fr->symbol * 31u + (uintptr_t)fr->file) * 31u + (uintptr_t)fr->object +
		      (uintptr_t)fr->line;
	h ^= h >> 17;
	unsigned i = (unsigned)(h % LABEL_CACHE);
	const struct dl_frame *k = lc->key[i];
	if (k && k->symbol == fr->symbol && k->file == fr->file && k->object == fr->object &&
	    k->line == fr->line)
		return lc->label[i];
	const char *l = frame_label(c, fr);
	lc->key[i] = fr;
	lc->label[i] = l;
	return l;
}

static int tree_child(struct tnode *t, int *nt, int parent, const char *label)
{
	for (int k = t[parent].child; k >= 0; k = t[k].sibling)
		if (t[k].label == label)
			return k;
	if (*nt >= TREE_MAX_NODES)
		return -1;
	int k = (*nt)++;
	t[k] = (struct tnode){label, -1, t[parent].child, NULL, 0, 0};
	t[parent].child = k;
	return k;
}

static void tree_add_rank(struct tnode *x, int r)
{
	if (x->n == x->cap) {
		int cap = x->cap ? x->cap * 2 : 8;
		int *v = realloc(x->ranks, (size_t)cap * sizeof *v);
		if (!v)
			return;
		x->ranks = v;
		x->cap = cap;
	}
	x->ranks[x->n++] = r;
}

/* Node k's children as JSON, in insertion order (they were pushed in
 * front): [{frame, ranks, count, children}]. */
static struct json_object *tree_json(const struct tnode *t, int k)
{
	struct json_object *a = json_object_new_array();
	int kids[256], nk = 0;
	for (int j = t[k].child; j >= 0 && nk < 256; j = t[j].sibling)
		kids[nk++] = j;
	for (int i = nk - 1; a && i >= 0; i--) {
		const struct tnode *x = &t[kids[i]];
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "frame", json_object_new_string(x->label));
		add_ranges(o, "ranks", x->ranks, x->n);
		json_object_object_add(o, "count", json_object_new_int(x->n));
		json_object_object_add(o, "children", tree_json(t, kids[i]));
		json_object_array_add(a, o);
	}
	return a;
}

/* The dumped ranks grouped by identical call path, as a tree from main to
 * the MPI call, each node with its ranks (STAT's equivalence classes);
 * *truncated is set when there were more paths than TREE_MAX_NODES. */
static struct json_object *stack_tree(struct dl_ctx *c, int *truncated)
{
	struct tnode *t = calloc(TREE_MAX_NODES + 1, sizeof *t);
	struct label_cache *lc = calloc(1, sizeof *lc);
	struct json_object *a;
	int nt = 1, full = 0;
	if (!t || !lc) {
		free(t);
		free(lc);
		return json_object_new_array();
	}
	t[0] = (struct tnode){"", -1, -1, NULL, 0, 0};
	for (int r = 0; r < c->size; r++) {
		const struct dl_rank *x = c->ranks[r];
		int k = 0, depth = 0;
		if (!x)
			continue;
		for (int i = x->nstack - 1; i >= 0 && k >= 0 && depth < TREE_MAX_DEPTH; i--) {
			const char *l = frame_label_cached(c, lc, &x->stack[i]);
			if (!l || !*l)
				continue;
			k = tree_child(t, &nt, k, l);
			depth++;
			if (k >= 0)
				tree_add_rank(&t[k], r);
		}
		if (k >= 0 && x->has_call)
			k = tree_child(t, &nt, k, dl_intern(c->pool, x->call.name));
		if (k >= 0 && x->has_call)
			tree_add_rank(&t[k], r);
		full |= k < 0;
	}
	a = tree_json(t, 0);
	for (int i = 0; i < nt; i++)
		free(t[i].ranks);
	free(t);
	free(lc);
	*truncated = full;
	return a;
}

static void tree_print_json(FILE *f, struct json_object *a, int depth)
{
	for (size_t i = 0; depth < TREE_MAX_DEPTH + 2 && i < json_object_array_length(a); i++) {
		struct json_object *o = json_object_array_get_idx(a, i);
		fprintf(f, "%*s%s [%d: %s]\n", 2 + 2 * depth, "", js(o, "frame") ? js(o, "frame") : "?",
			json_object_get_int(json_object_object_get(o, "count")),
			js(o, "ranks") ? js(o, "ranks") : "?");
		tree_print_json(f, json_object_object_get(o, "children"), depth + 1);
	}
}

int dl_stack_tree_text(FILE *f, struct json_object *tree, int truncated)
{
	if (!json_object_is_type(tree, json_type_array) || !json_object_array_length(tree))
		return 0;
	fprintf(f, "stack classes (ranks by identical call path, from main to the MPI call):\n");
	tree_print_json(f, tree, 0);
	if (truncated)
		fprintf(f, "  ... more paths than %d nodes (see the dumps)\n", TREE_MAX_NODES);
	return 1;
}

int dl_build_report(struct dl_ctx *c)
{
	struct json_object *rep = json_object_new_object();
	if (!rep)
		return -1;
	c->report = rep;
	int found = c->nconfirmed > 0;
	json_object_object_add(rep, "mpiwatch_deadlock", json_object_new_int(1));
	json_object_object_add(rep, "found", json_object_new_boolean(found));
	json_object_object_add(rep, "kind", json_object_new_string(found ? c->findings[0].kind : "none"));
	json_object_object_add(rep, "cause", found && c->findings[0].cause
						     ? json_object_new_string(c->findings[0].cause)
						     : NULL);
	json_object_object_add(rep, "job", c->job_id ? json_object_new_string(c->job_id) : NULL);
	json_object_object_add(rep, "size", json_object_new_int(c->size));
	json_object_object_add(rep, "dumps", json_object_new_int(c->ndumps));
	json_object_object_add(rep, "files", json_object_new_int(c->nfiles));

	int *dead = malloc(((size_t)c->size + 1) * sizeof *dead);
	int *miss = malloc(((size_t)c->size + 1) * sizeof *miss);
	int *dumped = malloc(((size_t)c->size + 1) * sizeof *dumped);
	int *waiting = malloc(((size_t)c->size + 1) * sizeof *waiting);
	if (!dead || !miss || !dumped || !waiting) {
		free(dead);
		free(miss);
		free(dumped);
		free(waiting);
		return -1;
	}
	int nd = 0, nm = 0, ndu = 0, nw = 0;
	for (int r = 0; r < c->size; r++) {
		if (c->deadlocked && c->deadlocked[r]) {
			dead[nd++] = r;
			if (dl_finding_waits(&c->findings[c->deadlocked[r] - 1], r))
				waiting[nw++] = r;
		}
		if (!c->ranks[r]) {
			if (!(c->unreadable && c->unreadable[r]))
				miss[nm++] = r; /* an unreadable rank is not missing */
		} else {
			dumped[ndu++] = r;
		}
	}
	json_object_object_add(rep, "ranks", int_array(dead, nd));
	add_ranges(rep, "ranks_text", dead, nd);
	json_object_object_add(rep, "waiting_ranks", int_array(waiting, nw));
	add_ranges(rep, "waiting_ranks_text", waiting, nw);
	free(waiting);
	json_object_object_add(rep, "missing_ranks", int_array(miss, nm));
	add_ranges(rep, "missing_ranks_text", miss, nm);
	char incomplete[2048];
	int *ur = NULL, nur = 0;
	incomplete_reason(c, found, incomplete, sizeof incomplete, &ur, &nur);
	json_object_object_add(rep, "incomplete", json_object_new_boolean(incomplete[0] != '\0'));
	json_object_object_add(rep, "incomplete_reason",
			       incomplete[0] ? json_object_new_string(incomplete) : NULL);
	json_object_object_add(rep, "unreadable_ranks", int_array(ur, nur));
	add_ranges(rep, "unreadable_ranks_text", ur, nur);
	free(ur);
	json_object_object_add(rep, "invalid_files", json_object_get(c->invalid));
	json_object_object_add(rep, "classes", classes(c, dumped, ndu));
	free(dead);
	free(miss);
	free(dumped);

	struct json_object *fa = json_object_new_array();
	struct json_object *da = json_object_new_array();
	struct json_object *ua = json_object_new_array();
	for (int i = c->nconfirmed; i < c->nfindings; i++) {
		struct json_object *o = finding_json(c, i);
		json_object_object_add(o, "why_unconfirmed", json_object_new_string(c->findings[i].stale_msg));
		json_object_array_add(ua, o);
	}
	json_object_object_add(rep, "unconfirmed", ua);
	for (int i = 0; i < c->nconfirmed; i++) {
		json_object_array_add(fa, finding_json(c, i));
		struct json_object *d = c->findings[i].diag;
		for (size_t j = 0; j < json_object_array_length(d); j++) {
			struct json_object *x = json_object_array_get_idx(d, j);
			json_object_object_add(x, "finding", json_object_new_int(i));
			json_object_array_add(da, json_object_get(x));
		}
	}
	json_object_object_add(rep, "findings", fa);
	json_object_object_add(rep, "diagnosis", da);
	struct json_object *na = json_object_new_array();
	for (int r = 0; r < c->size; r++) {
		if (!c->ranks[r] || c->nstate[r] != DLN_UNKNOWN)
			continue;
		char d[600];
		dl_describe_call(c, c->ranks[r], 0, d, sizeof d);
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "rank", json_object_new_int(r));
		json_object_object_add(o, "call", json_object_new_string(d));
		json_object_array_add(na, o);
	}
	json_object_object_add(rep, "not_analysed", na);
	if (found) {
		json_object_object_add(rep, "reason",
				       json_object_new_string(json_object_get_string(json_object_object_get(
					       json_object_array_get_idx(fa, 0), "summary"))));
		json_object_object_add(rep, "stuck", json_object_new_array());
	} else {
		not_deadlocked_reason(c, rep, incomplete[0] ? incomplete : NULL);
	}
	json_object_object_add(rep, "notes", c->notes ? json_object_get(c->notes) : json_object_new_array());
	{
		int truncated = 0;
		json_object_object_add(rep, "stack_tree", stack_tree(c, &truncated));
		json_object_object_add(rep, "stack_tree_truncated", json_object_new_boolean(truncated));
	}
	return 0;
}

static void text_classes(FILE *f, struct json_object *cls, const char *indent, int max)
{
	size_t n = json_object_array_length(cls);
	for (size_t i = 0; i < n && (int)i < max; i++) {
		struct json_object *o = json_object_array_get_idx(cls, i);
		int cnt = json_object_get_int(json_object_object_get(o, "count"));
		fprintf(f, "%s%s %s: %s\n", indent, cnt == 1 ? "rank " : "ranks", js(o, "ranks"),
			js(o, "description"));
		if (js(o, "waits_for"))
			fprintf(f, "%s      still waits for: %s\n", indent, js(o, "waits_for"));
	}
	if ((int)n > max)
		fprintf(f, "%s... and %zu more classes (see --json)\n", indent, n - (size_t)max);
}

int dl_text(FILE *f, const struct dl_ctx *c)
{
	struct json_object *rep = c->report;
	int found = json_object_get_boolean(json_object_object_get(rep, "found"));
	struct json_object *fs = json_object_object_get(rep, "findings");
	/* The answer first: one sentence per finding. */
	for (size_t i = 0; found && i < json_object_array_length(fs); i++)
		fprintf(f, "%s\n", js(json_object_array_get_idx(fs, i), "sentence"));
	const char *inc = js(rep, "incomplete_reason");
	if (found)
		fprintf(f, "DEADLOCK FOUND: %s%s%s%s\n", js(rep, "kind"), js(rep, "cause") ? " (" : "",
			js(rep, "cause") ? js(rep, "cause") : "", js(rep, "cause") ? ")" : "");
	if (found && inc)
		fprintf(f, "incomplete: %s\n", inc);
	else if (!found)
		fprintf(f, "%s: %s\n", inc ? "incomplete" : "no deadlock found", js(rep, "reason"));
	int invalid = (int)json_object_array_length(json_object_object_get(rep, "invalid_files"));
	fprintf(f, "dumps: %d valid of %d files, world size %d%s%s\n", c->ndumps, c->nfiles, c->size,
		c->job_id && c->job_id[0] ? ", job " : "", c->job_id ? c->job_id : "");
	struct json_object *fa = json_object_object_get(rep, "findings");
	struct json_object *da = json_object_object_get(rep, "diagnosis");
	for (size_t i = 0; i < json_object_array_length(fa); i++) {
		struct json_object *o = json_object_array_get_idx(fa, i);
		fprintf(f, "\nFinding %zu: %s\n", i + 1, js(o, "summary"));
		text_classes(f, json_object_object_get(o, "classes"), "  ", 20);
		struct json_object *path = json_object_object_get(o, "path");
		size_t np = json_object_array_length(path);
		if (np) {
			fprintf(f, "  wait-for path:\n");
			for (size_t j = 0; j < np; j++) {
				struct json_object *p = json_object_array_get_idx(path, j);
				if (j == 12 && np > 14) {
					fprintf(f, "    ... %zu more steps (see --json)\n", np - 13);
					j = np - 2;
					continue;
				}
				struct json_object *rk = json_object_object_get(p, "rank");
				if (rk)
					fprintf(f, "    %s rank %d in %s\n", j ? "->" : "  ",
						json_object_get_int(rk), js(p, "call"));
				else
					fprintf(f, "    %s all ranks in %s\n", j ? "->" : "  ", js(p, "call"));
			}
			if (json_object_get_boolean(json_object_object_get(o, "path_closed"))) {
				int at = json_object_get_int(json_object_object_get(o, "path_loop_at"));
				struct json_object *p = json_object_array_get_idx(path, (size_t)at);
				struct json_object *rk = json_object_object_get(p, "rank");
				if (rk)
					fprintf(f, "    -> back to rank %d\n", json_object_get_int(rk));
				else
					fprintf(f, "    -> back to %s\n", js(p, "call"));
			}
		}
		struct json_object *tr = json_object_object_get(o, "terminal_ranks");
		if (json_object_array_length(tr))
			fprintf(f, "  waits on %zu rank(s) that have finalized or exited\n",
				json_object_array_length(tr));
		int header = 0;
		for (size_t j = 0; j < json_object_array_length(da); j++) {
			struct json_object *d = json_object_array_get_idx(da, j);
			if ((size_t)json_object_get_int(json_object_object_get(d, "finding")) != i)
				continue;
			if (!header++)
				fprintf(f, "  diagnosis:\n");
			fprintf(f, "    - [%s] %s\n", js(d, "type"), js(d, "message"));
		}
		int om = json_object_get_int(json_object_object_get(o, "diagnosis_omitted"));
		if (om)
			fprintf(f, "    (%d more diagnosis entries omitted)\n", om);
	}
	struct json_object *ua = json_object_object_get(rep, "unconfirmed");
	for (size_t i = 0; i < json_object_array_length(ua); i++) {
		struct json_object *o = json_object_array_get_idx(ua, i);
		fprintf(f, "\nUnconfirmed (possibly stale dumps): %s\n  %s\n", js(o, "summary"),
			js(o, "why_unconfirmed"));
		text_classes(f, json_object_object_get(o, "classes"), "  ", 10);
	}
	if (!found) {
		struct json_object *st = json_object_object_get(rep, "stuck");
		if (json_object_array_length(st)) {
			fprintf(f, "stuck ranks:\n");
			for (size_t j = 0; j < json_object_array_length(st); j++)
				fprintf(f, "  %s\n", json_object_get_string(json_object_array_get_idx(st, j)));
		}
		if (c->ndumps) {
			fprintf(f, "all dumped ranks:\n");
			text_classes(f, json_object_object_get(rep, "classes"), "  ", 20);
		}
	}
	struct json_object *na = json_object_object_get(rep, "not_analysed");
	for (size_t j = 0; j < json_object_array_length(na) && j < 10; j++) {
		struct json_object *o = json_object_array_get_idx(na, j);
		fprintf(f, "note: rank %d is in %s, which this analysis does not model (assumed able to go on)\n",
			json_object_get_int(json_object_object_get(o, "rank")), js(o, "call"));
	}
	const char *mr = js(rep, "missing_ranks_text");
	if (mr && mr[0])
		fprintf(f, "\nmissing: rank(s) %s wrote no dump: they were not stuck in MPI for the timeout "
			"(computing, finished, or not yet stuck); not guessed\n", mr);
	if (invalid) {
		fprintf(f, "\ninvalid files (skipped):\n");
		struct json_object *ia = json_object_object_get(rep, "invalid_files");
		for (int j = 0; j < invalid; j++) {
			struct json_object *o = json_object_array_get_idx(ia, (size_t)j);
			fprintf(f, "  %s: %s\n", js(o, "file"), js(o, "error"));
		}
	}
	struct json_object *notes = json_object_object_get(rep, "notes");
	for (size_t j = 0; j < json_object_array_length(notes); j++)
		fprintf(f, "note: %s\n", json_object_get_string(json_object_array_get_idx(notes, j)));
	if (json_object_array_length(json_object_object_get(rep, "stack_tree")))
		fprintf(f, "\n");
	dl_stack_tree_text(f, json_object_object_get(rep, "stack_tree"),
			   json_object_get_boolean(json_object_object_get(rep, "stack_tree_truncated")));
	return ferror(f) ? -1 : 0;
}

/* ---- DOT ---- */
static void dot_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if (*s == '\n') {
			fputs("\\n", f);
			continue;
		}
		fputc(*s, f);
	}
	fputc('"', f);
}

int dl_dot(FILE *f, const struct dl_ctx *c)
{
	int only_dead = 0, count = 0;
	for (int i = 0; i < c->size; i++)
		if (c->ranks[i] && c->nstate[i] == DLN_BLOCKED)
			count++;
	if (count + c->nv > DOT_MAX_NODES)
		only_dead = 1;
	fprintf(f, "digraph waitfor {\n  rankdir=LR;\n  node [shape=ellipse, fontname=\"monospace\", fontsize=10];\n");
	if (only_dead)
		fprintf(f, "  // %d stuck ranks: only deadlocked ranks shown\n", count);
	unsigned char *shown = calloc((size_t)c->nnodes + 1, 1);
	if (!shown)
		return -1;
	int emitted = 0;
	for (int x = 0; x < c->nnodes && emitted < DOT_MAX_NODES; x++) {
		int dead = x < c->size ? (c->deadlocked && c->deadlocked[x]) : !c->released[x];
		if (x < c->size && (!c->ranks[x] || c->nstate[x] == DLN_FREE))
			continue;
		if (only_dead && !dead && !(x < c->size && c->nstate[x] == DLN_TERMINAL))
			continue;
		char d[600], label[700];
		if (x < c->size) {
			dl_describe_call(c, c->ranks[x], 0, d, sizeof d);
			snprintf(label, sizeof label, "rank %d\n%s", x, d);
		} else {
			vnode_desc(c, x - c->size, d, sizeof d);
			snprintf(label, sizeof label, "%s", d);
		}
		fprintf(f, "  n%d [label=", x);
		dot_str(f, label);
		if (x >= c->size)
			fprintf(f, ", shape=box");
		if (dead)
			fprintf(f, ", color=red, fontcolor=red");
		else if (x < c->size && c->nstate[x] == DLN_TERMINAL)
			fprintf(f, ", style=dashed");
		fprintf(f, "];\n");
		shown[x] = 1;
		emitted++;
	}
	for (int q = 0; q < c->ncl; q++) {
		const struct dl_clause *k = &c->cl[q];
		if (!shown[k->owner])
			continue;
		const char *style = k->sat ? "color=gray, style=dashed" : "color=red";
		const char *lab = k->nt + k->na > 1 ? "OR" : "";
		for (int j = 0; j < k->nt; j++) {
			int t = c->tgt[k->t0 + j];
			if (!shown[t]) {
				if (only_dead || t >= c->size)
					continue;
				fprintf(f, "  n%d [label=\"rank %d\\n%s\", style=dotted];\n", t, t,
					c->ranks[t] ? "computing" : "no dump");
				shown[t] = 1;
			}
			fprintf(f, "  n%d -> n%d [%s%s%s%s];\n", k->owner, t, style, lab[0] ? ", label=\"" : "",
				lab, lab[0] ? "\"" : "");
		}
		for (int j = 0; j < k->na; j++) {
			int g = c->anyc[k->a0 + j];
			fprintf(f, "  any%d [label=", g);
			char l[300];
			snprintf(l, sizeof l, "any member of %s", dl_comm_label(c, g));
			dot_str(f, l);
			fprintf(f, ", shape=diamond];\n  n%d -> any%d [%s, label=\"ANY_SOURCE\"];\n", k->owner, g,
				style);
		}
	}
	fprintf(f, "}\n");
	free(shown);
	return ferror(f) ? -1 : 0;
}
