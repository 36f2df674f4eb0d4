/* run_crash segv|abort: rank 1 dies while the others wait for its message:
 * "segv" writes through a null pointer in fill_halo() (line 15), "abort"
 * finds its input bad and calls abort() in check_input() (line 23).  The
 * answer names the signal and where: the function and its line. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int *volatile halo; /* null: the bug */

__attribute__((noinline)) static void fill_halo(int v)
{
	int *h = halo;
	h[v] = v; /* the faulting line */
}

__attribute__((noinline)) static void check_input(int n)
{
	if (n < 0) {
		fprintf(stderr, "run_crash: bad input %d\n", n);
		fflush(stderr);
		abort();
	}
}

int main(int argc, char **argv)
{
	int rank, v = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1 && argc > 1 && !strcmp(argv[1], "abort"))
		check_input(-1);
	else if (rank == 1)
		fill_halo(3);
	MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
