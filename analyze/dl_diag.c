/* dl_diag.c - findings from the reduced wait-for graph, and their diagnosis:
 * the kind of each deadlock, a wait-for path, near-miss messages (wrong tag,
 * source or communicator), missing sends and the least-similar ranks. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_int.h"
#include "hostlist.h"

#define DIAG_CAP 20 /* near-miss entries kept per finding and type */
#define MISSING_CAP 5 /* missing-send entries kept per finding */
#define SIM_CLASS_CAP 1500

/* ---- small helpers shared with the report ---- */
char *dl_ranges_str(const int *v, size_t n)
{
	size_t need = mw_ranges_format(v, n, NULL, 0);
	char *s = malloc(need + 1);
	if (!s)
		return NULL;
	mw_ranges_format(v, n, s, need + 1);
	return s;
}

void dl_site_str(const struct dl_frame *f, char *buf, size_t len)
{
	if (f->file && f->line > 0)
		snprintf(buf, len, "%s:%d", f->file, f->line);
	else if (f->file)
		snprintf(buf, len, "%s", f->file);
	else if (f->symbol)
		snprintf(buf, len, "%s()", f->symbol);
	else if (f->addr)
		snprintf(buf, len, "%s", f->addr);
	else
		snprintf(buf, len, "?");
}

const char *dl_comm_label(const struct dl_ctx *c, int ci)
{
	if (ci < 0 || ci >= c->ncomm)
		return "?";
	const struct dl_comm *m = &c->comms[ci];
	if (m->identity)
		return "MPI_COMM_WORLD";
	if (m->name && m->name[0])
		return m->name;
	return m->gid;
}

static int my_crank(const struct dl_rank *r, int ci)
{
	for (int i = 0; i < r->ncomms; i++)
		if (r->comms[i] == ci)
			return r->crank[i];
	return -1;
}

/* "3", "ANY_SOURCE", or relative "rank+1" (mod comm size). */
static void peer_str(const struct dl_ctx *c, const struct dl_rank *r, int ci, int peer,
		     int relative, char *buf, size_t len)
{
	if (peer == DL_ANY_SOURCE) {
		snprintf(buf, len, "ANY_SOURCE");
		return;
	}
	if (peer == DL_PROC_NULL) {
		snprintf(buf, len, "PROC_NULL");
		return;
	}
	int me = my_crank(r, ci);
	int size = (ci >= 0 && ci < c->ncomm) ? c->comms[ci].size : 0;
	if (!relative || me < 0 || size <= 0 || peer >= size) {
		snprintf(buf, len, "%d", peer);
		return;
	}
	int off = ((peer - me) % size + size) % size;
	if (off == 0)
		snprintf(buf, len, "self");
	else if (off <= size / 2)
		snprintf(buf, len, "rank+%d", off);
	else
		snprintf(buf, len, "rank-%d", size - off);
}

static void tag_str(int tag, char *buf, size_t len)
{
	if (tag == DL_ANY_TAG)
		snprintf(buf, len, "ANY_TAG");
	else if (tag == DL_NO_TAG)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%d", tag);
}

static size_t desc_msg(const struct dl_ctx *c, const struct dl_rank *r, const struct dl_msg *m,
		       int relative, char *buf, size_t len)
{
	char p[32], t[24];
	peer_str(c, r, m->comm, m->peer, relative, p, sizeof p);
	tag_str(m->tag, t, sizeof t);
	const char *op = m->op ? m->op : "request";
	if (m->peer == DL_PROC_NULL && m->op && !strstr(m->op, "ecv"))
		return (size_t)snprintf(buf, len, "%s(comm=%s)", op, dl_comm_label(c, m->comm));
	int is_recv = m->op && (strstr(m->op, "recv") || strstr(m->op, "Recv"));
	return (size_t)snprintf(buf, len, "%s(%s=%s, tag=%s, comm=%s)", op, is_recv ? "src" : "dst", p,
				t, dl_comm_label(c, m->comm));
}

