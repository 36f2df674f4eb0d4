/* deadlock: every rank first waits to receive from its right neighbour,
 * and only then would send to its left one: a ring of blocking receives,
 * a classic communication deadlock.  mpiwatch reports "software", cause B,
 * and the deadlock analysis finds the cycle. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, token = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	MPI_Recv(&token, 1, MPI_INT, right, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* mpiwatch: blame */
	MPI_Send(&token, 1, MPI_INT, left, 7, MPI_COMM_WORLD);
	printf("deadlock: rank %d got through (should not happen)\n", rank);
	MPI_Finalize();
	return 0;
}
