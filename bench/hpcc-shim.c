/* hpcc-shim.c - an empty PMPI shim for bench/hpcc-floor.sh: the
 * point-to-point and completion calls hpcc makes (its MPIRandomAccess polls
 * with MPI_Testany; `nm -D $(which hpcc)`) forward to PMPI and do nothing
 * else, so that the cost of interposing at all (the floor no PMPI tool can
 * beat) can be told from libmpiwatch's trampolines and its monitoring. */
#include <mpi.h>

int MPI_Send(const void *b, int c, MPI_Datatype d, int p, int t, MPI_Comm m)
{
	return PMPI_Send(b, c, d, p, t, m);
}

int MPI_Ssend(const void *b, int c, MPI_Datatype d, int p, int t, MPI_Comm m)
{
	return PMPI_Ssend(b, c, d, p, t, m);
}

int MPI_Recv(void *b, int c, MPI_Datatype d, int p, int t, MPI_Comm m, MPI_Status *s)
{
	return PMPI_Recv(b, c, d, p, t, m, s);
}

int MPI_Isend(const void *b, int c, MPI_Datatype d, int p, int t, MPI_Comm m, MPI_Request *r)
{
	return PMPI_Isend(b, c, d, p, t, m, r);
}

int MPI_Issend(const void *b, int c, MPI_Datatype d, int p, int t, MPI_Comm m, MPI_Request *r)
{
	return PMPI_Issend(b, c, d, p, t, m, r);
}

int MPI_Irecv(void *b, int c, MPI_Datatype d, int p, int t, MPI_Comm m, MPI_Request *r)
{
	return PMPI_Irecv(b, c, d, p, t, m, r);
}

int MPI_Iprobe(int p, int t, MPI_Comm m, int *f, MPI_Status *s)
{
	return PMPI_Iprobe(p, t, m, f, s);
}

int MPI_Test(MPI_Request *r, int *f, MPI_Status *s)
{
	return PMPI_Test(r, f, s);
}

int MPI_Testany(int n, MPI_Request r[], int *i, int *f, MPI_Status *s)
{
	return PMPI_Testany(n, r, i, f, s);
}

int MPI_Wait(MPI_Request *r, MPI_Status *s)
{
	return PMPI_Wait(r, s);
}

int MPI_Waitany(int n, MPI_Request r[], int *i, MPI_Status *s)
{
	return PMPI_Waitany(n, r, i, s);
}

int MPI_Waitall(int n, MPI_Request r[], MPI_Status s[])
{
	return PMPI_Waitall(n, r, s);
}

int MPI_Cancel(MPI_Request *r)
{
	return PMPI_Cancel(r);
}