void dl_describe_call(const struct dl_ctx *c, const struct dl_rank *r, int relative, char *buf,
		      size_t len)
{
	char p[32], q[32], t[24], u[24], site[300];
	size_t n = 0;
	if (!r->has_call) {
		static const char *const sn[] = {"in MPI", "computing (outside MPI)", "finalized",
						 "exited"};
		snprintf(buf, len, "%s", sn[r->state]);
		return;
	}
	const struct dl_call *k = &r->call;
	const char *cm = dl_comm_label(c, k->comm);
	tag_str(k->tag, t, sizeof t);
	switch (k->kind) {
	case DLK_RECV:
	case DLK_PROBE:
		peer_str(c, r, k->comm, k->peer, relative, p, sizeof p);
		n = (size_t)snprintf(buf, len, "%s(src=%s, tag=%s, comm=%s)", k->name, p, t, cm);
		break;
	case DLK_SEND:
		peer_str(c, r, k->comm, k->peer, relative, p, sizeof p);
		n = (size_t)snprintf(buf, len, "%s(dst=%s, tag=%s, comm=%s%s)", k->name, p, t, cm,
				     k->mode == DLM_SYNC ? ", sync" : "");
		break;
	case DLK_SENDRECV:
		peer_str(c, r, k->comm, k->send_peer, relative, p, sizeof p);
		peer_str(c, r, k->comm, k->peer, relative, q, sizeof q);
		tag_str(k->send_tag, u, sizeof u);
		n = (size_t)snprintf(buf, len, "%s(dst=%s, sendtag=%s, src=%s, tag=%s, comm=%s)",
				     k->name, p, u, q, t, cm);
		break;
	case DLK_COLLECTIVE:
		if (k->root >= 0)
			n = (size_t)snprintf(buf, len, "%s(root=%d, comm=%s)", k->name, k->root, cm);
		else
			n = (size_t)snprintf(buf, len, "%s(comm=%s)", k->name, cm);
		break;
	case DLK_WAIT:
	case DLK_TEST: {
		n = (size_t)snprintf(buf, len, "%s(", k->name);
		int shown = 0, total = k->nrequests ? k->nrequests : r->npsend + r->nprecv;
		for (int i = 0; i < total && shown < 3 && n < len; i++) {
			const struct dl_msg *m = NULL;
			if (!k->nrequests) {
				m = i < r->npsend ? &r->psend[i] : &r->precv[i - r->npsend];
			} else {
				for (int j = 0; j < r->npsend && !m; j++)
					if (r->psend[j].req == k->requests[i])
						m = &r->psend[j];
				for (int j = 0; j < r->nprecv && !m; j++)
					if (r->precv[j].req == k->requests[i])
						m = &r->precv[j];
			}
			if (!m)
				continue;
			if (shown++)
				n += (size_t)snprintf(buf + n, len - n, ", ");
			if (n < len)
				n += desc_msg(c, r, m, relative, buf + n, len - n);
		}
		if (n < len && total > shown)
			n += (size_t)snprintf(buf + n, len - n, "%s%d more", shown ? ", " : "",
					      total - shown);
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, ")");
		break;
	}
	default:
		n = (size_t)snprintf(buf, len, "%s", k->name);
		if (k->comm >= 0 && n < len)
			n += (size_t)snprintf(buf + n, len - n, "(comm=%s)", cm);
		break;
	}
	if (n < len && (k->site.addr || k->site.file)) {
		dl_site_str(&k->site, site, sizeof site);
		snprintf(buf + n, len - n, " at %s", site);
	}
}

/* ---- union-find ---- */
static int uf_find(int *p, int x)
{
	while (p[x] != x) {
		p[x] = p[p[x]];
		x = p[x];
	}
	return x;
}

static void uf_union(int *p, int a, int b)
{
	a = uf_find(p, a);
	b = uf_find(p, b);
	if (a != b) {
		if (a < b)
			p[b] = a;
		else
			p[a] = b;
	}
}

static int is_deadlocked_rank(const struct dl_ctx *c, int n)
{
	return n < c->size && c->nstate[n] == DLN_BLOCKED && !c->released[n];
}

static int unreleased(const struct dl_ctx *c, int n)
{
	return !c->released[n];
}

/* A rank that cannot send point-to-point any more: finished, or blocked in a
 * collective (incl. MPI_Finalize). */
static int not_sending(const struct dl_ctx *c, int t)
{
	if (t < 0 || t >= c->size)
		return 0;
	if (c->nstate[t] == DLN_TERMINAL)
		return 1;
	return c->rank_vnode[t] >= 0 && !c->released[t];
}

/* ---- near misses ---- */
static const char *how_str(int how)
{
	switch (how) {
	case DLO_BLOCKED: return "blocked_send";
	case DLO_PENDING: return "pending_send";
	case DLO_RECENT: return "recent_send";
	default: return "unexpected";
	}
}

/* Add a diagnosis to f: its type, the long message, the rank and peer, the
 * evidence, and the short form for the one-line answer ("rank 1 sent tag 7,
 * rank 0 receives tag 8 — wrong tag"; NULL = none). */
