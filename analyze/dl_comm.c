/* dl_comm.c - the communicator table of the deadlock analysis: every
 * communicator the dumps name, by its global id (gid), with its group when a
 * dump gave it; and the translation between comm ranks and world ranks.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dl_int.h"

/* The comm table's index: interned gid pointer -> index in c->comms (open
 * addressing, a power of two). */
struct comm_index {
	const char **key;
	int *val;
	size_t cap, n;
};

int dl_comms_init(struct dl_ctx *c)
{
	c->comm_index = calloc(1, sizeof(struct comm_index));
	return c->comm_index ? 0 : -1;
}

int dl_comm_find(const struct dl_ctx *c, const char *gid)
{
	const struct comm_index *ix = c->comm_index;
	if (!ix || !ix->cap)
		return -1;
	size_t j = dl_ptr_hash(gid) & (ix->cap - 1);
	while (ix->key[j]) {
		if (ix->key[j] == gid)
			return ix->val[j];
		j = (j + 1) & (ix->cap - 1);
	}
	return -1;
}

int dl_comm_put(struct dl_ctx *c, const char *gid, int v)
{
	struct comm_index *ix = c->comm_index;
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
			size_t j = dl_ptr_hash(ix->key[i]) & (ncap - 1);
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
	size_t j = dl_ptr_hash(gid) & (ix->cap - 1);
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
	return g ? dl_comm_find(c, g) : -1;
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

int dl_comm_new(struct dl_ctx *c)
{
	if (c->ncomm == c->capcomm) {
		int ncap = c->capcomm ? c->capcomm * 2 : 16;
		struct dl_comm *nc = realloc(c->comms, (size_t)ncap * sizeof *nc);
		if (!nc)
			return -1;
		c->comms = nc;
		c->capcomm = ncap;
	}
	return c->ncomm++;
}

void dl_comms_free(struct dl_ctx *c)
{
	for (int i = 0; i < c->ncomm; i++)
		free(c->comms[i].group);
	free(c->comms);
	struct comm_index *ix = c->comm_index;
	if (ix) {
		free(ix->key);
		free(ix->val);
		free(ix);
	}
}
