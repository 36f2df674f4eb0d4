/* dl_ok_phases.c - correct: a ping-pong whose two ranks take turns computing
 * for longer than the monitor's timeout, so each in turn is stuck in
 * MPI_Recv waiting for the other.  Both dumps stay behind; the analysis must
 * see that they are from different moments.  Not a deadlock. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, v = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
		MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* waits */
		usleep(3000000); /* computing */
		MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
	} else if (rank == 1) {
		MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		usleep(3000000); /* computing */
		MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
		MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* waits */
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("done\n");
	MPI_Finalize();
	return 0;
}
