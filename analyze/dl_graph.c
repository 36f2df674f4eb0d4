/* dl_graph.c - the AND/OR wait-for graph of the stuck ranks and its reduction.
 *
 * Nodes are the world ranks plus one virtual node per collective "signature"
 * (communicator, collective name, root).  A blocked node holds clauses; it
 * can go on when every clause is satisfied (AND); a clause is satisfied as
 * soon as one of its targets can go on (OR).  A receive from a given source
 * is a one-target clause, MPI_ANY_SOURCE is a clause over every other member
 * of the communicator, MPI_Waitany/Waitsome merge the clauses of their
 * requests into one OR clause, a collective waits on its signature's virtual
 * node, which waits for every member of the communicator that is not in the
 * same signature.  Requirements that a peer satisfies right now (a matching
 * blocked or pending send, a matching unexpected message, a matching posted
 * receive for a send) produce no clause.
 *
 * Ranks without a dump (computing, finished, or not stuck for the timeout)
 * and ranks in calls we do not model are assumed able to go on.  Finalized
 * and exited ranks can never go on.  The reduction releases every node whose
 * clauses can all be satisfied by released nodes; what is left among the
 * stuck ranks is deadlocked (for AND-only parts this is a cycle, with OR
 * nodes a knot, as in MUST's AND/OR wait-for graph).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dl_int.h"

static int push_int(int **v, int *n, int *cap, int x)
{
	if (*n == *cap) {
		int ncap = *cap ? *cap * 2 : 1024;
		int *nv = realloc(*v, (size_t)ncap * sizeof *nv);
		if (!nv)
			return -1;
		*v = nv;
		*cap = ncap;
	}
	(*v)[(*n)++] = x;
	return 0;
}

static struct dl_clause *new_clause(struct dl_ctx *c, int owner, int what)
{
	if (c->ncl == c->capcl) {
		int ncap = c->capcl ? c->capcl * 2 : 1024;
		struct dl_clause *n = realloc(c->cl, (size_t)ncap * sizeof *n);
		if (!n)
			return NULL;
		c->cl = n;
		c->capcl = ncap;
	}
	struct dl_clause *k = &c->cl[c->ncl++];
	memset(k, 0, sizeof *k);
	k->owner = owner;
	k->what = what;
	k->t0 = c->ntgt;
	k->a0 = c->nanyc;
	k->comm = -1;
	k->tag = DL_NO_TAG;
	k->peer_world = -1;
	return k;
}

static int tag_ok(int want, int have)
{
	return want == DL_ANY_TAG || want == DL_NO_TAG || want == have;
}

/* Does an offer to r (from src, comm, tag) satisfy a receive? */
static int offer_matches(const struct dl_offer *o, int src, int comm, int tag)
{
	return o->comm == comm && comm >= 0 && (src == DL_ANY_SOURCE || src == o->src) &&
	       tag_ok(tag, o->tag);
}

static int recv_satisfied_now(const struct dl_ctx *c, int r, int src, int comm, int tag)
{
	if (src == DL_PROC_NULL)
		return 1;
	for (int i = c->offer_start[r]; i < c->offer_start[r + 1]; i++) {
		const struct dl_offer *o = &c->offers[i];
		if (o->how != DLO_RECENT && offer_matches(o, src, comm, tag))
			return 1;
	}
	return 0;
}

/* A nonblocking collective: peer -1 in pending_recvs and not a receive op. */
static int is_nbc(const struct dl_msg *m)
{
	return m->peer == DL_PROC_NULL && m->op && !strstr(m->op, "recv") && !strstr(m->op, "Recv");
}

/* Has rank d posted a receive (blocked or pending) that a send from r
 * (comm, tag) would match? */
