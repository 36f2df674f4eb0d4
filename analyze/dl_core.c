/* dl_core.c - a deadlock's core and the ranks that only wait for it.
 *
 * After the reduction, every rank that can never go on is deadlocked; that
 * includes bystanders: ranks that wait (in a barrier, a receive...) for the
 * ranks of a cycle without being part of it.  The bug is the cycle's, so the
 * answer names the cycle's ranks as the ones that wait for each other and
 * the others as waiting for them (issue 35 item 8; the collector makes them
 * cause C, a cascade, not B).
 *
 * The core of a finding is its ranks that lie in a sink strongly connected
 * component of the wait-for graph of unreleased nodes (ranks and collective
 * virtual nodes): a component with no unsatisfied wait leading out of it.
 * Found with an iterative Tarjan, O(nodes + targets).  A finding whose ranks
 * wait on whole communicators (MPI_ANY_SOURCE) is left whole: every member
 * is a potential sender, so nobody in it only waits.
 */
#include <stdlib.h>
#include <string.h>

#include "dl_int.h"

struct tarjan {
	int *idx, *low, *comp, *stack, *call_node, *call_q, *call_j;
	char *on;
	int next, ncomp, sp;
};

/* The next unreleased target of node x from clause q, target j on (both
 * advanced past it), or -1. */
static int next_target(const struct dl_ctx *c, int x, int *q, int *j)
{
	int end = c->node_first_clause[x] + c->node_nclauses[x];
	for (; *q < end; (*q)++, *j = 0) {
		const struct dl_clause *k = &c->cl[*q];
		if (k->sat)
			continue;
		while (*j < k->nt) {
			int t = c->tgt[k->t0 + (*j)++];
			if (t >= 0 && t < c->nnodes && !c->released[t])
				return t;
		}
	}
	return -1;
}

static void strongconnect(const struct dl_ctx *c, struct tarjan *t, int root)
{
	int depth = 0;
	t->call_node[0] = root;
	t->call_q[0] = c->node_first_clause[root];
	t->call_j[0] = 0;
	t->idx[root] = t->low[root] = t->next++;
	t->stack[t->sp++] = root;
	t->on[root] = 1;
	while (depth >= 0) {
		int x = t->call_node[depth];
		int y = next_target(c, x, &t->call_q[depth], &t->call_j[depth]);
		if (y >= 0) {
			if (t->idx[y] < 0) {
				depth++;
				t->call_node[depth] = y;
				t->call_q[depth] = c->node_first_clause[y];
				t->call_j[depth] = 0;
				t->idx[y] = t->low[y] = t->next++;
				t->stack[t->sp++] = y;
				t->on[y] = 1;
			} else if (t->on[y] && t->idx[y] < t->low[x]) {
				t->low[x] = t->idx[y];
			}
			continue;
		}
		if (t->low[x] == t->idx[x]) {
			int w;
			do {
				w = t->stack[--t->sp];
				t->on[w] = 0;
				t->comp[w] = t->ncomp;
			} while (w != x);
			t->ncomp++;
		}
		depth--;
		if (depth >= 0) {
			int p = t->call_node[depth];
			if (t->low[x] < t->low[p])
				t->low[p] = t->low[x];
		}
	}
}

/* Whether a rank of f waits on a whole communicator (MPI_ANY_SOURCE). */
static int waits_on_comm(const struct dl_ctx *c, const struct dl_finding *f)
{
	for (int i = 0; i < f->nranks; i++) {
		int r = f->ranks[i];
		for (int q = c->node_first_clause[r]; q < c->node_first_clause[r] + c->node_nclauses[r]; q++)
			if (!c->cl[q].sat && c->cl[q].na)
				return 1;
	}
	return 0;
}

int dl_find_cores(struct dl_ctx *c)
{
	int n = c->nnodes, rv = -1;
	struct tarjan t = {0};
	char *sink = NULL;
	size_t sz = ((size_t)n + 1) * sizeof(int);
	t.idx = malloc(sz);
	t.low = malloc(sz);
	t.comp = malloc(sz);
	t.stack = malloc(sz);
	t.call_node = malloc(sz);
	t.call_q = malloc(sz);
	t.call_j = malloc(sz);
	t.on = calloc((size_t)n + 1, 1);
	if (!t.idx || !t.low || !t.comp || !t.stack || !t.call_node || !t.call_q || !t.call_j || !t.on)
		goto out;
	for (int i = 0; i < n; i++)
		t.idx[i] = t.comp[i] = -1;
	for (int i = 0; i < n; i++)
		if (!c->released[i] && t.idx[i] < 0)
			strongconnect(c, &t, i);
	sink = malloc((size_t)t.ncomp + 1);
	if (!sink)
		goto out;
	memset(sink, 1, (size_t)t.ncomp + 1);
	for (int x = 0; x < n; x++) {
		if (c->released[x])
			continue;
		int q = c->node_first_clause[x], j = 0, y;
		while ((y = next_target(c, x, &q, &j)) >= 0)
			if (t.comp[y] != t.comp[x])
				sink[t.comp[x]] = 0;
	}
	for (int fi = 0; fi < c->nfindings; fi++) {
		struct dl_finding *f = &c->findings[fi];
		if ((strcmp(f->kind, "cycle") && strcmp(f->kind, "knot")) || waits_on_comm(c, f))
			continue;
		int ncore = 0;
		for (int i = 0; i < f->nranks; i++)
			ncore += sink[t.comp[f->ranks[i]]];
		if (ncore == 0 || ncore == f->nranks)
			continue;
		f->waiting = malloc((size_t)(f->nranks - ncore) * sizeof *f->waiting);
		if (!f->waiting)
			goto out;
		for (int i = 0; i < f->nranks; i++)
			if (!sink[t.comp[f->ranks[i]]])
				f->waiting[f->nwaiting++] = f->ranks[i];
	}
	rv = 0;
out:
	free(t.idx);
	free(t.low);
	free(t.comp);
	free(t.stack);
	free(t.call_node);
	free(t.call_q);
	free(t.call_j);
	free(t.on);
	free(sink);
	return rv;
}

int dl_finding_waits(const struct dl_finding *f, int r)
{
	int lo = 0, hi = f->nwaiting - 1;
	while (lo <= hi) { /* f->waiting is sorted, as f->ranks */
		int m = (lo + hi) / 2;
		if (f->waiting[m] == r)
			return 1;
		if (f->waiting[m] < r)
			lo = m + 1;
		else
			hi = m - 1;
	}
	return 0;
}
