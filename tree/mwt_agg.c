/* mwt_agg.c - per-origin sequence numbers and a CP's aggregate of
 * heartbeats (mwt_agg.h, doc/protocol.md "Tree aggregates"). */
#include "mwt_agg.h"
#include "mwt_json.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "mwt_err.h"

#define NAME_LEN (MW_HB_STR_MAX + 1)
#define MAX_CLASSES (1u << 20)

/* Room for one more element in the array *pp of n used out of *cap (of
 * elem bytes each; the first allocation holds first).  Return 0 or -1
 * (ENOMEM; the array is unchanged). */
static int grow(void *pp, size_t *cap, size_t n, size_t elem, size_t first)
{
	void *old, *np;
	size_t ncap;
	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : first;
	memcpy(&old, pp, sizeof(old)); /* pp is a T **: no aliasing through void ** */
	np = realloc(old, ncap * elem);
	if (!np) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(pp, &np, sizeof(np));
	*cap = ncap;
	return 0;
}

/* ------------------------------------------------ a string -> index table */

/* Open addressing over indexes into the caller's array of names. */
struct strtab {
	uint32_t *slot; /* index + 1; 0 = empty */
	size_t cap;     /* power of two */
};

static uint64_t hash_bytes(const void *p, size_t n, uint64_t h)
{
	const unsigned char *c = p;
	size_t i;
	for (i = 0; i < n; i++) {
		h ^= c[i];
		h *= 1099511628211ull;
	}
	return h;
}

static uint64_t hash_str(const char *s)
{
	return hash_bytes(s, strlen(s), 14695981039346656037ull);
}

/* Find name; names(i) gives the name of index i.  Return the index, or -1
 * with *where the empty slot to fill. */
static long strtab_find(const struct strtab *t, const char *name, const char *(*names)(const void *, size_t),
			const void *arg, size_t *where)
{
	size_t i, mask = t->cap - 1;
	if (!t->cap)
		return -1;
	for (i = hash_str(name) & mask;; i = (i + 1) & mask) {
		if (!t->slot[i]) {
			*where = i;
			return -1;
		}
		if (strcmp(names(arg, t->slot[i] - 1), name) == 0)
			return (long)(t->slot[i] - 1);
	}
}

/* Make room for n entries (load at most 1/2).  Return 0 or -1 (ENOMEM). */
static int strtab_reserve(struct strtab *t, size_t n, const char *(*names)(const void *, size_t),
			  const void *arg)
{
	size_t ncap = t->cap ? t->cap : 16, i, j;
	uint32_t *ns;
	if (n * 2 <= t->cap)
		return 0;
	while (n * 2 > ncap)
		ncap *= 2;
	ns = calloc(ncap, sizeof(*ns));
	if (!ns) {
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < t->cap; i++)
		if (t->slot[i]) {
			for (j = hash_str(names(arg, t->slot[i] - 1)) & (ncap - 1); ns[j]; j = (j + 1) & (ncap - 1))
				;
			ns[j] = t->slot[i];
		}
	free(t->slot);
	t->slot = ns;
	t->cap = ncap;
	return 0;
}

/* ------------------------------------------------ per-origin sequence numbers */

struct origin {
	char name[NAME_LEN];
	uint32_t floor;  /* every number <= floor is counted */
	uint64_t *bits;  /* NULL while in order; else numbers floor+1 .. floor+W, by seq % W */
};

struct mwt_seq {
	struct origin *o;
	size_t n, cap;
	struct strtab tab;
};

static const char *origin_name(const void *arg, size_t i)
{
	return ((const struct mwt_seq *)arg)->o[i].name;
}

struct mwt_seq *mwt_seq_create(void)
{
	struct mwt_seq *s = calloc(1, sizeof(*s));
	if (!s)
		errno = ENOMEM;
	return s;
}

void mwt_seq_destroy(struct mwt_seq *s)
{
	size_t i;
	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		free(s->o[i].bits);
	free(s->o);
	free(s->tab.slot);
	free(s);
}

size_t mwt_seq_origins(const struct mwt_seq *s)
{
	return s->n;
}

#define W MWT_SEQ_WINDOW
static int bit_get(const uint64_t *b, uint32_t seq)
{
	return (int)((b[(seq % W) / 64] >> (seq % 64)) & 1);
}
static void bit_set(uint64_t *b, uint32_t seq, int v)
{
	if (v)
		b[(seq % W) / 64] |= 1ull << (seq % 64);
	else
		b[(seq % W) / 64] &= ~(1ull << (seq % 64));
}

