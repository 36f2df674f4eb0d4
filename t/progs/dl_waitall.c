/* dl_waitall.c - a waitall on an Irecv that never matches: rank 0 posts an
 * Irecv (tag 5) and an Isend (tag 6) to rank 1 and waits for both; rank 1
 * receives the tag 6 message and goes to the barrier without sending tag 5. */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, in = 0, out = 1;
	MPI_Request rq[2];
	MPI_Status st[2];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Irecv(&in, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &rq[0]); /* mpiwatch: blame */
		MPI_Isend(&out, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, &rq[1]);
		MPI_Waitall(2, rq, st);
	} else if (rank == 1) {
		MPI_Recv(&in, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
