/* test-poll.c - the cost the monitor adds to a polling MPI_Test and MPI_Testany
 * (4 requests), MPI against PMPI in the same process, interleaved: 41 pairs
 * of 20 000 calls on receives that never match (MPI_COMM_SELF).  Prints the
 * medians of the paired differences in ns per call.  Run by
 * bench/test-poll.sh. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
typedef int (*test_fn)(MPI_Request *, int *, MPI_Status *);
typedef int (*testany_fn)(int, MPI_Request *, int *, int *, MPI_Status *);
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	int n = 20000, pairs = 41, flag, idx; char buf[4][8];
	MPI_Request r[4];
	for (int i = 0; i < 4; i++) MPI_Irecv(buf[i], 8, MPI_CHAR, 0, 99 + i, MPI_COMM_SELF, &r[i]);
	double d1[64], d2[64];
	for (int p = 0; p < pairs; p++) {
		double t0 = MPI_Wtime();
		for (int i = 0; i < n; i++) MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
		double t1 = MPI_Wtime();
		for (int i = 0; i < n; i++) PMPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
		double t2 = MPI_Wtime();
		for (int i = 0; i < n; i++) MPI_Testany(4, r, &idx, &flag, MPI_STATUS_IGNORE);
		double t3 = MPI_Wtime();
		for (int i = 0; i < n; i++) PMPI_Testany(4, r, &idx, &flag, MPI_STATUS_IGNORE);
		double t4 = MPI_Wtime();
		d1[p] = ((t1 - t0) - (t2 - t1)) / n * 1e9; d2[p] = ((t3 - t2) - (t4 - t3)) / n * 1e9;
	}
	qsort(d1, pairs, sizeof(double), cmpd); qsort(d2, pairs, sizeof(double), cmpd);
	printf("test_diff %.1f testany4_diff %.1f\n", d1[pairs / 2], d2[pairs / 2]);
	for (int i = 0; i < 4; i++) { MPI_Cancel(&r[i]); MPI_Wait(&r[i], MPI_STATUS_IGNORE); }
	MPI_Finalize();
	return 0;
}