static int recv_posted(const struct dl_ctx *c, int d, int r, int comm, int tag)
{
	const struct dl_rank *p = (d >= 0 && d < c->size) ? c->ranks[d] : NULL;
	if (!p || comm < 0)
		return 0;
	if (p->state == DLS_IN_MPI && p->has_call) {
		const struct dl_call *k = &p->call;
		if ((k->kind == DLK_RECV || k->kind == DLK_PROBE || k->kind == DLK_SENDRECV) &&
		    k->comm == comm && (k->peer_world == r || k->peer_world == DL_ANY_SOURCE) &&
		    (k->tag == DL_ANY_TAG || k->tag == DL_NO_TAG || k->tag == tag))
			return 1;
	}
	for (int i = 0; i < p->nprecv; i++) {
		const struct dl_msg *m = &p->precv[i];
		if (m->persistent && !m->active)
			continue;
		if (is_nbc(m))
			continue;
		if (m->comm == comm && (m->peer_world == r || m->peer_world == DL_ANY_SOURCE) &&
		    (m->tag == DL_ANY_TAG || m->tag == DL_NO_TAG || m->tag == tag))
			return 1;
	}
	return 0;
}

static int add_offer(struct dl_ctx *c, struct dl_offer **v, int *n, int *cap, int src, int dst,
		     int comm, int tag, int how, const char *op)
{
	if (dst < 0 || dst >= c->size)
		return 0;
	if (*n == *cap) {
		int ncap = *cap ? *cap * 2 : 1024;
		struct dl_offer *nv = realloc(*v, (size_t)ncap * sizeof *nv);
		if (!nv)
			return -1;
		*v = nv;
		*cap = ncap;
	}
	(*v)[(*n)++] = (struct dl_offer){src, dst, comm, tag, how, op};
	return 0;
}

static int build_offers(struct dl_ctx *c)
{
	struct dl_offer *v = NULL;
	int n = 0, cap = 0;
	for (int r = 0; r < c->size; r++) {
		const struct dl_rank *p = c->ranks[r];
		if (!p)
			continue;
		int rc = 0;
		if (p->state == DLS_IN_MPI && p->has_call) {
			const struct dl_call *k = &p->call;
			if (k->kind == DLK_SEND)
				rc |= add_offer(c, &v, &n, &cap, r, k->peer_world, k->comm, k->tag,
						DLO_BLOCKED, k->name);
			else if (k->kind == DLK_SENDRECV)
				rc |= add_offer(c, &v, &n, &cap, r, k->send_peer_world, k->comm,
						k->send_tag, DLO_BLOCKED, k->name);
		}
		for (int i = 0; i < p->npsend; i++) {
			const struct dl_msg *m = &p->psend[i];
			if (m->persistent && !m->active)
				continue;
			rc |= add_offer(c, &v, &n, &cap, r, m->peer_world, m->comm, m->tag, DLO_PENDING,
					m->op);
		}
		for (int i = 0; i < p->nrecent; i++) {
			const struct dl_msg *m = &p->recent[i];
			rc |= add_offer(c, &v, &n, &cap, r, m->peer_world, m->comm, m->tag, DLO_RECENT,
					m->op);
		}
		for (int i = 0; i < p->nunexp; i++) {
			const struct dl_msg *m = &p->unexp[i];
			if (m->peer_world < 0)
				continue;
			rc |= add_offer(c, &v, &n, &cap, m->peer_world, r, m->comm, m->tag,
					DLO_UNEXPECTED, m->op);
		}
		if (rc) {
			free(v);
			return -1;
		}
	}
	/* CSR by destination. */
	c->offer_start = calloc((size_t)c->size + 2, sizeof *c->offer_start);
	c->offers = malloc(((size_t)n + 1) * sizeof *c->offers);
	if (!c->offer_start || !c->offers) {
		free(v);
		return -1;
	}
	for (int i = 0; i < n; i++)
		c->offer_start[v[i].dst + 1]++;
	for (int i = 0; i < c->size; i++)
		c->offer_start[i + 1] += c->offer_start[i];
	int *pos = malloc(((size_t)c->size + 1) * sizeof *pos);
	if (!pos) {
		free(v);
		return -1;
	}
	memcpy(pos, c->offer_start, (size_t)c->size * sizeof *pos);
	for (int i = 0; i < n; i++)
		c->offers[pos[v[i].dst]++] = v[i];
	c->noffers = n;
	free(pos);
	free(v);
	return 0;
}

