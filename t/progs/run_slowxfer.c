/* run_slowxfer MB: a correct program with one slow transfer.  Rank 0 sends
 * rank 1 MB megabytes in a derived datatype of one-byte blocks (a vector
 * with stride 2), which both MPIs pack and unpack byte by byte: the single
 * MPI_Isend/MPI_Irecv + MPI_Wait takes seconds while the bytes move.  Prints
 * "slowxfer done: N bytes, checksum C" and exits 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size;
	long mb = argc > 1 ? atol(argv[1]) : 256;
	long n = mb * 1024 * 1024;
	unsigned long sum = 0;
	MPI_Datatype vec;
	MPI_Request req;
	unsigned char *buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	buf = calloc((size_t)n, 2);
	if (!buf || size < 2) {
		fprintf(stderr, "slowxfer: needs 2 ranks and %ld MB\n", 2 * mb);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Type_vector((int)n, 1, 2, MPI_UNSIGNED_CHAR, &vec);
	MPI_Type_commit(&vec);
	if (rank == 0) {
		for (long i = 0; i < n; i++)
			buf[2 * i] = (unsigned char)(i * 7);
		MPI_Isend(buf, 1, vec, 1, 5, MPI_COMM_WORLD, &req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
	} else if (rank == 1) {
		MPI_Irecv(buf, 1, vec, 0, 5, MPI_COMM_WORLD, &req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		for (long i = 0; i < n; i++)
			sum += buf[2 * i];
		printf("slowxfer done: %ld bytes, checksum %lu\n", n, sum);
	}
	MPI_Type_free(&vec);
	free(buf);
	MPI_Finalize();
	return 0;
}
