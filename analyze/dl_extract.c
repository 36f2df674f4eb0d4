/* dl_extract.c - from one parsed dump to the analysis's record of its
 * rank (see dl_extract.h).
 *
 * Every field is checked before it is used: a field of the wrong type, a
 * value out of range or a reference to a communicator the dump does not
 * list makes the whole dump invalid, with a message that names the field.
 * The record keeps no JSON values: strings are interned, communicators are
 * indices into the analysis's comm table (dl_comm.c).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_extract.h"

static const char *const kinds[] = {"other", "send", "recv", "sendrecv", "probe", "wait",
				    "test", "collective", "rma_sync", "io", NULL};
static const char *const states[] = {"in_mpi", "computing", "finalized", "exited", NULL};

/* Local comm ids of one dump -> global indices. */
struct lmap {
	long *id;
	int *gi;
	int n;
};

static int lmap_get(const struct lmap *m, long id)
{
	for (int i = 0; i < m->n; i++)
		if (m->id[i] == id)
			return m->gi[i];
	return -1;
}

/* Add the communicator o of a dump of rank myrank (world size wsize) to the
 * comm table, or learn its group if the table has it without one; its
 * index into *gi_out.  Return 0, or -1 with e->err set. */
static int add_comm(struct dl_ctx *c, struct dl_ex *e, const struct dlj *o, int myrank, int wsize,
		    int *gi_out)
{
	const char *gid = NULL, *name = NULL, *how = NULL;
	long size = -1;
	int inter = 0;
	const struct dlj *wr = NULL;
	if (dl_get_str(e, o, "gid", 1, &gid) < 0 || dl_get_str(e, o, "name", 0, &name) < 0 ||
	    dl_get_str(e, o, "how", 0, &how) < 0 || dl_get_long(e, o, "size", 0, 0, DL_MAX_RANK, &size) < 0 ||
	    dl_get_bool(e, o, "inter", &inter) < 0 || dl_get_array(e, o, "world_ranks", 0, &wr) < 0)
		return -1;
	int gi = dl_comm_find(c, gid);
	if (gi >= 0) {
		*gi_out = gi;
		struct dl_comm *m = &c->comms[gi];
		if (!m->known && wr && !inter) {
			/* learn the group from this dump */
		} else {
			return 0;
		}
	} else {
		gi = dl_comm_new(c);
		if (gi < 0) {
			dl_ex_fail(e, "out of memory");
			return -1;
		}
		struct dl_comm *m = &c->comms[gi];
		memset(m, 0, sizeof *m);
		m->gid = gid;
		m->name = name;
		m->how = how;
		m->inter = inter;
		m->size = (int)size;
		if (!strcmp(gid, "world")) {
			m->identity = 1;
			m->known = 1;
			m->size = wsize;
		} else if (!strncmp(gid, "self.", 5)) {
			m->group = malloc(sizeof *m->group);
			if (!m->group) {
				dl_ex_fail(e, "out of memory");
				return -1;
			}
			m->group[0] = myrank;
			m->size = 1;
			m->known = 1;
		}
		if (dl_comm_put(c, gid, gi) < 0) {
			dl_ex_fail(e, "out of memory");
			return -1;
		}
		*gi_out = gi;
		if (m->known || !wr || inter)
			return 0;
	}
	struct dl_comm *m = &c->comms[gi];
	size_t n = wr->n;
	if (n > DL_MAX_RANK) {
		dl_ex_fail(e, "%s/world_ranks: too many ranks", e->where);
		return -1;
	}
	int *g = malloc((n ? n : 1) * sizeof *g);
	if (!g) {
		dl_ex_fail(e, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct dlj *x = dlj_kid(e->A, wr, i);
		if (x->type != DLJ_INT || x->i < 0 || x->i >= wsize) {
			dl_ex_fail(e, "%s/world_ranks/%zu: not a world rank below %d", e->where, i, wsize);
			free(g);
			return -1;
		}
		g[i] = (int)x->i;
	}
	m->group = g;
	m->size = (int)n;
	m->known = 1;
	return 0;
}

/* The array of messages o.key into *out (NULL if empty or absent), with
 * their comms mapped through lm.  Return 0, or -1 with e->err set. */
static int get_msgs(struct dl_ex *e, const struct dlj *o, const char *key, int required,
		    const struct lmap *lm, struct dl_msg **out, int *nout)
{
	const struct dlj *a = NULL;
	*out = NULL;
	*nout = 0;
	int rc = dl_get_array(e, o, key, required, &a);
	if (rc <= 0)
		return rc;
	size_t n = a->n;
	if (!n)
		return 0;
	struct dl_msg *m = calloc(n, sizeof *m);
	if (!m) {
		dl_ex_fail(e, "out of memory");
		return -1;
	}
	char where[96];
	const char *saved = e->where;
	for (size_t i = 0; i < n; i++) {
		const struct dlj *x = dlj_kid(e->A, a, i);
		snprintf(where, sizeof where, "%s/%s/%zu", saved, key, i);
		e->where = where;
		if (x->type != DLJ_OBJECT) {
			dl_ex_fail(e, "%s: expected object, got %s", where, dl_jtype(x));
			goto fail;
		}
		long comm = -1, req = 0, count = 0, bytes = 0;
		int peer = -1, pw = -1, pers = 0, act = 1, root = -1;
		if (dl_get_long(e, x, "req", 0, LONG_MIN, LONG_MAX, &req) < 0 ||
		    dl_get_str(e, x, "op", 0, &m[i].op) < 0 ||
		    dl_get_long(e, x, "comm", 0, -1, LONG_MAX, &comm) < 0 ||
		    dl_get_int(e, x, "peer", 0, -2, DL_MAX_RANK, &peer) < 0 ||
		    dl_get_int(e, x, "peer_world", 0, -2, DL_MAX_RANK, &pw) < 0 ||
		    dl_get_tag(e, x, "tag", &m[i].tag) < 0 ||
		    dl_get_long(e, x, "count", 0, LONG_MIN, LONG_MAX, &count) < 0 ||
		    dl_get_str(e, x, "datatype", 0, &m[i].datatype) < 0 ||
		    dl_get_long(e, x, "bytes", 0, LONG_MIN, LONG_MAX, &bytes) < 0 || dl_get_mode(e, x, &m[i].mode) < 0 ||
		    dl_get_bool(e, x, "persistent", &pers) < 0 || dl_get_bool(e, x, "active", &act) < 0 ||
		    dl_get_int(e, x, "root", 0, -2, DL_MAX_RANK, &root) < 0 ||
		    dl_get_str(e, x, "reduce_op", 0, &m[i].reduce_op) < 0 ||
		    dl_get_long(e, x, "seq", 0, 0, LONG_MAX, &m[i].seq) < 0)
			goto fail;
		m[i].root = root >= 0 ? root : -1;
		m[i].req = req;
		m[i].count = count < 0 ? 0 : count; /* -1: not known */
		m[i].bytes = bytes < 0 ? 0 : bytes;
		m[i].persistent = pers ? 1 : 0;
		m[i].active = act ? 1 : 0;
		m[i].comm = comm >= 0 ? lmap_get(lm, comm) : -1;
		m[i].peer = peer;
		/* Translate through the comm's group when it is known. */
		int t = peer >= 0 ? dl_comm_world(e->c, m[i].comm, peer) : -1;
		m[i].peer_world = peer >= 0 ? (t >= 0 ? t : pw) : peer;
		const struct dlj *site = dlj_get(e->A, x, "site");
		if (site && site->type != DLJ_NULL && dl_get_frame(e, site, &m[i].site) < 0)
			goto fail;
	}
	e->where = saved;
	*out = m;
	*nout = (int)n;
	return 0;
fail:
	e->where = saved;
	free(m);
	return -1;
}

void dl_rank_free(struct dl_rank *r)
{
	if (!r)
		return;
	free(r->call.requests);
	free(r->stack);
	free(r->psend);
	free(r->precv);
	free(r->recent);
	free(r->bsend);
	free(r->unexp);
	free(r->comms);
	free(r->crank);
	free(r->nbc_started);
	free(r);
}

/* The header of dump d (format version, rank, size, state, job, host, pid,
 * reason, times) into r and h.  Return 0, or -1 with e->err set. */
static int extract_header(struct dl_ex *e, const struct dlj *d, long want_rank,
			  struct dl_rank *r, struct dl_hdr *h)
{
	e->where = "";
	if (d->type != DLJ_OBJECT) {
		dl_ex_fail(e, "not an mpiwatch dump (top level is %s, not an object)", dl_jtype(d));
		return -1;
	}
	if (!dlj_get(e->A, d, "mpiwatch_dump")) {
		dl_ex_fail(e, "not an mpiwatch dump (no \"mpiwatch_dump\" field)");
		return -1;
	}
	long ver = 0;
	if (dl_get_long(e, d, "mpiwatch_dump", 1, LONG_MIN, LONG_MAX, &ver) < 0)
		return -1;
	if (ver != 1) {
		dl_ex_fail(e, "unsupported dump format version %ld (this analysis reads version 1)", ver);
		return -1;
	}
	long rank = -1, size = -1;
	const char *state = NULL;
	if (dl_get_long(e, d, "rank", 1, 0, DL_MAX_RANK - 1, &rank) < 0 ||
	    dl_get_long(e, d, "size", 1, 1, DL_MAX_RANK, &size) < 0 ||
	    dl_get_str(e, d, "state", 1, &state) < 0)
		return -1;
	if (rank >= size) {
		dl_ex_fail(e, "/rank: %ld is not below /size %ld", rank, size);
		return -1;
	}
	if (want_rank >= 0 && rank != want_rank) {
		dl_ex_fail(e, "/rank: the file is named for rank %ld but holds rank %ld", want_rank, rank);
		return -1;
	}
	int si = dl_str_in(state, states);
	if (si < 0) {
		dl_ex_fail(e, "/state: unknown state \"%.40s\"", state);
		return -1;
	}
	r->rank = (int)rank;
	r->state = (enum dl_state)si;
	h->size = size;
	h->job = NULL;
	const struct dlj *job = NULL, *t = NULL;
	int rc = dl_get_object(e, d, "job", &job);
	if (rc < 0)
		return -1;
	if (rc) {
		e->where = "/job";
		if (dl_get_str(e, job, "id", 0, &h->job) < 0)
			return -1;
		e->where = "";
	}
	if (dl_get_str(e, d, "host", 0, &r->host) < 0 || dl_get_long(e, d, "pid", 0, 0, LONG_MAX, &r->pid) < 0 ||
	    dl_get_str(e, d, "reason", 0, &r->reason) < 0)
		return -1;
	rc = dl_get_object(e, d, "time", &t);
	if (rc < 0)
		return -1;
	if (rc) {
		e->where = "/time";
		if (dl_get_double(e, t, "in_call_s", &r->in_call_s) < 0 ||
		    dl_get_double(e, t, "dump_unix", &r->dump_unix) < 0 ||
		    dl_get_double(e, t, "enter_unix", &r->enter_unix) < 0)
			return -1;
		e->where = "";
	}
	return 0;
}

/* The communicators of dump d (wsize: its world size) into the comm table,
 * r->comms and r->crank, and their ids in the dump into lm.  Return 0, or
 * -1 with e->err set. */
static int extract_comms(struct dl_ex *e, const struct dlj *d, int wsize, struct dl_rank *r,
			 struct lmap *lm)
{
	struct dl_ctx *c = e->c;
	const struct dlj *ca;
	if (dl_get_array(e, d, "comms", 1, &ca) < 0)
		return -1;
	size_t nc = ca->n;
	if (nc > 100000) {
		dl_ex_fail(e, "/comms: %zu communicators is too many", nc);
		return -1;
	}
	lm->id = calloc(nc + 1, sizeof *lm->id);
	lm->gi = calloc(nc + 1, sizeof *lm->gi);
	r->comms = calloc(nc + 1, sizeof *r->comms);
	r->crank = calloc(nc + 1, sizeof *r->crank);
	r->nbc_started = calloc(nc + 1, sizeof *r->nbc_started);
	if (!lm->id || !lm->gi || !r->comms || !r->crank || !r->nbc_started) {
		dl_ex_fail(e, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < nc; i++) {
		char where[48];
		const struct dlj *x = dlj_kid(e->A, ca, i);
		snprintf(where, sizeof where, "/comms/%zu", i);
		e->where = where;
		if (x->type != DLJ_OBJECT) {
			dl_ex_fail(e, "%s: expected object, got %s", where, dl_jtype(x));
			return -1;
		}
		long id, crank = -1, nbc = 0;
		int gi;
		if (dl_get_long(e, x, "id", 1, LONG_MIN, LONG_MAX, &id) < 0 ||
		    dl_get_long(e, x, "rank", 0, -1, DL_MAX_RANK, &crank) < 0 ||
		    dl_get_long(e, x, "nbc_started", 0, 0, LONG_MAX, &nbc) < 0 ||
		    add_comm(c, e, x, r->rank, wsize, &gi) < 0)
			return -1;
		if (c->comms[gi].identity)
			crank = r->rank;
		r->crank[r->ncomms] = (int)crank;
		r->nbc_started[r->ncomms] = nbc;
		lm->id[lm->n] = id;
		lm->gi[lm->n++] = gi;
		r->comms[r->ncomms++] = gi;
	}
	e->where = "";
	return 0;
}

/* The call stack of dump d (its first 4096 frames) into r.  Return 0, or -1
 * with e->err set. */
static int extract_stack(struct dl_ex *e, const struct dlj *d, struct dl_rank *r)
{
	const struct dlj *sa;
	if (dl_get_array(e, d, "stack", 1, &sa) < 0)
		return -1;
	size_t ns = sa->n;
	if (ns > 4096)
		ns = 4096;
	if (ns) {
		r->stack = calloc(ns, sizeof *r->stack);
		if (!r->stack) {
			dl_ex_fail(e, "out of memory");
			return -1;
		}
	}
	for (size_t i = 0; i < ns; i++) {
		char where[48];
		snprintf(where, sizeof where, "/stack/%zu", i);
		e->where = where;
		if (dl_get_frame(e, dlj_kid(e->A, sa, i), &r->stack[i]) < 0)
			return -1;
		r->nstack++;
	}
	e->where = "";
	return 0;
}

/* The MPI call of dump d (null outside MPI) into r->call, its communicator
 * and ranks translated through lm and the comm table.  Return 0, or -1 with
 * e->err set. */
static int extract_call(struct dl_ex *e, const struct dlj *d, const struct lmap *lm,
			struct dl_rank *r)
{
	struct dl_ctx *c = e->c;
	const struct dlj *call = dlj_get(e->A, d, "call");
	if (!call) {
		dl_ex_fail(e, "/call: missing required field");
		return -1;
	}
	if (call->type != DLJ_NULL) {
		struct dl_call *k = &r->call;
		const char *kind = NULL;
		long comm = -1;
		if (call->type != DLJ_OBJECT) {
			dl_ex_fail(e, "/call: expected object or null, got %s", dl_jtype(call));
			return -1;
		}
		e->where = "/call";
		k->peer = k->peer_world = k->send_peer = k->send_peer_world = -1;
		k->root = k->root_world = -1;
		k->send_tag = DL_NO_TAG;
		const char *lang = NULL;
		if (dl_get_str(e, call, "name", 1, &k->name) < 0 || dl_get_str(e, call, "kind", 1, &kind) < 0 ||
		    dl_get_long(e, call, "comm", 0, -1, LONG_MAX, &comm) < 0 ||
		    dl_get_int(e, call, "peer", 0, -2, DL_MAX_RANK, &k->peer) < 0 ||
		    dl_get_int(e, call, "peer_world", 0, -2, DL_MAX_RANK, &k->peer_world) < 0 ||
		    dl_get_int(e, call, "send_peer", 0, -2, DL_MAX_RANK, &k->send_peer) < 0 ||
		    dl_get_int(e, call, "send_peer_world", 0, -2, DL_MAX_RANK, &k->send_peer_world) < 0 ||
		    dl_get_tag(e, call, "tag", &k->tag) < 0 || dl_get_tag(e, call, "send_tag", &k->send_tag) < 0 ||
		    dl_get_int(e, call, "root", 0, -2, DL_MAX_RANK, &k->root) < 0 ||
		    dl_get_int(e, call, "root_world", 0, -2, DL_MAX_RANK, &k->root_world) < 0 ||
		    dl_get_str(e, call, "op", 0, &k->op) < 0 || dl_get_str(e, call, "datatype", 0, &k->datatype) < 0 ||
		    dl_get_long(e, call, "count", 0, LONG_MIN, LONG_MAX, &k->count) < 0 ||
		    dl_get_long(e, call, "bytes", 0, LONG_MIN, LONG_MAX, &k->bytes) < 0 || dl_get_mode(e, call, &k->mode) < 0 ||
		    dl_get_bool(e, call, "any", &k->any) < 0 || dl_get_str(e, call, "lang", 0, &lang) < 0)
			return -1;
		int ki = dl_str_in(kind, kinds);
		if (ki < 0) {
			dl_ex_fail(e, "/call/kind: unknown kind \"%.40s\"", kind);
			return -1;
		}
		k->kind = (enum dl_kind)ki;
		if (k->count < 0)
			k->count = 0; /* -1: not known or not applicable */
		if (k->bytes < 0)
			k->bytes = 0;
		k->fortran = lang && !strcmp(lang, "fortran");
		k->comm = comm >= 0 ? lmap_get(lm, comm) : -1;
		if (comm >= 0 && k->comm < 0) {
			dl_ex_fail(e, "/call/comm: communicator id %ld is not in /comms", comm);
			return -1;
		}
		/* Translate ranks through the group when we can. */
		int tw;
		if (k->peer >= 0 && (tw = dl_comm_world(c, k->comm, k->peer)) >= 0)
			k->peer_world = tw;
		else if (k->peer < 0)
			k->peer_world = k->peer;
		if (k->send_peer >= 0 && (tw = dl_comm_world(c, k->comm, k->send_peer)) >= 0)
			k->send_peer_world = tw;
		else if (k->send_peer < 0)
			k->send_peer_world = k->send_peer;
		if (k->root >= 0 && (tw = dl_comm_world(c, k->comm, k->root)) >= 0)
			k->root_world = tw;
		const struct dlj *rq = NULL;
		k->nrequests_total = -1;
		if (dl_get_array(e, call, "requests", 0, &rq) < 0 ||
		    dl_get_int(e, call, "nrequests", 0, -1, INT_MAX, &k->nrequests_total) < 0)
			return -1;
		if (rq && rq->n) {
			size_t nr = rq->n;
			if (nr > 1000000) {
				dl_ex_fail(e, "/call/requests: too many");
				return -1;
			}
			k->requests = calloc(nr, sizeof *k->requests);
			if (!k->requests) {
				dl_ex_fail(e, "out of memory");
				return -1;
			}
			for (size_t i = 0; i < nr; i++) {
				const struct dlj *x = dlj_kid(e->A, rq, i);
				if (x->type != DLJ_INT) {
					dl_ex_fail(e, "/call/requests/%zu: expected integer, got %s", i, dl_jtype(x));
					return -1;
				}
				k->requests[i] = (long)x->i;
			}
			k->nrequests = (int)nr;
		}
		const struct dlj *site = dlj_get(e->A, call, "site");
		if (site && site->type != DLJ_NULL) {
			e->where = "/call/site";
			if (dl_get_frame(e, site, &k->site) < 0)
				return -1;
		}
		r->has_call = 1;
		e->where = "";
	}
	if (r->state == DLS_IN_MPI && !r->has_call) {
		dl_ex_fail(e, "/call: state is in_mpi but call is null");
		return -1;
	}
	return 0;
}

/* The pending, recent and unexpected messages of dump d into r.  Return 0,
 * or -1 with e->err set. */
static int extract_msgs(struct dl_ex *e, const struct dlj *d, const struct lmap *lm,
			struct dl_rank *r)
{
	if (get_msgs(e, d, "pending_sends", 1, lm, &r->psend, &r->npsend) < 0 ||
	    get_msgs(e, d, "pending_recvs", 1, lm, &r->precv, &r->nprecv) < 0 ||
	    get_msgs(e, d, "recent_sends", 0, lm, &r->recent, &r->nrecent) < 0 ||
	    get_msgs(e, d, "buffered_sends", 0, lm, &r->bsend, &r->nbsend) < 0 ||
	    dl_get_long(e, d, "buffered_sends_total", 0, 0, LONG_MAX, &r->nbsend_total) < 0)
		return -1;
	if (r->nbsend_total < r->nbsend)
		r->nbsend_total = r->nbsend;
	r->unexp_count = -1;
	const struct dlj *u = NULL;
	int rc = dl_get_object(e, d, "unexpected", &u);
	if (rc < 0)
		return -1;
	if (rc) {
		e->where = "/unexpected";
		long cnt = -1;
		const char *src = NULL;
		if (dl_get_str(e, u, "source", 0, &src) < 0 ||
		    dl_get_long(e, u, "count", 0, 0, LONG_MAX, &cnt) < 0 ||
		    get_msgs(e, u, "messages", 0, lm, &r->unexp, &r->nunexp) < 0)
			return -1;
		r->unexp_count = (src && !strcmp(src, "none")) ? -1 : cnt;
		e->where = "";
	}
	return 0;
}

struct dl_rank *dl_extract_rank(struct dl_ex *e, const struct dlj *d, long want_rank,
				struct dl_hdr *h)
{
	struct dl_rank *r = calloc(1, sizeof *r);
	struct lmap lm = {0};
	if (!r) {
		dl_ex_fail(e, "out of memory");
		return NULL;
	}
	/* comms first: the rest refers to them */
	if (extract_header(e, d, want_rank, r, h) < 0 ||
	    extract_comms(e, d, (int)h->size, r, &lm) < 0 || extract_stack(e, d, r) < 0 ||
	    extract_call(e, d, &lm, r) < 0 || extract_msgs(e, d, &lm, r) < 0) {
		free(lm.id);
		free(lm.gi);
		dl_rank_free(r);
		return NULL;
	}
	free(lm.id);
	free(lm.gi);
	return r;
}
