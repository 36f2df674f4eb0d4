/* mon_pingpong.c - 0-byte ping-pong between ranks 0 and 1; prints the median
 * one-way latency in ns over REPS batches of ITERS round trips.
 * Usage: mon_pingpong [iters per batch] [batches] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int rank, iters = argc > 1 ? atoi(argv[1]) : 10000, reps = argc > 2 ? atoi(argv[2]) : 21;
	double *lat;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	lat = calloc(reps, sizeof(double));
	for (int w = 0; w < 1000; w++) { /* warm-up */
		if (rank == 0) {
			MPI_Send(NULL, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
			MPI_Recv(NULL, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			MPI_Recv(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
		}
	}
	for (int r = 0; r < reps; r++) {
		double t0;
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		for (int i = 0; i < iters; i++) {
			if (rank == 0) {
				MPI_Send(NULL, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
				MPI_Recv(NULL, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			} else if (rank == 1) {
				MPI_Recv(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				MPI_Send(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
			}
		}
		lat[r] = (MPI_Wtime() - t0) / iters / 2 * 1e9;
	}
	qsort(lat, reps, sizeof(double), cmp);
	if (rank == 0)
		printf("%.1f\n", lat[reps / 2]);
	MPI_Finalize();
	return 0;
}
