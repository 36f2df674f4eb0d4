/* run_abort: rank 1 finds its input bad and calls abort() in
 * check_input() while the others wait for its message. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void check_input(int n)
{
	if (n < 0) {
		fprintf(stderr, "run_abort: bad input %d\n", n);
		abort();
	}
}

int main(int argc, char **argv)
{
	int rank, v = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1)
		check_input(-1);
	MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
