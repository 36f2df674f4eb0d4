/* run_segv_handler: the program has its own SIGSEGV handler (installed
 * after MPI_Init, over the MPI library's), and rank 1 then writes through a
 * null pointer.  Its handler must run under the watch: it says so and
 * exits 3. */
#include <mpi.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static int *volatile nowhere;

static void on_segv(int sig)
{
	static const char msg[] = "run_segv_handler: own handler ran\n";
	(void)sig;
	if (write(2, msg, sizeof msg - 1) < 0)
		_exit(4);
	_exit(3);
}

int main(int argc, char **argv)
{
	int rank, v = 0;
	struct sigaction sa;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_segv;
	sigaction(SIGSEGV, &sa, NULL);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1)
		nowhere[1] = 1;
	MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
