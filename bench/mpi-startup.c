/* bench/mpi-startup.c: MPI_Init, one MPI_Barrier, MPI_Finalize and nothing
 * else: whole runs of it time the fixed cost the monitor adds to every job
 * (its start-up, its watcher thread, its finalize), for bench/overhead.sh
 * startup. */
#include <mpi.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
