/* run_icoll_order.c - nonblocking collectives started in a different order
 * (issue 35 item 12): rank 0 starts MPI_Ireduce (line 19) then
 * MPI_Iallgather (line 20), the others the reverse (lines 22-23); all wait
 * for both (line 25).  A collective mismatch, under either MPI. */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, size, in = 1, out = 0;
	static int all[1024];
	MPI_Request rq[2];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size > 1024)
		MPI_Abort(MPI_COMM_WORLD, 2);
	if (rank == 0) {
		MPI_Ireduce(&in, &out, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &rq[0]); /* mpiwatch: blame -n 2 */
		MPI_Iallgather(&in, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, &rq[1]);
	} else {
		MPI_Iallgather(&in, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, &rq[1]); /* mpiwatch: blame -n 2 */
		MPI_Ireduce(&in, &out, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &rq[0]);
	}
	MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
	MPI_Finalize();
	return 0;
}