static int add_diag(struct dl_finding *f, const char *type, const char *msg, int rank, int peer,
		    const char *evidence, const char *brief)
{
	if (json_object_array_length(f->diag) >= 3 * DIAG_CAP + 16) {
		f->ndiag_omitted++;
		return 0;
	}
	struct json_object *o = json_object_new_object();
	if (!o)
		return -1;
	json_object_object_add(o, "type", json_object_new_string(type));
	json_object_object_add(o, "rank", json_object_new_int(rank));
	if (peer >= 0)
		json_object_object_add(o, "peer", json_object_new_int(peer));
	if (evidence)
		json_object_object_add(o, "evidence", json_object_new_string(evidence));
	json_object_object_add(o, "message", json_object_new_string(msg));
	if (brief)
		json_object_object_add(o, "brief", json_object_new_string(brief));
	return json_object_array_add(f->diag, o);
}

/* Look for messages to r that would match clause k if one of tag, source or
 * communicator were different.  Return 1 if one was found. */
static int near_miss(struct dl_ctx *c, struct dl_finding *f, int r, const struct dl_clause *k,
		     int *counts)
{
	const struct dl_rank *me = c->ranks[r];
	int found = 0;
	int src = k->peer_world;
	for (int i = c->offer_start[r]; i < c->offer_start[r + 1]; i++) {
		const struct dl_offer *o = &c->offers[i];
		if (o->how == DLO_RECENT && me->unexp_count == 0)
			continue; /* MPI_T says nothing is waiting unmatched: it was received */
		int same_src = src == DL_ANY_SOURCE || src == o->src;
		int same_comm = o->comm == k->comm && k->comm >= 0;
		int same_tag = k->tag == DL_ANY_TAG || k->tag == DL_NO_TAG || k->tag == o->tag;
		const char *type = NULL;
		if (same_src && same_comm && !same_tag)
			type = "wrong_tag";
		else if (!same_src && same_comm && same_tag)
			type = "wrong_source";
		else if (same_src && !same_comm && same_tag && o->comm >= 0)
			type = "wrong_comm";
		if (!type)
			continue;
		found = 1;
		int ti = type[6] == 't' ? 0 : type[6] == 's' ? 1 : 2;
		if (counts[ti]++ >= DIAG_CAP) {
			f->ndiag_omitted++;
			continue;
		}
		char msg[700], what[160], tg[24], wt[24], brief[300];
		tag_str(o->tag, tg, sizeof tg);
		tag_str(k->tag, wt, sizeof wt);
		switch (o->how) {
		case DLO_BLOCKED:
			snprintf(what, sizeof what, "rank %d is blocked in %s with tag %s to rank %d on %s",
				 o->src, o->op ? o->op : "a send", tg, r, dl_comm_label(c, o->comm));
			break;
		case DLO_PENDING:
			snprintf(what, sizeof what, "rank %d has a pending %s with tag %s to rank %d on %s",
				 o->src, o->op ? o->op : "send", tg, r, dl_comm_label(c, o->comm));
			break;
		case DLO_RECENT:
			snprintf(what, sizeof what, "rank %d sent tag %s to rank %d on %s (%s, completed)",
				 o->src, tg, r, dl_comm_label(c, o->comm), o->op ? o->op : "send");
			break;
		default:
			snprintf(what, sizeof what,
				 "rank %d holds an unexpected message from rank %d with tag %s on %s", r,
				 o->src, tg, dl_comm_label(c, o->comm));
			break;
		}
		const char *verb = o->how == DLO_RECENT ? "sent" : "sends";
		if (ti == 0) {
			snprintf(msg, sizeof msg, "%s but rank %d waits for tag %s", what, r, wt);
			snprintf(brief, sizeof brief, "rank %d %s tag %s, rank %d receives tag %s \u2014 wrong tag",
				 o->src, verb, tg, r, wt);
		} else if (ti == 1) {
			snprintf(msg, sizeof msg, "%s but rank %d waits for a message from rank %d", what,
				 r, src);
			snprintf(brief, sizeof brief,
				 "rank %d %s to rank %d, which receives from rank %d \u2014 wrong source",
				 o->src, verb, r, src);
		} else {
			snprintf(msg, sizeof msg, "%s but rank %d waits for it on %s", what, r,
				 dl_comm_label(c, k->comm));
			snprintf(brief, sizeof brief,
				 "rank %d %s on %s, rank %d receives on %s \u2014 wrong communicator",
				 o->src, verb, dl_comm_label(c, o->comm), r, dl_comm_label(c, k->comm));
		}
		if (add_diag(f, type, msg, r, o->src, how_str(o->how), brief) < 0)
			return -1;
		if (!f->cause && o->how != DLO_RECENT)
			f->cause = type;
		else if (!f->cause)
			f->cause = type;
	}
	return found;
}

