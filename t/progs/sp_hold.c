/* sp_hold: an MPI program that holds still for a while, so tests can look
 * at its processes.  Usage: sp_hold SECONDS [TAG]
 * Each rank writes its pid to $SP_PIDDIR/<TAG>.<rank> (if SP_PIDDIR is set),
 * computes (no MPI) for SECONDS, then meets the others in a barrier. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, size;
	double secs = argc > 1 ? atof(argv[1]) : 0;
	const char *tag = argc > 2 ? argv[2] : "hold";
	const char *dir = getenv("SP_PIDDIR");
	char host[256];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	gethostname(host, sizeof(host));
	if (dir) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s.%d", dir, tag, rank);
		FILE *f = fopen(path, "w");
		if (f) {
			fprintf(f, "%d %s\n", (int)getpid(), host);
			fclose(f);
		}
	}
	MPI_Barrier(MPI_COMM_WORLD);
	struct timespec ts = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
	nanosleep(&ts, NULL);
	MPI_Barrier(MPI_COMM_WORLD);
	printf("hold %s: rank %d of %d on %s ok\n", tag, rank, size, host);
	fflush(stdout);
	MPI_Finalize();
	return 0;
}
