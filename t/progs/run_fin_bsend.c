/* run_fin_bsend: rank 0 sends 1 MiB with MPI_Bsend (it returns at once,
 * the message in the attached buffer) to rank 1, which never receives it.
 * Every rank prints its last line and calls MPI_Finalize; rank 0's
 * MPI_Finalize waits for the buffered message to be delivered, which never
 * happens: the program hangs in MPI_Finalize (Open MPI and MPICH). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, n = 1 << 20;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		char *b = malloc(n + MPI_BSEND_OVERHEAD), *d = calloc(n, 1);
		MPI_Buffer_attach(b, n + MPI_BSEND_OVERHEAD);
		MPI_Bsend(d, n, MPI_CHAR, 1, 5, MPI_COMM_WORLD); /* mpiwatch: blame -n 2 */
	}
	printf("rank %d: last line\n", rank);
	fflush(stdout);
	MPI_Finalize();
	return 0;
}
