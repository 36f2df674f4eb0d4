/* mon_pingpong.c - 0-byte ping-pong between ranks 0 and 1 that measures,
 * in the same processes and interleaved, batches through MPI_Send/MPI_Recv
 * (wrapped when libmpiwatch is preloaded) and batches through
 * PMPI_Send/PMPI_Recv (never wrapped).  Rank 0 prints one line:
 *   mpi <ns> pmpi <ns> diff <ns> iprobe_mpi <ns> iprobe_pmpi <ns> iprobe_diff <ns>
 * (medians; diff = median of the paired differences)
 * (one-way latency), then the same for MPI_Iprobe on MPI_COMM_SELF (the
 * wrapper's cost without communication).  Usage: mon_pingpong [iters per batch] [batch pairs] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*recv_fn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);

static double batch(int rank, int iters, send_fn s, recv_fn r)
{
	double t0;
	PMPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (int i = 0; i < iters; i++) {
		if (rank == 0) {
			s(NULL, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
			r(NULL, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			r(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			s(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
		}
	}
	return (MPI_Wtime() - t0) / iters / 2 * 1e9;
}

int main(int argc, char **argv)
{
	int rank, iters = argc > 1 ? atoi(argv[1]) : 5000, reps = argc > 2 ? atoi(argv[2]) : 41;
	double *a, *b, *d;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	a = calloc(reps, sizeof(double));
	b = calloc(reps, sizeof(double));
	d = calloc(reps, sizeof(double));
	batch(rank, 2000, MPI_Send, MPI_Recv); /* warm-up */
	batch(rank, 2000, PMPI_Send, PMPI_Recv);
	for (int r = 0; r < reps; r++) {
		if (r % 2) {
			a[r] = batch(rank, iters, MPI_Send, MPI_Recv);
			b[r] = batch(rank, iters, PMPI_Send, PMPI_Recv);
		} else {
			b[r] = batch(rank, iters, PMPI_Send, PMPI_Recv);
			a[r] = batch(rank, iters, MPI_Send, MPI_Recv);
		}
		d[r] = a[r] - b[r];
	}
	qsort(a, reps, sizeof(double), cmp);
	qsort(b, reps, sizeof(double), cmp);
	qsort(d, reps, sizeof(double), cmp);
	if (rank == 0)
		printf("mpi %.1f pmpi %.1f diff %.1f", a[reps / 2], b[reps / 2], d[reps / 2]);
	/* the wrapper alone, without communication: MPI_Iprobe on MPI_COMM_SELF
	 * (nothing to find) against PMPI_Iprobe, interleaved */
	for (int r = 0; r < reps; r++) {
		int flag;
		double t0 = MPI_Wtime();
		for (int i = 0; i < iters * 10; i++)
			MPI_Iprobe(0, 0, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
		double t1 = MPI_Wtime();
		for (int i = 0; i < iters * 10; i++)
			PMPI_Iprobe(0, 0, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
		double t2 = MPI_Wtime();
		a[r] = (t1 - t0) / (iters * 10) * 1e9;
		b[r] = (t2 - t1) / (iters * 10) * 1e9;
		d[r] = a[r] - b[r];
	}
	qsort(a, reps, sizeof(double), cmp);
	qsort(b, reps, sizeof(double), cmp);
	qsort(d, reps, sizeof(double), cmp);
	if (rank == 0)
		printf(" iprobe_mpi %.1f iprobe_pmpi %.1f iprobe_diff %.1f\n", a[reps / 2], b[reps / 2], d[reps / 2]);
	MPI_Finalize();
	return 0;
}
