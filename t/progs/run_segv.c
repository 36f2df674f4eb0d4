/* run_segv: rank 1 writes through a null pointer in fill_halo() (line 14)
 * while the others wait for its message.  The answer names the crash, the
 * signal, and where: fill_halo (run_segv.c:14). */
#include <mpi.h>
#include <stdio.h>

static int *volatile halo; /* null: the bug */

__attribute__((noinline)) static void fill_halo(int v)
{
	int *h = halo;
	fflush(stdout);
	/* the faulting line: */
	h[v] = v;
}

int main(int argc, char **argv)
{
	int rank, v = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1)
		fill_halo(3);
	MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
