/* dl_ok_anysrc.c - correct: a master idles in MPI_Recv(MPI_ANY_SOURCE)
 * while the workers compute (longer than the monitor's timeout), then
 * collects their results; two rounds.  Not a deadlock. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, size, v = 0, sum = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int round = 0; round < 2; round++) {
		if (rank == 0) {
			for (int i = 1; i < size; i++) {
				MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				sum += v;
			}
		} else {
			usleep(2500000 + 200000 * rank); /* computing */
			v = rank;
			MPI_Send(&v, 1, MPI_INT, 0, round, MPI_COMM_WORLD);
		}
	}
	if (rank == 0)
		printf("sum %d\n", sum);
	MPI_Finalize();
	return 0;
}
