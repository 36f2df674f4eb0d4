/* mon_poll.c - rank 0 posts an MPI_Irecv nobody matches and polls it with
 * MPI_Test forever (a livelock the A/B counters alone do not see); the other
 * ranks wait in a barrier. */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, buf, flag = 0;
	MPI_Request req;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Irecv(&buf, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, &req);
		while (!flag) {
			MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
			usleep(1000);
		}
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
