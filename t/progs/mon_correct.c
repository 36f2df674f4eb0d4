/* mon_correct.c - a correct program that exercises many wrapped calls and
 * prints deterministic results on rank 0.  Usage: mon_correct [exit code] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size, code = argc > 1 ? atoi(argv[1]) : 0;
	long sum = 0, tot = 0;
	MPI_Comm half, dup;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	for (int it = 0; it < 200; it++) {
		int right = (rank + 1) % size, left = (rank + size - 1) % size;
		int out = rank * 1000 + it, in = -1, in2 = -1;
		MPI_Request r[2];
		MPI_Sendrecv(&out, 1, MPI_INT, right, it, &in, 1, MPI_INT, left, it, dup, MPI_STATUS_IGNORE);
		sum += in;
		MPI_Irecv(&in2, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &r[0]);
		MPI_Isend(&out, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &r[1]);
		MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
		sum += in2;
		if (rank == 0) {
			MPI_Send(&out, 1, MPI_INT, right, 9, MPI_COMM_WORLD);
			MPI_Recv(&in, 1, MPI_INT, left, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(&in, 1, MPI_INT, left, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(&out, 1, MPI_INT, right, 9, MPI_COMM_WORLD);
		}
		sum += in;
	}
	/* persistent requests */
	{
		int v = rank, w = -1, flag = 0;
		MPI_Request p[2];
		MPI_Recv_init(&w, 1, MPI_INT, (rank + size - 1) % size, 11, MPI_COMM_WORLD, &p[0]);
		MPI_Send_init(&v, 1, MPI_INT, (rank + 1) % size, 11, MPI_COMM_WORLD, &p[1]);
		for (int k = 0; k < 10; k++) {
			MPI_Startall(2, p);
			MPI_Wait(&p[1], MPI_STATUS_IGNORE);
			while (!flag)
				MPI_Test(&p[0], &flag, MPI_STATUS_IGNORE);
			flag = 0;
			sum += w;
		}
		MPI_Request_free(&p[0]);
		MPI_Request_free(&p[1]);
	}
	MPI_Allreduce(&sum, &tot, 1, MPI_LONG, MPI_SUM, half);
	MPI_Bcast(&tot, 1, MPI_LONG, 0, half);
	{
		long all[64] = {0};
		MPI_Gather(&tot, 1, MPI_LONG, all, 1, MPI_LONG, 0, MPI_COMM_WORLD);
		if (rank == 0)
			for (int i = 0; i < size && i < 64; i++)
				printf("rank %d half-sum %ld\n", i, all[i]);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Comm_free(&half);
	MPI_Comm_free(&dup);
	if (rank == 0)
		printf("done\n");
	fflush(stdout); /* before a non-zero exit makes mpirun abort the job */
	MPI_Finalize();
	return code;
}
