/* dl_grid.c - a deadlock inside the row communicator of a 2D process grid.
 * Run with 6 ranks: a 2 x 3 grid.  Row 0 (world ranks 0-2) does a ring of
 * blocking receives in its row communicator; row 1 (world ranks 3-5) keeps
 * computing (no MPI) and writes no dump. */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, size, row, rrank, rsize, buf = 0;
	MPI_Comm rowc, colc;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int cols = size / 2 > 0 ? size / 2 : 1;
	row = rank / cols;
	/* reverse key order: row ranks differ from world ranks */
	MPI_Comm_split(MPI_COMM_WORLD, row, cols - rank, &rowc);
	MPI_Comm_split(MPI_COMM_WORLD, rank % cols, rank, &colc);
	MPI_Comm_rank(rowc, &rrank);
	MPI_Comm_size(rowc, &rsize);
	if (row == 0) {
		MPI_Recv(&buf, 1, MPI_INT, (rrank + 1) % rsize, 2, rowc, MPI_STATUS_IGNORE); /* mpiwatch: blame */
		MPI_Send(&buf, 1, MPI_INT, (rrank + rsize - 1) % rsize, 2, rowc);
	} else {
		for (int i = 0; i < 600; i++)
			usleep(100000); /* computing */
	}
	MPI_Comm_free(&rowc);
	MPI_Comm_free(&colc);
	MPI_Finalize();
	return 0;
}
