/* comms.h - the communicators one rank knows, with their job-wide gid and
 * the world ranks of their groups (see doc/dump-format.md, "gid rule").
 *
 * Written by the main thread when a communicator is created or freed (inside
 * MPI wrappers); read by the watcher thread while writing a dump.  Entries
 * are never moved; a freed entry is unlinked and its memory released only
 * when no reader is active (mwm_comms_reader_begin/end).
 */
#ifndef MWM_COMMS_H
#define MWM_COMMS_H

#include <stdint.h>

#define MWM_COMMS_MAX 4096
#define MWM_GID_MAX 128

struct mwm_comm {
	uint64_t handle;     /* raw MPI_Comm */
	int id;              /* per-rank id: world 0, self 1, then 2, 3, ... */
	int parent_id;       /* -1 for world/self */
	char gid[MWM_GID_MAX];
	char how[16];        /* world, self, dup, split, create, cart, graph, intercomm, merge */
	int inter;           /* 1 for an intercommunicator */
	int size;            /* (remote group size for an intercommunicator) */
	int rank;            /* this process's rank in it */
	int *world_ranks;    /* [size]: the group (remote group if inter) */
	int local_size;      /* intercommunicator: local group size */
	int *local_world_ranks;
	uint32_t nchildren;  /* communicator-creating calls made on it */
	uint32_t ninter;     /* (world only) intercommunicators created so far */
	uint32_t nbc_started; /* nonblocking collectives started on it (issue 35 item 12) */
};

struct mwm_comms {
	uint32_t seq;        /* odd while the table's links change */
	uint32_t readers;    /* watcher is reading (frees are deferred) */
	int next_id;
	int n;               /* slots in use in tab[] (some may be NULL) */
	uint64_t overflow;
	struct mwm_comm *tab[MWM_COMMS_MAX];
	struct mwm_comm *dead[64];
	int ndead;
};

/* Hex FNV-1a (32 bit) of a list of ranks, 8 lower-case hex digits + NUL. */
void mwm_ranks_hash(const int *ranks, int n, char out[9]);

/* Initialise with MPI_COMM_WORLD (ranks 0..size-1) and MPI_COMM_SELF.
 * Return 0 on success, or -1 on error (with errno set). */
int mwm_comms_init(struct mwm_comms *c, uint64_t world, uint64_t self, int world_rank,
		   int world_size);
void mwm_comms_destroy(struct mwm_comms *c);

/* Return the entry for a handle, or NULL. */
struct mwm_comm *mwm_comms_find(struct mwm_comms *c, uint64_t handle);

/* Record a communicator created from parent (NULL handle = unknown parent).
 * world_ranks (size n) is the new group (the remote group for an
 * intercommunicator, with local/nlocal the local group); rank is this
 * process's rank in it.  The gid follows the rule in doc/dump-format.md.
 * Takes ownership of neither array (copies).  Return the entry, or NULL on
 * error (with errno set; ENOSPC when the table is full). */
struct mwm_comm *mwm_comms_add(struct mwm_comms *c, uint64_t handle, uint64_t parent,
			       const char *how, const int *world_ranks, int n, int rank,
			       int inter, const int *local, int nlocal);

/* Forget a freed communicator. */
void mwm_comms_remove(struct mwm_comms *c, uint64_t handle);

/* Translate a rank of comm (as passed to MPI, after normalisation of the
 * special values to MW_RANK_NONE / MW_RANK_ANY) to a world rank.  For an
 * intercommunicator the rank is in the remote group.  Return the world rank,
 * the special value unchanged, or MW_RANK_NONE if unknown/out of range. */
int mwm_comm_to_world(const struct mwm_comm *comm, int rank);

/* Reader side: bracket any walk over the table from another thread. */
void mwm_comms_reader_begin(struct mwm_comms *c);
void mwm_comms_reader_end(struct mwm_comms *c);

#endif
