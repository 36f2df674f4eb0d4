/* ring: pass a token once (or -n ROUNDS times) around all MPI ranks.
 *
 * Output (one line per rank, then a summary from rank 0):
 *   ring: rank R of S on HOST passed token T
 *   ring: done size=S rounds=K token=V
 * The token starts at 0 and every rank adds 1 per round, so after K rounds
 * rank 0 receives K*S.  Exit status 0 when the token came back right.
 * Used by the lab tests (t/0002, t/0003) and as a tiny MPI job elsewhere.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, rounds = 1, r, token = 0, rc = 0;
    char host[256];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc >= 3 && strcmp(argv[1], "-n") == 0)
        rounds = atoi(argv[2]);
    if (rounds < 1)
        rounds = 1;
    if (gethostname(host, sizeof host) != 0)
        strcpy(host, "?");
    host[sizeof host - 1] = '\0';

    for (r = 0; r < rounds; r++) {
        int next = (rank + 1) % size, prev = (rank + size - 1) % size;
        if (rank == 0) {
            token++;
            if (size > 1) {
                MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
                MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        } else {
            MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token++;
            MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
        }
    }
    printf("ring: rank %d of %d on %s passed token %d\n", rank, size, host, token);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        if (token != rounds * size)
            rc = 1;
        printf("ring: done size=%d rounds=%d token=%d%s\n", size, rounds, token,
               rc ? " WRONG" : "");
        fflush(stdout);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return rc;
}
