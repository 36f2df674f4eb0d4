/* mon_compute.c - compute for N seconds without MPI, then finish cleanly.
 * Usage: mon_compute SECONDS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3, t0, x = 0;
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = now();
	while (now() - t0 < secs)
		for (int i = 0; i < 100000; i++)
			x += 1e-9 * i;
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("computed %s\n", x > 0 ? "ok" : "?");
	MPI_Finalize();
	return 0;
}
