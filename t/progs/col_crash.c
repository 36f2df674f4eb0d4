/* col_crash [MODE]: rank 1 fails while the others wait for it in a receive.
 * MODE "segv" (default): rank 1 dereferences NULL; "exit": rank 1 calls
 * exit(3) without MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int rank, size, v = 0;
	const char *mode = argc > 1 ? argv[1] : "segv";
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1) {
		if (strcmp(mode, "exit") == 0)
			exit(3);
		volatile int *p = NULL;
		*p = 1;
	}
	if (rank == 0) {
		for (int r = 1; r < size; r++)
			MPI_Recv(&v, 1, MPI_INT, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		MPI_Send(&rank, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
