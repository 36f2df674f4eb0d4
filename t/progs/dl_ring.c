/* dl_ring.c - a ring of blocking receives: every rank first waits for its
 * left neighbour, nobody sends. */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, size, buf = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Recv(&buf, 1, MPI_INT, (rank + size - 1) % size, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* mpiwatch: blame */
	MPI_Send(&buf, 1, MPI_INT, (rank + 1) % size, 3, MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
