/* mwm.h - libmpiwatch runtime: the state of one monitored rank and the fast
 * path the generated MPI wrappers use.  MPI-independent (handles are carried
 * as uint64_t); the MPI-typed glue is in mwm_glue.h.
 *
 * Fast path (every wrapped call): a handful of stores into the shared-memory
 * slot under its seqlock and one load of the watcher's coarse clock (a
 * repeated poll: three single stores, no seqlock; an MPI_Test* poll of up
 * to MWM_MAX_WAIT handles, or an MPI_Iprobe/MPI_Improbe, within the tick of
 * the last published poll: one process-local counter, mwm_poll_skip(); a
 * blind poll, one handle on the armed variable: one counter and a tail
 * call, monitor/blind.c).  No system call, no lock, no allocation.
 */
#ifndef MWM_H
#define MWM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "comms.h"
#include "mw_slot.h"
#include "stall.h"
#include "reqtab.h"

/* The request handles the call record's extension holds (mwm.x.reqs); a
 * longer array is copied to the heap by the wrappers that write it.  Also
 * the bound of the polls that skip within a tick (monitor/gen.py, mwl_X):
 * up to it, the handles a skipped poll saves fit a 512-byte frame and its
 * completion writes them straight into mwm.x.reqs; a longer array would
 * need the heap copy on the completion path (and one is rare: hpcc polls
 * 16 with 5 ranks or more). */
#define MWM_MAX_WAIT 64
#define MWM_NOARG INT32_MIN /* a rank argument the call does not have */

/* The op table is the shared library's (generated from mpi.spec into
 * build/gen/monitor/ops.c; shared/mw_slot.h): the slot's readers derive from
 * an op id what the fast path no longer writes. */
#define mwm_ops mw_slot_ops
#define mwm_nops mw_slot_nops

struct mwm_name {
	uint64_t handle;
	const char *name;
	int size; /* bytes (datatypes) */
};

/* Per-op profile (only when the settings file asks for it). */
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
	uint32_t gen; /* bumped by each wrapper that writes reqs (nesting check) */
	uint64_t reqs[MWM_MAX_WAIT];
};

