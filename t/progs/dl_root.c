/* dl_root.c - a collective root mismatch: rank 0 broadcasts from root 0,
 * the others from root 1 (4 MiB, so the roots wait for their receivers).
 * Run with 2 ranks: each then believes it is the root. */
#include <mpi.h>
#include <stdlib.h>

#define N (1 << 20)

int main(int argc, char **argv)
{
	int rank;
	int *buf = calloc(N, sizeof *buf);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Bcast(buf, N, MPI_INT, rank == 0 ? 0 : 1, MPI_COMM_WORLD); /* mpiwatch: blame -n 2 */
	MPI_Finalize();
	free(buf);
	return 0;
}
