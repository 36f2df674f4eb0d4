/* dl_load.c - read, validate and extract the rank dumps of one directory.
 *
 * Every file is checked before anything in it is used: a file that does not
 * parse, is truncated, is not an mpiwatch dump, has fields of the wrong type,
 * or belongs to another job or world size is recorded in "invalid_files" with
 * the reason and skipped.  The extracted model keeps no json-c objects, so
 * 100,000 dumps fit in little memory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <pthread.h>
#include <unistd.h>

#include "dl_int.h"
#include "dl_json.h"
#include "jsonschema.h"

#define DL_MAX_FILE (64L << 20)
#define DL_MAX_RANK 16777216
#define DL_SCHEMA_MAX 20000

/* ---- comm table: interned gid pointer -> index ---- */
struct comm_index {
	const char **key;
	int *val;
	size_t cap, n;
};

static size_t ptr_hash(const void *p)
{
	uintptr_t x = (uintptr_t)p;
	x ^= x >> 17;
	x *= 0xed5ad4bbU;
	x ^= x >> 11;
	return (size_t)x;
}

static int ci_find(struct comm_index *ix, const char *gid)
{
	if (!ix || !ix->cap)
		return -1;
	size_t j = ptr_hash(gid) & (ix->cap - 1);
	while (ix->key[j]) {
		if (ix->key[j] == gid)
			return ix->val[j];
		j = (j + 1) & (ix->cap - 1);
	}
	return -1;
}

static int ci_put(struct comm_index *ix, const char *gid, int v)
{
	if ((ix->n + 1) * 2 > ix->cap) {
		size_t ncap = ix->cap ? ix->cap * 2 : 64;
		const char **nk = calloc(ncap, sizeof *nk);
		int *nv = calloc(ncap, sizeof *nv);
		if (!nk || !nv) {
			free(nk);
			free(nv);
			return -1;
		}
		for (size_t i = 0; i < ix->cap; i++) {
			if (!ix->key[i])
				continue;
			size_t j = ptr_hash(ix->key[i]) & (ncap - 1);
			while (nk[j])
				j = (j + 1) & (ncap - 1);
			nk[j] = ix->key[i];
			nv[j] = ix->val[i];
		}
		free(ix->key);
		free(ix->val);
		ix->key = nk;
		ix->val = nv;
		ix->cap = ncap;
	}
	size_t j = ptr_hash(gid) & (ix->cap - 1);
	while (ix->key[j])
		j = (j + 1) & (ix->cap - 1);
	ix->key[j] = gid;
	ix->val[j] = v;
	ix->n++;
	return 0;
}

int dl_comm_lookup(struct dl_ctx *c, const char *gid)
{
	const char *g = dl_intern(c->pool, gid);
	return g ? ci_find(c->comm_index, g) : -1;
}

int dl_comm_world(const struct dl_ctx *c, int ci, int r)
{
	if (ci < 0 || ci >= c->ncomm || r < 0)
		return -1;
	const struct dl_comm *m = &c->comms[ci];
	if (m->identity)
		return r < m->size ? r : -1;
	if (!m->known || r >= m->size)
		return -1;
	return m->group[r];
}

int dl_comm_rank_of(const struct dl_ctx *c, int ci, int w)
{
	if (ci < 0 || ci >= c->ncomm || w < 0)
		return -1;
	const struct dl_comm *m = &c->comms[ci];
	if (m->identity)
		return w;
	if (!m->known)
		return -1;
	for (int i = 0; i < m->size; i++)
		if (m->group[i] == w)
			return i;
	return -1;
}

/* ---- typed field access with JSON-pointer error messages ---- */
struct ex {
	struct dl_ctx *c;
	const struct dlj_arena *A;
	char err[512];
	const char *where; /* e.g. "/call" */
};

