/* longcompute: a long computation phase without any MPI call, then a
 * reduction.  Not an error: mpiwatch must not raise an alarm (at most a
 * cause-A note).  Usage: longcompute [SECONDS]   (default 10) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int rank, size;
	double secs = argc > 1 ? atof(argv[1]) : 10, x = 0, sum;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	double end = now() + secs;
	while (now() < end)
		for (int i = 0; i < 1000000; i++)
			x += 1e-9 * (i % 7);
	MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("longcompute: %d ranks computed %.0f s each, sum %.3f\n", size, secs, sum > 0 ? 1.0 : 0.0);
	MPI_Finalize();
	return 0;
}