static struct origin *seq_lookup(const struct mwt_seq *s, const char *origin)
{
	size_t where;
	long i = strtab_find(&s->tab, origin, origin_name, s, &where);
	return i < 0 ? NULL : &s->o[i];
}

int mwt_seq_seen(const struct mwt_seq *s, const char *origin, uint32_t seq)
{
	const struct origin *o = seq_lookup(s, origin);
	if (!o || seq == 0)
		return 0;
	if (seq <= o->floor)
		return 1;
	if (seq > o->floor + (uint64_t)W || !o->bits)
		return 0;
	return bit_get(o->bits, seq);
}

int mwt_seq_accept(struct mwt_seq *s, const char *origin, uint32_t seq)
{
	struct origin *o;
	size_t where;
	long i;
	if (seq == 0 || seq > INT32_MAX || !mw_hb_valid_name(origin)) {
		errno = EINVAL;
		return -1;
	}
	i = strtab_find(&s->tab, origin, origin_name, s, &where);
	if (i < 0) {
		if (grow(&s->o, &s->cap, s->n, sizeof(*s->o), 64) < 0)
			return -1;
		if (strtab_reserve(&s->tab, s->n + 1, origin_name, s) < 0)
			return -1;
		strtab_find(&s->tab, origin, origin_name, s, &where);
		o = &s->o[s->n];
		memset(o, 0, sizeof(*o));
		snprintf(o->name, sizeof(o->name), "%s", origin);
		s->tab.slot[where] = (uint32_t)(s->n + 1);
		s->n++;
	} else {
		o = &s->o[i];
	}
	if (seq <= o->floor)
		return 0;
	if (seq == o->floor + 1 && !o->bits) { /* the usual case: in order */
		o->floor = seq;
		return 1;
	}
	if (!o->bits) {
		o->bits = calloc(W / 64, sizeof(uint64_t));
		if (!o->bits) {
			errno = ENOMEM;
			return -1;
		}
	}
	if (seq > o->floor + (uint64_t)W) { /* slide: what falls behind counts as seen */
		if (seq - o->floor > 2 * (uint64_t)W) {
			memset(o->bits, 0, W / 8);
			o->floor = seq - W;
		} else {
			while (seq > o->floor + (uint64_t)W) {
				o->floor++;
				bit_set(o->bits, o->floor, 0);
			}
		}
	}
	if (bit_get(o->bits, seq))
		return 0;
	bit_set(o->bits, seq, 1);
	while (bit_get(o->bits, o->floor + 1) && o->floor + 1 <= (uint32_t)INT32_MAX) {
		o->floor++;
		bit_set(o->bits, o->floor, 0);
	}
	return 1;
}
#undef W

/* ------------------------------------------------------------ aggregates */

/* One event of a class: its origin, its number, its rank. */
struct cover {
	uint32_t origin; /* index into the aggregate's origins */
	uint32_t seq;
	int32_t rank;
};

struct cls {
	struct mwt_class pub;
	struct cover *cov; /* the class's events */
	size_t ncov, capc;
};

struct mwt_agg {
	char from[NAME_LEN];
	uint64_t events;
	double first, last;
	struct cls *c;
	size_t nc, capc;
	uint32_t *ctab; /* class hash: index + 1 */
	size_t ctab_cap;
	char (*oname)[NAME_LEN]; /* origins covered */
	size_t no, capo;
	struct strtab otab;
};

static const char *agg_origin_name(const void *arg, size_t i)
{
	return ((const struct mwt_agg *)arg)->oname[i];
}

struct mwt_agg *mwt_agg_create(const char *from)
{
	struct mwt_agg *a;
	if (!mw_hb_valid_name(from)) {
		errno = EINVAL;
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		errno = ENOMEM;
		return NULL;
	}
	snprintf(a->from, sizeof(a->from), "%s", from);
	return a;
}

void mwt_agg_reset(struct mwt_agg *a)
{
	size_t i;
	for (i = 0; i < a->nc; i++)
		free(a->c[i].cov);
	free(a->c);
	free(a->ctab);
	free(a->oname);
	free(a->otab.slot);
	{
		char from[NAME_LEN];
		memcpy(from, a->from, sizeof(from));
		memset(a, 0, sizeof(*a));
		memcpy(a->from, from, sizeof(from));
	}
}

void mwt_agg_destroy(struct mwt_agg *a)
{
	if (!a)
		return;
	mwt_agg_reset(a);
	free(a);
}