static void ex_fail(struct ex *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ex_fail(struct ex *e, const char *fmt, ...)
{
	if (e->err[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->err, sizeof e->err, fmt, ap);
	va_end(ap);
}

static const char *jtype(const struct dlj *v)
{
	switch (v ? v->type : DLJ_NULL) {
	case DLJ_NULL: return "null";
	case DLJ_BOOL: return "boolean";
	case DLJ_DOUBLE: return "number";
	case DLJ_INT: return "integer";
	case DLJ_OBJECT: return "object";
	case DLJ_ARRAY: return "array";
	case DLJ_STRING: return "string";
	}
	return "?";
}

/* Return 1 and set *v if key is present and not null, 0 if absent or null
 * (an error if required), -1 on a type error. */
static int get_any(struct ex *e, const struct dlj *o, const char *key, int required,
		   const struct dlj **v)
{
	*v = dlj_get(e->A, o, key);
	if (!*v || (*v)->type == DLJ_NULL) {
		if (required) {
			ex_fail(e, "%s/%s: missing required field", e->where, key);
			return -1;
		}
		return 0;
	}
	return 1;
}

static int get_long(struct ex *e, const struct dlj *o, const char *key, int required, long lo,
		    long hi, long *out)
{
	const struct dlj *v;
	int rc = get_any(e, o, key, required, &v);
	if (rc <= 0)
		return rc;
	long x;
	if (v->type == DLJ_INT) {
		int64_t y = v->i;
		if (y < lo || y > hi) {
			ex_fail(e, "%s/%s: %lld out of range [%ld, %ld]", e->where, key, (long long)y,
				lo, hi);
			return -1;
		}
		x = (long)y;
	} else if (v->type == DLJ_DOUBLE) {
		double d = v->d;
		if (!isfinite(d) || d != floor(d) || d < (double)lo || d > (double)hi) {
			ex_fail(e, "%s/%s: %g is not an integer in [%ld, %ld]", e->where, key, d, lo,
				hi);
			return -1;
		}
		x = (long)d;
	} else {
		ex_fail(e, "%s/%s: expected integer, got %s", e->where, key, jtype(v));
		return -1;
	}
	*out = x;
	return 1;
}

static int get_int(struct ex *e, const struct dlj *o, const char *key, int required, int lo,
		   int hi, int *out)
{
	long x;
	int rc = get_long(e, o, key, required, lo, hi, &x);
	if (rc == 1)
		*out = (int)x;
	return rc;
}

static int get_double(struct ex *e, const struct dlj *o, const char *key, double *out)
{
	const struct dlj *v;
	int rc = get_any(e, o, key, 0, &v);
	if (rc <= 0)
		return rc;
	if (v->type != DLJ_INT && v->type != DLJ_DOUBLE) {
		ex_fail(e, "%s/%s: expected number, got %s", e->where, key, jtype(v));
		return -1;
	}
	*out = v->type == DLJ_INT ? (double)v->i : v->d;
	return 1;
}

static int get_str(struct ex *e, const struct dlj *o, const char *key, int required,
		   const char **out)
{
	const struct dlj *v;
	int rc = get_any(e, o, key, required, &v);
	if (rc <= 0)
		return rc;
	if (v->type != DLJ_STRING) {
		ex_fail(e, "%s/%s: expected string, got %s", e->where, key, jtype(v));
		return -1;
	}
	*out = dl_intern(e->c->pool, v->s);
	if (!*out) {
		ex_fail(e, "out of memory");
		return -1;
	}
	return 1;
}

static int get_bool(struct ex *e, const struct dlj *o, const char *key, int *out)
{
	const struct dlj *v;
	int rc = get_any(e, o, key, 0, &v);
	if (rc <= 0)
		return rc;
	if (v->type != DLJ_BOOL) {
		ex_fail(e, "%s/%s: expected boolean, got %s", e->where, key, jtype(v));
		return -1;
	}
	*out = (int)v->i;
	return 1;
}

static int get_array(struct ex *e, const struct dlj *o, const char *key, int required,
		     const struct dlj **out)
{
	int rc = get_any(e, o, key, required, out);
	if (rc <= 0)
		return rc;
	if ((*out)->type != DLJ_ARRAY) {
		ex_fail(e, "%s/%s: expected array, got %s", e->where, key, jtype(*out));
		return -1;
	}
	return 1;
}

static int str_in(const char *s, const char *const *set)
{
	for (int i = 0; set[i]; i++)
		if (!strcmp(s, set[i]))
			return i;
	return -1;
}

static const char *const kinds[] = {"other", "send", "recv", "sendrecv", "probe", "wait",
				    "test", "collective", "rma_sync", "io", NULL};
static const char *const states[] = {"in_mpi", "computing", "finalized", "exited", NULL};
static const char *const modes[] = {"", "standard", "sync", "buffered", "ready", NULL};

static int get_mode(struct ex *e, const struct dlj *o, enum dl_mode *out)
{
	const char *m = NULL;
	*out = DLM_NONE;
	if (get_str(e, o, "mode", 0, &m) < 0)
		return -1;
	if (!m)
		return 0;
	int i = str_in(m, modes);
	if (i <= 0) {
		ex_fail(e, "%s/mode: unknown send mode \"%.40s\"", e->where, m);
		return -1;
	}
	*out = (enum dl_mode)i;
	return 0;
}

/* Tags: an integer >= -1, or null (no tag). */
static int get_tag(struct ex *e, const struct dlj *o, const char *key, int *out)
{
	long t;
	*out = DL_NO_TAG;
	int rc = get_long(e, o, key, 0, -1, INT_MAX, &t);
	if (rc < 0)
		return -1;
	if (rc == 1)
		*out = (int)t;
	return 0;
}

static int get_frame(struct ex *e, const struct dlj *o, struct dl_frame *f)
{
	memset(f, 0, sizeof *f);
	if (o->type != DLJ_OBJECT) {
		ex_fail(e, "%s: expected a frame object, got %s", e->where, jtype(o));
		return -1;
	}
	long line = 0;
	if (get_str(e, o, "addr", 1, &f->addr) < 0 || get_str(e, o, "symbol", 0, &f->symbol) < 0 ||
	    get_str(e, o, "file", 0, &f->file) < 0 || get_str(e, o, "object", 0, &f->object) < 0 ||
	    get_str(e, o, "offset", 0, &f->offset) < 0 ||
	    get_long(e, o, "line", 0, 0, INT_MAX, &line) < 0)
		return -1;
	f->line = (int)line;
	return 0;
}

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

static int add_comm(struct dl_ctx *c, struct ex *e, const struct dlj *o, int myrank, int wsize,
		    int *gi_out)
{
	const char *gid = NULL, *name = NULL, *how = NULL;
	long size = -1;
	int inter = 0;
	const struct dlj *wr = NULL;
	if (get_str(e, o, "gid", 1, &gid) < 0 || get_str(e, o, "name", 0, &name) < 0 ||
	    get_str(e, o, "how", 0, &how) < 0 || get_long(e, o, "size", 0, 0, DL_MAX_RANK, &size) < 0 ||
	    get_bool(e, o, "inter", &inter) < 0 || get_array(e, o, "world_ranks", 0, &wr) < 0)
		return -1;
	int gi = ci_find(c->comm_index, gid);
	if (gi >= 0) {
		*gi_out = gi;
		struct dl_comm *m = &c->comms[gi];
		if (!m->known && wr && !inter) {
			/* learn the group from this dump */
		} else {
			return 0;
		}
	} else {
		if (c->ncomm == c->capcomm) {
			int ncap = c->capcomm ? c->capcomm * 2 : 16;
			struct dl_comm *nc = realloc(c->comms, (size_t)ncap * sizeof *nc);
			if (!nc) {
				ex_fail(e, "out of memory");
				return -1;
			}
			c->comms = nc;
			c->capcomm = ncap;
		}
		gi = c->ncomm++;
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
				ex_fail(e, "out of memory");
				return -1;
			}
			m->group[0] = myrank;
			m->size = 1;
			m->known = 1;
		}
		if (ci_put(c->comm_index, gid, gi) < 0) {
			ex_fail(e, "out of memory");
			return -1;
		}
		*gi_out = gi;
		if (m->known || !wr || inter)
			return 0;
	}
	struct dl_comm *m = &c->comms[gi];
	size_t n = wr->n;
	if (n > DL_MAX_RANK) {
		ex_fail(e, "%s/world_ranks: too many ranks", e->where);
		return -1;
	}
	int *g = malloc((n ? n : 1) * sizeof *g);
	if (!g) {
		ex_fail(e, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct dlj *x = dlj_kid(e->A, wr, i);
		if (x->type != DLJ_INT || x->i < 0 || x->i >= wsize) {
			ex_fail(e, "%s/world_ranks/%zu: not a world rank below %d", e->where, i, wsize);
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

static int get_msgs(struct ex *e, const struct dlj *o, const char *key, int required,
		    const struct lmap *lm, struct dl_msg **out, int *nout)
{
	const struct dlj *a = NULL;
	*out = NULL;
	*nout = 0;
	int rc = get_array(e, o, key, required, &a);
	if (rc <= 0)
		return rc;
	size_t n = a->n;
	if (!n)
		return 0;
	struct dl_msg *m = calloc(n, sizeof *m);
	if (!m) {
		ex_fail(e, "out of memory");
		return -1;
	}
	char where[96];
	const char *saved = e->where;
	for (size_t i = 0; i < n; i++) {
		const struct dlj *x = dlj_kid(e->A, a, i);
		snprintf(where, sizeof where, "%s/%s/%zu", saved, key, i);
		e->where = where;
		if (x->type != DLJ_OBJECT) {
			ex_fail(e, "%s: expected object, got %s", where, jtype(x));
			goto fail;
		}
		long comm = -1, req = 0, count = 0, bytes = 0;
		int peer = -1, pw = -1, pers = 0, act = 1, root = -1;
		if (get_long(e, x, "req", 0, LONG_MIN, LONG_MAX, &req) < 0 ||
		    get_str(e, x, "op", 0, &m[i].op) < 0 ||
		    get_long(e, x, "comm", 0, -1, LONG_MAX, &comm) < 0 ||
		    get_int(e, x, "peer", 0, -2, DL_MAX_RANK, &peer) < 0 ||
		    get_int(e, x, "peer_world", 0, -2, DL_MAX_RANK, &pw) < 0 ||
		    get_tag(e, x, "tag", &m[i].tag) < 0 ||
		    get_long(e, x, "count", 0, LONG_MIN, LONG_MAX, &count) < 0 ||
		    get_str(e, x, "datatype", 0, &m[i].datatype) < 0 ||
		    get_long(e, x, "bytes", 0, LONG_MIN, LONG_MAX, &bytes) < 0 || get_mode(e, x, &m[i].mode) < 0 ||
		    get_bool(e, x, "persistent", &pers) < 0 || get_bool(e, x, "active", &act) < 0 ||
		    get_int(e, x, "root", 0, -2, DL_MAX_RANK, &root) < 0 ||
		    get_str(e, x, "reduce_op", 0, &m[i].reduce_op) < 0)
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

static void free_rank(struct dl_rank *r)
{
	if (!r)
		return;
	free(r->call.requests);
	free(r->stack);
	free(r->psend);
	free(r->precv);
	free(r->recent);
	free(r->unexp);
	free(r->comms);
	free(r->crank);
	free(r);
}

struct hdr {
	long size;
	const char *job;
};

/* Extract one parsed dump.  Return the rank, or NULL with e->err set. */
static struct dl_rank *extract(struct ex *e, const struct dlj *d, long want_rank,
			       struct hdr *h)
{
	struct dl_ctx *c = e->c;
	struct dl_rank *r = calloc(1, sizeof *r);
	struct lmap lm = {0};
	if (!r) {
		ex_fail(e, "out of memory");
		return NULL;
	}
	e->where = "";
	if (d->type != DLJ_OBJECT) {
		ex_fail(e, "not an mpiwatch dump (top level is %s, not an object)", jtype(d));
		goto fail;
	}
	if (!dlj_get(e->A, d, "mpiwatch_dump")) {
		ex_fail(e, "not an mpiwatch dump (no \"mpiwatch_dump\" field)");
		goto fail;
	}
	long ver = 0;
	if (get_long(e, d, "mpiwatch_dump", 1, LONG_MIN, LONG_MAX, &ver) < 0)
		goto fail;
	if (ver != 1) {
		ex_fail(e, "unsupported dump format version %ld (this analysis reads version 1)", ver);
		goto fail;
	}
	long rank = -1, size = -1;
	const char *state = NULL;
	if (get_long(e, d, "rank", 1, 0, DL_MAX_RANK - 1, &rank) < 0 ||
	    get_long(e, d, "size", 1, 1, DL_MAX_RANK, &size) < 0 ||
	    get_str(e, d, "state", 1, &state) < 0)
		goto fail;
	if (rank >= size) {
		ex_fail(e, "/rank: %ld is not below /size %ld", rank, size);
		goto fail;
	}
	if (want_rank >= 0 && rank != want_rank) {
		ex_fail(e, "/rank: the file is named for rank %ld but holds rank %ld", want_rank, rank);
		goto fail;
	}
	int si = str_in(state, states);
	if (si < 0) {
		ex_fail(e, "/state: unknown state \"%.40s\"", state);
		goto fail;
	}
	r->rank = (int)rank;
	r->state = (enum dl_state)si;
	h->size = size;
	h->job = NULL;
	const struct dlj *job = dlj_get(e->A, d, "job");
	if (job && job->type != DLJ_NULL) {
		if (job->type != DLJ_OBJECT) {
			ex_fail(e, "/job: expected object, got %s", jtype(job));
			goto fail;
		}
		e->where = "/job";
		if (get_str(e, job, "id", 0, &h->job) < 0)
			goto fail;
		e->where = "";
	}
	if (get_str(e, d, "host", 0, &r->host) < 0 || get_long(e, d, "pid", 0, 0, LONG_MAX, &r->pid) < 0 ||
	    get_str(e, d, "reason", 0, &r->reason) < 0)
		goto fail;
	const struct dlj *t = dlj_get(e->A, d, "time");
	if (t && t->type != DLJ_NULL) {
		if (t->type != DLJ_OBJECT) {
			ex_fail(e, "/time: expected object, got %s", jtype(t));
			goto fail;
		}
		e->where = "/time";
		if (get_double(e, t, "in_call_s", &r->in_call_s) < 0 ||
		    get_double(e, t, "dump_unix", &r->dump_unix) < 0 ||
		    get_double(e, t, "enter_unix", &r->enter_unix) < 0)
			goto fail;
		e->where = "";
	}

	/* comms first: the rest refers to them */
	const struct dlj *ca;
	if (get_array(e, d, "comms", 1, &ca) < 0)
		goto fail;
	size_t nc = ca->n;
	if (nc > 100000) {
		ex_fail(e, "/comms: %zu communicators is too many", nc);
		goto fail;
	}
	lm.id = calloc(nc + 1, sizeof *lm.id);
	lm.gi = calloc(nc + 1, sizeof *lm.gi);
	r->comms = calloc(nc + 1, sizeof *r->comms);
	r->crank = calloc(nc + 1, sizeof *r->crank);
	if (!lm.id || !lm.gi || !r->comms || !r->crank) {
		ex_fail(e, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < nc; i++) {
		char where[48];
		const struct dlj *x = dlj_kid(e->A, ca, i);
		snprintf(where, sizeof where, "/comms/%zu", i);
		e->where = where;
		if (x->type != DLJ_OBJECT) {
			ex_fail(e, "%s: expected object, got %s", where, jtype(x));
			goto fail;
		}
		long id, crank = -1;
		int gi;
		if (get_long(e, x, "id", 1, LONG_MIN, LONG_MAX, &id) < 0 ||
		    get_long(e, x, "rank", 0, -1, DL_MAX_RANK, &crank) < 0 ||
		    add_comm(c, e, x, r->rank, (int)size, &gi) < 0)
			goto fail;
		if (c->comms[gi].identity)
			crank = r->rank;
		r->crank[r->ncomms] = (int)crank;
		lm.id[lm.n] = id;
		lm.gi[lm.n++] = gi;
		r->comms[r->ncomms++] = gi;
	}
	e->where = "";

	/* stack */
	const struct dlj *sa;
	if (get_array(e, d, "stack", 1, &sa) < 0)
		goto fail;
	size_t ns = sa->n;
	if (ns > 4096)
		ns = 4096;
	if (ns) {
		r->stack = calloc(ns, sizeof *r->stack);
		if (!r->stack) {
			ex_fail(e, "out of memory");
			goto fail;
		}
	}
	for (size_t i = 0; i < ns; i++) {
		char where[48];
		snprintf(where, sizeof where, "/stack/%zu", i);
		e->where = where;
		if (get_frame(e, dlj_kid(e->A, sa, i), &r->stack[i]) < 0)
			goto fail;
		r->nstack++;
	}
	e->where = "";

	/* call */
	const struct dlj *call = dlj_get(e->A, d, "call");
	if (!call) {
		ex_fail(e, "/call: missing required field");
		goto fail;
	}
	if (call->type != DLJ_NULL) {
		struct dl_call *k = &r->call;
		const char *kind = NULL;
		long comm = -1;
		if (call->type != DLJ_OBJECT) {
			ex_fail(e, "/call: expected object or null, got %s", jtype(call));
			goto fail;
		}
		e->where = "/call";
		k->peer = k->peer_world = k->send_peer = k->send_peer_world = -1;
		k->root = k->root_world = -1;
		k->send_tag = DL_NO_TAG;
		const char *lang = NULL;
		if (get_str(e, call, "name", 1, &k->name) < 0 || get_str(e, call, "kind", 1, &kind) < 0 ||
		    get_long(e, call, "comm", 0, -1, LONG_MAX, &comm) < 0 ||
		    get_int(e, call, "peer", 0, -2, DL_MAX_RANK, &k->peer) < 0 ||
		    get_int(e, call, "peer_world", 0, -2, DL_MAX_RANK, &k->peer_world) < 0 ||
		    get_int(e, call, "send_peer", 0, -2, DL_MAX_RANK, &k->send_peer) < 0 ||
		    get_int(e, call, "send_peer_world", 0, -2, DL_MAX_RANK, &k->send_peer_world) < 0 ||
		    get_tag(e, call, "tag", &k->tag) < 0 || get_tag(e, call, "send_tag", &k->send_tag) < 0 ||
		    get_int(e, call, "root", 0, -2, DL_MAX_RANK, &k->root) < 0 ||
		    get_int(e, call, "root_world", 0, -2, DL_MAX_RANK, &k->root_world) < 0 ||
		    get_str(e, call, "op", 0, &k->op) < 0 || get_str(e, call, "datatype", 0, &k->datatype) < 0 ||
		    get_long(e, call, "count", 0, LONG_MIN, LONG_MAX, &k->count) < 0 ||
		    get_long(e, call, "bytes", 0, LONG_MIN, LONG_MAX, &k->bytes) < 0 || get_mode(e, call, &k->mode) < 0 ||
		    get_bool(e, call, "any", &k->any) < 0 || get_str(e, call, "lang", 0, &lang) < 0)
			goto fail;
		int ki = str_in(kind, kinds);
		if (ki < 0) {
			ex_fail(e, "/call/kind: unknown kind \"%.40s\"", kind);
			goto fail;
		}
		k->kind = (enum dl_kind)ki;
		if (k->count < 0)
			k->count = 0; /* -1: not known or not applicable */
		if (k->bytes < 0)
			k->bytes = 0;
		k->fortran = lang && !strcmp(lang, "fortran");
		k->comm = comm >= 0 ? lmap_get(&lm, comm) : -1;
		if (comm >= 0 && k->comm < 0) {
			ex_fail(e, "/call/comm: communicator id %ld is not in /comms", comm);
			goto fail;
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
		if (get_array(e, call, "requests", 0, &rq) < 0 ||
		    get_int(e, call, "nrequests", 0, -1, INT_MAX, &k->nrequests_total) < 0)
			goto fail;
		if (rq && rq->n) {
			size_t nr = rq->n;
			if (nr > 1000000) {
				ex_fail(e, "/call/requests: too many");
				goto fail;
			}
			k->requests = calloc(nr, sizeof *k->requests);
			if (!k->requests) {
				ex_fail(e, "out of memory");
				goto fail;
			}
			for (size_t i = 0; i < nr; i++) {
				const struct dlj *x = dlj_kid(e->A, rq, i);
				if (x->type != DLJ_INT) {
					ex_fail(e, "/call/requests/%zu: expected integer, got %s", i, jtype(x));
					goto fail;
				}
				k->requests[i] = (long)x->i;
			}
			k->nrequests = (int)nr;
		}
		const struct dlj *site = dlj_get(e->A, call, "site");
		if (site && site->type != DLJ_NULL) {
			e->where = "/call/site";
			if (get_frame(e, site, &k->site) < 0)
				goto fail;
		}
		r->has_call = 1;
		e->where = "";
	}
	if (r->state == DLS_IN_MPI && !r->has_call) {
		ex_fail(e, "/call: state is in_mpi but call is null");
		goto fail;
	}

	if (get_msgs(e, d, "pending_sends", 1, &lm, &r->psend, &r->npsend) < 0 ||
	    get_msgs(e, d, "pending_recvs", 1, &lm, &r->precv, &r->nprecv) < 0 ||
	    get_msgs(e, d, "recent_sends", 0, &lm, &r->recent, &r->nrecent) < 0)
		goto fail;
	r->unexp_count = -1;
	const struct dlj *u = dlj_get(e->A, d, "unexpected");
	if (u && u->type != DLJ_NULL) {
		if (u->type != DLJ_OBJECT) {
			ex_fail(e, "/unexpected: expected object, got %s", jtype(u));
			goto fail;
		}
		e->where = "/unexpected";
		long cnt = -1;
		const char *src = NULL;
		if (get_str(e, u, "source", 0, &src) < 0 ||
		    get_long(e, u, "count", 0, 0, LONG_MAX, &cnt) < 0 ||
		    get_msgs(e, u, "messages", 0, &lm, &r->unexp, &r->nunexp) < 0)
			goto fail;
		r->unexp_count = (src && !strcmp(src, "none")) ? -1 : cnt;
		e->where = "";
	}
	free(lm.id);
	free(lm.gi);
	return r;
fail:
	free(lm.id);
	free(lm.gi);
	free_rank(r);
	return NULL;
}

static int add_invalid(struct dl_ctx *c, const char *file, const char *err)
{
	struct json_object *o = json_object_new_object();
	if (!o)
		return -1;
	json_object_object_add(o, "file", json_object_new_string(file));
	json_object_object_add(o, "error", json_object_new_string(err));
	return json_object_array_add(c->invalid, o);
}

/* Parse rank-<N>.json; return N, -1 if the name is not of that shape at all,
 * -2 if it is rank-*.json with a bad number. */
static long name_rank(const char *n)
{
	size_t len = strlen(n);
	if (strncmp(n, "rank-", 5) || len < 10 || strcmp(n + len - 5, ".json"))
		return -1;
	long v = 0;
	const char *p = n + 5;
	if (p == n + len - 5)
		return -2;
	for (; p < n + len - 5; p++) {
		if (*p < '0' || *p > '9' || v > DL_MAX_RANK)
			return -2;
		v = v * 10 + (*p - '0');
	}
	if (n[5] == '0' && len > 11)
		return -2; /* leading zero */
	return v < DL_MAX_RANK ? v : -2;
}

struct ent {
	long rank;
	char *name;
	int idx; /* in-memory input: index of the buffer */
};

static int ent_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static int read_file(int dfd, const char *name, char **buf, size_t *cap, size_t *len, char *err,
		     size_t errlen)
{
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "not a regular file");
		close(fd);
		return -1;
	}
	if (st.st_size > DL_MAX_FILE) {
		snprintf(err, errlen, "file too large (%lld bytes)", (long long)st.st_size);
		close(fd);
		return -1;
	}
	size_t want = (size_t)st.st_size + 1;
	if (want > *cap) {
		char *nb = realloc(*buf, want);
		if (!nb) {
			close(fd);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		*buf = nb;
		*cap = want;
	}
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, *buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "read error: %s", strerror(errno));
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	(*buf)[got] = '\0';
	*len = got;
	return 0;
}

static struct json_object *parse_json(const char *buf, size_t len, char *err, size_t errlen)
{
	if (len == 0) {
		snprintf(err, errlen, "empty file");
		return NULL;
	}
	if (strlen(buf) != len) {
		snprintf(err, errlen, "contains a NUL byte at offset %zu (binary or corrupt file)",
			 strlen(buf));
		return NULL;
	}
	struct json_tokener *tok = json_tokener_new_ex(64);
	if (!tok) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	struct json_object *o = json_tokener_parse_ex(tok, buf, (int)len);
	enum json_tokener_error je = json_tokener_get_error(tok);
	size_t off = json_tokener_get_parse_end(tok);
	if (!o && je == json_tokener_continue) {
		snprintf(err, errlen, "truncated JSON (input ends inside a value after %zu bytes)", len);
	} else if (!o && je != json_tokener_success) {
		snprintf(err, errlen, "invalid JSON at byte %zu: %s", off, json_tokener_error_desc(je));
	} else if (o) {
		/* only whitespace may follow */
		for (size_t i = off; i < len; i++) {
			if (buf[i] != ' ' && buf[i] != '\n' && buf[i] != '\t' && buf[i] != '\r') {
				snprintf(err, errlen, "invalid JSON: trailing data at byte %zu", i);
				json_object_put(o);
				o = NULL;
				break;
			}
		}
	} else {
		snprintf(err, errlen, "invalid JSON (top level is null)");
	}
	json_tokener_free(tok);
	return o;
}

static int load_entries(struct dl_ctx *c, struct ent *ents, size_t nents, int dfd,
			char *const *mbufs, const size_t *mlens);

static int load_init(struct dl_ctx *c)
{
	c->comm_index = calloc(1, sizeof(struct comm_index));
	c->invalid = json_object_new_array();
	return c->comm_index && c->invalid ? 0 : -1;
}

int dl_load_dir(struct dl_ctx *c, const char *dir)
{
	int rv = -1;
	DIR *dp = NULL;
	struct ent *ents = NULL;
	size_t nents = 0, capents = 0;

	if (load_init(c) < 0)
		goto fail;
	dp = opendir(dir);
	if (!dp)
		goto fail;
	struct dirent *de;
	while ((de = readdir(dp))) {
		long rk = name_rank(de->d_name);
		if (rk == -1)
			continue; /* not a dump name: temp files, other tools' files */
		if (nents == capents) {
			size_t ncap = capents ? capents * 2 : 256;
			struct ent *ne = realloc(ents, ncap * sizeof *ne);
			if (!ne)
				goto fail;
			ents = ne;
			capents = ncap;
		}
		ents[nents].rank = rk;
		ents[nents].idx = (int)nents;
		ents[nents].name = strdup(de->d_name);
		if (!ents[nents].name)
			goto fail;
		nents++;
	}
	rv = load_entries(c, ents, nents, dirfd(dp), NULL, NULL);
fail:
	if (dp)
		closedir(dp);
	for (size_t i = 0; i < nents; i++)
		free(ents[i].name);
	free(ents);
	return rv;
}

int dl_load_buffers(struct dl_ctx *c, int n, const char *const *names, char *const *bufs,
		    const size_t *lens)
{
	int rv = -1;
	struct ent *ents = calloc((size_t)n + 1, sizeof *ents);
	int k = 0;
	if (!ents || load_init(c) < 0)
		goto fail;
	for (int i = 0; i < n; i++) {
		long rk = name_rank(names[i]);
		if (rk == -1)
			continue;
		ents[k].rank = rk;
		ents[k].idx = i;
		if (!(ents[k].name = strdup(names[i])))
			goto fail;
		k++;
	}
	rv = load_entries(c, ents, (size_t)k, -1, bufs, lens);
fail:
	if (ents)
		for (int i = 0; i < k; i++)
			free(ents[i].name);
	free(ents);
	return rv;
}

/* ---- parallel reading ----
 * Reading, parsing and extracting 100,000 dumps is most of the work, so
 * worker threads do it, each into a private pool and communicator table
 * (struct dl_ctx "sub"); the results are then merged in rank order: strings
 * re-interned into the global pool (through a pointer cache), communicator
 * indices remapped. */
struct inv {
	size_t idx;
	char *file, *err;
};

struct xlate { /* sub-pool pointer -> global pointer */
	const char **from, **to;
	size_t cap, n;
};

struct worker {
	struct dl_ctx sub;
	struct ent *ents;
	size_t nents;
	int t, nthreads;
	int dfd;
	char *const *mbufs;
	const size_t *mlens;
	struct dl_rank **all;
	struct hdr *hdrs;
	struct inv *inv;
	size_t ninv, capinv;
	int fatal; /* errno of a fatal error, or 0 */
	int progress;
	size_t *done; /* shared counter, for the progress line */
	pthread_t tid;
	struct xlate xl;
	int *cmap; /* sub comm index -> global */
	int schema_mode; /* 0 none, 1 compiled-in dump schema, 2 opt.schema_path */
	int schema_broken;
};

static void w_invalid(struct worker *w, size_t i, const char *err)
{
	if (w->ninv == w->capinv) {
		size_t ncap = w->capinv ? w->capinv * 2 : 16;
		struct inv *n = realloc(w->inv, ncap * sizeof *n);
		if (!n) {
			w->fatal = ENOMEM;
			return;
		}
		w->inv = n;
		w->capinv = ncap;
	}
	w->inv[w->ninv].idx = i;
	w->inv[w->ninv].file = strdup(w->ents[i].name);
	w->inv[w->ninv].err = strdup(err);
	if (!w->inv[w->ninv].file || !w->inv[w->ninv].err) {
		free(w->inv[w->ninv].file);
		free(w->inv[w->ninv].err);
		w->fatal = ENOMEM;
		return;
	}
	w->ninv++;
}

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	struct dl_ctx *c = &w->sub;
	char *buf = NULL;
	size_t cap = 0;
	struct dlj_arena arena = {0};
	struct json_object *schema = NULL;
	size_t step = w->nents / 20 ? w->nents / 20 : 1, last_bucket = (size_t)-1;

	char *copy = NULL;
	size_t copycap = 0;
	if (w->schema_mode == 2) {
		char err[512];
		schema = mw_json_read_file(c->opt.schema_path, err, sizeof err);
		if (!schema) {
			w->fatal = errno ? errno : EINVAL;
			return NULL;
		}
	} else if (w->schema_mode == 1) {
		schema = json_tokener_parse(dl_dump_schema_text);
	}
	for (size_t i = (size_t)w->t; i < w->nents && !w->fatal; i += (size_t)w->nthreads) {
		char err[600];
		size_t len;
		size_t d = __atomic_add_fetch(w->done, 1, __ATOMIC_RELAXED);
		if (w->progress && w->t == 0 && (d / step != last_bucket || i + (size_t)w->nthreads >= w->nents)) {
			last_bucket = d / step;
			fprintf(stderr, "\rmpiwatch: reading dumps: %zu/%zu", d, w->nents);
		}
		if (w->ents[i].rank < 0) {
			w_invalid(w, i, "file name is not rank-<N>.json with N a world rank");
			continue;
		}
		if (w->mbufs) {
			len = w->mlens[w->ents[i].idx];
			if (len + 1 > cap) {
				char *nb = realloc(buf, len + 1);
				if (!nb) {
					w->fatal = ENOMEM;
					break;
				}
				buf = nb;
				cap = len + 1;
			}
			if (len)
				memcpy(buf, w->mbufs[w->ents[i].idx], len);
			buf[len] = '\0';
		} else if (read_file(w->dfd, w->ents[i].name, &buf, &cap, &len, err, sizeof err) < 0) {
			w_invalid(w, i, err);
			continue;
		}
		if (memchr(buf, '\0', len)) {
			snprintf(err, sizeof err, "contains a NUL byte at offset %zu (binary or corrupt file)",
				 (size_t)((char *)memchr(buf, '\0', len) - buf));
			w_invalid(w, i, err);
			continue;
		}
		if (len == 0) {
			w_invalid(w, i, "empty file");
			continue;
		}
		if (schema) { /* dlj_parse decodes in place: keep the text for the schema */
			if (len + 1 > copycap) {
				char *nb = realloc(copy, len + 1);
				if (!nb) {
					w->fatal = ENOMEM;
					break;
				}
				copy = nb;
				copycap = len + 1;
			}
			memcpy(copy, buf, len + 1);
		}
		const struct dlj *dj = dlj_parse(&arena, buf, len, err, sizeof err);
		if (!dj) {
			if (!strcmp(err, "out of memory")) {
				w->fatal = ENOMEM;
				break;
			}
			w_invalid(w, i, err);
			continue;
		}
		struct ex e = {.c = c, .A = &arena};
		struct dl_rank *r = extract(&e, dj, w->ents[i].rank, &w->hdrs[i]);
		if (!r) {
			if (!strcmp(e.err, "out of memory")) {
				w->fatal = ENOMEM;
				break;
			}
			w_invalid(w, i, e.err);
			continue;
		}
		if (schema) {
			/* Then the schema (json-c: slower), for what the built-in
			 * checks do not look at. */
			struct json_object *jd = parse_json(copy, len, err, sizeof err);
			int sv = jd ? mw_jsonschema_validate(schema, jd, err, sizeof err) : 1;
			if (jd)
				json_object_put(jd);
			if (sv < 0) {
				/* an unusable schema: fall back to the built-in checks */
				json_object_put(schema);
				schema = NULL;
				w->schema_broken = 1;
			} else if (sv > 0) {
				char msg[700];
				snprintf(msg, sizeof msg, "not valid against the dump schema: %s", err);
				w_invalid(w, i, msg);
				free_rank(r);
				continue;
			}
		}
		r->file = dl_intern(c->pool, w->ents[i].name);
		w->all[i] = r;
	}
	free(copy);
	free(buf);
	dlj_arena_free(&arena);
	if (schema)
		json_object_put(schema);
	return NULL;
}

static const char *xl(struct dl_ctx *c, struct xlate *x, const char *p, int *oom)
{
	if (!p)
		return NULL;
	if ((x->n + 1) * 2 > x->cap) {
		size_t ncap = x->cap ? x->cap * 2 : 1024;
		const char **nf = calloc(ncap, sizeof *nf), **nt = calloc(ncap, sizeof *nt);
		if (!nf || !nt) {
			free(nf);
			free(nt);
			*oom = 1;
			return NULL;
		}
		for (size_t i = 0; i < x->cap; i++) {
			if (!x->from[i])
				continue;
			size_t j = ptr_hash(x->from[i]) & (ncap - 1);
			while (nf[j])
				j = (j + 1) & (ncap - 1);
			nf[j] = x->from[i];
			nt[j] = x->to[i];
		}
		free(x->from);
		free(x->to);
		x->from = nf;
		x->to = nt;
		x->cap = ncap;
	}
	size_t j = ptr_hash(p) & (x->cap - 1);
	while (x->from[j]) {
		if (x->from[j] == p)
			return x->to[j];
		j = (j + 1) & (x->cap - 1);
	}
	const char *g = dl_intern(c->pool, p);
	if (!g) {
		*oom = 1;
		return NULL;
	}
	x->from[j] = p;
	x->to[j] = g;
	x->n++;
	return g;
}

#define XL(field) ((field) = xl(c, &w->xl, (field), &oom))

static void merge_frame(struct dl_ctx *c, struct worker *w, struct dl_frame *f, int *poom)
{
	int oom = 0;
	XL(f->addr);
	XL(f->symbol);
	XL(f->file);
	XL(f->object);
	XL(f->offset);
	*poom |= oom;
}

static void merge_msgs(struct dl_ctx *c, struct worker *w, struct dl_msg *m, int n, int *poom)
{
	int oom = 0;
	for (int i = 0; i < n; i++) {
		XL(m[i].op);
		XL(m[i].datatype);
		if (m[i].comm >= 0)
			m[i].comm = w->cmap[m[i].comm];
	}
	*poom |= oom;
}

/* Move worker w's communicators into the global table; fill w->cmap. */
static int merge_comms(struct dl_ctx *c, struct worker *w)
{
	struct dl_ctx *s = &w->sub;
	int oom = 0;
	w->cmap = malloc(((size_t)s->ncomm + 1) * sizeof *w->cmap);
	if (!w->cmap)
		return -1;
	for (int i = 0; i < s->ncomm; i++) {
		struct dl_comm *m = &s->comms[i];
		const char *gid = xl(c, &w->xl, m->gid, &oom);
		if (oom)
			return -1;
		int gi = ci_find(c->comm_index, gid);
		if (gi < 0) {
			if (c->ncomm == c->capcomm) {
				int ncap = c->capcomm ? c->capcomm * 2 : 16;
				struct dl_comm *nc = realloc(c->comms, (size_t)ncap * sizeof *nc);
				if (!nc)
					return -1;
				c->comms = nc;
				c->capcomm = ncap;
			}
			gi = c->ncomm++;
			c->comms[gi] = *m;
			c->comms[gi].gid = gid;
			XL(c->comms[gi].name);
			XL(c->comms[gi].how);
			m->group = NULL; /* moved */
			if (oom || ci_put(c->comm_index, gid, gi) < 0)
				return -1;
		} else if (!c->comms[gi].known && m->known) {
			free(c->comms[gi].group);
			c->comms[gi].group = m->group;
			c->comms[gi].size = m->size;
			c->comms[gi].known = 1;
			c->comms[gi].identity = m->identity;
			m->group = NULL;
		}
		w->cmap[i] = gi;
	}
	return 0;
}

static int merge_rank(struct dl_ctx *c, struct worker *w, struct dl_rank *r, struct hdr *h)
{
	int oom = 0;
	XL(r->file);
	XL(r->host);
	XL(r->reason);
	XL(h->job);
	if (r->has_call) {
		XL(r->call.name);
		XL(r->call.op);
		XL(r->call.datatype);
		if (r->call.comm >= 0)
			r->call.comm = w->cmap[r->call.comm];
		merge_frame(c, w, &r->call.site, &oom);
	}
	for (int i = 0; i < r->nstack; i++)
		merge_frame(c, w, &r->stack[i], &oom);
	merge_msgs(c, w, r->psend, r->npsend, &oom);
	merge_msgs(c, w, r->precv, r->nprecv, &oom);
	merge_msgs(c, w, r->recent, r->nrecent, &oom);
	merge_msgs(c, w, r->unexp, r->nunexp, &oom);
	for (int i = 0; i < r->ncomms; i++)
		r->comms[i] = w->cmap[r->comms[i]];
	return oom ? -1 : 0;
}

static int inv_cmp(const void *a, const void *b)
{
	const struct inv *x = a, *y = b;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static int load_entries(struct dl_ctx *c, struct ent *ents, size_t nents, int dfd,
			char *const *mbufs, const size_t *mlens)
{
	int rv = -1;
	struct dl_rank **all = NULL;
	struct hdr *hdrs = NULL;
	struct worker *w = NULL;
	struct inv *inv = NULL;
	size_t done = 0;
	int nthreads = 1, started = 0;

	qsort(ents, nents, sizeof *ents, ent_cmp);
	c->nfiles = (int)nents;
	all = calloc(nents + 1, sizeof *all);
	hdrs = calloc(nents + 1, sizeof *hdrs);
	if (!all || !hdrs)
		goto fail;
	if (c->opt.threads > 0) {
		nthreads = c->opt.threads > 64 ? 64 : c->opt.threads;
	} else if (nents >= 2000) {
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		nthreads = ncpu > 4 ? 4 : ncpu > 1 ? (int)ncpu : 1;
	}
	w = calloc((size_t)nthreads, sizeof *w);
	if (!w)
		goto fail;
	int progress = c->opt.progress > 0 || (c->opt.progress == 0 && nents >= 5000);
	/* Validation against the dump schema: the compiled-in one up to
	 * DL_SCHEMA_MAX files (it triples the reading cost), a given file
	 * always, "none" never.  The built-in checks always run. */
	int schema_mode = 0;
	if (c->opt.schema_path && !strcmp(c->opt.schema_path, "none"))
		schema_mode = 0;
	else if (c->opt.schema_path)
		schema_mode = 2;
	else if (nents <= DL_SCHEMA_MAX)
		schema_mode = 1;
	else if (c->notes)
		json_object_array_add(c->notes, json_object_new_string(
			"more than 20000 dumps: validated by the built-in checks only, not also against "
			"doc/schemas/dump.schema.json (use --schema to force it)"));
	for (int t = 0; t < nthreads; t++) {
		struct worker *x = &w[t];
		x->schema_mode = schema_mode;
		x->sub.opt = c->opt;
		x->sub.pool = dl_pool_create();
		x->sub.comm_index = calloc(1, sizeof(struct comm_index));
		if (!x->sub.pool || !x->sub.comm_index)
			goto fail;
		x->ents = ents;
		x->nents = nents;
		x->t = t;
		x->nthreads = nthreads;
		x->dfd = dfd;
		x->mbufs = mbufs;
		x->mlens = mlens;
		x->all = all;
		x->hdrs = hdrs;
		x->progress = progress;
		x->done = &done;
	}
	for (int t = 1; t < nthreads; t++) {
		if (pthread_create(&w[t].tid, NULL, worker_run, &w[t]) != 0)
			w[t].nthreads = -1; /* not started: its share is done below */
		else
			started++;
	}
	worker_run(&w[0]);
	for (int t = 1; t < nthreads; t++)
		if (w[t].nthreads > 0)
			pthread_join(w[t].tid, NULL);
	for (int t = 1; t < nthreads; t++) {
		if (w[t].nthreads < 0) { /* run its share here */
			w[t].nthreads = nthreads;
			worker_run(&w[t]);
		}
	}
	if (progress)
		fprintf(stderr, "\rmpiwatch: reading dumps: %zu/%zu\n", nents, nents);
	for (int t = 0; t < nthreads; t++) {
		if (w[t].fatal) {
			errno = w[t].fatal;
			goto fail;
		}
	}
	for (int t = 0; t < nthreads; t++) {
		if (w[t].schema_broken && c->notes) {
			json_object_array_add(c->notes, json_object_new_string(
				"the dump schema could not be used (bad $ref or pattern): built-in checks only"));
			break;
		}
	}
	/* merge: communicators, then ranks in file order, then invalid files */
	for (int t = 0; t < nthreads; t++)
		if (merge_comms(c, &w[t]) < 0)
			goto fail;
	for (size_t i = 0; i < nents; i++)
		if (all[i] && merge_rank(c, &w[i % (size_t)nthreads], all[i], &hdrs[i]) < 0)
			goto fail;
	size_t ninv = 0;
	for (int t = 0; t < nthreads; t++)
		ninv += w[t].ninv;
	inv = calloc(ninv + 1, sizeof *inv);
	if (!inv)
		goto fail;
	ninv = 0;
	for (int t = 0; t < nthreads; t++) {
		if (w[t].ninv)
			memcpy(inv + ninv, w[t].inv, w[t].ninv * sizeof *inv);
		ninv += w[t].ninv;
		w[t].ninv = 0;
	}
	qsort(inv, ninv, sizeof *inv, inv_cmp);
	for (size_t i = 0; i < ninv; i++) {
		add_invalid(c, inv[i].file, inv[i].err);
		free(inv[i].file);
		free(inv[i].err);
	}
	(void)started;

	/* The world size: --expect-size, else the most common size among the
	 * dumps; then the job id likewise.  Dumps that disagree are foreign. */
	long size = c->opt.expect_size;
	const char *job = NULL;
	{
		long best = 0, bestn = 0;
		const char *bj = NULL;
		long bjn = 0;
		/* Boyer-Moore majority vote, then a check count. */
		for (size_t i = 0; i < nents; i++) {
			if (!all[i])
				continue;
			if (bestn == 0) {
				best = hdrs[i].size;
				bestn = 1;
			} else {
				bestn += hdrs[i].size == best ? 1 : -1;
			}
			if (bjn == 0) {
				bj = hdrs[i].job;
				bjn = 1;
			} else {
				bjn += hdrs[i].job == bj ? 1 : -1;
			}
		}
		if (!size)
			size = best;
		job = bj;
	}
	c->job_id = job;
	for (size_t i = 0; i < nents; i++) {
		if (!all[i])
			continue;
		char err[300];
		err[0] = '\0';
		if (hdrs[i].size != size)
			snprintf(err, sizeof err, "/size: %ld differs from the job's world size %ld "
				 "(a dump of another job?)", hdrs[i].size, size);
		else if (hdrs[i].job != job)
			snprintf(err, sizeof err, "/job/id: \"%s\" differs from the job \"%s\" of the other dumps",
				 hdrs[i].job ? hdrs[i].job : "", job ? job : "");
		if (err[0]) {
			add_invalid(c, all[i]->file, err);
			free_rank(all[i]);
			all[i] = NULL;
		}
	}
	if (size <= 0)
		size = 0;
	c->size = (int)size;
	c->ranks = calloc((size_t)size + 1, sizeof *c->ranks);
	if (!c->ranks)
		goto fail;
	for (size_t i = 0; i < nents; i++) {
		if (!all[i])
			continue;
		if (all[i]->rank >= size) {
			char err[120];
			snprintf(err, sizeof err, "/rank: %d is not below the world size %ld", all[i]->rank, size);
			add_invalid(c, all[i]->file, err);
			free_rank(all[i]);
			continue;
		}
		c->ranks[all[i]->rank] = all[i];
		c->ndumps++;
	}
	/* The world comm's size follows the job's. */
	for (int i = 0; i < c->ncomm; i++)
		if (c->comms[i].identity)
			c->comms[i].size = c->size;
	rv = 0;
fail:
	if (rv < 0 && all) {
		for (size_t i = 0; i < nents; i++)
			free_rank(all[i]);
	}
	if (w) {
		for (int t = 0; t < nthreads; t++) {
			struct worker *x = &w[t];
			for (size_t i = 0; i < x->ninv; i++) {
				free(x->inv[i].file);
				free(x->inv[i].err);
			}
			free(x->inv);
			free(x->cmap);
			free(x->xl.from);
			free(x->xl.to);
			for (int i = 0; i < x->sub.ncomm; i++)
				free(x->sub.comms[i].group);
			free(x->sub.comms);
			struct comm_index *ix = x->sub.comm_index;
			if (ix) {
				free(ix->key);
				free(ix->val);
				free(ix);
			}
			dl_pool_destroy(x->sub.pool);
		}
		free(w);
	}
	free(inv);
	free(all);
	free(hdrs);
	return rv;
}

void dl_ctx_free_model(struct dl_ctx *c)
{
	if (c->ranks)
		for (int i = 0; i < c->size; i++)
			free_rank(c->ranks[i]);
	free(c->ranks);
	for (int i = 0; i < c->ncomm; i++)
		free(c->comms[i].group);
	free(c->comms);
	struct comm_index *ix = c->comm_index;
	if (ix) {
		free(ix->key);
		free(ix->val);
		free(ix);
	}
	if (c->invalid)
		json_object_put(c->invalid);
}
