/* run_bystander.c - ranks 0 and 1 deadlock (each receives from the other
 * first, line 16); every other rank only waits for them in MPI_Barrier
 * (line 19): bystanders of the bug, not its cause. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, buf = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	printf("rank %d started\n", rank);
	fflush(stdout);
	if (rank < 2) {
		int partner = rank ^ 1;
		MPI_Recv(&buf, 1, MPI_INT, partner, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* mpiwatch: blame */
		MPI_Send(&buf, 1, MPI_INT, partner, 7, MPI_COMM_WORLD);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