const char *mwt_agg_from(const struct mwt_agg *a) { return a->from; }
uint64_t mwt_agg_events(const struct mwt_agg *a) { return a->events; }
double mwt_agg_first(const struct mwt_agg *a) { return a->first; }
double mwt_agg_last(const struct mwt_agg *a) { return a->last; }
size_t mwt_agg_nclasses(const struct mwt_agg *a) { return a->nc; }
size_t mwt_agg_norigins(const struct mwt_agg *a) { return a->no; }

const struct mwt_class *mwt_agg_class(const struct mwt_agg *a, size_t i)
{
	return i < a->nc ? &a->c[i].pub : NULL;
}

/* The class key of a heartbeat. */
static void key_from_beat(struct mwt_class *k, const struct mw_hb_beat *b)
{
	memset(k, 0, sizeof(*k));
	k->state = b->state;
	snprintf(k->call, sizeof(k->call), "%s", b->call);
	k->peer = b->peer_world;
	snprintf(k->kind, sizeof(k->kind), "%s", b->kind);
	snprintf(k->comm, sizeof(k->comm), "%s", b->comm);
	k->root = b->root_world;
	k->tag = b->tag;
	k->exit_code = b->exit_code;
	k->exit_signal = b->exit_signal;
	k->size = b->size;
	snprintf(k->moving, sizeof(k->moving), "%s", b->moving);
}

void mwt_class_beat(const struct mwt_class *c, int32_t rank, uint32_t seq, struct mw_hb_beat *b)
{
	memset(b, 0, sizeof(*b));
	b->rank = rank;
	b->seq = seq;
	b->state = c->state;
	snprintf(b->call, sizeof(b->call), "%s", c->call);
	b->peer_world = c->peer;
	snprintf(b->kind, sizeof(b->kind), "%s", c->kind);
	snprintf(b->comm, sizeof(b->comm), "%s", c->comm);
	b->root_world = c->root;
	b->tag = c->tag;
	b->exit_code = c->exit_code;
	b->exit_signal = c->exit_signal;
	b->size = c->size;
	snprintf(b->moving, sizeof(b->moving), "%s", c->moving);
	b->idle_s = c->idle;
}

static int key_eq(const struct mwt_class *x, const struct mwt_class *y)
{
	return x->state == y->state && x->peer == y->peer && x->root == y->root && x->tag == y->tag &&
	       x->exit_code == y->exit_code && x->exit_signal == y->exit_signal && x->size == y->size &&
	       !strcmp(x->call, y->call) && !strcmp(x->kind, y->kind) && !strcmp(x->comm, y->comm) &&
	       !strcmp(x->moving, y->moving);
}

static uint64_t class_hash(const struct mwt_class *k)
{
	uint64_t h = 14695981039346656037ull;
	int32_t v[7] = {(int32_t)k->state, k->peer, k->root, k->tag, k->exit_code, k->exit_signal, k->size};
	h = hash_bytes(v, sizeof(v), h);
	h = hash_bytes(k->call, strlen(k->call), h);
	h = hash_bytes(k->kind, strlen(k->kind) + 1, h);
	h = hash_bytes(k->comm, strlen(k->comm) + 1, h);
	return hash_bytes(k->moving, strlen(k->moving), h);
}

/* The index of the class of key k, created if need be.  Return it, or -1
 * (ENOMEM, or EINVAL past MAX_CLASSES). */
static long class_get(struct mwt_agg *a, const struct mwt_class *k)
{
	size_t i, mask;
	if (a->ctab_cap) {
		mask = a->ctab_cap - 1;
		for (i = class_hash(k) & mask; a->ctab[i]; i = (i + 1) & mask) {
			const struct mwt_class *c = &a->c[a->ctab[i] - 1].pub;
			if (key_eq(c, k))
				return (long)(a->ctab[i] - 1);
		}
	}
	if (a->nc >= MAX_CLASSES) {
		errno = EINVAL;
		return -1;
	}
	if (grow(&a->c, &a->capc, a->nc, sizeof(*a->c), 8) < 0)
		return -1;
	if ((a->nc + 1) * 2 > a->ctab_cap) {
		size_t ncap = a->ctab_cap ? a->ctab_cap * 2 : 16, j2;
		uint32_t *nt = calloc(ncap, sizeof(*nt));
		if (!nt) {
			errno = ENOMEM;
			return -1;
		}
		for (j2 = 0; j2 < a->nc; j2++) {
			size_t j;
			for (j = class_hash(&a->c[j2].pub) & (ncap - 1); nt[j]; j = (j + 1) & (ncap - 1))
				;
			nt[j] = (uint32_t)(j2 + 1);
		}
		free(a->ctab);
		a->ctab = nt;
		a->ctab_cap = ncap;
	}
	mask = a->ctab_cap - 1;
	for (i = class_hash(k) & mask; a->ctab[i]; i = (i + 1) & mask)
		;
	a->ctab[i] = (uint32_t)(a->nc + 1);
	memset(&a->c[a->nc], 0, sizeof(a->c[a->nc]));
	a->c[a->nc].pub = *k;
	a->c[a->nc].pub.count = 0;
	a->c[a->nc].pub.first = a->c[a->nc].pub.last = a->c[a->nc].pub.idle = 0;
	return (long)a->nc++;
}