struct mwm_rt {
	int on;           /* wrappers record (after MPI_Init, before MPI_Finalize) */
	int thread_check; /* MPI_THREAD_MULTIPLE: record the main thread only */
	int plain;        /* on, no thread check, no profile: the wrappers' fast
			     path (one test; mwm_set_on() keeps it) */
	pthread_t main;
	int main_tid;     /* its thread id (the motion probe reads its I/O counts) */
	struct mw_slot *slot;
	/* The main thread writes nothing of this block on the fast path (the
	 * slot's seq is its own: slot->seq, read back by its only writer), and
	 * the watcher's coarse clock has a cache line of its own: no store of
	 * one thread lands on a line the other reads on every call or tick. */
	uint64_t clock_ns __attribute__((aligned(64))); /* coarse CLOCK_MONOTONIC, advanced by the watcher */
	char clock_pad[56];
	int profile;
	struct mwm_reqtab reqs;
	struct mwm_ring ring;
	struct mwm_bsends bsends; /* buffered sends since the last detach (runtime.c) */
	struct mwm_comms comms;
	struct mwm_callx x;
	/* Polls that skip within a tick (issue 34; main thread only): a C poll
	 * of the plain path whose clock_ns still equals poll_tick calls the MPI
	 * directly and only counts itself in polls_skipped, which the next
	 * published poll adds to the slot's polls.  poll_tick is the coarse
	 * clock at the last published poll, or 0 (clock_ns never is) while the
	 * watcher does not advance the clock (ticking 0) or the wrappers do not
	 * take the plain path (mwm_set_on() clears it): a poll that may skip
	 * is a plain one, without testing mwm.plain again. */
	uint64_t poll_tick;
	uint64_t polls_skipped;
	int ticking;
	/* A skipped probe's record arguments (MPI_Iprobe, MPI_Improbe),
	 * saved before its call for the record that a found message or an
	 * error writes (gen.py, mws_X; a probe nested in the call, from an
	 * error handler, would leave its own).  Here, not in the wrapper's
	 * frame: three stores into the frame just above Open MPI's
	 * PMPI_Iprobe's cost it 6-7 ns per probe on this project's AMD EPYC
	 * VM (cause not found: no PMU), these nothing measurable
	 * (doc/benchmarks.md, issue 34, session 13). */
	struct {
		uint64_t comm;
		int32_t peer, tag;
	} probe;
	/* Blind polls (issue 34, session 17; monitor/blind.c): within a tick,
	 * an MPI_Test, or an MPI_Testany/Testsome/Testall of one handle, on the
	 * armed request variable (blind.a, its address) still holding the
	 * armed handle (blind.h) calls the MPI at once (a tail call: nothing is
	 * saved, nothing tested after it) and only counts itself (blind.n).
	 * What it completed is found later (mwm_blind_resolve: before the next
	 * record is written or published, and before an arm): the MPI
	 * overwrote the handle at blind.a with MPI_REQUEST_NULL.  blind.a is
	 * MWM_BLIND_NONE (no MPI_Request * is odd) while nothing is armed; the
	 * main thread arms, the watcher disarms at every tick (so a blind poll
	 * is at most a tick old, as a skipped one).  Its own cache line: the
	 * watcher's store lands on it once per tick. */
	struct {
		uint64_t a, h, n;
	} blind __attribute__((aligned(64)));
	char blind_pad[40];
	/* the request armed last (main thread only): its variable, handle and
	 * request id, kept after the watcher's disarm for mwm_blind_resolve */
	struct {
		uint64_t a, h;
		int64_t id;
	} armed;
	uint64_t blind_black[8]; /* variables found changed by the program itself: never armed again */
	int nblack;
	int req_size;            /* sizeof(MPI_Request): 4 (MPICH) or 8 (Open MPI) */
	uintptr_t blind_sp;      /* MWM_BLIND_RESOLVE's argument, for the stub */
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
	char profdir[1024];      /* where the profile goes (the settings, runtime.c) */
	char slotpath[1024];
	struct mwm_prof *prof; /* [mwm_nops] */
	uint64_t prof_start_ns;
	uint64_t prof_end_ns;
	int prof_tsc;            /* the profile's clock is the invariant TSC (mwm_prof_now) */
	uint64_t prof_tsc_start; /* TSC at prof_start_ns */
	int prof_in_mpi_ns_valid;
	uintptr_t stack_lo, stack_hi; /* the main thread's stack */
};

extern struct mwm_rt mwm __attribute__((visibility("hidden")));

#define MWM_BLIND_NONE 1 /* blind.a when nothing is armed */
/* The caller's stack pointer at the wrapped call, in a wrapper function
 * whose frame is where the exported one's was (its return address is the
 * call site: frame[1]). */
#define MWM_USER_SP() ((uintptr_t)__builtin_frame_address(0) + 2 * sizeof(void *))

/* Turn recording on or off (mwm.on), keeping mwm.plain in step with on,
 * thread_check and profile; nothing stays armed for a blind poll. */
static inline void mwm_set_on(int on)
{
	mwm.on = on;
	mwm.plain = on && !mwm.thread_check && !mwm.profile;
	mwm.poll_tick = 0;
	__atomic_store_n(&mwm.blind.a, MWM_BLIND_NONE, __ATOMIC_RELAXED);
}

/* Blind polls (monitor/blind.c).  Account for the blind polls since the
 * last check: add them to the skipped polls, and, when the armed request
 * variable no longer holds the armed handle, disarm and credit the
 * completion if the MPI wrote MPI_REQUEST_NULL there (or the variable is
 * in a frame that has returned), else count progress once and never arm
 * that variable again (the program changed it).  user_sp is the caller's
 * stack pointer at the wrapped call (a variable below it is in a frame
 * that has returned).  Main thread, before a record is written or
 * published. */
