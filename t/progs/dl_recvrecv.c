/* dl_recvrecv.c - recv-recv cycle: ranks pair up (0-1, 2-3, ...) and each
 * first receives from its partner.  Run with an even number of ranks. */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, buf = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int partner = rank ^ 1;
	MPI_Recv(&buf, 1, MPI_INT, partner, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* mpiwatch: blame */
	MPI_Send(&buf, 1, MPI_INT, partner, 11, MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
