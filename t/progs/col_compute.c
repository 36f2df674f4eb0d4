/* col_compute SECONDS: every rank computes (no MPI) for SECONDS, then they
 * meet in a barrier and finish: a long computation, not a failure. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int rank;
	double secs = argc > 1 ? atof(argv[1]) : 10, end, x = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	end = now() + secs;
	while (now() < end)
		for (int i = 0; i < 100000; i++)
			x += i * 1e-9;
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("done %g\n", x > 0 ? secs : 0);
	MPI_Finalize();
	return 0;
}
