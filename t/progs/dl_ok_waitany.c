/* dl_ok_waitany.c - correct: rank 0 waits in MPI_Waitany for results from
 * every worker, which compute for different times.  Not a deadlock. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank == 0) {
		MPI_Request *rq = calloc((size_t)size, sizeof *rq);
		int *v = calloc((size_t)size, sizeof *v), idx, sum = 0;
		for (int i = 1; i < size; i++)
			MPI_Irecv(&v[i], 1, MPI_INT, i, 1, MPI_COMM_WORLD, &rq[i - 1]);
		for (int i = 1; i < size; i++) {
			MPI_Waitany(size - 1, rq, &idx, MPI_STATUS_IGNORE);
			sum += v[idx + 1];
		}
		printf("sum %d\n", sum);
		free(rq);
		free(v);
	} else {
		usleep(1500000 * (unsigned)rank); /* computing */
		MPI_Send(&rank, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