size_t mwt_agg_class_nevents(const struct mwt_agg *a, size_t i)
{
	return i < a->nc ? a->c[i].ncov : 0;
}

int mwt_agg_class_event(const struct mwt_agg *a, size_t i, size_t j, const char **origin, uint32_t *seq,
			int32_t *rank)
{
	if (i >= a->nc || j >= a->c[i].ncov)
		return -1;
	*origin = a->oname[a->c[i].cov[j].origin];
	*seq = a->c[i].cov[j].seq;
	*rank = a->c[i].cov[j].rank;
	return 0;
}

/* The index of origin name in a, added if need be.  Return it or -1. */
static long origin_get(struct mwt_agg *a, const char *name)
{
	size_t where;
	long i = strtab_find(&a->otab, name, agg_origin_name, a, &where);
	if (i >= 0)
		return i;
	if (grow(&a->oname, &a->capo, a->no, sizeof(*a->oname), 16) < 0)
		return -1;
	if (strtab_reserve(&a->otab, a->no + 1, agg_origin_name, a) < 0)
		return -1;
	strtab_find(&a->otab, name, agg_origin_name, a, &where);
	snprintf(a->oname[a->no], NAME_LEN, "%s", name);
	a->otab.slot[where] = (uint32_t)(a->no + 1);
	return (long)a->no++;
}

static int cover_add(struct cls *c, uint32_t origin, uint32_t seq, int32_t rank)
{
	if (grow(&c->cov, &c->capc, c->ncov, sizeof(*c->cov), 8) < 0)
		return -1;
	c->cov[c->ncov].origin = origin;
	c->cov[c->ncov].seq = seq;
	c->cov[c->ncov++].rank = rank;
	return 0;
}

static void times_add(struct mwt_agg *a, struct mwt_class *c, double first, double last, uint64_t newcount)
{
	if (!c->count || first < c->first)
		c->first = first;
	if (!c->count || last > c->last)
		c->last = last;
	if (!a->events || first < a->first)
		a->first = first;
	if (!a->events || last > a->last)
		a->last = last;
	c->count += newcount;
	a->events += newcount;
}

int mwt_agg_add(struct mwt_agg *a, struct mwt_seq *seen, const char *origin, const struct mw_hb_beat *b,
		double t)
{
	long ci, oi;
	struct cls *c;
	int fresh;
	if (!mw_hb_valid_name(origin) || b->seq == 0 || b->seq > INT32_MAX || b->state <= 0 ||
	    b->state >= MW_HB_NSTATES || b->rank < 0 || b->rank > MW_HB_MAX_RANK || !isfinite(t) || t < 0 ||
	    strlen(b->call) > MW_HB_STR_MAX || b->peer_world < -2 || b->peer_world > MW_HB_MAX_RANK) {
		errno = EINVAL;
		return -1;
	}
	if (!mw_hb_beat_valid(b)) {
		errno = EINVAL;
		return -1;
	}
	if (seen) {
		if (mwt_seq_seen(seen, origin, b->seq))
			return 0;
	}
	{
		struct mwt_class k;
		key_from_beat(&k, b);
		ci = class_get(a, &k);
	}
	oi = origin_get(a, origin);
	if (ci < 0 || oi < 0)
		return -1;
	c = &a->c[ci];
	if (cover_add(c, (uint32_t)oi, b->seq, b->rank) < 0)
		return -1;
	if (seen) {
		fresh = mwt_seq_accept(seen, origin, b->seq);
		if (fresh < 0)
			return -1;
		if (fresh == 0) { /* fell behind the window between seen and accept: cannot happen */
			c->ncov--;
			return 0;
		}
	}
	times_add(a, &c->pub, t, t, 1);
	if (b->idle_s > c->pub.idle)
		c->pub.idle = b->idle_s;
	return 1;
}

