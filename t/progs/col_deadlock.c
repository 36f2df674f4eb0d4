/* col_deadlock: a ring of blocking receives: every rank first receives from
 * its left neighbour, then sends to its right one, so nobody ever sends. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, v = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Recv(&v, 1, MPI_INT, (rank + size - 1) % size, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* mpiwatch: blame */
	MPI_Send(&v, 1, MPI_INT, (rank + 1) % size, 7, MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
