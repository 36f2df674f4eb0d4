/* dl_ok_collectives.c - correct: rank 0 computes for longer than the
 * monitor's timeout while the others wait in collectives on the world and
 * on a split row communicator.  Not a deadlock. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, size, v, sum = 0;
	MPI_Comm half;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
	for (int step = 0; step < 2; step++) {
		if (rank == 0)
			usleep(2500000); /* computing */
		v = rank + step;
		MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, half);
		MPI_Bcast(&sum, 1, MPI_INT, 0, MPI_COMM_WORLD);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	if (rank == 0)
		printf("sum %d\n", sum);
	MPI_Comm_free(&half);
	MPI_Finalize();
	return 0;
}
