/* run_preinit: rank 0 dies before it calls MPI_Init: read_config() writes
 * through a null pointer (line 26), as a program that parses its input
 * first may.  The other ranks wait for it in MPI_Init (line 37), which
 * under srun never returns.  The rank is the launcher's (srun, Open MPI's
 * mpirun, MPICH's Hydra), as a program can know it before MPI_Init.
 * Rank 0 takes a second over its input before the fault, as a program that
 * reads a file on a shared file system does: without it the launcher may
 * end the other ranks before their monitor is even loaded (seen in CI, a
 * fresh machine under two labs' load: none of ranks 1-3 seen), and the
 * case this program stands for, ranks waiting for it in MPI_Init, is not
 * what happened. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int *volatile config; /* null on rank 0: the bug */

__attribute__((noinline)) static void read_config(int rank)
{
	static int storage;
	if (rank != 0)
		config = &storage;
	else
		nanosleep(&(struct timespec){.tv_sec = 1}, NULL); /* reading */
	*config = 1; /* the faulting line on rank 0 */
}

int main(int argc, char **argv)
{
	const char *env[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"};
	int rank = -1;
	for (int i = 0; i < 3 && rank < 0; i++)
		if (getenv(env[i]))
			rank = atoi(getenv(env[i]));
	read_config(rank);
	MPI_Init(&argc, &argv);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