static int find_vnode(struct dl_ctx *c, int comm, const char *name, int root, long seq)
{
	for (int i = c->comm_vhead[comm]; i >= 0; i = c->vnext[i])
		if (c->v[i].name == name && c->v[i].root == root && c->v[i].seq == seq)
			return i;
	int cap = c->nv;
	/* grow by powers of two */
	if ((cap & (cap - 1)) == 0) {
		int ncap = cap ? cap * 2 : 16;
		struct dl_vnode *nv = realloc(c->v, (size_t)ncap * sizeof *nv);
		if (!nv)
			return -1;
		c->v = nv;
		int *nn = realloc(c->vnext, (size_t)ncap * sizeof *nn);
		if (!nn)
			return -1;
		c->vnext = nn;
	}
	int i = c->nv++;
	c->v[i] = (struct dl_vnode){comm, name, root, seq, 0, -1};
	c->vnext[i] = c->comm_vhead[comm];
	c->comm_vhead[comm] = i;
	return i;
}

/* Node ids of virtual nodes are assigned after all ranks: size + index.  While
 * building, a clause target on a vnode is stored as -(index + 3) and fixed up. */
#define VREF(i) (-((i) + 3))
#define IS_VREF(x) ((x) <= -3)
#define VIDX(x) (-(x) - 3)

/* Add the requirement of one receive-like operation to clause k (OR). */
static int req_recv(struct dl_ctx *c, struct dl_clause *k, int r, int src, int comm, int tag,
		    int *satisfied)
{
	(void)k;
	if (recv_satisfied_now(c, r, src, comm, tag)) {
		*satisfied = 1;
		return 0;
	}
	if (comm < 0) {
		*satisfied = 1; /* unknown communicator: cannot judge */
		return 0;
	}
	if (src == DL_ANY_SOURCE) {
		if (!c->comms[comm].known) {
			*satisfied = 1;
			return 0;
		}
		return push_int(&c->anyc, &c->nanyc, &c->capanyc, comm);
	}
	if (src < 0 || src >= c->size) {
		*satisfied = 1;
		return 0;
	}
	return push_int(&c->tgt, &c->ntgt, &c->captgt, src);
}

static int req_send(struct dl_ctx *c, int r, int dst, int comm, int tag, int *satisfied)
{
	if (dst < 0 || dst >= c->size || comm < 0 || recv_posted(c, dst, r, comm, tag)) {
		*satisfied = 1;
		return 0;
	}
	return push_int(&c->tgt, &c->ntgt, &c->captgt, dst);
}

static int req_coll(struct dl_ctx *c, int r, int comm, const char *name, int root, long seq,
		    int *satisfied)
{
	if (comm < 0 || !c->comms[comm].known || c->comms[comm].inter) {
		*satisfied = 1;
		return 0;
	}
	int vi = find_vnode(c, comm, name, root, seq);
	if (vi < 0)
		return -1;
	c->v[vi].nmembers_in++;
	if (c->v[vi].first_rank < 0)
		c->v[vi].first_rank = r;
	return push_int(&c->tgt, &c->ntgt, &c->captgt, VREF(vi));
}

static const struct dl_msg *find_req(const struct dl_rank *p, long id, int *is_send)
{
	for (int i = 0; i < p->npsend; i++)
		if (p->psend[i].req == id) {
			*is_send = 1;
			return &p->psend[i];
		}
	for (int i = 0; i < p->nprecv; i++)
		if (p->precv[i].req == id) {
			*is_send = 0;
			return &p->precv[i];
		}
	return NULL;
}

