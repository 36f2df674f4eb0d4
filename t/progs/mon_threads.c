/* mon_threads.c - MPI_THREAD_MULTIPLE: a helper thread makes many
 * collective calls on its own communicator while the main thread deadlocks
 * in MPI_Recv.  The monitor records the thread that called MPI_Init only. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static MPI_Comm helper_comm;

static void *helper(void *arg)
{
	int v = 1, s = 0;
	(void)arg;
	for (int i = 0; i < 2000; i++)
		MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, helper_comm);
	return NULL;
}

int main(int argc, char **argv)
{
	int provided, rank, size, buf = 0;
	pthread_t th;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_dup(MPI_COMM_WORLD, &helper_comm);
	if (provided == MPI_THREAD_MULTIPLE)
		pthread_create(&th, NULL, helper, NULL);
	MPI_Recv(&buf, 1, MPI_INT, (rank + 1) % size, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (provided == MPI_THREAD_MULTIPLE)
		pthread_join(th, NULL);
	MPI_Finalize();
	return 0;
}
