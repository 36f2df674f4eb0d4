/* blind.c - blind polls: a repeated one-handle poll that calls the MPI at
 * once, and what it completed, found afterwards (issue 34; mwm.h, struct
 * mwm_rt's blind, armed and blind_black; doc/monitor.md, "Blind polls").
 *
 * A blind poll (the generated mwv_X) is an MPI_Test, or an MPI_Testany,
 * MPI_Testsome or MPI_Testall of one handle, whose request variable is the
 * armed one (mwm.blind.a) and still holds the armed handle (mwm.blind.h).
 * It saves nothing and tests nothing after the call.  When such a poll
 * completes the request, the MPI writes MPI_REQUEST_NULL into that variable
 * (the request was armed only if it is not persistent), so the next poll on
 * it is not blind, and mwm_blind_resolve(), run before any record is
 * written or published, reads the variable: MPI_REQUEST_NULL is the
 * completion, credited then (the request leaves the table, the slot's
 * completions and last progress move: at most a tick after the fact, as
 * for the polls that skip within a tick).  A variable that holds another
 * handle was changed by the program itself (a handle copied in, no MPI
 * call): whether the armed request completed cannot be told; it is counted
 * as progress (so a rank that made progress is never judged polling for
 * lack of it), it stays in the table, and that variable is never armed
 * again (at most 8; then no poll is blind any more).  A variable in a
 * stack frame that has returned since (below the caller's stack pointer)
 * may have been overwritten: unless it still holds the handle, the request
 * is taken as completed.
 *
 * Only variables that stay readable are armed: the main thread's stack
 * (its pages, once used, stay mapped) and the main program's own writable
 * data; never the heap, which the program may give back, nor the copy that
 * MPICH's Fortran binding (libmpifort) makes in its own frame. */
#include <link.h>
#include <stdint.h>

#include "mwm.h"

/* the main program's writable data (its PT_LOAD segments without PF_X) */
static uintptr_t data_lo[4], data_hi[4];
static int ndata = -1;

static int data_ranges(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	ndata = 0;
	for (int i = 0; i < info->dlpi_phnum && ndata < 4; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && !(ph->p_flags & PF_X)) {
			data_lo[ndata] = info->dlpi_addr + ph->p_vaddr;
			data_hi[ndata] = data_lo[ndata] + ph->p_memsz;
			ndata++;
		}
	}
	return 1; /* the first object is the main program */
}

static int readable(uintptr_t a)
{
	if (mwm.req_size <= 0 || a % (uintptr_t)mwm.req_size)
		return 0;
	if (a >= mwm.stack_lo && a + 8 <= mwm.stack_hi)
		return 1;
	if (ndata < 0)
		dl_iterate_phdr(data_ranges, NULL);
	for (int i = 0; i < ndata; i++)
		if (a >= data_lo[i] && a + 8 <= data_hi[i])
			return 1;
	return 0;
}

static uint64_t read_handle(uintptr_t a)
{
	if (mwm.req_size == 4)
		return (uint64_t)(uintptr_t)(intptr_t)*(volatile const int32_t *)a; /* as MWH() widens an int */
	return *(volatile const uint64_t *)a;
}

static void disarm(void)
{
	__atomic_store_n(&mwm.blind.a, MWM_BLIND_NONE, __ATOMIC_RELAXED);
	mwm.armed.a = 0;
	mwm.armed.h = 0; /* (no request has handle 0 in either MPI) */
}

/* the slot's completions and last progress (and pending count) move by n,
 * outside any call record (seqlock section) */
