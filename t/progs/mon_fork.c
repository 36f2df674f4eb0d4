/* mon_fork.c - a rank that forks a child (which exits) and reaps it with its
 * own SIGCHLD handler, then finishes normally: the monitor must not disturb
 * the child, the handler or the output. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got_chld;
static void on_chld(int sig)
{
	(void)sig;
	got_chld = 1;
}

int main(int argc, char **argv)
{
	int rank, size, st = 0, sum = 0;
	pid_t pid;
	signal(SIGCHLD, on_chld);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	pid = fork();
	if (pid == 0)
		exit(7);
	waitpid(pid, &st, 0);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	printf("rank %d child status %d sigchld %d sum %d\n", rank, WEXITSTATUS(st), (int)got_chld, sum);
	MPI_Finalize();
	return 0;
}
