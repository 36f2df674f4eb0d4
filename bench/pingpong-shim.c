/* pingpong-shim.c - an empty PMPI shim for bench/pingpong-shim.sh: MPI_Send,
 * MPI_Recv and MPI_Iprobe forward to PMPI and do nothing else, so that a
 * preloaded library's cost can be told from the cost of being a preloaded
 * library at all. */
#include <mpi.h>

int MPI_Send(const void *b, int c, MPI_Datatype d, int p, int t, MPI_Comm m)
{
	return PMPI_Send(b, c, d, p, t, m);
}

int MPI_Recv(void *b, int c, MPI_Datatype d, int p, int t, MPI_Comm m, MPI_Status *s)
{
	return PMPI_Recv(b, c, d, p, t, m, s);
}

int MPI_Iprobe(int p, int t, MPI_Comm m, int *f, MPI_Status *s)
{
	return PMPI_Iprobe(p, t, m, f, s);
}
