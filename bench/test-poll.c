/* test-poll.c - the cost the monitor adds to the polling calls: MPI_Test,
 * MPI_Testany, MPI_Testsome and MPI_Testall on 4 receives and MPI_Iprobe,
 * none of which ever match (MPI_COMM_SELF), each repeated from one call site,
 * "alt": MPI_Test and MPI_Iprobe alternating (no call repeats the one
 * before it: the full record every time), and "testany4chg": MPI_Testany
 * over a request array whose order changes on every call (as hpcc's
 * MPIRandomAccess's sets change: the full record), "hpcc16": MPI_Testany over
 * 16 receives alternating with an MPI_Test of another (hpcc's MPIRandomAccess
 * pattern: its receive set, then its send, so no poll repeats the one before;
 * per call, the pair counted as two), MPI against PMPI in the same
 * process, interleaved: `pairs` pairs of `n` calls (default 41 and 20 000;
 * argv[1], argv[2]; argv[3], the digits of the kinds to run, default all).  Prints, per call, the median of the paired differences
 * in ns per call.  Run by bench/test-poll.sh. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
#define NK 8
int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	int n = argc > 1 ? atoi(argv[1]) : 20000, pairs = argc > 2 ? atoi(argv[2]) : 41, flag, idx, oc, ind[4];
	char buf[4][8];
	const char *name[NK] = {"test", "testany4", "testsome4", "testall4", "iprobe", "alt", "testany4chg", "hpcc16"};
	MPI_Request r[4], rc[2][4], r16[16];
	char buf16[16][8];
	MPI_Status st[4];
	for (int i = 0; i < 4; i++) MPI_Irecv(buf[i], 8, MPI_CHAR, 0, 99 + i, MPI_COMM_SELF, &r[i]);
	for (int i = 0; i < 4; i++) { rc[0][i] = r[i]; rc[1][i] = r[3 - i]; }
	for (int i = 0; i < 16; i++) MPI_Irecv(buf16[i], 8, MPI_CHAR, 0, 200 + i, MPI_COMM_SELF, &r16[i]);
	if (pairs > 256) pairs = 256;
	static double d[NK][256];
	const char *only = argc > 3 ? argv[3] : "01234567";
	for (int p = 0; p < pairs; p++) {
		for (int k = 0; k < NK; k++) {
			if (!strchr(only, '0' + k))
				continue;
			double t0 = MPI_Wtime();
			switch (k) {
			case 0: for (int i = 0; i < n; i++) MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE); break;
			case 1: for (int i = 0; i < n; i++) MPI_Testany(4, r, &idx, &flag, MPI_STATUS_IGNORE); break;
			case 2: for (int i = 0; i < n; i++) MPI_Testsome(4, r, &oc, ind, st); break;
			case 3: for (int i = 0; i < n; i++) MPI_Testall(4, r, &flag, st); break;
			case 4: for (int i = 0; i < n; i++) MPI_Iprobe(0, 98, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE); break;
			case 5: for (int i = 0; i < n; i += 2) { MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE); MPI_Iprobe(0, 98, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE); } break;
			case 6: for (int i = 0; i < n; i++) MPI_Testany(4, rc[i & 1], &idx, &flag, MPI_STATUS_IGNORE); break;
			case 7: for (int i = 0; i < n; i += 2) { MPI_Testany(16, r16, &idx, &flag, MPI_STATUS_IGNORE); MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE); } break;
			}
			double t1 = MPI_Wtime();
			switch (k) {
			case 0: for (int i = 0; i < n; i++) PMPI_Test(&r[0], &flag, MPI_STATUS_IGNORE); break;
			case 1: for (int i = 0; i < n; i++) PMPI_Testany(4, r, &idx, &flag, MPI_STATUS_IGNORE); break;
			case 2: for (int i = 0; i < n; i++) PMPI_Testsome(4, r, &oc, ind, st); break;
			case 3: for (int i = 0; i < n; i++) PMPI_Testall(4, r, &flag, st); break;
			case 4: for (int i = 0; i < n; i++) PMPI_Iprobe(0, 98, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE); break;
			case 5: for (int i = 0; i < n; i += 2) { PMPI_Test(&r[0], &flag, MPI_STATUS_IGNORE); PMPI_Iprobe(0, 98, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE); } break;
			case 6: for (int i = 0; i < n; i++) PMPI_Testany(4, rc[i & 1], &idx, &flag, MPI_STATUS_IGNORE); break;
			case 7: for (int i = 0; i < n; i += 2) { PMPI_Testany(16, r16, &idx, &flag, MPI_STATUS_IGNORE); PMPI_Test(&r[0], &flag, MPI_STATUS_IGNORE); } break;
			}
			double t2 = MPI_Wtime();
			d[k][p] = ((t1 - t0) - (t2 - t1)) / n * 1e9;
		}
	}
	for (int k = 0, first = 1; k < NK; k++) {
		if (!strchr(only, '0' + k))
			continue;
		qsort(d[k], pairs, sizeof(double), cmpd);
		printf("%s%s_diff %.1f", first ? "" : " ", name[k], d[k][pairs / 2]);
		first = 0;
	}
	printf("\n");
	for (int i = 0; i < 4; i++) { MPI_Cancel(&r[i]); MPI_Wait(&r[i], MPI_STATUS_IGNORE); }
	for (int i = 0; i < 16; i++) { MPI_Cancel(&r16[i]); MPI_Wait(&r16[i], MPI_STATUS_IGNORE); }
	MPI_Finalize();
	return 0;
}