long mwt_agg_merge(struct mwt_agg *a, struct mwt_seq *seen, const struct mwt_agg *child)
{
	long total = 0;
	size_t k, j;
	uint32_t *omap = NULL;
	if (child->no) {
		omap = calloc(child->no, sizeof(*omap));
		if (!omap) {
			errno = ENOMEM;
			return -1;
		}
		for (k = 0; k < child->no; k++) {
			long oi = origin_get(a, child->oname[k]);
			if (oi < 0)
				goto fail;
			omap[k] = (uint32_t)oi;
		}
	}
	for (k = 0; k < child->nc; k++) {
		const struct cls *cc = &child->c[k];
		struct cls *c = NULL;
		uint64_t fresh = 0;
		for (j = 0; j < cc->ncov; j++) {
			const char *on = child->oname[cc->cov[j].origin];
			if (seen) {
				int r = mwt_seq_accept(seen, on, cc->cov[j].seq);
				if (r < 0)
					goto fail;
				if (r == 0)
					continue;
			}
			if (!c) {
				long ci = class_get(a, &cc->pub);
				if (ci < 0)
					goto fail;
				c = &a->c[ci];
			}
			if (cover_add(c, omap[cc->cov[j].origin], cc->cov[j].seq, cc->cov[j].rank) < 0)
				goto fail;
			fresh++;
		}
		if (!fresh)
			continue;
		times_add(a, &c->pub, cc->pub.first, cc->pub.last, fresh);
		if (cc->pub.idle > c->pub.idle)
			c->pub.idle = cc->pub.idle;
		total += (long)fresh;
	}
	free(omap);
	return total;
fail:
	free(omap);
	return -1;
}

/* The ranks of class c's events (malloc'd, *n of them; duplicates kept). */
static int *class_rank_list(const struct cls *c, size_t *n)
{
	int *r = malloc((c->ncov ? c->ncov : 1) * sizeof(int));
	size_t i;
	if (!r) {
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < c->ncov; i++)
		r[i] = c->cov[i].rank;
	*n = c->ncov;
	return r;
}

size_t mwt_agg_class_ranks(const struct mwt_agg *a, size_t i, char *buf, size_t len)
{
	size_t n, need;
	int *r;
	if (len)
		buf[0] = 0;
	if (i >= a->nc || !(r = class_rank_list(&a->c[i], &n)))
		return 0;
	need = mw_ranges_format(r, n, buf, len);
	free(r);
	return need;
}

/* v[0..n) in its own order as runs "5-7,2,9-10" (ascending runs of +1): a
 * malloc'd string, or NULL (ENOMEM). */
static char *runs_str(const int *v, size_t n)
{
	size_t cap = 16 * (n ? n : 1) + 1, used = 0, i = 0, j;
	char *s = malloc(cap);
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	s[0] = 0;
	while (i < n) {
		for (j = i; j + 1 < n && v[j + 1] == v[j] + 1; j++)
			;
		if (j > i)
			used += (size_t)snprintf(s + used, cap - used, "%s%d-%d", used ? "," : "", v[i], v[j]);
		else
			used += (size_t)snprintf(s + used, cap - used, "%s%d", used ? "," : "", v[i]);
		i = j + 1;
	}
	return s;
}