static void credit(unsigned n)
{
	struct mw_slot *s = mwm.slot;
	uint64_t q = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
	__atomic_store_n(&s->seq, q + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	s->completions += n;
	s->last_progress_ns = __atomic_load_n(&mwm.clock_ns, __ATOMIC_RELAXED);
	s->pending = mwm.reqs.nused;
	__atomic_store_n(&s->seq, q + 2, __ATOMIC_RELEASE);
}

void mwm_blind_resolve(uintptr_t user_sp)
{
	mwm.polls_skipped += mwm.blind.n;
	mwm.blind.n = 0;
	if (!mwm.armed.a)
		return;
	uint64_t v = read_handle(mwm.armed.a);
	if (v == mwm.armed.h)
		return; /* still there: not completed */
	uint64_t a = mwm.armed.a, h = mwm.armed.h;
	int64_t id = mwm.armed.id;
	disarm();
	struct mwm_req *r = mwm_reqtab_find(&mwm.reqs, h);
	if (v == mwm.req_null) {
		/* completed by a blind poll (unless a call since completed it:
		 * then the table no longer holds it, or holds a new request
		 * that got the same handle) */
		if (r && r->id == id && r->active && !r->persistent)
			credit(mwm_req_done(h));
		return;
	}
	if (a < user_sp && a >= mwm.stack_lo) {
		/* a frame that has returned since: its variable may have been
		 * overwritten; a function that polls its own request returns
		 * once it completed (one that hands a pending request out by
		 * value, and so loses it from the table until it completes, is
		 * the rarer case) */
		if (r && r->id == id && r->active && !r->persistent)
			credit(mwm_req_done(h));
		return;
	}
	/* changed by the program itself: progress, perhaps; the request
	 * stays in the table, the variable is not armed again */
	if (r && r->id == id)
		credit(1);
	if (mwm.nblack < (int)(sizeof(mwm.blind_black) / sizeof(mwm.blind_black[0])))
		mwm.blind_black[mwm.nblack++] = a;
	else
		mwm.nblack = -1; /* full: no more blind polls */
}

void mwm_blind_arm(const void *a, uint64_t h, uintptr_t user_sp)
{
	uintptr_t p = (uintptr_t)a;
	if (mwm.blind.n)
		mwm_blind_resolve(user_sp);
	if (!mwm.ticking || !mwm.plain || mwm.nblack < 0 || h == mwm.req_null || !readable(p))
		return;
	for (int i = 0; i < mwm.nblack; i++)
		if (mwm.blind_black[i] == p)
			return;
	/* MPICH's Fortran binding polls a copy of the handle in its own frame,
	 * which is gone (and its stack reused) before the next call: not a
	 * variable to read later (the call site is the word below user_sp) */
	if (mwm_site_in_fortran_glue(*(const uint64_t *)(user_sp - sizeof(void *))))
		return;
	const struct mwm_req *r = mwm_reqtab_find(&mwm.reqs, h);
	if (!r || r->persistent || !r->active)
		return;
	mwm.armed.a = p;
	mwm.armed.h = h;
	mwm.armed.id = r->id;
	mwm.blind.h = h;
	__atomic_store_n(&mwm.blind.a, (uint64_t)p, __ATOMIC_RELAXED);
	/* armed within the tick it was asked in: if the watcher has moved the
	 * clock since (and so may have disarmed before this store), disarm */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&mwm.clock_ns, __ATOMIC_RELAXED) != mwm.poll_tick)
		__atomic_store_n(&mwm.blind.a, MWM_BLIND_NONE, __ATOMIC_RELAXED);
}

#if defined(__x86_64__)
/* mwm_blind_resolve(mwm.blind_sp), keeping every general register (the
 * caller's arguments live in the caller-saved ones: MWM_BLIND_RESOLVE in
 * mwm.h); the stack is aligned for the C call. */
void mwm_blind_resolve_sp(void) __attribute__((visibility("hidden"), used));
void mwm_blind_resolve_sp(void)
{
	mwm_blind_resolve(mwm.blind_sp);
}

__asm__(".text\n"
	".globl mwm_blind_resolve_stub\n"
	".hidden mwm_blind_resolve_stub\n"
	".type mwm_blind_resolve_stub, @function\n"
	"mwm_blind_resolve_stub:\n"
	"\t.cfi_startproc\n"
	"\tpush %rbp\n"
	"\t.cfi_def_cfa_offset 16\n"
	"\t.cfi_offset %rbp, -16\n"
	"\tmov %rsp, %rbp\n"
	"\t.cfi_def_cfa_register %rbp\n"
	"\tpush %rax\n\tpush %rcx\n\tpush %rdx\n\tpush %rsi\n\tpush %rdi\n"
	"\tpush %r8\n\tpush %r9\n\tpush %r10\n\tpush %r11\n"
	"\tand $-16, %rsp\n"
	"\tcall mwm_blind_resolve_sp\n"
	"\tlea -72(%rbp), %rsp\n"
	"\tpop %r11\n\tpop %r10\n\tpop %r9\n\tpop %r8\n"
	"\tpop %rdi\n\tpop %rsi\n\tpop %rdx\n\tpop %rcx\n\tpop %rax\n"
	"\tpop %rbp\n"
	"\t.cfi_def_cfa %rsp, 8\n"
	"\tret\n"
	"\t.cfi_endproc\n"
	".size mwm_blind_resolve_stub, .-mwm_blind_resolve_stub\n");
#endif
