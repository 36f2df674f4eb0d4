/* crash: rank 1 dies of a segmentation fault in the middle of the run while
 * the others wait for its message.  mpiwatch reports "software": cause B for
 * rank 1 (with the signal), cause C for the ranks blocked on it. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, v = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1 % size) {
		fflush(stdout);
		raise(SIGSEGV); /* as a bad pointer would */
	}
	MPI_Recv(&v, 1, MPI_INT, 1 % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
