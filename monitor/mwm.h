/* mwm.h - libmpiwatch runtime: the state of one monitored rank and the fast
 * path the generated MPI wrappers use.  MPI-independent (handles are carried
 * as uint64_t); the MPI-typed glue is in mwm_glue.h.
 *
 * Fast path (every wrapped call): a handful of stores into the shared-memory
 * slot under its seqlock and one load of the watcher's coarse clock.  No
 * system call, no lock, no allocation.
 */
#ifndef MWM_H
#define MWM_H

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "comms.h"
#include "mw_slot.h"
#include "stall.h"
#include "reqtab.h"

#define MWM_MAX_WAIT 64
#define MWM_NOARG INT32_MIN /* a rank argument the call does not have */

struct mwm_opinfo {
	char name[32];
	uint8_t kind;     /* enum mw_op_kind */
	uint8_t blocking; /* counters A/B move */
	uint8_t pad[6];
} __attribute__((aligned(8)));

/* Generated from mpi.spec (ops.c). */
extern const struct mwm_opinfo mwm_ops[];
extern const int mwm_nops;

struct mwm_name {
	uint64_t handle;
	const char *name;
	int size; /* bytes (datatypes) */
};

/* Per-op profile (only when MPIWATCH_PROFILE is set). */
struct mwm_prof {
	uint64_t calls;
	uint64_t ns;
	uint64_t bytes;
	uint64_t bmin, bmax; /* per-call bytes, over calls that moved data */
	uint64_t nb;         /* calls that moved data */
	double bsumsq;
};

struct mwm_callx { /* process-local extension of slot->call, same seqlock */
	int nreqs;
	uint64_t reqs[MWM_MAX_WAIT];
};

struct mwm_rt {
	int on;           /* wrappers record (after MPI_Init, before MPI_Finalize) */
	int thread_check; /* MPI_THREAD_MULTIPLE: record the main thread only */
	pthread_t main;
	int main_tid;     /* its thread id (the motion probe reads its I/O counts) */
	struct mw_slot *slot;
	uint64_t seq;     /* the writer's copy of slot->seq */
	uint64_t clock_ns; /* coarse CLOCK_MONOTONIC, advanced by the watcher */
	int profile;
	struct mwm_reqtab reqs;
	struct mwm_ring ring;
	struct mwm_comms comms;
	struct mwm_callx x;
	/* MPI constants, normalised by the glue at init */
	int proc_null, any_source, mpi_root, undefined;
	uint64_t comm_world, req_null;
	struct mwm_name dtypes[96];
	int ndtypes;
	struct mwm_name rops[24];
	int nrops;
	char mpi[48];
	double timeout_s;
	char dumpdir[1024];
	char slotpath[1024];
	struct mwm_prof *prof; /* [mwm_nops] */
	uint64_t prof_start_ns;
	uint64_t prof_end_ns;
	int prof_in_mpi_ns_valid;
	uintptr_t stack_lo, stack_hi; /* the main thread's stack */
};

extern struct mwm_rt mwm;

static inline int mwm_active(void)
{
	if (__builtin_expect(!mwm.on, 0))
		return 0;
	if (__builtin_expect(mwm.thread_check, 0) && !pthread_equal(pthread_self(), mwm.main))
		return 0;
	return 1;
}

