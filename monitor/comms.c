/* comms.c - communicator table and the gid rule. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comms.h"
#include "mw_slot.h"

void mwm_ranks_hash(const int *ranks, int n, char out[9])
{
	uint32_t h = 2166136261u;
	for (int i = 0; i < n; i++) {
		uint32_t v = (uint32_t)ranks[i];
		for (int b = 0; b < 4; b++) {
			h ^= (v >> (8 * b)) & 0xff;
			h *= 16777619u;
		}
	}
	snprintf(out, 9, "%08x", h);
}

static void comm_free(struct mwm_comm *m)
{
	if (!m)
		return;
	free(m->world_ranks);
	free(m->local_world_ranks);
	free(m);
}

static void links_begin(struct mwm_comms *c)
{
	__atomic_store_n(&c->seq, c->seq + 1, __ATOMIC_SEQ_CST);
}

static void links_end(struct mwm_comms *c)
{
	__atomic_store_n(&c->seq, c->seq + 1, __ATOMIC_SEQ_CST);
}

static int slot_insert(struct mwm_comms *c, struct mwm_comm *m)
{
	int i;
	for (i = 0; i < c->n; i++)
		if (!c->tab[i])
			break;
	if (i == c->n) {
		if (c->n >= MWM_COMMS_MAX) {
			c->overflow++;
			errno = ENOSPC;
			return -1;
		}
		c->n++;
	}
	links_begin(c);
	__atomic_store_n(&c->tab[i], m, __ATOMIC_SEQ_CST);
	links_end(c);
	return 0;
}

static struct mwm_comm *comm_new(int id, uint64_t handle, const char *how, const int *ranks, int n,
				 int rank)
{
	struct mwm_comm *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->id = id;
	m->handle = handle;
	m->parent_id = -1;
	snprintf(m->how, sizeof(m->how), "%s", how);
	m->size = n;
	m->rank = rank;
	m->world_ranks = malloc((n > 0 ? n : 1) * sizeof(int));
	if (!m->world_ranks) {
		free(m);
		return NULL;
	}
	if (n > 0)
		memcpy(m->world_ranks, ranks, n * sizeof(int));
	return m;
}

int mwm_comms_init(struct mwm_comms *c, uint64_t world, uint64_t self, int world_rank,
		   int world_size)
{
	struct mwm_comm *w, *s;
	int *ranks;
	memset(c, 0, sizeof(*c));
	ranks = malloc((world_size > 0 ? world_size : 1) * sizeof(int));
	if (!ranks)
		return -1;
	for (int i = 0; i < world_size; i++)
		ranks[i] = i;
	w = comm_new(0, world, "world", ranks, world_size, world_rank);
	free(ranks);
	s = comm_new(1, self, "self", &world_rank, 1, 0);
	if (!w || !s) {
		comm_free(w);
		comm_free(s);
		return -1;
	}
	snprintf(w->gid, sizeof(w->gid), "world");
	snprintf(s->gid, sizeof(s->gid), "self.%d", world_rank);
	c->tab[0] = w;
	c->tab[1] = s;
	c->n = 2;
	c->next_id = 2;
	return 0;
}

void mwm_comms_destroy(struct mwm_comms *c)
{
	for (int i = 0; i < c->n; i++)
		comm_free(c->tab[i]);
	for (int i = 0; i < c->ndead; i++)
		comm_free(c->dead[i]);
	memset(c, 0, sizeof(*c));
}

struct mwm_comm *mwm_comms_find(struct mwm_comms *c, uint64_t handle)
{
	for (int i = 0; i < c->n; i++) {
		struct mwm_comm *m = __atomic_load_n(&c->tab[i], __ATOMIC_ACQUIRE);
		if (m && m->handle == handle)
			return m;
	}
	return NULL;
}

struct mwm_comm *mwm_comms_add(struct mwm_comms *c, uint64_t handle, uint64_t parent,
			       const char *how, const int *world_ranks, int n, int rank,
			       int inter, const int *local, int nlocal)
{
	struct mwm_comm *p = mwm_comms_find(c, parent);
	struct mwm_comm *m;
	char hash[9];

	if (n < 0 || (inter && nlocal < 0)) {
		errno = EINVAL;
		return NULL;
	}
	mwm_comms_remove(c, handle); /* a handle reused after an unseen free */
	m = comm_new(c->next_id, handle, how, world_ranks, n, rank);
	if (!m)
		return NULL;
	m->inter = inter != 0;
	if (inter) {
		m->local_size = nlocal;
		m->local_world_ranks = malloc((nlocal > 0 ? nlocal : 1) * sizeof(int));
		if (!m->local_world_ranks) {
			comm_free(m);
			return NULL;
		}
		if (nlocal > 0)
			memcpy(m->local_world_ranks, local, nlocal * sizeof(int));
		/* both sides must agree: hash the group with the lower first
		 * world rank first, then the other one */
		int lf = nlocal > 0 ? local[0] : -1, rf = n > 0 ? world_ranks[0] : -1;
		int *all = malloc((n + nlocal + 1) * sizeof(int));
		if (!all) {
			comm_free(m);
			return NULL;
		}
		if (lf <= rf) {
			memcpy(all, local, nlocal * sizeof(int));
			memcpy(all + nlocal, world_ranks, n * sizeof(int));
		} else {
			memcpy(all, world_ranks, n * sizeof(int));
			memcpy(all + n, local, nlocal * sizeof(int));
		}
		mwm_ranks_hash(all, n + nlocal, hash);
		free(all);
		/* the two sides have different parents: count intercomms on world */
		struct mwm_comm *w = c->tab[0];
		snprintf(m->gid, sizeof(m->gid), "inter/%u:%s", w ? w->ninter : 0, hash);
		if (w)
			w->ninter++;
		m->parent_id = p ? p->id : -1;
	} else {
		mwm_ranks_hash(world_ranks, n, hash);
		if (p) {
			m->parent_id = p->id;
			if (snprintf(m->gid, sizeof(m->gid), "%s/%u:%s", p->gid, p->nchildren, hash) >=
			    (int)sizeof(m->gid)) {
				/* too deep: fold the parent's gid into a hash */
				char ph[9];
				int dummy[1];
				uint32_t hh = 2166136261u;
				for (const char *q = p->gid; *q; q++) {
					hh ^= (unsigned char)*q;
					hh *= 16777619u;
				}
				dummy[0] = (int)hh;
				mwm_ranks_hash(dummy, 1, ph);
				snprintf(m->gid, sizeof(m->gid), "h%s/%u:%s", ph, p->nchildren, hash);
			}
		} else {
			snprintf(m->gid, sizeof(m->gid), "unknown/%d:%s", m->id, hash);
		}
	}
	if (p)
		p->nchildren++;
	if (slot_insert(c, m) < 0) {
		comm_free(m);
		return NULL;
	}
	c->next_id++;
	return m;
}

