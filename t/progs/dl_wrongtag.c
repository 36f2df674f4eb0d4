/* dl_wrongtag.c - a wrong tag: rank 1 sends tag 7, rank 0 waits for tag 8. */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, buf = 42;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 1)
		MPI_Send(&buf, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
	else if (rank == 0)
		MPI_Recv(&buf, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* mpiwatch: blame */
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
