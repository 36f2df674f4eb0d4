/* run_truncate_split: run_truncate on a communicator whose ranks are not
 * the world's: MPI_Comm_split with the ranks in reverse order (world rank w
 * is rank size-1-w in it).  World rank 0 sends 10 ints to the split's rank
 * 0 (world rank 2); world rank 2 receives at most 5 from the split's rank 2
 * (world rank 0): the MPI library ends world rank 2 inside MPI_Recv
 * (MPI_ERR_TRUNCATE).  The answer must name the sender by its world rank. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, v[10] = {0};
	MPI_Comm rev;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
	if (rank == 0)
		MPI_Send(v, 10, MPI_INT, 0, 3, rev);
	else if (rank == size - 1)
		MPI_Recv(v, 5, MPI_INT, size - 1, 3, rev, MPI_STATUS_IGNORE); /* mpiwatch: blame */
	MPI_Barrier(MPI_COMM_WORLD);
	printf("rank %d: done\n", rank);
	MPI_Finalize();
	return 0;
}
