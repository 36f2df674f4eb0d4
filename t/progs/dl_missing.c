/* dl_missing.c - a missing send: rank 0 waits for a message from rank 1,
 * which forgot to send it and went on to the barrier with everyone else. */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, buf = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		MPI_Recv(&buf, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* mpiwatch: blame */
	/* rank 1 should have sent tag 5 to rank 0 here */
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
