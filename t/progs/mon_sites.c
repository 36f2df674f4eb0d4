/* mon_sites [ITERS]: ITERS (default 50) rounds of 40 MPI_Barrier calls, each
 * from its own call site: 40 pairs of consecutive sites, more than the
 * profile's compute-phase table keeps per rank (32), so that t/0102 sees
 * the table fill, keep the first pairs whole and count the rest as
 * dropped.  Prints "sites: done ITERS" from rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define B1 MPI_Barrier(MPI_COMM_WORLD);
#define B5 B1 B1 B1 B1 B1
#define B20 B5 B5 B5 B5
#define B40 B20 B20

int main(int argc, char **argv)
{
	int rank, iters = argc > 1 ? atoi(argv[1]) : 50;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int i = 0; i < iters; i++) {
		B40
	}
	if (rank == 0)
		printf("sites: done %d\n", iters);
	MPI_Finalize();
	return 0;
}
