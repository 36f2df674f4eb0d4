/* run_argerror: rank 1 passes an invalid argument (a negative count) to
 * MPI_Bcast under the default MPI_ERRORS_ARE_FATAL, so the MPI library
 * aborts it inside the call; the other ranks wait in the same MPI_Bcast.
 * A watch must report rank 1 as ended in MPI_Bcast, not a deadlock. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, v = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 1)
		sleep(2); /* the others are in the call first */
	MPI_Bcast(&v, rank == 1 ? -1 : 1, MPI_INT, 0, MPI_COMM_WORLD); /* mpiwatch: blame */
	printf("rank %d: not reached\n", rank);
	MPI_Finalize();
	return 0;
}
