/* dl_iroot.c - a nonblocking collective root mismatch: rank 0 starts an
 * MPI_Ireduce (or, with argument "bcast", an MPI_Ibcast) to root 0, the
 * others to root 1, then every rank waits for its request (4 MiB, so the
 * roots wait for their partners).  Run with 2 ranks: each believes it is the
 * root, and both stay in MPI_Wait. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#define N (1 << 20)

int main(int argc, char **argv)
{
	int rank, bcast = argc > 1 && !strcmp(argv[1], "bcast");
	int *in = calloc(N, sizeof *in), *out = calloc(N, sizeof *out);
	MPI_Request req;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (bcast)
		MPI_Ibcast(in, N, MPI_INT, rank == 0 ? 0 : 1, MPI_COMM_WORLD, &req); /* mpiwatch: blame -n 2 bcast */
	else
		MPI_Ireduce(in, out, N, MPI_INT, MPI_SUM, rank == 0 ? 0 : 1, MPI_COMM_WORLD, &req); /* mpiwatch: blame -n 2 */
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Finalize();
	free(in);
	free(out);
	return 0;
}
