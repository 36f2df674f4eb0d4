/* run_posted.c - a wait on a request posted elsewhere (issue 35 item 4).
 *   run_posted recv: rank 0 posts a receive for tag 8 (line 19) and waits
 *                    for it (line 22); rank 1 sends tag 7 (line 25).
 *   run_posted send: rank 0 posts a synchronous send (line 21) nobody
 *                    receives and waits for it (line 22).
 * The line to change is the posting call's, not the wait's. */
#include <mpi.h>
#include <string.h>

int main(int argc, char **argv)
{
	int rank, buf = 0;
	MPI_Request rq;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int recv = argc > 1 && !strcmp(argv[1], "recv");
	if (rank == 0) {
		if (recv)
			MPI_Irecv(&buf, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, &rq); /* mpiwatch: blame -n 2 recv */
		else
			MPI_Issend(&buf, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &rq); /* mpiwatch: blame -n 2 send */
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
	} else if (rank == 1) {
		if (recv)
			MPI_Send(&buf, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