static int send_needs_receiver(const struct dl_ctx *c, enum dl_mode mode, long bytes)
{
	return mode == DLM_SYNC || bytes > c->opt.eager_limit;
}

/* One request's requirement, added to clause k.  Sets *sat if it needs nothing. */
static int req_msg(struct dl_ctx *c, struct dl_clause *k, int r, const struct dl_msg *m,
		   int is_send, int *sat)
{
	if (m->persistent && !m->active) {
		*sat = 1;
		return 0;
	}
	if (is_send) {
		if (!send_needs_receiver(c, m->mode, m->bytes)) {
			*sat = 1;
			return 0;
		}
		if (k->comm < 0) {
			k->what = DLW_SEND;
			k->comm = m->comm;
			k->tag = m->tag;
			k->peer_world = m->peer_world;
			k->op = m->op;
		}
		return req_send(c, r, m->peer_world, m->comm, m->tag, sat);
	}
	if (is_nbc(m)) {
		if (k->comm < 0) {
			k->what = DLW_COLL;
			k->comm = m->comm;
			k->op = m->op;
		}
		return req_coll(c, r, m->comm, m->op, m->root, m->seq, sat);
	}
	if (k->comm < 0) {
		k->what = DLW_RECV;
		k->comm = m->comm;
		k->tag = m->tag;
		k->peer_world = m->peer_world;
		k->op = m->op;
	}
	return req_recv(c, k, r, m->peer_world, m->comm, m->tag, sat);
}

/* Close clause k: if it was satisfied, drop it (and its targets). */
static void close_clause(struct dl_ctx *c, struct dl_clause *k, int sat)
{
	if (sat) {
		c->ntgt = k->t0;
		c->nanyc = k->a0;
		c->ncl--;
		return;
	}
	k->nt = c->ntgt - k->t0;
	k->na = c->nanyc - k->a0;
}

/* Add rank r's clauses.  Return 0, 1 if what it waits for cannot be
 * judged (no clauses added), or -1 when out of memory. */