void mwm_blind_resolve(uintptr_t user_sp);
/* The call of mwm_blind_resolve(user_sp) from a wrapper's fast path
 * (mwm_begin, mwm_poll_enter, mwm_poll_enter_tick): on x86-64 through a
 * stub (monitor/blind.c) that keeps every register but the SSE ones, so
 * that this rarely taken call costs the fast path its test alone (a plain
 * call made every wrapper keep its arguments in callee-saved registers:
 * 12 more instructions per MPI_Send).  The red zone is stepped over. */
#if defined(__x86_64__)
void mwm_blind_resolve_stub(void) __attribute__((visibility("hidden")));
#define MWM_BLIND_RESOLVE(sp)                                                                      \
	do {                                                                                       \
		mwm.blind_sp = (sp);                                                               \
		__asm__ volatile("lea -128(%%rsp), %%rsp\n\tcall mwm_blind_resolve_stub\n\tlea 128(%%rsp), %%rsp" \
				 ::: "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", \
				 "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",     \
				 "xmm15");                                                         \
	} while (0)
#else
#define MWM_BLIND_RESOLVE(sp) mwm_blind_resolve(sp)
#endif
/* The request h completed or was freed by a call that saw it (or the MPI
 * gave its handle to a new request): if it is the armed one, disarm, so
 * that a new request that gets the same handle in the same variable is not
 * taken for it (mwm_req_done, mwm_req_free, mwm_req_new). */
static inline void mwm_blind_forget(uint64_t h)
{
	if (__builtin_expect(h == mwm.armed.h, 0)) {
		__atomic_store_n(&mwm.blind.a, MWM_BLIND_NONE, __ATOMIC_RELAXED);
		mwm.armed.a = 0;
		mwm.armed.h = 0;
	}
}
/* A poll within the tick of the last published one completed nothing on
 * the one handle h held at the request variable a (C, plain path): arm a,
 * when it is a variable that stays readable (the main thread's stack, the
 * program's own data) and h a request the table holds, not persistent.
 * user_sp as for mwm_blind_resolve. */
void mwm_blind_arm(const void *a, uint64_t h, uintptr_t user_sp);

static inline int mwm_active(void)
{
	if (__builtin_expect(!mwm.on, 0))
		return 0;
	if (__builtin_expect(mwm.thread_check, 0) && !pthread_equal(pthread_self(), mwm.main))
		return 0;
	return 1;
}

/* The fast path is inlined into every wrapper, with the op's kind known at
 * compile time (gen.py passes constants): no call, no table lookup. */
#define MWM_FAST static inline __attribute__((always_inline))
typedef uint64_t __attribute__((may_alias, aligned(8))) mwm_u64a;

/* Start describing a call: the slot's seqlock is odd until mwm_commit().
 * Only the op id and language (one store), the call site, the frame and the
 * entry time are written here, then the wrapper stores the arguments its op
 * has; the readers (mw_slot_snapshot) derive the name, kind, mode and the
 * arguments the op does not have from the op id. */
