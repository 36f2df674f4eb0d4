/* run_truncate: rank 0 sends 10 ints, rank 1 receives at most 5: under the
 * default MPI_ERRORS_ARE_FATAL the MPI library ends rank 1 inside MPI_Recv
 * (MPI_ERR_TRUNCATE).  The answer must name the receive's line. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, v[10] = {0};
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		MPI_Send(v, 10, MPI_INT, 1, 3, MPI_COMM_WORLD);
	else if (rank == 1)
		MPI_Recv(v, 5, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* mpiwatch: blame */
	MPI_Barrier(MPI_COMM_WORLD);
	printf("rank %d: done\n", rank);
	MPI_Finalize();
	return 0;
}
