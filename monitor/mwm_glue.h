/* mwm_glue.h - MPI-typed helpers of the generated wrappers (compiled once
 * per MPI: libmpiwatch-openmpi.so and libmpiwatch-mpich.so). */
#ifndef MWM_GLUE_H
#define MWM_GLUE_H

#include <mpi.h>
#include <stdint.h>
#include <string.h>

#include "mwm.h"

/* Any MPI handle (pointer or int) as a uint64_t. */
#define MWH(x) ((uint64_t)(uintptr_t)(x))

/* Above this many 8-byte handles, one memcpy/memcmp (a call into libc)
 * beats a loop; at 4 handles whose order changes on every call the two
 * calls were slower than the loop (doc/benchmarks.md, issue 34). */
#define MWM_REQS_BULK 8

/* Up to MWM_REQS_BULK handles are compared and copied without a loop: a
 * switch on n falls through one line per handle (no loop counter); a poll
 * that repeats its array pays about 3 instructions per handle (issue 34: a
 * compare loop with an early exit took 7 per handle plus its set-up). */
#define MWM_REQS_UNROLL(S)                                                                     \
	switch (n) {                                                                           \
	case 8: S(7); /* fall through */                                                       \
	case 7: S(6); /* fall through */                                                       \
	case 6: S(5); /* fall through */                                                       \
	case 5: S(4); /* fall through */                                                       \
	case 4: S(3); /* fall through */                                                       \
	case 3: S(2); /* fall through */                                                       \
	case 2: S(1); /* fall through */                                                       \
	case 1: S(0); /* fall through */                                                       \
	default: break;                                                                        \
	}
_Static_assert(MWM_REQS_BULK == 8, "MWM_REQS_UNROLL has MWM_REQS_BULK cases");

/* The n handles of a C request array as uint64_t (MWH) into dst: one
 * memcpy for more than MWM_REQS_BULK 8-byte handles (Open MPI's pointers:
 * the same bits as MWH), else one store per handle. */
static inline __attribute__((always_inline)) void mwm_reqs_get(uint64_t *dst, const MPI_Request *a, int n)
{
	if (n <= MWM_REQS_BULK) {
#define MWM_GET1(i) dst[i] = MWH(a[i])
		MWM_REQS_UNROLL(MWM_GET1)
#undef MWM_GET1
		return;
	}
	if (sizeof(MPI_Request) == sizeof(uint64_t)) {
		memcpy(dst, a, sizeof(uint64_t) * (size_t)n);
		return;
	}
	for (int i = 0; i < n; i++)
		dst[i] = MWH(a[i]);
}

/* 1 if the n handles of a C request array are x[0..n) (MWH), else 0: all
 * pairs at once for up to MWM_REQS_BULK handles, one memcmp for more
 * 8-byte handles, else a compare per handle. */
static inline __attribute__((always_inline)) int mwm_reqs_same(const uint64_t *x, const MPI_Request *a, int n)
{
	if (n == 1) /* one handle (hpcc's MPIRandomAccess below 5 ranks): no switch */
		return x[0] == MWH(a[0]);
	if (n <= MWM_REQS_BULK) {
		/* a compare and a branch per handle: one scratch register (the
		 * OR of XORs took two, which the plain poll wrappers had to
		 * save and restore on every call) */
#define MWM_SAME1(i) if (x[i] != MWH(a[i])) return 0
		MWM_REQS_UNROLL(MWM_SAME1)
#undef MWM_SAME1
		return 1;
	}
	if (sizeof(MPI_Request) == sizeof(uint64_t))
		return !memcmp(x, a, sizeof(uint64_t) * (size_t)n);
	int i = 0;
	while (i < n && x[i] == MWH(a[i]))
		i++;
	return i == n;
}

/* The handles of a request array of up to MWM_REQS_BULK, as a skipped
 * poll saves them before its call (monitor/gen.py, mwk_X): a struct of
 * scalars, passed by value to its completion path (no array: no stack
 * canary in the skip path).  A longer array, up to MWM_MAX_WAIT, is saved
 * as it is in mwl_X's frame (an array without a canary: its length is
 * checked before the copy). */
struct mwm_reqs8 {
	uint64_t h0, h1, h2, h3, h4, h5, h6, h7;
};

/* The skip path tests rc | *flag in one go (monitor/gen.py, mwk_X). */
_Static_assert(MPI_SUCCESS == 0, "MPI_SUCCESS is 0");

/* Bytes of count elements of dt (0 if unknown); profiling only. */
/* out of line: the profile path only (its local would give every wrapper a stack canary) */
static __attribute__((noinline, unused)) uint64_t mwm_bytes(int count, MPI_Datatype dt)
{
	int sz = 0;
	if (count <= 0 || dt == MPI_DATATYPE_NULL || PMPI_Type_size(dt, &sz) != MPI_SUCCESS || sz < 0)
		return 0;
	return (uint64_t)count * (uint64_t)sz;
}

/* A communicator was created from parent: record its group and gid. */
void mwm_glue_comm_created(MPI_Comm parent, MPI_Comm newcomm, const char *how);

/* A derived datatype was committed (main thread, after MPI_Type_commit):
 * record its extent for the motion probe (mwm_dtype_span). */
void mwm_glue_type_committed(uint64_t dt);

#endif
