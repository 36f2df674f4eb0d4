/* slotnames.c - the slot's names block (mw_slot.h): the datatypes and
 * communicators a reader needs to describe the call of a rank that ended
 * before its watcher resolved it.  Written by the monitor's main thread off
 * the fast path (at MPI_Init, at a communicator's creation or free). */
#include <stdio.h>
#include <string.h>

#include "mw_slot.h"

int mw_slot_comm_world_rank(const struct mw_slot *s, uint64_t comm, int32_t r)
{
	if (!comm || r < 0)
		return -1; /* MPI_ANY_SOURCE and MPI_PROC_NULL are negative in both MPIs */
	if (comm == s->comm_world)
		return r < s->world_size ? r : -1;
	if (__atomic_load_n(&s->seq3, __ATOMIC_ACQUIRE) & 1)
		return -1; /* a copy taken while a communicator came or went */
	for (int i = 0; i < MW_SLOT_NCOMMS; i++) {
		const struct mw_slot_comm *c = &s->comms[i];
		if (__atomic_load_n(&c->handle, __ATOMIC_ACQUIRE) != comm)
			continue;
		if (r >= c->size)
			return -1;
		long w = (long)c->first + (long)c->stride * r;
		return w >= 0 && w < s->world_size ? (int)w : -1;
	}
	return -1;
}

int mw_slot_world_peer(const struct mw_slot *s)
{
	return mw_slot_comm_world_rank(s, s->call.comm, s->call.peer);
}

const char *mw_slot_dtype_name(const struct mw_slot *s, uint64_t h, char *buf, size_t len, int *size)
{
	if (len)
		buf[0] = 0;
	if (size)
		*size = -1;
	for (int i = 0; h && i < MW_SLOT_NDTYPES && s->dtypes[i].handle; i++) {
		const struct mw_slot_dtype *d = &s->dtypes[i];
		if (d->handle != h)
			continue;
		if (!memchr(d->name, 0, sizeof d->name))
			return NULL;
		for (const char *c = d->name; *c; c++)
			if (!((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_'))
				return NULL; /* it travels in a heartbeat */
		if (size)
			*size = d->size;
		snprintf(buf, len, "MPI_%s", d->name);
		return buf;
	}
	return NULL;
}

int mw_slot_comm_add(struct mw_slot *s, uint64_t handle, const int *world_ranks, int n)
{
	int stride = n > 1 ? world_ranks[1] - world_ranks[0] : 1, fr = -1;
	if (!s || !handle || n < 1 || world_ranks[0] < 0)
		return 0;
	for (int r = 1; r < n; r++)
		if (world_ranks[r] != world_ranks[0] + stride * r)
			return 0; /* not first + stride * rank */
	for (int i = 0; i < MW_SLOT_NCOMMS; i++) {
		if (s->comms[i].handle == handle) {
			fr = i; /* a handle reused after MPI_Comm_free */
			break;
		}
		if (fr < 0 && !s->comms[i].handle)
			fr = i;
	}
	if (fr < 0)
		return 0;
	struct mw_slot_comm *c = &s->comms[fr];
	__atomic_store_n(&s->seq3, s->seq3 + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	c->handle = 0;
	c->first = world_ranks[0];
	c->stride = stride;
	c->size = n;
	__atomic_store_n(&c->handle, handle, __ATOMIC_RELEASE);
	__atomic_store_n(&s->seq3, s->seq3 + 1, __ATOMIC_RELEASE);
	return 1;
}

void mw_slot_comm_remove(struct mw_slot *s, uint64_t handle)
{
	for (int i = 0; s && handle && i < MW_SLOT_NCOMMS; i++)
		if (s->comms[i].handle == handle) {
			__atomic_store_n(&s->seq3, s->seq3 + 1, __ATOMIC_RELAXED);
			__atomic_thread_fence(__ATOMIC_RELEASE);
			__atomic_store_n(&s->comms[i].handle, 0, __ATOMIC_RELEASE);
			__atomic_store_n(&s->seq3, s->seq3 + 1, __ATOMIC_RELEASE);
		}
}

int mw_slot_dtype_add(struct mw_slot *s, uint64_t h, const char *name, int size)
{
	if (!strncmp(name, "MPI_", 4))
		name += 4;
	if (!h || strlen(name) >= sizeof s->dtypes[0].name)
		return 0;
	for (int i = 0; i < MW_SLOT_NDTYPES; i++) {
		struct mw_slot_dtype *d = &s->dtypes[i];
		if (d->handle == h)
			return 1; /* an alias (MPI_INT32_T may be MPI_INT): the first name */
		if (d->handle)
			continue;
		d->size = size;
		snprintf(d->name, sizeof d->name, "%s", name);
		d->handle = h;
		return 1;
	}
	return 0;
}