static int missing_send(struct dl_ctx *c, struct dl_finding *f, int r, const struct dl_clause *k,
			int *count)
{
	int t = k->peer_world;
	if (k->nt != 1 || k->na || t < 0 || t >= c->size)
		return 0;
	/* Any offer at all from t to r (pending or blocked)? Then not "missing". */
	for (int i = c->offer_start[r]; i < c->offer_start[r + 1]; i++)
		if (c->offers[i].src == t && c->offers[i].how != DLO_RECENT)
			return 0;
	if ((*count)++ >= MISSING_CAP) {
		f->ndiag_omitted++;
		return 0;
	}
	char msg[2048], mine[400], theirs[400], tg[24];
	const struct dl_rank *pr = c->ranks[t];
	dl_describe_call(c, c->ranks[r], 0, mine, sizeof mine);
	if (pr)
		dl_describe_call(c, pr, 0, theirs, sizeof theirs);
	tag_str(k->tag, tg, sizeof tg);
	if (!pr)
		snprintf(msg, sizeof msg, "rank %d waits in %s, but rank %d wrote no dump", r, mine, t);
	else if (c->nstate[t] == DLN_TERMINAL)
		snprintf(msg, sizeof msg,
			 "missing send: rank %d waits in %s, but rank %d has %s without sending it",
			 r, mine, t, pr->state == DLS_FINALIZED ? "finalized" : "exited");
	else
		snprintf(msg, sizeof msg,
			 "missing send: rank %d waits in %s, but rank %d is not sending to it (no "
			 "blocked or pending send to rank %d): it is in %s",
			 r, mine, t, r, theirs);
	char brief[300];
	if (!pr)
		snprintf(brief, sizeof brief, "rank %d waits for rank %d, which wrote no dump", r, t);
	else
		snprintf(brief, sizeof brief, "rank %d never sends to rank %d \u2014 missing send", t, r);
	return add_diag(f, "missing_send", msg, r, t, NULL, brief) < 0 ? -1 : 1;
}

/* ---- similarity ----
 * sim(a, b) = 0.4 * stack + 0.3 * call + 0.2 * args + 0.1 * state, in [0, 1]:
 *   stack: frames shared from the outermost (main) inwards, over the longer
 *          stack (call site counted as the innermost frame);
 *   call:  1 same function and communicator, 0.5 same function or same kind;
 *   args:  share of equal {peer, tag, root, bytes}, where peers are equal
 *          when the same rank or the same offset (rank+1) in the comm;
 *   state: 1 same state and reason.
 * A rank's similarity is its mean similarity to every other dumped rank.
 * Ranks that differ in nothing but their peer form one class (a ring, or
 * workers all waiting for the master, are alike). */
struct simrank {
	const struct dl_rank *r;
	int rel; /* relative peer offset in the comm, or a special value */
};

static const char *frame_key(const struct dl_frame *f)
{
	return f->symbol ? f->symbol : f->addr;
}

static int rel_peer(const struct dl_ctx *c, const struct dl_rank *r)
{
	if (!r->has_call)
		return -1000000;
	int peer = r->call.kind == DLK_SEND ? r->call.peer : r->call.peer;
	if (peer < 0)
		return peer - 1000;
	int me = my_crank(r, r->call.comm);
	int size = r->call.comm >= 0 ? c->comms[r->call.comm].size : 0;
	if (me < 0 || size <= 0)
		return peer;
	return ((peer - me) % size + size) % size;
}

static double stack_sim(const struct dl_rank *a, const struct dl_rank *b)
{
	int na = a->nstack, nb = b->nstack;
	int n = na > nb ? na : nb;
	if (n == 0)
		return 1.0;
	int common = 0;
	while (common < na && common < nb &&
	       frame_key(&a->stack[na - 1 - common]) == frame_key(&b->stack[nb - 1 - common]) &&
	       (a->stack[na - 1 - common].line == b->stack[nb - 1 - common].line))
		common++;
	double s = (double)common / n;
	/* the call site, when the stacks do not have it */
	if (a->has_call && b->has_call && a->call.site.addr && b->call.site.addr) {
		int same = a->call.site.file == b->call.site.file && a->call.site.line == b->call.site.line &&
			   (a->call.site.file || a->call.site.addr == b->call.site.addr);
		s = 0.5 * s + 0.5 * same;
	}
	return s;
}

