/* dl_ssend.c - ssend-ssend: partners (0-1, 2-3, ...) both MPI_Ssend first.
 * Run with an even number of ranks. */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, buf = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int partner = rank ^ 1;
	MPI_Ssend(&buf, 1, MPI_INT, partner, 4, MPI_COMM_WORLD); /* mpiwatch: blame */
	MPI_Recv(&buf, 1, MPI_INT, partner, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
