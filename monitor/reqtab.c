/* reqtab.c - pending-request table (open addressing, tombstones) and ring. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reqtab.h"

static inline uint32_t hash64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return (uint32_t)h;
}

/* Copy everything but the generation count. */
static inline void copy_body(struct mwm_req *dst, const struct mwm_req *src)
{
	memcpy((char *)dst + sizeof(dst->gen), (const char *)src + sizeof(src->gen),
	       sizeof(*dst) - sizeof(dst->gen));
}

static inline void gen_begin(uint32_t *gen)
{
	__atomic_store_n(gen, *gen + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static inline void gen_end(uint32_t *gen)
{
	__atomic_store_n(gen, *gen + 1, __ATOMIC_RELEASE);
}

int mwm_reqtab_init(struct mwm_reqtab *t, uint32_t cap)
{
	uint32_t c = 16;
	while (c < cap && c < (1u << 24))
		c <<= 1;
	memset(t, 0, sizeof(*t));
	t->e = calloc(c, sizeof(*t->e));
	if (!t->e)
		return -1;
	t->cap = c;
	t->next_id = 1;
	return 0;
}

void mwm_reqtab_destroy(struct mwm_reqtab *t)
{
	free(t->e);
	memset(t, 0, sizeof(*t));
}

struct mwm_req *mwm_reqtab_find(const struct mwm_reqtab *t, uint64_t handle)
{
	uint32_t mask = t->cap - 1, i = hash64(handle) & mask;
	if (!t->e)
		return NULL;
	for (uint32_t n = 0; n < t->cap; n++, i = (i + 1) & mask) {
		struct mwm_req *r = &t->e[i];
		if (r->used == MWM_REQ_FREE)
			return NULL;
		if (r->used == MWM_REQ_USED && r->handle == handle)
			return r;
	}
	return NULL;
}

/* Rebuild in place when tombstones pile up: reinsert every used entry.
 * Readers see seq odd and retry. */
static void rehash(struct mwm_reqtab *t)
{
	uint32_t n = t->nused, k = 0;
	struct mwm_req *tmp = malloc((n ? n : 1) * sizeof(*tmp));
	if (!tmp)
		return; /* keep the tombstones; still correct */
	__atomic_store_n(&t->seq, t->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (uint32_t i = 0; i < t->cap; i++) {
		struct mwm_req *r = &t->e[i];
		if (r->used == MWM_REQ_USED && k < n)
			tmp[k++] = *r;
		if (r->used != MWM_REQ_FREE) {
			gen_begin(&r->gen);
			r->used = MWM_REQ_FREE;
			gen_end(&r->gen);
		}
	}
	t->ntomb = 0;
	for (uint32_t j = 0; j < k; j++) {
		uint32_t mask = t->cap - 1, i = hash64(tmp[j].handle) & mask;
		while (t->e[i].used != MWM_REQ_FREE)
			i = (i + 1) & mask;
		gen_begin(&t->e[i].gen);
		copy_body(&t->e[i], &tmp[j]);
		gen_end(&t->e[i].gen);
	}
	__atomic_store_n(&t->seq, t->seq + 1, __ATOMIC_RELEASE);
	free(tmp);
}

struct mwm_req *mwm_reqtab_put(struct mwm_reqtab *t, const struct mwm_req *tmpl)
{
	struct mwm_req *r = mwm_reqtab_find(t, tmpl->handle);
	if (!t->e)
		return NULL;
	if (!r) {
		uint32_t mask = t->cap - 1, i = hash64(tmpl->handle) & mask;
		/* keep at least a quarter of the table free so lookups end */
		if ((t->nused + 1) * 4 > t->cap * 3) {
			t->overflow++;
			return NULL;
		}
		if ((t->nused + t->ntomb + 1) * 4 > t->cap * 3)
			rehash(t);
		while (t->e[i].used == MWM_REQ_USED)
			i = (i + 1) & mask;
		r = &t->e[i];
		if (r->used == MWM_REQ_TOMB)
			t->ntomb--;
		t->nused++;
	}
	gen_begin(&r->gen);
	copy_body(r, tmpl);
	r->used = MWM_REQ_USED;
	r->id = t->next_id++;
	gen_end(&r->gen);
	return r;
}

static void set_used(struct mwm_req *r, uint8_t used)
{
	gen_begin(&r->gen);
	r->used = used;
	gen_end(&r->gen);
}

/* A lookup probes from the handle's hash to the first free entry, so an
 * entry whose successor is free ends its run: it, and the tombstones right
 * before it, can be freed instead of left as tombstones.  So no tombstone
 * is ever followed by a free entry, a rank with one request pending at a
 * time leaves none, and an empty table has none (no scan of the table). */
void mwm_reqtab_del(struct mwm_reqtab *t, struct mwm_req *r)
{
	uint32_t mask = t->cap - 1, i;
	if (!r || r->used != MWM_REQ_USED)
		return;
	i = (uint32_t)(r - t->e);
	t->nused--;
	if (t->e[(i + 1) & mask].used != MWM_REQ_FREE) {
		set_used(r, MWM_REQ_TOMB);
		t->ntomb++;
		return;
	}
	set_used(r, MWM_REQ_FREE);
	for (i = (i - 1) & mask; t->ntomb && t->e[i].used == MWM_REQ_TOMB; i = (i - 1) & mask) {
		set_used(&t->e[i], MWM_REQ_FREE);
		t->ntomb--;
	}
}

void mwm_reqtab_set_active(struct mwm_req *r, int active)
{
	gen_begin(&r->gen);
	r->active = (uint8_t)(active != 0);
	gen_end(&r->gen);
}

/* Copy one entry consistently; return 1 if the copy is consistent. */
static int copy_entry(const struct mwm_req *src, struct mwm_req *dst)
{
	for (int tries = 0; tries < 100; tries++) {
		uint32_t g1 = __atomic_load_n(&src->gen, __ATOMIC_ACQUIRE);
		if (g1 & 1)
			continue;
		memcpy(dst, src, sizeof(*dst));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&src->gen, __ATOMIC_RELAXED) == g1)
			return 1;
	}
	return 0;
}

int mwm_reqtab_snapshot(const struct mwm_reqtab *t, struct mwm_req *out, int max)
{
	int n = 0;
	if (!t->e)
		return 0;
	for (int tries = 0; tries < 100; tries++) {
		uint32_t s1 = __atomic_load_n(&t->seq, __ATOMIC_ACQUIRE);
		if (s1 & 1)
			continue;
		n = 0;
		for (uint32_t i = 0; i < t->cap && n < max; i++) {
			if (__atomic_load_n(&t->e[i].used, __ATOMIC_RELAXED) != MWM_REQ_USED)
				continue;
			if (copy_entry(&t->e[i], &out[n]) && out[n].used == MWM_REQ_USED)
				n++;
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&t->seq, __ATOMIC_RELAXED) == s1)
			return n;
	}
	return n;
}