static int rank_clauses(struct dl_ctx *c, int r)
{
	const struct dl_rank *p = c->ranks[r];
	const struct dl_call *k = &p->call;
	int sat = 0;
	struct dl_clause *cl;

	if (k->name && !strcmp(k->name, "MPI_Finalize")) {
		if (c->world < 0)
			return 0;
		if (!(cl = new_clause(c, r, DLW_COLL)))
			return -1;
		cl->comm = c->world;
		cl->op = k->name;
		if (req_coll(c, r, c->world, k->name, -1, 0, &sat) < 0)
			return -1;
		if (!sat)
			c->rank_vnode[r] = VIDX(c->tgt[c->ntgt - 1]);
		close_clause(c, cl, sat);
		return 0;
	}
	switch (k->kind) {
	case DLK_RECV:
	case DLK_PROBE:
		if (!(cl = new_clause(c, r, DLW_RECV)))
			return -1;
		cl->comm = k->comm;
		cl->tag = k->tag;
		cl->peer_world = k->peer_world;
		cl->op = k->name;
		if (req_recv(c, cl, r, k->peer_world, k->comm, k->tag, &sat) < 0)
			return -1;
		close_clause(c, cl, sat);
		return 0;
	case DLK_SEND:
		if (!(cl = new_clause(c, r, DLW_SEND)))
			return -1;
		cl->comm = k->comm;
		cl->tag = k->tag;
		cl->peer_world = k->peer_world;
		cl->op = k->name;
		if (req_send(c, r, k->peer_world, k->comm, k->tag, &sat) < 0)
			return -1;
		close_clause(c, cl, sat);
		return 0;
	case DLK_SENDRECV:
		if (!(cl = new_clause(c, r, DLW_RECV)))
			return -1;
		cl->comm = k->comm;
		cl->tag = k->tag;
		cl->peer_world = k->peer_world;
		cl->op = k->name;
		if (req_recv(c, cl, r, k->peer_world, k->comm, k->tag, &sat) < 0)
			return -1;
		close_clause(c, cl, sat);
		if (send_needs_receiver(c, k->mode, k->bytes)) {
			sat = 0;
			if (!(cl = new_clause(c, r, DLW_SEND)))
				return -1;
			cl->comm = k->comm;
			cl->tag = k->send_tag;
			cl->peer_world = k->send_peer_world;
			cl->op = k->name;
			if (req_send(c, r, k->send_peer_world, k->comm, k->send_tag, &sat) < 0)
				return -1;
			close_clause(c, cl, sat);
		}
		return 0;
	case DLK_COLLECTIVE: {
		if (!(cl = new_clause(c, r, DLW_COLL)))
			return -1;
		cl->comm = k->comm;
		cl->op = k->name;
		int root = -1;
		if (k->root >= 0)
			root = k->root;
		if (req_coll(c, r, k->comm, k->name, root, 0, &sat) < 0)
			return -1;
		if (!sat && k->comm >= 0)
			c->rank_vnode[r] = VIDX(c->tgt[c->ntgt - 1]);
		close_clause(c, cl, sat);
		return 0;
	}
	case DLK_WAIT:
	case DLK_TEST: {
		/* The requests waited on; none listed: every pending request.
		 * Requests the monitor could not track ("nrequests" above the
		 * listed ones) are unknown: an OR over them may complete, and a
		 * wait on nothing but them is not judged. */
		int nreq = k->nrequests;
		if (k->nrequests_total > nreq && (k->any || nreq == 0))
			return 1;
		int all = nreq == 0;
		int total = all ? p->npsend + p->nprecv : nreq;
		if (k->any) {
			if (!(cl = new_clause(c, r, DLW_RECV)))
				return -1;
			for (int i = 0; i < total && !sat; i++) {
				const struct dl_msg *m;
				int is_send = 0, s1 = 0;
				if (all) {
					is_send = i < p->npsend;
					m = is_send ? &p->psend[i] : &p->precv[i - p->npsend];
				} else if (!(m = find_req(p, k->requests[i], &is_send))) {
					sat = 1; /* completed or unknown: it can complete */
					break;
				}
				if (req_msg(c, cl, r, m, is_send, &s1) < 0)
					return -1;
				if (s1)
					sat = 1;
			}
			if (total == 0)
				sat = 1;
			close_clause(c, cl, sat);
			return 0;
		}
		for (int i = 0; i < total; i++) {
			const struct dl_msg *m;
			int is_send = 0;
			sat = 0;
			if (all) {
				is_send = i < p->npsend;
				m = is_send ? &p->psend[i] : &p->precv[i - p->npsend];
			} else if (!(m = find_req(p, k->requests[i], &is_send))) {
				continue;
			}
			if (!(cl = new_clause(c, r, DLW_RECV)))
				return -1;
			if (req_msg(c, cl, r, m, is_send, &sat) < 0)
				return -1;
			/* Waiting for a nonblocking collective: the rank is in that
			 * collective's signature, as if it were blocked in it. */
			if (!sat && cl->what == DLW_COLL && c->rank_vnode[r] < 0 && c->ntgt > 0)
				c->rank_vnode[r] = VIDX(c->tgt[c->ntgt - 1]);
			close_clause(c, cl, sat);
		}
		return 0;
	}
	default:
		return 0;
	}
}

/* Is rank w part of signature vnode vi (blocked in it, or a pending
 * nonblocking collective of that name on that comm)? */
static int in_sig(const struct dl_ctx *c, int w, int vi)
{
	if (c->rank_vnode[w] == vi)
		return 1;
	const struct dl_rank *p = c->ranks[w];
	if (!p || p->state != DLS_IN_MPI)
		return 0;
	const struct dl_vnode *v = &c->v[vi];
	for (int i = 0; i < p->nprecv; i++)
		if (p->precv[i].comm == v->comm && p->precv[i].op == v->name && p->precv[i].root == v->root &&
		    p->precv[i].seq == v->seq && is_nbc(&p->precv[i]))
			return 1;
	return 0;
}

