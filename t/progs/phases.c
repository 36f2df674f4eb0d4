/* phases ITERS WORK [SLOW_RANK PCT]: ITERS iterations of one compute phase
 * (a chain of WORK dependent additions, which the CPU cannot overlap) and an
 * MPI_Allreduce.  With SLOW_RANK and PCT, that rank's phase does PCT % more
 * additions (a slow node, simulated).  With PHASES_PIN=1 in the environment,
 * rank r binds itself to core r modulo the cores it may use, so that a busy
 * process pinned to one core slows exactly one rank.  With PHASES_SWAP=1,
 * rank r runs iteration i on core (r + i) modulo the online cores, so
 * that every rank spends as many phases on each core (t/0621, t/0622: on a
 * VM whose host slows one virtual CPU now and then, invisibly to the guest,
 * the ranks are then compared with each other, not the cores).  Rank 0
 * prints one line at the end. */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Bind the calling thread to the k-th core (modulo their number) of have. */
static void bind_nth(const cpu_set_t *have, int k)
{
	int want = k % CPU_COUNT(have), n = 0;
	cpu_set_t one;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, have) && n++ == want) {
			CPU_ZERO(&one);
			CPU_SET(c, &one);
			sched_setaffinity(0, sizeof(one), &one);
			return;
		}
}

static unsigned long chain(unsigned long n, unsigned long x)
{
	for (unsigned long i = 0; i < n; i++)
		__asm__ volatile("add $1, %0" : "+r"(x));
	return x;
}

int main(int argc, char **argv)
{
	int rank, size, iters, slow = -1, swap;
	cpu_set_t have, swapset;
	unsigned long work, sum = 0, all = 0;
	double pct = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 3) {
		if (rank == 0)
			fprintf(stderr, "usage: phases ITERS WORK [SLOW_RANK PCT]\n");
		MPI_Finalize();
		return 2;
	}
	iters = atoi(argv[1]);
	work = strtoul(argv[2], NULL, 10);
	if (argc >= 5) {
		slow = atoi(argv[3]);
		pct = atof(argv[4]);
	}
	sched_getaffinity(0, sizeof(have), &have);
	if (getenv("PHASES_PIN") && atoi(getenv("PHASES_PIN")))
		bind_nth(&have, rank);
	swap = getenv("PHASES_SWAP") && atoi(getenv("PHASES_SWAP"));
	if (swap) { /* every online core, whatever mpirun bound the rank to */
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		CPU_ZERO(&swapset);
		for (long c = 0; c < ncpu && c < CPU_SETSIZE; c++)
			CPU_SET(c, &swapset);
	}
	if (rank == slow)
		work += (unsigned long)(work * pct / 100);
	for (int i = 0; i < iters; i++) {
		if (swap)
			bind_nth(&swapset, rank + i);
		unsigned long x = chain(work, (unsigned long)i), r;
		MPI_Allreduce(&x, &r, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
		sum += r;
	}
	MPI_Reduce(&sum, &all, 1, MPI_UNSIGNED_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("phases: %d ranks, %d iterations of %lu additions: done\n", size, iters, work);
	MPI_Finalize();
	return 0;
}
