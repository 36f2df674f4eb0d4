/* col_steady SECONDS: ranks exchange with their ring neighbours every 50 ms
 * for SECONDS (a healthy job; if a node dies, its neighbours get stuck). */
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
	int rank, size, go = 1;
	double secs = argc > 1 ? atof(argv[1]) : 10, end;
	struct timespec ts = {0, 50000000};
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	end = now() + secs;
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		printf("steady: running on %d ranks\n", size);
		fflush(stdout);
	}
	while (go) {
		int out = rank, in = -1;
		MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, 3, &in, 1, MPI_INT,
			     (rank + size - 1) % size, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		nanosleep(&ts, NULL);
		go = now() < end;
		MPI_Allreduce(MPI_IN_PLACE, &go, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	}
	if (rank == 0)
		printf("steady done\n");
	MPI_Finalize();
	return 0;
}
