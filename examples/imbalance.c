/* imbalance: rank r does (r + 1) units of work per step before a barrier,
 * so the low ranks spend most of their time waiting in MPI.  A correct but
 * badly balanced program, for the profile and the imbalance analysis.
 * Usage: imbalance [STEPS]   (default 10) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size, steps = argc > 1 ? atoi(argv[1]) : 10;
	volatile double x = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int s = 0; s < steps; s++) {
		for (long i = 0; i < 2000000L * (rank + 1); i++)
			x += 1e-9;
		MPI_Barrier(MPI_COMM_WORLD);
	}
	if (rank == 0)
		printf("imbalance: %d ranks, %d steps done\n", size, steps);
	MPI_Finalize();
	return 0;
}
