/* mwt_agg.c - per-origin sequence numbers and a CP's aggregate of
 * heartbeats (mwt_agg.h, doc/protocol.md "Tree aggregates"); the
 * aggregate's JSON (the AGG payload) is mwt_aggjson.c's. */
#include "mwt_aggstate.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "mwt_err.h"


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

long mwt_agg_class_get(struct mwt_agg *a, const struct mwt_class *k)
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

long mwt_agg_origin_get(struct mwt_agg *a, const char *name)
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

int mwt_agg_cover_add(struct cls *c, uint32_t origin, uint32_t seq, int32_t rank)
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
		ci = mwt_agg_class_get(a, &k);
	}
	oi = mwt_agg_origin_get(a, origin);
	if (ci < 0 || oi < 0)
		return -1;
	c = &a->c[ci];
	if (mwt_agg_cover_add(c, (uint32_t)oi, b->seq, b->rank) < 0)
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
			long oi = mwt_agg_origin_get(a, child->oname[k]);
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
				long ci = mwt_agg_class_get(a, &cc->pub);
				if (ci < 0)
					goto fail;
				c = &a->c[ci];
			}
			if (mwt_agg_cover_add(c, omap[cc->cov[j].origin], cc->cov[j].seq, cc->cov[j].rank) < 0)
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