void mwm_ring_push(struct mwm_ring *ring, const struct mwm_req *r)
{
	struct mwm_req *e = &ring->e[ring->head % MWM_RING];
	gen_begin(&e->gen);
	copy_body(e, r);
	e->used = MWM_REQ_USED;
	gen_end(&e->gen);
	__atomic_store_n(&ring->head, ring->head + 1, __ATOMIC_RELEASE);
}

int mwm_ring_snapshot(const struct mwm_ring *ring, struct mwm_req *out)
{
	uint64_t head = __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);
	int n = 0;
	for (uint64_t k = 0; k < MWM_RING && k < head; k++) {
		const struct mwm_req *e = &ring->e[(head - 1 - k) % MWM_RING];
		if (copy_entry(e, &out[n]) && out[n].used == MWM_REQ_USED)
			n++;
	}
	return n;
}

void mwm_bsends_push(struct mwm_bsends *b, const struct mwm_req *r)
{
	mwm_ring_push(&b->ring, r);
}

void mwm_bsends_detached(struct mwm_bsends *b)
{
	__atomic_store_n(&b->since, b->ring.head, __ATOMIC_RELEASE);
}

int mwm_bsends_snapshot(const struct mwm_bsends *b, struct mwm_req *out, uint64_t *total)
{
	uint64_t head = __atomic_load_n(&b->ring.head, __ATOMIC_ACQUIRE);
	uint64_t since = __atomic_load_n(&b->since, __ATOMIC_ACQUIRE);
	int n = 0;
	*total = head > since ? head - since : 0;
	for (uint64_t k = 0; k < MWM_RING && k < *total; k++) {
		const struct mwm_req *e = &b->ring.e[(head - 1 - k) % MWM_RING];
		if (copy_entry(e, &out[n]) && out[n].used == MWM_REQ_USED)
			n++;
	}
	return n;
}
