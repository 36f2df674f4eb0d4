/* mon_deadlock.c - every rank receives from its neighbour first: a deadlock.
 * Usage: mon_deadlock [world|dup|split]  (the communicator used) */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	int rank, size, buf = 0;
	MPI_Comm comm = MPI_COMM_WORLD;
	MPI_Init(&argc, &argv);
	if (argc > 1 && !strcmp(argv[1], "dup"))
		MPI_Comm_dup(MPI_COMM_WORLD, &comm);
	else if (argc > 1 && !strcmp(argv[1], "split")) {
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
		/* reverse the order so that comm ranks differ from world ranks */
		MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &comm);
	}
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	/* everyone waits for the left neighbour, nobody sends */
	MPI_Recv(&buf, 1, MPI_INT, (rank + size - 1) % size, 7, comm, MPI_STATUS_IGNORE); /* mpiwatch: blame */
	MPI_Send(&buf, 1, MPI_INT, (rank + 1) % size, 7, comm);
	MPI_Finalize();
	return 0;
}