static double sim(const struct dl_ctx *c, const struct simrank *x, const struct simrank *y)
{
	const struct dl_rank *a = x->r, *b = y->r;
	double st = (a->state == b->state && a->reason == b->reason) ? 1 : 0;
	double call = 0, args = 0;
	if (a->has_call && b->has_call) {
		if (a->call.name == b->call.name)
			call = a->call.comm >= 0 && b->call.comm >= 0 &&
					       c->comms[a->call.comm].gid == c->comms[b->call.comm].gid
				       ? 1
				       : 0.5;
		else if (a->call.kind == b->call.kind)
			call = 0.5;
		args = 0.25 * (x->rel == y->rel || a->call.peer_world == b->call.peer_world) +
		       0.25 * (a->call.tag == b->call.tag) +
		       0.25 * (a->call.root == b->call.root) + 0.25 * (a->call.bytes == b->call.bytes);
	} else if (!a->has_call && !b->has_call) {
		call = args = 1;
	}
	return 0.4 * stack_sim(a, b) + 0.3 * call + 0.2 * args + 0.1 * st;
}

/* Class key of a rank for the similarity: everything sim() looks at. */
static unsigned long long class_hash(const struct dl_ctx *c, const struct simrank *x)
{
	const struct dl_rank *r = x->r;
	unsigned long long h = 1469598103934665603ULL;
#define MIX(v)                                                                                   \
	do {                                                                                     \
		h ^= (unsigned long long)(v);                                                    \
		h *= 1099511628211ULL;                                                           \
	} while (0)
	MIX(r->state);
	MIX((uintptr_t)r->reason);
	MIX(r->has_call);
	if (r->has_call) {
		MIX((uintptr_t)r->call.name);
		MIX(r->call.kind);
		MIX(r->call.comm >= 0 ? (uintptr_t)c->comms[r->call.comm].gid : 0);
		MIX(r->call.tag);
		MIX(r->call.root);
		MIX(r->call.bytes);
		MIX((uintptr_t)r->call.site.file);
		MIX(r->call.site.line);
		MIX((uintptr_t)r->call.site.addr);
	}
	MIX(r->nstack);
	for (int i = 0; i < r->nstack; i++) {
		MIX((uintptr_t)frame_key(&r->stack[i]));
		MIX(r->stack[i].line);
	}
#undef MIX
	return h;
}

struct cls {
	unsigned long long h;
	int rep; /* index into simrank */
	int n;
	double mean;
};

static int cls_by_size(const void *a, const void *b)
{
	const struct cls *x = a, *y = b;
	return (y->n > x->n) - (y->n < x->n);
}

/* Per dumped rank: mean similarity to the others (NaN if alone). */
static double *similarity(struct dl_ctx *c)
{
	int n = c->ndumps;
	double *out = malloc(((size_t)c->size + 1) * sizeof *out);
	struct simrank *sr = malloc(((size_t)n + 1) * sizeof *sr);
	int *cls_of = malloc(((size_t)n + 1) * sizeof *cls_of);
	size_t hcap = 1;
	while (hcap < (size_t)n * 2 + 2)
		hcap <<= 1;
	int *ht = malloc(hcap * sizeof *ht);
	struct cls *cl = malloc(((size_t)n + 1) * sizeof *cl);
	int ncl = 0;
	if (!out || !sr || !cls_of || !ht || !cl)
		goto fail;
	for (size_t i = 0; i < hcap; i++)
		ht[i] = -1;
	int k = 0;
	for (int r = 0; r < c->size; r++) {
		out[r] = NAN;
		if (!c->ranks[r])
			continue;
		sr[k].r = c->ranks[r];
		sr[k].rel = rel_peer(c, c->ranks[r]);
		unsigned long long h = class_hash(c, &sr[k]);
		size_t j = h & (hcap - 1);
		while (ht[j] >= 0 && cl[ht[j]].h != h)
			j = (j + 1) & (hcap - 1);
		if (ht[j] < 0) {
			ht[j] = ncl;
			cl[ncl] = (struct cls){h, k, 0, 0};
			ncl++;
		}
		cl[ht[j]].n++;
		cls_of[k] = ht[j];
		k++;
	}
	/* Mean similarity per class against (at most SIM_CLASS_CAP of) the
	 * largest classes, weighted by their sizes. */
	int *order = malloc(((size_t)ncl + 1) * sizeof *order);
	struct cls *sorted = malloc(((size_t)ncl + 1) * sizeof *sorted);
	if (!order || !sorted) {
		free(order);
		free(sorted);
		goto fail;
	}
	memcpy(sorted, cl, (size_t)ncl * sizeof *cl);
	qsort(sorted, (size_t)ncl, sizeof *sorted, cls_by_size);
	int m = ncl < SIM_CLASS_CAP ? ncl : SIM_CLASS_CAP;
	for (int i = 0; i < ncl; i++) {
		double sum = 0, w = 0;
		int self_in = 0;
		for (int j = 0; j < m; j++) {
			double s = (sorted[j].h == cl[i].h) ? 1.0 : sim(c, &sr[cl[i].rep], &sr[sorted[j].rep]);
			if (sorted[j].h == cl[i].h)
				self_in = 1;
			sum += s * sorted[j].n;
			w += sorted[j].n;
		}
		if (!self_in) {
			sum += cl[i].n;
			w += cl[i].n;
		}
		/* exclude the rank itself */
		sum -= 1.0;
		w -= 1.0;
		cl[i].mean = w > 0 ? sum / w : NAN;
	}
	for (int i = 0; i < k; i++)
		out[sr[i].r->rank] = cl[cls_of[i]].mean;
	free(order);
	free(sorted);
	free(sr);
	free(cls_of);
	free(ht);
	free(cl);
	return out;
fail:
	free(out);
	free(sr);
	free(cls_of);
	free(ht);
	free(cl);
	return NULL;
}