void mwm_comms_remove(struct mwm_comms *c, uint64_t handle)
{
	for (int i = 2; i < c->n; i++) {
		struct mwm_comm *m = c->tab[i];
		if (!m || m->handle != handle)
			continue;
		links_begin(c);
		__atomic_store_n(&c->tab[i], NULL, __ATOMIC_SEQ_CST);
		links_end(c);
		if (__atomic_load_n(&c->readers, __ATOMIC_SEQ_CST) == 0) {
			comm_free(m);
			/* also release earlier deferred entries */
			for (int k = 0; k < c->ndead; k++)
				comm_free(c->dead[k]);
			c->ndead = 0;
		} else if (c->ndead < (int)(sizeof(c->dead) / sizeof(c->dead[0]))) {
			c->dead[c->ndead++] = m;
		} /* else: leak one entry rather than risk the reader */
		return;
	}
}

int mwm_comm_to_world(const struct mwm_comm *comm, int rank)
{
	if (rank < 0)
		return rank == MW_RANK_ANY ? MW_RANK_ANY : MW_RANK_NONE;
	if (!comm || rank >= comm->size || !comm->world_ranks)
		return MW_RANK_NONE;
	return comm->world_ranks[rank];
}

void mwm_comms_reader_begin(struct mwm_comms *c)
{
	__atomic_store_n(&c->readers, 1, __ATOMIC_SEQ_CST);
}

void mwm_comms_reader_end(struct mwm_comms *c)
{
	__atomic_store_n(&c->readers, 0, __ATOMIC_SEQ_CST);
}