/* Issue 35 item 12: has rank w gone past nonblocking collective number
 * v->seq on v's comm?  Every rank starts them in the same order, so a rank
 * that started that many and has none of that number pending completed it:
 * it does not hold the collective back.  One that has another collective
 * pending under that number (a call-order mismatch) does. */
static int past_nbc(const struct dl_ctx *c, int w, const struct dl_vnode *v)
{
	const struct dl_rank *p = c->ranks[w];
	if (!v->seq || !p || !p->nbc_started)
		return 0;
	for (int i = 0; i < p->nprecv; i++)
		if (p->precv[i].comm == v->comm && p->precv[i].seq == v->seq)
			return 0;
	for (int i = 0; i < p->ncomms; i++)
		if (p->comms[i] == v->comm)
			return p->nbc_started[i] >= v->seq;
	return 0;
}

int dl_build_graph(struct dl_ctx *c)
{
	c->world = dl_comm_lookup(c, "world");
	if (build_offers(c) < 0)
		return -1;
	c->rank_vnode = malloc(((size_t)c->size + 1) * sizeof *c->rank_vnode);
	c->comm_vhead = malloc(((size_t)c->ncomm + 1) * sizeof *c->comm_vhead);
	c->nstate = calloc((size_t)c->size + 1, 1);
	if (!c->rank_vnode || !c->comm_vhead || !c->nstate)
		return -1;
	for (int i = 0; i < c->size; i++)
		c->rank_vnode[i] = -1;
	for (int i = 0; i < c->ncomm; i++)
		c->comm_vhead[i] = -1;
	int *first = malloc(((size_t)c->size + 1) * sizeof *first);
	int *cnt = malloc(((size_t)c->size + 1) * sizeof *cnt);
	if (!first || !cnt) {
		free(first);
		free(cnt);
		return -1;
	}
	for (int r = 0; r < c->size; r++) {
		const struct dl_rank *p = c->ranks[r];
		first[r] = c->ncl;
		cnt[r] = 0;
		if (!p || p->state == DLS_COMPUTING) {
			c->nstate[r] = DLN_FREE;
			continue;
		}
		if (p->state == DLS_FINALIZED || p->state == DLS_EXITED) {
			c->nstate[r] = DLN_TERMINAL;
			continue;
		}
		const struct dl_call *k = &p->call;
		int modeled = k->kind == DLK_RECV || k->kind == DLK_PROBE || k->kind == DLK_SEND ||
			      k->kind == DLK_SENDRECV || k->kind == DLK_COLLECTIVE ||
			      k->kind == DLK_WAIT || k->kind == DLK_TEST ||
			      (k->name && !strcmp(k->name, "MPI_Finalize"));
		if (!modeled) {
			c->nstate[r] = DLN_UNKNOWN;
			continue;
		}
		c->nstate[r] = DLN_BLOCKED;
		int rc = rank_clauses(c, r);
		if (rc < 0) {
			free(first);
			free(cnt);
			return -1;
		}
		if (rc == 1)
			c->nstate[r] = DLN_UNKNOWN; /* waits on requests nobody tracked */
		cnt[r] = c->ncl - first[r];
	}
	/* Virtual nodes: wait for every member not in the signature. */
	c->nnodes = c->size + c->nv;
	int *nf = realloc(first, ((size_t)c->nnodes + 1) * sizeof *nf);
	if (!nf) {
		free(first);
		free(cnt);
		return -1;
	}
	first = nf;
	int *nc = realloc(cnt, ((size_t)c->nnodes + 1) * sizeof *nc);
	if (!nc) {
		free(first);
		free(cnt);
		return -1;
	}
	cnt = nc;
	unsigned char *ns = realloc(c->nstate, (size_t)c->nnodes + 1);
	if (!ns)
		goto oom;
	c->nstate = ns;
	for (int vi = 0; vi < c->nv; vi++) {
		int node = c->size + vi;
		const struct dl_comm *m = &c->comms[c->v[vi].comm];
		first[node] = c->ncl;
		c->nstate[node] = DLN_BLOCKED;
		for (int i = 0; i < m->size; i++) {
			int w = dl_comm_world(c, c->v[vi].comm, i);
			if (w < 0 || in_sig(c, w, vi) || past_nbc(c, w, &c->v[vi]))
				continue;
			struct dl_clause *cl = new_clause(c, node, DLW_MEMBER);
			if (!cl || push_int(&c->tgt, &c->ntgt, &c->captgt, w) < 0)
				goto oom;
			cl->comm = c->v[vi].comm;
			cl->op = c->v[vi].name;
			close_clause(c, cl, 0);
		}
		cnt[node] = c->ncl - first[node];
	}
	for (int i = 0; i < c->ntgt; i++)
		if (IS_VREF(c->tgt[i]))
			c->tgt[i] = c->size + VIDX(c->tgt[i]);
	c->node_first_clause = first;
	c->node_nclauses = cnt;
	return 0;
oom:
	free(first);
	free(cnt);
	errno = ENOMEM;
	return -1;
}

