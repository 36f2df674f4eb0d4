/* run_truncate_quiet: run_truncate with the MPI library's own error line
 * lost, as Open MPI's help aggregation loses it when the ranks are torn
 * down first (issue 35 item 7): rank 1's stderr goes nowhere before the
 * receive that the library fails (MPI_ERR_TRUNCATE).  The answer must still
 * name rank 1, MPI_Recv and the receive's line, not a killed launcher. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, v[10] = {0}, fd;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 1 && (fd = open("/dev/null", O_WRONLY)) >= 0)
		dup2(fd, 2);
	if (rank == 0)
		MPI_Send(v, 10, MPI_INT, 1, 3, MPI_COMM_WORLD);
	else if (rank == 1)
		MPI_Recv(v, 5, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* mpiwatch: blame */
	MPI_Barrier(MPI_COMM_WORLD);
	printf("rank %d: done\n", rank);
	MPI_Finalize();
	return 0;
}