/* Start describing a call: the slot's seqlock is odd until mwm_commit(). */
static inline struct mw_slot_call *mwm_begin(int op, int lang, void *site, void *frame)
{
	struct mw_slot *s = mwm.slot;
	struct mw_slot_call *c = &s->call;
	__atomic_store_n(&s->seq, mwm.seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(c->name, mwm_ops[op].name, sizeof(c->name));
	c->op_id = (uint32_t)op;
	c->kind = mwm_ops[op].kind;
	c->blocking = mwm_ops[op].blocking;
	c->lang = (uint32_t)lang;
	c->comm = 0;
	c->peer = MWM_NOARG;
	c->tag = MW_TAG_NONE;
	c->root = MWM_NOARG;
	c->count = -1;
	c->send_peer = MWM_NOARG;
	c->send_tag = MW_TAG_NONE;
	c->datatype = 0;
	c->op = 0;
	c->mode = 0;
	c->nreqs = 0;
	c->site = (uint64_t)(uintptr_t)site;
	c->frame = (uint64_t)(uintptr_t)frame;
	c->enter_ns = __atomic_load_n(&mwm.clock_ns, __ATOMIC_RELAXED);
	return c;
}

/* Publish the call: A += 1 for a blocking call. */
static inline void mwm_commit(void)
{
	struct mw_slot *s = mwm.slot;
	s->calls++;
	if (s->call.blocking)
		s->a++;
	else if (s->call.kind == MW_KIND_TEST)
		s->tests++;
	s->state = MW_STATE_IN_MPI;
	mwm.seq += 2;
	__atomic_store_n(&s->seq, mwm.seq, __ATOMIC_RELEASE);
}

/* The call returned: B = A for a blocking call; ncompl requests/operations
 * completed. */
static inline void mwm_finish(unsigned ncompl)
{
	struct mw_slot *s = mwm.slot;
	__atomic_store_n(&s->seq, mwm.seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	if (s->call.blocking)
		s->b = s->a;
	if (ncompl) {
		s->completions += ncompl;
		s->last_progress_ns = __atomic_load_n(&mwm.clock_ns, __ATOMIC_RELAXED);
	}
	s->pending = mwm.reqs.nused;
	s->state = MW_STATE_COMPUTING;
	mwm.seq += 2;
	__atomic_store_n(&s->seq, mwm.seq, __ATOMIC_RELEASE);
}

/* Request bookkeeping (runtime.c).  Called by the main thread only.
 * Record a new request from the current call's arguments (MPI_REQUEST_NULL
 * is ignored; a full table is counted in reqs.overflow). */
void mwm_req_new(uint64_t handle, int table, int persistent);
/* A request completed: remove it (or make a persistent one inactive); a
 * send goes to the recent-send ring.  Return 1 (one completion). */
unsigned mwm_req_done(uint64_t handle);
/* MPI_Start: a persistent request becomes active. */
void mwm_req_start(uint64_t handle);
/* MPI_Request_free: forget the request. */
void mwm_req_free(uint64_t handle);
/* A blocking send returned: remember it in the recent-send ring. */
void mwm_sent(void);

/* CLOCK_MONOTONIC in ns (a vDSO call; not used on the fast path). */
uint64_t mwm_now_ns(void);
/* Profile: account one call of op that started at t0 and moved bytes. */
void mwm_prof_add(int op, uint64_t t0, uint64_t bytes);

/* Runtime life cycle (runtime.c). */
/* Set up the slot, tables and watcher after MPI_Init returned.  Never fails
 * the job: on error, monitoring stays off.  Return 0 if monitoring is on. */
int mwm_start(int world_rank, int world_size, int thread_multiple);
/* MPI_Finalize is about to be called: end the profile's time span. */
void mwm_stop(void);
/* MPI_Finalize returned: stop recording and the watcher, write the profile. */
void mwm_after_finalize(void);
/* Return 1 if MPIWATCH_DISABLE asks for no monitoring, else 0. */
int mwm_disabled(void);

/* Start the watcher thread (all signals blocked in it).  Return 0 on
 * success, or -1 on error (with errno set). */
int mwm_watcher_start(void);
/* Stop and join the watcher (no-op if not running or called by it). */
void mwm_watcher_stop(void);
/* In a forked child: there is no watcher thread. */
void mwm_watcher_forget(void);
/* The watcher's use of the one stall rule (shared/stall.h): return 1 the
 * first time a blocking call is judged stuck, 2 the first time a polling
 * episode is, else 0 (a slow transfer is neither).  st starts zeroed. */
struct mwm_stall {
	struct mw_stall rule;
	uint64_t dumped_a;     /* A + 1 of the call already dumped for (stuck) */
	uint64_t dumped_compl; /* completions + 1 already dumped for (polling) */
};
int mwm_stall_check(struct mwm_stall *st, const struct mw_slot *s, uint64_t now_ns,
		    double timeout_s);

/* Write this rank's dump now (watcher thread; reason "stuck", "polling" or
 * "request").  Return 0 on success or when there is no dump directory, or -1
 * on error (with errno set; reported once on stderr). */
int mwm_dump_write(const char *reason);

/* The name of a predefined datatype handle ("MPI_INT"; *size = its bytes),
 * "derived" (*size = -1) for another handle, NULL for no handle. */
const char *mwm_dtype_name(uint64_t h, int *size);
/* Record a committed derived datatype's extents (main thread). */
void mwm_dtype_committed(uint64_t h, int64_t lb, int64_t extent, int64_t true_lb, int64_t true_extent);
/* The extent, true lower bound and true extent of datatype h (predefined, or
 * derived and committed while watched), from any thread.  Return 0, or -1 if
 * unknown. */
int mwm_dtype_span(uint64_t h, int64_t *extent, int64_t *true_lb, int64_t *true_extent);
/* The name of a predefined reduction op ("MPI_SUM"), "user", or NULL. */
const char *mwm_rop_name(uint64_t h);
/* Normalise an MPI rank argument to MW_RANK_NONE/ANY or itself. */
int mwm_norm_rank(int r);

/* Glue hooks implemented per MPI (mpiglue.c). */
/* The unexpected-message queue length of comm from MPI_T (watcher thread).
 * per_peer (may be NULL) receives up to max_peers per-peer values when the
 * MPI keeps them, *npeers their number.  Return 0, or -1 if unavailable. */
int mwm_glue_mpit_unexpected(uint64_t comm, long *count, long *per_peer, int max_peers, int *npeers);


#endif