/* ---- reduction ---- */
struct solver {
	struct dl_ctx *c;
	int *rev_start, *rev; /* node -> clauses naming it */
	int *crev_start, *crev; /* comm -> clauses naming it whole */
	int *mem_start, *mem; /* rank -> comms (with any-clauses) it belongs to */
	int *trig_first;
	unsigned char *trig;
	int *work, nwork;
};

static void release(struct solver *s, int n)
{
	struct dl_ctx *c = s->c;
	if (c->released[n] || c->nstate[n] == DLN_TERMINAL)
		return;
	c->released[n] = 1;
	s->work[s->nwork++] = n;
}

static void satisfy(struct solver *s, int ci, int by)
{
	struct dl_ctx *c = s->c;
	struct dl_clause *k = &c->cl[ci];
	if (k->sat)
		return;
	k->sat = 1;
	if (--c->unsat[k->owner] == 0) {
		c->why[k->owner] = by;
		release(s, k->owner);
	}
}

int dl_solve(struct dl_ctx *c)
{
	int rv = -1;
	struct solver s = {.c = c};
	int n = c->nnodes;
	c->released = calloc((size_t)n + 1, 1);
	c->unsat = calloc((size_t)n + 1, sizeof *c->unsat);
	c->why = malloc(((size_t)n + 1) * sizeof *c->why);
	if (c->why)
		for (int i = 0; i < n; i++)
			c->why[i] = -1;
	s.rev_start = calloc((size_t)n + 2, sizeof *s.rev_start);
	s.rev = malloc(((size_t)c->ntgt + 1) * sizeof *s.rev);
	s.crev_start = calloc((size_t)c->ncomm + 2, sizeof *s.crev_start);
	s.crev = malloc(((size_t)c->nanyc + 1) * sizeof *s.crev);
	s.trig_first = calloc((size_t)c->ncomm + 1, sizeof *s.trig_first);
	s.trig = calloc((size_t)c->ncomm + 1, 1);
	s.work = malloc(((size_t)n + 1) * sizeof *s.work);
	if (!c->released || !c->unsat || !c->why || !s.rev_start || !s.rev || !s.crev_start || !s.crev ||
	    !s.trig_first || !s.trig || !s.work)
		goto out;
	for (int i = 0; i < c->ncl; i++) {
		const struct dl_clause *k = &c->cl[i];
		c->unsat[k->owner]++;
		for (int j = 0; j < k->nt; j++)
			s.rev_start[c->tgt[k->t0 + j] + 1]++;
		for (int j = 0; j < k->na; j++)
			s.crev_start[c->anyc[k->a0 + j] + 1]++;
	}
	for (int i = 0; i < n; i++)
		s.rev_start[i + 1] += s.rev_start[i];
	for (int i = 0; i < c->ncomm; i++)
		s.crev_start[i + 1] += s.crev_start[i];
	{
		int *pos = malloc(((size_t)n + 1) * sizeof *pos);
		int *cpos = malloc(((size_t)c->ncomm + 1) * sizeof *cpos);
		if (!pos || !cpos) {
			free(pos);
			free(cpos);
			goto out;
		}
		memcpy(pos, s.rev_start, (size_t)n * sizeof *pos);
		memcpy(cpos, s.crev_start, (size_t)c->ncomm * sizeof *cpos);
		for (int i = 0; i < c->ncl; i++) {
			const struct dl_clause *k = &c->cl[i];
			for (int j = 0; j < k->nt; j++)
				s.rev[pos[c->tgt[k->t0 + j]]++] = i;
			for (int j = 0; j < k->na; j++)
				s.crev[cpos[c->anyc[k->a0 + j]]++] = i;
		}
		free(pos);
		free(cpos);
	}
	/* Membership of ranks in the comms that any-clauses name. */
	s.mem_start = calloc((size_t)c->size + 2, sizeof *s.mem_start);
	if (!s.mem_start)
		goto out;
	for (int g = 0; g < c->ncomm; g++) {
		if (s.crev_start[g + 1] == s.crev_start[g])
			continue;
		for (int i = 0; i < c->comms[g].size; i++) {
			int w = dl_comm_world(c, g, i);
			if (w >= 0)
				s.mem_start[w + 1]++;
		}
	}
	for (int i = 0; i < c->size; i++)
		s.mem_start[i + 1] += s.mem_start[i];
	s.mem = malloc(((size_t)s.mem_start[c->size] + 1) * sizeof *s.mem);
	if (!s.mem)
		goto out;
	{
		int *pos = malloc(((size_t)c->size + 1) * sizeof *pos);
		if (!pos)
			goto out;
		memcpy(pos, s.mem_start, (size_t)c->size * sizeof *pos);
		for (int g = 0; g < c->ncomm; g++) {
			if (s.crev_start[g + 1] == s.crev_start[g])
				continue;
			for (int i = 0; i < c->comms[g].size; i++) {
				int w = dl_comm_world(c, g, i);
				if (w >= 0)
					s.mem[pos[w]++] = g;
			}
		}
		free(pos);
	}
	/* Initial releases. */
	for (int i = 0; i < n; i++) {
		if (c->nstate[i] == DLN_FREE || c->nstate[i] == DLN_UNKNOWN ||
		    (c->nstate[i] == DLN_BLOCKED && c->unsat[i] == 0))
			release(&s, i);
	}
	for (int wi = 0; wi < s.nwork; wi++) {
		int x = s.work[wi];
		for (int j = s.rev_start[x]; j < s.rev_start[x + 1]; j++)
			satisfy(&s, s.rev[j], x);
		if (x >= c->size)
			continue;
		for (int j = s.mem_start[x]; j < s.mem_start[x + 1]; j++) {
			int g = s.mem[j];
			if (s.trig[g] == 2)
				continue;
			if (s.trig[g] == 1 && s.trig_first[g] == x)
				continue;
			int keep_owner = s.trig[g] == 0 ? x : -1;
			if (s.trig[g] == 0) {
				s.trig[g] = 1;
				s.trig_first[g] = x;
			} else {
				s.trig[g] = 2;
			}
			for (int q = s.crev_start[g]; q < s.crev_start[g + 1]; q++)
				if (c->cl[s.crev[q]].owner != keep_owner)
					satisfy(&s, s.crev[q], x);
		}
	}
	rv = 0;
out:
	free(s.rev_start);
	free(s.rev);
	free(s.crev_start);
	free(s.crev);
	free(s.mem_start);
	free(s.mem);
	free(s.trig_first);
	free(s.trig);
	free(s.work);
	if (rv < 0)
		errno = ENOMEM;
	return rv;
}
