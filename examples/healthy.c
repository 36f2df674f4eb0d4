/* healthy: a correct MPI program.  Each rank computes a little, passes a
 * value around a ring and joins an allreduce, for a number of rounds.
 * Usage: healthy [ROUNDS]   (default 20) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double work(int n)
{
	double s = 0;
	for (int i = 1; i <= n; i++)
		s += 1.0 / ((double)i * i);
	return s;
}

int main(int argc, char **argv)
{
	int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 20;
	double total = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int r = 0; r < rounds; r++) {
		double mine = work(200000 + rank), got = 0, sum;
		int to = (rank + 1) % size, from = (rank + size - 1) % size;
		MPI_Sendrecv(&mine, 1, MPI_DOUBLE, to, r, &got, 1, MPI_DOUBLE, from, r, MPI_COMM_WORLD,
			     MPI_STATUS_IGNORE);
		MPI_Allreduce(&got, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		total += sum;
	}
	if (rank == 0)
		printf("healthy: %d ranks, %d rounds, total %.6f\n", size, rounds, total);
	MPI_Finalize();
	return 0;
}
