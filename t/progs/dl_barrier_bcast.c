/* dl_barrier_bcast.c - a collective mismatch: even ranks enter MPI_Barrier,
 * odd ranks MPI_Bcast (4 MiB, so that the root cannot finish eagerly). */
#include <mpi.h>
#include <stdlib.h>

#define N (1 << 20)

int main(int argc, char **argv)
{
	int rank;
	int *buf = calloc(N, sizeof *buf);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank % 2 == 0)
		MPI_Barrier(MPI_COMM_WORLD); /* mpiwatch: blame */
	else
		MPI_Bcast(buf, N, MPI_INT, 1, MPI_COMM_WORLD);
	MPI_Finalize();
	free(buf);
	return 0;
}