struct rs {
	int rank;
	double s;
};

static int rs_cmp(const void *a, const void *b)
{
	const struct rs *x = a, *y = b;
	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	return x->rank - y->rank;
}

/* ---- findings ---- */
static int classify(struct dl_ctx *c, struct dl_finding *f)
{
	/* collective mismatch: two signatures on one comm among the unreleased */
	for (int i = 0; i < f->nranks; i++) {
		int vi = c->rank_vnode[f->ranks[i]];
		if (vi < 0)
			continue;
		for (int j = c->comm_vhead[c->v[vi].comm]; j >= 0; j = c->vnext[j]) {
			if (j == vi || c->released[c->size + j])
				continue;
			f->kind = "collective_mismatch";
			f->comm = c->v[vi].comm;
			f->cause = c->v[j].name == c->v[vi].name ? "root_mismatch" : "different_collectives";
			return 0;
		}
	}
	int or_node = 0, miss = 0, missr = 0;
	for (int i = 0; i < f->nranks; i++) {
		int r = f->ranks[i];
		for (int q = c->node_first_clause[r]; q < c->node_first_clause[r] + c->node_nclauses[r]; q++) {
			const struct dl_clause *k = &c->cl[q];
			if (k->sat)
				continue;
			if (k->nt + k->na > 1 || k->na)
				or_node = 1;
			if (k->nt == 1 && !k->na && not_sending(c, c->tgt[k->t0])) {
				if (k->what == DLW_RECV)
					miss = 1;
				else if (k->what == DLW_SEND)
					missr = 1;
			}
		}
	}
	f->kind = miss ? "missing_send" : missr ? "missing_recv" : or_node ? "knot" : "cycle";
	return 0;
}

/* Follow unsatisfied clauses from the first rank: a path that ends in a
 * repeat (a cycle) or at a rank that can never go on. */
static int make_path(struct dl_ctx *c, struct dl_finding *f, int *mark)
{
	int cap = 64;
	f->path = malloc((size_t)cap * sizeof *f->path);
	if (!f->path)
		return -1;
	int x = f->ranks[0];
	f->npath = 0;
	f->path_cycle = 0;
	while (f->npath < cap) {
		if (mark[x] >= 0) {
			f->path_cycle = 1;
			f->loop_at = mark[x];
			break;
		}
		mark[x] = f->npath;
		f->path[f->npath++] = x;
		if (c->nstate[x] == DLN_TERMINAL)
			break;
		int next = -1;
		for (int q = c->node_first_clause[x];
		     q < c->node_first_clause[x] + c->node_nclauses[x] && next < 0; q++) {
			const struct dl_clause *k = &c->cl[q];
			if (k->sat)
				continue;
			for (int j = 0; j < k->nt && next < 0; j++)
				if (unreleased(c, c->tgt[k->t0 + j]))
					next = c->tgt[k->t0 + j];
			for (int j = 0; j < k->na && next < 0; j++) {
				int g = c->anyc[k->a0 + j];
				for (int i = 0; i < c->comms[g].size && next < 0; i++) {
					int w = dl_comm_world(c, g, i);
					if (w >= 0 && w != x && unreleased(c, w))
						next = w;
				}
			}
		}
		if (next < 0)
			break;
		x = next;
	}
	for (int i = 0; i < f->npath; i++)
		mark[f->path[i]] = -1;
	return 0;
}

