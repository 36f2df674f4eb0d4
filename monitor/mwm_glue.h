/* mwm_glue.h - MPI-typed helpers of the generated wrappers (compiled once
 * per MPI: libmpiwatch-openmpi.so and libmpiwatch-mpich.so). */
#ifndef MWM_GLUE_H
#define MWM_GLUE_H

#include <mpi.h>
#include <stdint.h>

#include "mwm.h"

/* Any MPI handle (pointer or int) as a uint64_t. */
#define MWH(x) ((uint64_t)(uintptr_t)(x))

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