MWM_FAST struct mw_slot_call *mwm_begin(int op, int lang, void *site, void *frame)
{
	if (__builtin_expect(mwm.blind.n != 0, 0))
		MWM_BLIND_RESOLVE((uintptr_t)frame + 2 * sizeof(void *)); /* MWM_USER_SP() of frame */
	struct mw_slot *s = mwm.slot;
	struct mw_slot_call *c = &s->call;
	_Static_assert(offsetof(struct mw_slot_call, lang) == offsetof(struct mw_slot_call, op_id) + 4 &&
			       offsetof(struct mw_slot_call, op_id) % 8 == 0,
		       "op_id and lang form one aligned word");
	/* the main thread is seq's only writer: its own load needs no order */
	__atomic_store_n(&s->seq, __atomic_load_n(&s->seq, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	*(mwm_u64a *)&c->op_id = (uint64_t)(uint32_t)op | (uint64_t)(uint32_t)lang << 32;
	c->site = (uint64_t)(uintptr_t)site;
	c->frame = (uint64_t)(uintptr_t)frame;
	c->enter_ns = __atomic_load_n(&mwm.clock_ns, __ATOMIC_RELAXED);
	return c;
}

/* Publish the call c of mwm_begin(): A += 1 for a blocking op, tests += 1
 * for a test-family op (both compile-time constants in the wrappers).  The
 * slot is c's (no reload of mwm.slot after the argument stores). */
MWM_FAST void mwm_commit_as(struct mw_slot_call *c, int blocking, int test)
{
	struct mw_slot *s = (struct mw_slot *)(void *)((char *)c - offsetof(struct mw_slot, call));
	s->calls++;
	if (blocking)
		s->a++;
	else if (test)
		s->tests++;
	s->state = MW_STATE_IN_MPI;
	__atomic_store_n(&s->seq, __atomic_load_n(&s->seq, __ATOMIC_RELAXED) + 1, __ATOMIC_RELEASE);
}

/* The call returned: B = A for a blocking op; ncompl requests/operations
 * completed; reqs != 0 for an op that may change the request table (the
 * slot's pending count is refreshed only then). */
MWM_FAST void mwm_finish_as(int blocking, unsigned ncompl, int reqs)
{
	struct mw_slot *s = mwm.slot;
	uint64_t q = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
	__atomic_store_n(&s->seq, q + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	if (blocking)
		s->b = s->a;
	if (ncompl) {
		s->completions += ncompl;
		s->last_progress_ns = __atomic_load_n(&mwm.clock_ns, __ATOMIC_RELAXED);
	}
	if (reqs)
		s->pending = mwm.reqs.nused;
	s->state = MW_STATE_COMPUTING;
	__atomic_store_n(&s->seq, q + 2, __ATOMIC_RELEASE);
}

/* Repeated polls (the test family: MPI_Test*, MPI_Iprobe, MPI_Improbe).  A
 * rank that polls the same requests from the same call site again finds the
 * call record already as it would write it: mwm_poll_again() says so (same
 * op and language, call site and frame; the wrapper then compares the
 * arguments it stores, and the request handles in mwm.x), and
 * mwm_poll_enter() then publishes only what changes, with one store each
 * and no seqlock section: the entry time, the count of repeated polls (the
 * slot's polls, which a reader's snapshot adds to calls and tests: one
 * store counts both) and the state.  A copy holds each field as it was at
 * some instant, and its counters as a full rewrite would have left them. */
MWM_FAST int mwm_poll_again(int op, int lang, void *site, void *frame)
{
	const struct mw_slot_call *c = &mwm.slot->call;
	return *(const mwm_u64a *)&c->op_id == ((uint64_t)(uint32_t)op | (uint64_t)(uint32_t)lang << 32) &&
	       c->site == (uint64_t)(uintptr_t)site && c->frame == (uint64_t)(uintptr_t)frame;
}

/* Publish a repeated poll: the entry time (coarse clock), polls += n, state
 * in_mpi, one store each. */
MWM_FAST struct mw_slot_call *mwm_poll_enter_n(uint64_t n)
{
	struct mw_slot *s = mwm.slot;
	/* the main thread is the only writer of these: its own loads need no order */
	__atomic_store_n(&s->call.enter_ns, __atomic_load_n(&mwm.clock_ns, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
	__atomic_store_n(&s->polls, __atomic_load_n(&s->polls, __ATOMIC_RELAXED) + n, __ATOMIC_RELEASE);
	__atomic_store_n(&s->state, MW_STATE_IN_MPI, __ATOMIC_RELEASE);
	return &s->call;
}

/* The blind polls since the last check are accounted for (mwm_blind_resolve)
 * before a poll is published.  Inlined into the wrapper: its frame is
 * where the call site's return address is the word above. */
#define mwm_blind_check()                                          \
	do {                                                       \
		if (__builtin_expect(mwm.blind.n != 0, 0))         \
			MWM_BLIND_RESOLVE(MWM_USER_SP());          \
	} while (0)

MWM_FAST struct mw_slot_call *mwm_poll_enter(void)
{
	mwm_blind_check();
	return mwm_poll_enter_n(1);
}

/* mwm_poll_enter() for a poll of an op that may skip (the plain path of
 * MPI_Test*, MPI_Iprobe and MPI_Improbe, gen_poll_split): it is also the
 * tick's published poll, which counts the polls skipped since the last one
 * (in the same store) and sets mwm.poll_tick.  The polls that do not skip
 * (Fortran, the general wrapper, more than MWM_MAX_WAIT handles) keep
 * mwm_poll_enter() (no extra work for them). */
MWM_FAST struct mw_slot_call *mwm_poll_enter_tick(void)
{
	mwm_blind_check();
	struct mw_slot_call *c = mwm_poll_enter_n(1 + mwm.polls_skipped);
	mwm.polls_skipped = 0;
	mwm.poll_tick = mwm.ticking && mwm.plain ? c->enter_ns : 0;
	return c;
}

/* A poll wrote the call record c (mwm_begin .. mwm_commit_as): it is the
 * tick's published poll; the polls skipped since the last one are counted
 * (one store, like mwm_poll_enter's). */
MWM_FAST void mwm_poll_published(const struct mw_slot_call *c)
{
	struct mw_slot *s = mwm.slot;
	if (mwm.polls_skipped) {
		__atomic_store_n(&s->polls, __atomic_load_n(&s->polls, __ATOMIC_RELAXED) + mwm.polls_skipped,
				 __ATOMIC_RELEASE);
		mwm.polls_skipped = 0;
	}
	mwm.poll_tick = mwm.ticking && mwm.plain ? c->enter_ns : 0;
}

/* 1 if a poll of the plain path may skip: the watcher's coarse clock has
 * not advanced since the last published poll (mwm_poll_enter or
 * mwm_poll_published).  Then the wrapper saves what a completion needs
 * (the handles before the call), calls the MPI, and on a completion or an
 * error writes the record and attributes as a published poll would; else
 * it only counts itself (mwm_poll_skipped). */
MWM_FAST int mwm_poll_skip(void)
{
	return __atomic_load_n(&mwm.clock_ns, __ATOMIC_RELAXED) == mwm.poll_tick;
}

MWM_FAST void mwm_poll_skipped(void)
{
	mwm.polls_skipped++;
}

/* A test-family call returned; ncompl requests completed; reqs != 0 if its
 * op may change the request table.  When nothing completed and the pending
 * count is still right, the state is the only field of the live block that
 * changes: one store, no seqlock section (a reader's copy has either state,
 * and every other field as it is: each copy is the slot at some instant). */
MWM_FAST void mwm_poll_finish(unsigned ncompl, int reqs)
{
	struct mw_slot *s = mwm.slot;
	if (__builtin_expect(!ncompl, 1) && (!reqs || s->pending == (uint32_t)mwm.reqs.nused))
		__atomic_store_n(&s->state, MW_STATE_COMPUTING, __ATOMIC_RELEASE);
	else
		mwm_finish_as(0, ncompl, reqs);
}

/* A blocking send returned: remember it in the recent-send ring, written in
 * place from the wrapper's arguments (no temporary: a copy of a record built
 * on the stack stalled on store-to-load forwarding, doc/monitor.md). */
MWM_FAST void mwm_sent_as(int op, int lang, int mode, uint64_t comm, int peer, int tag, int count,
			  uint64_t datatype)
{
	struct mwm_ring *ring = &mwm.ring;
	uint64_t h = ring->head;
	struct mwm_req *e = &ring->e[h % MWM_RING];
	uint32_t g = e->gen;
	__atomic_store_n(&e->gen, g + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	e->used = MWM_REQ_USED;
	e->table = MWM_TABLE_SEND;
	e->persistent = 0;
	e->active = 0;
	e->mode = (uint8_t)mode;
	e->lang = (uint8_t)lang;
	e->op = (uint16_t)op;
	e->handle = 0;
	e->id = -1;
	e->comm = comm;
	e->peer = peer;
	e->tag = tag;
	e->root = MWM_NOARG;
	e->count = count;
	e->datatype = datatype;
	e->rop = 0;
	e->buf = 0;
	__atomic_store_n(&e->gen, g + 2, __ATOMIC_RELEASE);
	__atomic_store_n(&ring->head, h + 1, __ATOMIC_RELEASE);
}

/* The same three steps for a caller that does not know its op at compile
 * time (MPI_Finalize, tests): the op's kind and mode come from the table. */
static inline const struct mw_slot_op *mwm_cur_op(void)
{
	static const struct mw_slot_op none;
	uint32_t op = mwm.slot->call.op_id;
	return op < (uint32_t)mwm_nops ? &mwm_ops[op] : &none;
}

static inline void mwm_commit(void)
{
	const struct mw_slot_op *o = mwm_cur_op();
	mwm_commit_as(&mwm.slot->call, o->blocking, o->kind == MW_KIND_TEST);
}

static inline void mwm_finish(unsigned ncompl)
{
	mwm_finish_as(mwm_cur_op()->blocking, ncompl, 1);
}

/* A blocking send (or the send half of a sendrecv) described by the current
 * call record returned. */
static inline void mwm_sent(void)
{
	const struct mw_slot_call *c = &mwm.slot->call;
	const struct mw_slot_op *o = mwm_cur_op();
	int sr = o->kind == MW_KIND_SENDRECV;
	mwm_sent_as((int)c->op_id, (int)c->lang, o->mode, c->comm, sr ? c->send_peer : c->peer,
		    sr ? c->send_tag : c->tag, c->count, c->datatype);
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
/* MPI_Bsend returned (its wrapper's hook, off the fast path): remember the
 * buffered send the current call record describes, on communicator comm,
 * with its call site, until the buffer is detached (mwm.bsends). */
void mwm_bsend_posted(uint64_t comm);
/* MPI_Buffer_detach returned (its wrapper's hook, C or Fortran): the
 * buffered sends so far were delivered. */
void mwm_bsend_detached(void);

/* 1 if site (a C wrapper's return address) is in MPICH's Fortran binding
 * (libmpifort, which calls the C function with the handles converted into
 * its own locals), else 0. */
int mwm_site_in_fortran_glue(uint64_t site);

/* CLOCK_MONOTONIC in ns (a vDSO call; not used on the fast path). */
uint64_t mwm_now_ns(void);
/* The profile's per-call clock: the TSC where it is invariant (x86-64, one
 * rdtsc; calib/cal_timer's check at start-up; the ticks are turned into ns
 * when the profile is written, at the rate measured over the whole run),
 * else CLOCK_MONOTONIC in ns. */
static inline uint64_t mwm_prof_now(void)
{
#if defined(__x86_64__)
	if (mwm.prof_tsc)
		return __builtin_ia32_rdtsc();
#endif
	return mwm_now_ns();
}
/* Profile: account one call of op that started at t0 (mwm_prof_now) and
 * moved bytes. */
void mwm_prof_add(int op, uint64_t t0, uint64_t bytes);

/* Runtime life cycle (runtime.c). */
/* MPI_Init or MPI_Init_thread (op) is entered from site (frame: the
 * wrapper's): the slot made at load (mwm_early_init) shows the rank inside
 * that call, so that a rank that ends in it is told with its line.  Never
 * fails: without a slot, nothing. */
void mwm_init_enter(int op, void *site, void *frame);
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