int dl_diagnose(struct dl_ctx *c)
{
	int rv = -1;
	int n = c->nnodes;
	int *uf = malloc(((size_t)n + 1) * sizeof *uf);
	int *comm_rep = malloc(((size_t)c->ncomm + 1) * sizeof *comm_rep);
	int *fidx = malloc(((size_t)n + 1) * sizeof *fidx);
	int *mark = malloc(((size_t)n + 1) * sizeof *mark);
	double *simv = NULL;
	c->deadlocked = calloc((size_t)n + 1, sizeof *c->deadlocked);
	if (!uf || !comm_rep || !fidx || !mark || !c->deadlocked)
		goto out;
	for (int i = 0; i < n; i++) {
		uf[i] = i;
		fidx[i] = -1;
		mark[i] = -1;
	}
	for (int g = 0; g < c->ncomm; g++)
		comm_rep[g] = -2;
	for (int q = 0; q < c->ncl; q++) {
		const struct dl_clause *k = &c->cl[q];
		if (k->sat || c->released[k->owner])
			continue;
		for (int j = 0; j < k->nt; j++)
			if (unreleased(c, c->tgt[k->t0 + j]))
				uf_union(uf, k->owner, c->tgt[k->t0 + j]);
		for (int j = 0; j < k->na; j++) {
			int g = c->anyc[k->a0 + j];
			if (comm_rep[g] == -2) {
				comm_rep[g] = -1;
				for (int i = 0; i < c->comms[g].size; i++) {
					int w = dl_comm_world(c, g, i);
					if (w < 0 || !unreleased(c, w))
						continue;
					if (comm_rep[g] < 0)
						comm_rep[g] = w;
					else
						uf_union(uf, comm_rep[g], w);
				}
			}
			if (comm_rep[g] >= 0)
				uf_union(uf, k->owner, comm_rep[g]);
		}
	}
	/* One finding per component holding a deadlocked rank. */
	for (int r = 0; r < c->size; r++) {
		if (!is_deadlocked_rank(c, r))
			continue;
		int root = uf_find(uf, r);
		if (fidx[root] < 0) {
			struct dl_finding *nf =
				realloc(c->findings, ((size_t)c->nfindings + 1) * sizeof *nf);
			if (!nf)
				goto out;
			c->findings = nf;
			struct dl_finding *f = &c->findings[c->nfindings];
			memset(f, 0, sizeof *f);
			f->comm = -1;
			f->diag = json_object_new_array();
			if (!f->diag)
				goto out;
			fidx[root] = c->nfindings++;
		}
		struct dl_finding *f = &c->findings[fidx[root]];
		int *nr = realloc(f->ranks, ((size_t)f->nranks + 1) * sizeof *nr);
		if (!nr)
			goto out;
		f->ranks = nr;
		f->ranks[f->nranks++] = r;
		c->deadlocked[r] = fidx[root] + 1;
	}
	for (int t = 0; t < c->size; t++) {
		if (c->nstate[t] != DLN_TERMINAL)
			continue;
		int root = uf_find(uf, t);
		if (fidx[root] < 0)
			continue;
		struct dl_finding *f = &c->findings[fidx[root]];
		int *nt = realloc(f->terminal, ((size_t)f->nterminal + 1) * sizeof *nt);
		if (!nt)
			goto out;
		f->terminal = nt;
		f->terminal[f->nterminal++] = t;
	}
	/* A deadlock holds at one moment: every member must have been stuck
	 * when the last of them entered its call.  Dumps are written once per
	 * stuck call and stay behind when the call returns, so a dump older
	 * than another member's call may be stale. */
	for (int fi = 0; fi < c->nfindings && c->opt.skew >= 0; fi++) {
		struct dl_finding *f = &c->findings[fi];
		int late = -1, early = -1;
		for (int i = 0; i < f->nranks; i++) {
			const struct dl_rank *p = c->ranks[f->ranks[i]];
			if (!p || p->enter_unix <= 0 || p->dump_unix <= 0)
				continue;
			if (late < 0 || p->enter_unix > c->ranks[late]->enter_unix)
				late = p->rank;
			if (early < 0 || p->dump_unix < c->ranks[early]->dump_unix)
				early = p->rank;
		}
		if (late < 0 || early < 0 || late == early)
			continue;
		double gap = c->ranks[late]->enter_unix - c->ranks[early]->dump_unix;
		if (gap <= c->opt.skew)
			continue;
		f->unconfirmed = 1;
		snprintf(f->stale_msg, sizeof f->stale_msg,
			 "the dumps are not from one moment: rank %d's dump was written %.1f s before "
			 "rank %d entered its call, so rank %d may have gone on since (a stale dump); "
			 "if these ranks are still stuck, take fresh dumps and analyse again",
			 early, gap, late, early);
		for (int i = 0; i < f->nranks; i++)
			c->deadlocked[f->ranks[i]] = 0;
	}
	{
		/* confirmed findings first, keeping their order */
		struct dl_finding *tmp = malloc(((size_t)c->nfindings + 1) * sizeof *tmp);
		if (!tmp)
			goto out;
		int k = 0;
		for (int pass = 0; pass < 2; pass++)
			for (int fi = 0; fi < c->nfindings; fi++)
				if (c->findings[fi].unconfirmed == pass)
					tmp[k++] = c->findings[fi];
		if (c->nfindings)
			memcpy(c->findings, tmp, (size_t)c->nfindings * sizeof *tmp);
		free(tmp);
		c->nconfirmed = 0;
		for (int fi = 0; fi < c->nfindings; fi++) {
			if (c->findings[fi].unconfirmed)
				continue;
			c->nconfirmed++;
			for (int i = 0; i < c->findings[fi].nranks; i++)
				c->deadlocked[c->findings[fi].ranks[i]] = fi + 1;
		}
	}
	if (c->nfindings)
		simv = similarity(c);
	for (int fi = 0; fi < c->nfindings; fi++) {
		struct dl_finding *f = &c->findings[fi];
		if (classify(c, f) < 0 || make_path(c, f, mark) < 0)
			goto out;
		int counts[3] = {0, 0, 0}, mcount = 0;
		const char *structural_cause = f->cause;
		f->cause = NULL;
		for (int i = 0; i < f->nranks; i++) {
			int r = f->ranks[i];
			for (int q = c->node_first_clause[r];
			     q < c->node_first_clause[r] + c->node_nclauses[r]; q++) {
				const struct dl_clause *k = &c->cl[q];
				if (k->sat || k->what != DLW_RECV)
					continue;
				int nm = near_miss(c, f, r, k, counts);
				if (nm < 0)
					goto out;
				if (!nm && missing_send(c, f, r, k, &mcount) < 0)
					goto out;
			}
		}
		if (structural_cause)
			f->cause = structural_cause;
		/* least similar */
		if (simv && c->opt.top > 0) {
			struct rs *v = malloc(((size_t)f->nranks + 1) * sizeof *v);
			if (!v)
				goto out;
			int nv = 0;
			for (int i = 0; i < f->nranks; i++)
				if (!isnan(simv[f->ranks[i]]))
					v[nv++] = (struct rs){f->ranks[i], simv[f->ranks[i]]};
			qsort(v, (size_t)nv, sizeof *v, rs_cmp);
			/* Only ranks that stand out from the most similar ones: in a
			 * symmetric case (a ring) every rank is alike and none is named. */
			double most = nv ? v[nv - 1].s : 0;
			for (int i = 0; i < nv && i < c->opt.top; i++) {
				char msg[700], d[500];
				if (v[i].s >= 0.999 || most - v[i].s < 0.01)
					break; /* alike: nobody stands out */
				dl_describe_call(c, c->ranks[v[i].rank], 0, d, sizeof d);
				snprintf(msg, sizeof msg,
					 "rank %d is among the least similar (similarity %.3f): %s",
					 v[i].rank, v[i].s, d);
				struct json_object *o = json_object_new_object();
				json_object_object_add(o, "type", json_object_new_string("least_similar"));
				json_object_object_add(o, "rank", json_object_new_int(v[i].rank));
				json_object_object_add(o, "similarity",
						       json_object_new_double(round(v[i].s * 1000) / 1000));
				json_object_object_add(o, "message", json_object_new_string(msg));
				json_object_array_add(f->diag, o);
			}
			free(v);
		}
	}
	if (dl_find_cores(c) < 0)
		goto out;
	rv = 0;
out:
	free(uf);
	free(comm_rep);
	free(fidx);
	free(mark);
	free(simv);
	if (rv < 0)
		errno = ENOMEM;
	return rv;
}
