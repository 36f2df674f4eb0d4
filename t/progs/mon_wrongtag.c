/* mon_wrongtag.c - rank 0 sends with tag 7 but rank 1 waits for tag 8; then
 * rank 0 waits for an answer: a deadlock with one unexpected message. */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, v = 42;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Send(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
		MPI_Recv(&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* mpiwatch: blame */
	} else if (rank == 1) {
		MPI_Recv(&v, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(&v, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
