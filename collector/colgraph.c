/* colgraph.c - the classification's wait graph (colgraph.h): who a stuck
 * rank waits for, and its strongly connected components. */
#include "colgraph.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int add_edge(struct col_graph *g, int from, int to)
{
	for (size_t i = 0; i < g->nadj[from]; i++)
		if (g->adj[from][i] == to)
			return 0;
	if ((g->nadj[from] & (g->nadj[from] - 1)) == 0) { /* 0,1,2,4,8...: grow */
		size_t cap = g->nadj[from] ? g->nadj[from] * 2 : 1;
		int *p = realloc(g->adj[from], cap * sizeof *p);
		if (!p)
			return -1;
		g->adj[from] = p;
	}
	g->adj[from][g->nadj[from]++] = to;
	return 0;
}

void col_graph_free(struct col_graph *g)
{
	if (g->adj)
		for (size_t i = 0; i < g->n; i++)
			free(g->adj[i]);
	free(g->adj);
	free(g->nadj);
}

static int same_collective(const struct col_rank *a, const struct col_rank *b)
{
	return (b->state == MW_HB_S_IN_MPI || b->state == MW_HB_S_IN_INIT) && strcmp(b->kind, "collective") == 0 &&
	       strcmp(a->call, b->call) == 0 && strcmp(a->comm, b->comm) == 0;
}

int col_graph_failed(const struct col_rank *x)
{
	return x->state == MW_HB_S_EXITED || x->state == MW_HB_S_VANISHED;
}

int col_graph_failed_in_mpi(const struct col_rank *x)
{
	return col_graph_failed(x) && x->call[0] && strcmp(x->call, "MPI_Finalize") != 0;
}

/* Blockers of a stuck rank r (in MPI, or in MPI_Init): edges r -> blocker. */
int col_graph_edges(const struct col_rank *ranks, size_t size, size_t r, struct col_graph *g)
{
	const struct col_rank *x = &ranks[r];
	int coll = strcmp(x->kind, "collective") == 0;

	if (x->state != MW_HB_S_IN_MPI && x->state != MW_HB_S_IN_INIT && !col_graph_failed_in_mpi(x))
		return 0;
	if (coll) {
		if (x->waits_known) {
			for (size_t i = 0; i < x->nwaits; i++) {
				int w = x->waits[i];
				if (w >= 0 && (size_t)w < size && (size_t)w != r &&
				    !same_collective(x, &ranks[w]) && add_edge(g, (int)r, w))
					return -1;
			}
		} else {
			/* Members unknown: assume the collective spans the world
			 * (true for "world"; an over-approximation otherwise). */
			for (size_t w = 0; w < size; w++)
				if (w != r && !same_collective(x, &ranks[w]) && add_edge(g, (int)r, (int)w))
					return -1;
		}
		return 0;
	}
	if (x->peer_world >= 0 && (size_t)x->peer_world < size && (size_t)x->peer_world != r)
		if (add_edge(g, (int)r, x->peer_world))
			return -1;
	if (x->waits_known) {
		for (size_t i = 0; i < x->nwaits; i++) {
			int w = x->waits[i];
			if (w >= 0 && (size_t)w < size && (size_t)w != r && add_edge(g, (int)r, w))
				return -1;
		}
	} else if (x->peer_world == -2) {
		for (size_t w = 0; w < size; w++)
			if (w != r && add_edge(g, (int)r, (int)w))
				return -1;
	}
	return 0;
}

/* Tarjan's strongly connected components, iteratively.  comp[v] gets a
 * component id; compsize[id] its size. */
int col_graph_scc(const struct col_graph *g, const char *active, int *comp, size_t *compsize)
{
	size_t n = g->n, ncomp = 0, sp = 0, cs = 0;
	int *index = malloc(n * sizeof *index), *low = malloc(n * sizeof *low);
	int *stack = malloc(n * sizeof *stack);
	char *on = calloc(n ? n : 1, 1);
	int *cv = malloc(n * sizeof *cv);
	size_t *ci = malloc(n * sizeof *ci);
	int idx = 0, rv = -1;

	if (!index || !low || !stack || !on || !cv || !ci)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		index[i] = -1;
		comp[i] = -1;
	}
	for (size_t s = 0; s < n; s++) {
		if (!active[s] || index[s] >= 0)
			continue;
		cv[cs] = (int)s;
		ci[cs++] = 0;
		index[s] = low[s] = idx++;
		stack[sp++] = (int)s;
		on[s] = 1;
		while (cs) {
			int v = cv[cs - 1];
			if (ci[cs - 1] < g->nadj[v]) {
				int w = g->adj[v][ci[cs - 1]++];
				if (!active[w])
					continue;
				if (index[w] < 0) {
					index[w] = low[w] = idx++;
					stack[sp++] = w;
					on[w] = 1;
					cv[cs] = w;
					ci[cs++] = 0;
				} else if (on[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			if (low[v] == index[v]) {
				size_t k = 0;
				int w;
				do {
					w = stack[--sp];
					on[w] = 0;
					comp[w] = (int)ncomp;
					k++;
				} while (w != v);
				compsize[ncomp++] = k;
			}
			cs--;
			if (cs) {
				int u = cv[cs - 1];
				if (low[v] < low[u])
					low[u] = low[v];
			}
		}
	}
	rv = 0;
fail:
	free(index);
	free(low);
	free(stack);
	free(on);
	free(cv);
	free(ci);
	if (rv)
		errno = ENOMEM;
	return rv;
}
