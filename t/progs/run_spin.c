/* run_spin.c - a rank that computes forever outside MPI (issue 35 item 2).
 * Rank 2 loops without calling MPI; the other ranks wait for it in
 * MPI_Barrier (line 21).  The answer must name rank 2 and how long it has
 * computed, say the others wait for it, and the run must end once the hang
 * limit passes. */
#include <mpi.h>

static volatile unsigned long spins;

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 2) {
		for (;;)
			spins++;
	}
	/* line 21 below: the barrier the others wait in */
	/* (rank 2 never gets here) */
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