/* ranges of ints as a malloc'd string ("" when none), or NULL (ENOMEM) */
static char *ranges_str(const int *v, size_t n)
{
	size_t need = mw_ranges_format(v, n, NULL, 0);
	char *s = malloc(need + 1);
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	mw_ranges_format(v, n, s, need + 1);
	if (n && !s[0]) { /* mw_ranges_format could not allocate */
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

static int cover_cmp(const void *x, const void *y)
{
	const struct cover *a = x, *b = y;
	if (a->origin != b->origin)
		return a->origin < b->origin ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* The cover of class c: {"origin":{"seq":"1-4","rank":"0-3"}, ...}, the
 * ranks in the order of the numbers.  NULL on ENOMEM. */
static json_object *cover_json(const struct mwt_agg *a, const struct cls *c)
{
	json_object *o = json_object_new_object();
	struct cover *s = malloc((c->ncov ? c->ncov : 1) * sizeof(*s));
	int *seqs = malloc((c->ncov ? c->ncov : 1) * sizeof(int));
	int *ranks = malloc((c->ncov ? c->ncov : 1) * sizeof(int));
	size_t i = 0, j, n;
	if (!o || !s || !seqs || !ranks)
		goto fail;
	memcpy(s, c->cov, c->ncov * sizeof(*s));
	qsort(s, c->ncov, sizeof(*s), cover_cmp);
	while (i < c->ncov) {
		char *sq, *rk;
		json_object *e = json_object_new_object();
		for (j = i, n = 0; j < c->ncov && s[j].origin == s[i].origin; j++, n++) {
			seqs[n] = (int)s[j].seq;
			ranks[n] = s[j].rank;
		}
		sq = runs_str(seqs, n);
		rk = runs_str(ranks, n);
		if (!e || !sq || !rk) {
			json_object_put(e);
			free(sq);
			free(rk);
			goto fail;
		}
		json_object_object_add(e, "seq", json_object_new_string(sq));
		json_object_object_add(e, "rank", json_object_new_string(rk));
		json_object_object_add(o, a->oname[s[i].origin], e);
		free(sq);
		free(rk);
		i = j;
	}
	free(s);
	free(seqs);
	free(ranks);
	return o;
fail:
	json_object_put(o);
	free(s);
	free(seqs);
	free(ranks);
	errno = ENOMEM;
	return NULL;
}

char *mwt_agg_to_json(const struct mwt_agg *a)
{
	json_object *o = json_object_new_object(), *cl = json_object_new_array();
	char *out = NULL;
	size_t k;
	if (!o || !cl) {
		json_object_put(o);
		json_object_put(cl);
		errno = ENOMEM;
		return NULL;
	}
	json_object_object_add(o, "v", json_object_new_int(1));
	json_object_object_add(o, "from", json_object_new_string(a->from));
	json_object_object_add(o, "events", json_object_new_int64((int64_t)a->events));
	json_object_object_add(o, "first", json_object_new_double(a->first));
	json_object_object_add(o, "last", json_object_new_double(a->last));
	json_object_object_add(o, "classes", cl);
	for (k = 0; k < a->nc; k++) {
		struct cls *c = &a->c[k];
		json_object *x = json_object_new_object(), *cov;
		size_t nr;
		int *rl = class_rank_list(c, &nr);
		char *r = rl ? ranges_str(rl, nr) : NULL;
		free(rl);
		cov = cover_json(a, c);
		if (!x || !r || !cov) {
			json_object_put(x);
			json_object_put(cov);
			free(r);
			goto fail;
		}
		json_object_object_add(x, "state", json_object_new_string(mw_hb_state_name((int)c->pub.state)));
		json_object_object_add(x, "call", json_object_new_string(c->pub.call));
		json_object_object_add(x, "peer", json_object_new_int(c->pub.peer));
		json_object_object_add(x, "kind", json_object_new_string(c->pub.kind));
		json_object_object_add(x, "comm", json_object_new_string(c->pub.comm));
		json_object_object_add(x, "root", json_object_new_int(c->pub.root));
		json_object_object_add(x, "tag", json_object_new_int(c->pub.tag));
		json_object_object_add(x, "exit", json_object_new_int(c->pub.exit_code));
		json_object_object_add(x, "signal", json_object_new_int(c->pub.exit_signal));
		json_object_object_add(x, "size", json_object_new_int(c->pub.size));
		json_object_object_add(x, "moving", json_object_new_string(c->pub.moving));
		json_object_object_add(x, "idle", json_object_new_double(c->pub.idle));
		json_object_object_add(x, "count", json_object_new_int64((int64_t)c->pub.count));
		json_object_object_add(x, "first", json_object_new_double(c->pub.first));
		json_object_object_add(x, "last", json_object_new_double(c->pub.last));
		json_object_object_add(x, "ranks", json_object_new_string(r));
		json_object_object_add(x, "cover", cov);
		free(r);
		json_object_array_add(cl, x);
	}
	out = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	if (!out)
		errno = ENOMEM;
fail:
	json_object_put(o);
	return out;
}

int mwt_agg_encode(const struct mwt_agg *a, uint8_t **buf, size_t *len)
{
	struct mw_hb_msg m;
	int rv;
	memset(&m, 0, sizeof(m));
	m.type = MW_HB_AGG;
	m.u.agg.json = mwt_agg_to_json(a);
	if (!m.u.agg.json)
		return -1;
	rv = mw_hb_encode(&m, buf, len);
	free(m.u.agg.json);
	return rv;
}

/* ------------------------------------------------------------ decoding */


static int only_keys(json_object *o, const char *const *keys)
{
	json_object_object_foreach(o, k, v)
	{
		size_t i;
		(void)v;
		for (i = 0; keys[i] && strcmp(keys[i], k); i++)
			;
		if (!keys[i])
			return -1;
	}
	return 0;
}

struct mwt_agg *mwt_agg_from_json(const char *json, size_t len, char *err, size_t errlen)
{
	static const char *const top_keys[] = {"v", "from", "events", "first", "last", "classes", NULL};
	static const char *const cls_keys[] = {"state", "call", "peer", "kind", "comm", "root", "tag", "exit",
					       "signal", "size", "moving", "idle", "count", "first", "last",
					       "ranks", "cover", NULL};
	json_tokener *tok = NULL;
	json_object *o = NULL, *cl;
	struct mwt_agg *a = NULL;
	struct cover *all = NULL;
	const char *from;
	int64_t v, events, sum = 0;
	double first, last;
	size_t k, n, nall = 0;
	int *tmp = NULL;
	const char *why = "not one JSON object";

	if (!len || memchr(json, 0, len) || len > MW_HB_MAX_PAYLOAD)
		goto bad;
	tok = json_tokener_new_ex(32);
	if (!tok) {
		why = "out of memory";
		goto bad;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, json, (int)len);
	if (!o || json_tokener_get_error(tok) != json_tokener_success || json_tokener_get_parse_end(tok) != len ||
	    !json_object_is_type(o, json_type_object))
		goto bad;
	why = "unknown field";
	if (only_keys(o, top_keys))
		goto bad;
	why = "v: expected 1";
	if (mwt_json_int(o, "v", 1, 1, &v))
		goto bad;
	why = "from: expected a node name";
	if (!(from = mwt_json_str(o, "from", MW_HB_STR_MAX)) || !mw_hb_valid_name(from))
		goto bad;
	why = "events, first, last: expected numbers";
	if (mwt_json_int(o, "events", 0, MWT_AGG_MAX_EVENTS, &events) ||
	    mwt_json_num(o, "first", 0, MWT_JSON_NUM_MAX, &first) ||
	    mwt_json_num(o, "last", 0, MWT_JSON_NUM_MAX, &last) || first > last)
		goto bad;
	why = "classes: expected an array";
	if (!json_object_object_get_ex(o, "classes", &cl) || !json_object_is_type(cl, json_type_array))
		goto bad;
	n = json_object_array_length(cl);
	why = "too many classes";
	if (n > MAX_CLASSES || (events == 0) != (n == 0))
		goto bad;
	a = mwt_agg_create(from);
	all = malloc((size_t)(events ? events : 1) * sizeof(*all));
	if (!a || !all) {
		why = "out of memory";
		goto bad;
	}
	for (k = 0; k < n; k++) {
		json_object *x = json_object_array_get_idx(cl, k), *cov;
		const char *st, *call, *ranks;
		int64_t peer, count, got = 0;
		double cf, clast;
		long ci, i;
		int state;
		struct cls *c;
		struct mwt_class key;
		why = "a class: bad field";
		if (!x || !json_object_is_type(x, json_type_object) || only_keys(x, cls_keys) ||
		    !(st = mwt_json_str(x, "state", 16)) || (state = mw_hb_state_parse(st)) < 0 ||
		    !(call = mwt_json_str(x, "call", MW_HB_STR_MAX)) ||
		    mwt_json_int(x, "peer", -2, MW_HB_MAX_RANK, &peer) || mwt_json_int(x, "count", 1, events, &count) ||
		    mwt_json_num(x, "first", 0, MWT_JSON_NUM_MAX, &cf) ||
		    mwt_json_num(x, "last", 0, MWT_JSON_NUM_MAX, &clast) || cf > clast || cf < first ||
		    clast > last || !(ranks = mwt_json_str(x, "ranks", 1u << 22)) ||
		    !json_object_object_get_ex(x, "cover", &cov) || !json_object_is_type(cov, json_type_object))
			goto bad;
		{
			/* The rest of the key: checked as a heartbeat would be. */
			struct mw_hb_beat b;
			const char *kind, *comm, *moving;
			int64_t root, tag, ex, sig, size;
			double idle;
			why = "a class: bad heartbeat field";
			if (!(kind = mwt_json_str(x, "kind", 15)) || !(comm = mwt_json_str(x, "comm", MW_HB_STR_MAX)) ||
			    !(moving = mwt_json_str(x, "moving", 31)) ||
			    mwt_json_int(x, "root", -1, MW_HB_MAX_RANK, &root) ||
			    mwt_json_int(x, "tag", -1, INT32_MAX, &tag) || mwt_json_int(x, "exit", -1, 255, &ex) ||
			    mwt_json_int(x, "signal", 0, 128, &sig) ||
			    mwt_json_int(x, "size", 1, MW_HB_MAX_RANK + 1, &size) ||
			    mwt_json_num(x, "idle", 0, MWT_JSON_NUM_MAX, &idle))
				goto bad;
			memset(&key, 0, sizeof(key));
			key.state = (enum mw_hb_state)state;
			snprintf(key.call, sizeof(key.call), "%s", call);
			key.peer = (int32_t)peer;
			snprintf(key.kind, sizeof(key.kind), "%s", kind);
			snprintf(key.comm, sizeof(key.comm), "%s", comm);
			snprintf(key.moving, sizeof(key.moving), "%s", moving);
			key.root = (int32_t)root;
			key.tag = (int32_t)tag;
			key.exit_code = (int32_t)ex;
			key.exit_signal = (int32_t)sig;
			key.size = (int32_t)size;
			key.idle = idle;
			mwt_class_beat(&key, 0, 1, &b);
			if (!mw_hb_beat_valid(&b))
				goto bad;
		}
		why = "events: more than the classes hold";
		if (sum + count > events)
			goto bad;
		ci = class_get(a, &key);
		why = "a class twice";
		if (ci < 0 || a->c[ci].pub.count)
			goto bad;
		c = &a->c[ci];
		{
			json_object_object_foreach(cov, on, sv)
			{
				static const char *const cov_keys[] = {"seq", "rank", NULL};
				const char *sq, *rk;
				long ns, nk, oi;
				int *rks = NULL;
				why = "a class: bad cover";
				if (!mw_hb_valid_name(on) || !json_object_is_type(sv, json_type_object) ||
				    only_keys(sv, cov_keys) || !(sq = mwt_json_str(sv, "seq", 1u << 22)) ||
				    !(rk = mwt_json_str(sv, "rank", 1u << 22)))
					goto bad;
				ns = mw_ranges_parse(sq, (size_t)(count - got), &tmp);
				if (ns < 1 || got + ns > count)
					goto bad;
				nk = mw_ranges_parse(rk, (size_t)ns, &rks);
				if (nk != ns) {
					free(rks);
					goto bad;
				}
				oi = origin_get(a, on);
				for (i = 0; i < ns; i++) {
					if (oi < 0 || tmp[i] < 1 || rks[i] > MW_HB_MAX_RANK || rks[i] >= key.size ||
					    cover_add(c, (uint32_t)oi, (uint32_t)tmp[i], rks[i]) < 0) {
						free(rks);
						goto bad;
					}
					all[nall].origin = (uint32_t)oi;
					all[nall++].seq = (uint32_t)tmp[i];
				}
				free(rks);
				got += ns;
				free(tmp);
				tmp = NULL;
			}
		}
		why = "a class: count is not the events it covers";
		if (got != count)
			goto bad;
		why = "a class: ranks are not those of the events it covers";
		{
			char *mine;
			size_t nr;
			int *rl = class_rank_list(c, &nr);
			mine = rl ? ranges_str(rl, nr) : NULL;
			free(rl);
			if (!mine || strcmp(mine, ranks) != 0) {
				free(mine);
				goto bad;
			}
			free(mine);
		}
		c->pub.count = (uint64_t)count;
		c->pub.idle = key.idle;
		c->pub.first = cf;
		c->pub.last = clast;
		sum += count;
	}
	why = "events: not the sum of the classes' counts";
	if (sum != events)
		goto bad;
	why = "an event covered twice";
	qsort(all, nall, sizeof(*all), cover_cmp);
	for (k = 1; k < nall; k++)
		if (all[k].origin == all[k - 1].origin && all[k].seq == all[k - 1].seq)
			goto bad;
	a->events = (uint64_t)events;
	a->first = first;
	a->last = last;
	free(all);
	json_object_put(o);
	json_tokener_free(tok);
	return a;
bad:
	mwt_errf(err, errlen, "aggregate: %s", why);
	free(tmp);
	free(all);
	mwt_agg_destroy(a);
	json_object_put(o);
	if (tok) /* json-c's json_tokener_free does not take NULL */
		json_tokener_free(tok);
	errno = strcmp(why, "out of memory") == 0 ? ENOMEM : EINVAL;
	return NULL;
}
