/* colgraph.h - the wait graph of the collector's classification
 * (verdict.c): an edge r -> b when stuck rank r waits for rank b.
 * Internal to collector/. */
#ifndef COL_GRAPH_H
#define COL_GRAPH_H

#include <stddef.h>

#include "verdict.h"

struct col_graph {
	size_t n;
	int **adj;    /* adj[r]: the ranks r waits for */
	size_t *nadj;
};

/* Free g's edges (g itself is the caller's). */
void col_graph_free(struct col_graph *g);

/* Whether rank x ended (exited or vanished) without MPI_Finalize. */
int col_graph_failed(const struct col_rank *x);

/* Whether rank x ended while blocked in MPI (it may have been killed
 * because of a peer's failure). */
int col_graph_failed_in_mpi(const struct col_rank *x);

/* Add the edges of stuck (in MPI, or in MPI_Init: MW_HB_S_IN_INIT), or ended
 * inside MPI, rank r of ranks[size] to g
 * (g->n == size): its peer, its root, the members of its communicator not
 * in the same collective, the peers its dump says it waits for.  Return 0,
 * or -1 (ENOMEM). */
int col_graph_edges(const struct col_rank *ranks, size_t size, size_t r, struct col_graph *g);

/* Tarjan's strongly connected components of g over the active vertices,
 * iteratively: comp[v] gets a component id, compsize[id] its size.
 * Return 0, or -1 (ENOMEM). */
int col_graph_scc(const struct col_graph *g, const char *active, int *comp, size_t *compsize);

#endif
