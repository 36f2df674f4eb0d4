/* run_detach: rank 0 sends 1 MiB with MPI_Bsend (it returns at once, the
 * message in the attached buffer) to rank 1, which never receives it, then
 * detaches the buffer: MPI_Buffer_detach waits until the buffered message
 * is delivered, which never happens.  Rank 1 prints its last line and calls
 * MPI_Finalize.  The program hangs in rank 0's MPI_Buffer_detach (Open MPI
 * and MPICH). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, n = 1 << 20, sz;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		char *b = malloc(n + MPI_BSEND_OVERHEAD), *d = calloc(n, 1), *back;
		MPI_Buffer_attach(b, n + MPI_BSEND_OVERHEAD);
		MPI_Bsend(d, n, MPI_CHAR, 1, 5, MPI_COMM_WORLD); /* mpiwatch: blame -n 2 */
		MPI_Buffer_detach(&back, &sz);
	}
	printf("rank %d: last line\n", rank);
	fflush(stdout);
	MPI_Finalize();
	return 0;
}
