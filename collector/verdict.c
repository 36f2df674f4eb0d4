/* verdict.c - rank/node facts -> verdict and causes A-D (see verdict.h and
 * doc/collector.md, "Classification").
 *
 * Each stuck rank waits for a set of ranks (its blockers): the peer of a
 * point-to-point call, the members of the communicator that are not in the
 * same collective, the peers of its pending requests (from its dump).  On
 * that wait graph:
 *   - a rank that exited or vanished without MPI_Finalize is B (own error);
 *   - a rank computing outside MPI is A (a long computation, not an error);
 *   - a stuck rank that waits for an exited/vanished rank is C (a rank told
 *     in MPI_Init counts as stuck there only once a rank of the job ended
 *     before or inside MPI_Init: MPI_Init is not judged by time);
 *   - stuck ranks of the deadlock the analysis of the dumps found are B
 *     (deadlocked), whatever this file's own wait graph says;
 *   - other stuck ranks on a cycle of waits (strongly connected) are B
 *     (whether it is a deadlock is the analysis of the dumps' answer);
 *   - a stuck rank that waits (transitively) for a B or C rank is C;
 *   - a stuck rank that waits only for computing ranks is A;
 *   - any other stuck rank is B (its peers still run: a message that will
 *     never match, a wrong tag, a missing send...);
 *   - when a node is dead (hardware verdict): ranks on it are D (lost) and
 *     stuck or exited ranks on live nodes are D (stranded);
 *   - when no node is dead and every rank vanished with no exit status
 *     (none exited with a status or a signal of its own), the launcher was
 *     killed: no cause, verdict none (res->launcher_killed).
 */
#include "verdict.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colgraph.h"
#include "hostlist.h"
#include "stall.h"
#include "verdict_text.h"

/* ------------------------------------------------------------ the causes */

static int add_rank_to_cause(struct col_result *res, char cause, const char *detail, int rank)
{
	struct col_cause *c = NULL;
	for (size_t i = 0; i < res->ncauses; i++)
		if (res->causes[i].cause == cause && strcmp(res->causes[i].detail, detail) == 0)
			c = &res->causes[i];
	if (!c) {
		struct col_cause *p = realloc(res->causes, (res->ncauses + 1) * sizeof *p);
		if (!p)
			return -1;
		res->causes = p;
		c = &p[res->ncauses++];
		memset(c, 0, sizeof *c);
		c->cause = cause;
		snprintf(c->detail, sizeof c->detail, "%s", detail);
	}
	int *q = realloc(c->ranks, (c->n + 1) * sizeof *q);
	if (!q)
		return -1;
	c->ranks = q;
	c->ranks[c->n++] = rank; /* ranks are visited in order: stays sorted */
	return 0;
}

static int cmp_cause(const void *a, const void *b)
{
	const struct col_cause *x = a, *y = b;
	if (x->cause != y->cause)
		return x->cause < y->cause ? -1 : 1;
	return x->ranks[0] - y->ranks[0];
}

/* The ranks with an own fault (cls 'B' or 'b') reachable from r in the wait
 * graph through cascading ranks; at most 64, sorted.  seen/queue/out are
 * scratch arrays of g->n entries (seen zeroed here). */
static size_t culprits(const struct col_graph *g, const char *cls, size_t r, char *seen, int *queue,
		       int *out)
{
	size_t head = 0, tail = 0, n = 0;
	memset(seen, 0, g->n);
	seen[r] = 1;
	queue[tail++] = (int)r;
	while (head < tail) {
		int v = queue[head++];
		for (size_t i = 0; i < g->nadj[v]; i++) {
			int w = g->adj[v][i];
			if (seen[w])
				continue;
			seen[w] = 1;
			if (cls[w] == 'B' || cls[w] == 'b' || cls[w] == 'd' || cls[w] == 'o') {
				if (n < 64)
					out[n++] = w;
			} else if (cls[w] == 'C' || cls[w] == 'f') {
				queue[tail++] = w;
			}
		}
	}
	return n;
}

/* ------------------------------------------------------ the classification
 *
 * Software or none: each rank gets a class in cls[], decided cause by cause
 * (B, then C, then A: a rank keeps the first class it gets), then grouped
 * into causes with a detail text:
 *   'B' own fault: ended outside MPI, or blocked on ranks none of which failed
 *   'd' B: stuck in the deadlock the analysis of the dumps found
 *   'w' C: stuck only waiting for that deadlock's other ranks (a bystander:
 *       e.g. in a barrier the deadlocked ranks never reach)
 *   'b' B: stuck in a cycle of waits
 *   'f' C: ended while blocked on a failed rank (a cascade)
 *   'k' C: killed from outside, blocked on nobody, after the MPI library
 *       ended a rank (the library aborted the step: a cascade)
 *   'C' C: stuck waiting (transitively) for a failed or B or C rank
 *   'o' B: computing outside MPI past the hang limit while stuck ranks
 *       wait for it (it never came back to MPI)
 *   'A' A: computing outside MPI;   'S' A: slow (its transfer moves)
 *   'a' A: waiting for computing ranks;  's' A: waiting for slow ranks
 *   0   a stuck rank none of these fits is B (its peers still run), any
 *       other rank has no cause.
 */

/* The wait graph and the classes of one classification. */
struct waits {
	struct col_graph g; /* rank -> the ranks it waits for */
	char *active;   /* per rank: 1 if stuck in MPI */
	char *cls;      /* per rank: its class, see above */
	int *comp;      /* per rank: its strongly connected component (stuck ranks) */
	size_t *compsize;
	char *seen; /* scratch for culprits() */
	int *queue;
	const char *dl_what; /* the analysis' deadlock, for class 'd' */
	char dl_core[128];   /* its ranks that wait for each other, for class 'w' */
	char failed[160];    /* class 'p': the ranks that ended on their own (once) */
};

static int waits_alloc(struct waits *w, size_t size)
{
	w->g.n = size;
	w->g.adj = calloc(size ? size : 1, sizeof *w->g.adj);
	w->g.nadj = calloc(size ? size : 1, sizeof *w->g.nadj);
	w->active = calloc(size ? size : 1, 1);
	w->cls = calloc(size ? size : 1, 1);
	w->comp = calloc(size ? size : 1, sizeof *w->comp);
	w->compsize = calloc(size ? size : 1, sizeof *w->compsize);
	w->seen = calloc(size ? size : 1, 1);
	w->queue = calloc(size ? size : 1, sizeof *w->queue);
	if (!w->g.adj || !w->g.nadj || !w->active || !w->cls || !w->comp || !w->compsize || !w->seen ||
	    !w->queue)
		return -1;
	return 0;
}

static void waits_free(struct waits *w)
{
	col_graph_free(&w->g);
	free(w->active);
	free(w->cls);
	free(w->comp);
	free(w->compsize);
	free(w->seen);
	free(w->queue);
}

/* Whether a rank of the job ended before MPI_Init or inside it: the ranks
 * left in MPI_Init (MW_HB_S_IN_INIT) wait for it.  MPI_Init is never judged
 * by time on its own (it may be long on large jobs). */
static int init_failed(const struct col_rank *ranks, size_t size)
{
	for (size_t r = 0; r < size; r++)
		if (col_graph_failed(&ranks[r]) &&
		    (ranks[r].preinit || mw_stall_init_call(ranks[r].call)))
			return 1;
	return 0;
}

/* The wait graph over stuck ranks (and ranks that ended while blocked in
 * MPI; ranks in MPI_Init once a rank ended before or inside it), and its
 * cycles.  Return 0, or -1 (ENOMEM). */
static int build_waits(const struct col_rank *ranks, size_t size, struct waits *w)
{
	int in_init = init_failed(ranks, size);
	for (size_t r = 0; r < size; r++) {
		int stuck = ranks[r].state == MW_HB_S_IN_MPI || (in_init && ranks[r].state == MW_HB_S_IN_INIT);
		if (stuck || col_graph_failed_in_mpi(&ranks[r])) {
			w->active[r] = (char)stuck;
			if (col_graph_edges(ranks, size, r, &w->g))
				return -1;
		}
	}
	return col_graph_scc(&w->g, w->active, w->comp, w->compsize);
}

/* Return 1 if rank r waits for a rank that failed, else 0. */
static int waits_on_failed(const struct col_rank *ranks, const struct waits *w, size_t r)
{
	int on_failed = 0;
	for (size_t i = 0; i < w->g.nadj[r]; i++)
		on_failed |= col_graph_failed(&ranks[w->g.adj[r][i]]);
	return on_failed;
}

/* Spread classes along the waits until nothing changes: a rank with no
 * class yet that is stuck (stuck = 1) or ended (stuck = 0), and waits for
 * a rank of class from[k], gets class to[k] (the first such rank in its
 * list of waits counts). */
static void spread(const struct col_rank *ranks, size_t size, struct waits *w, int stuck,
		   const char *from, const char *to)
{
	int changed;
	do {
		changed = 0;
		for (size_t r = 0; r < size; r++) {
			if ((stuck ? !w->active[r] : !col_graph_failed(&ranks[r])) || w->cls[r])
				continue;
			for (size_t i = 0; i < w->g.nadj[r]; i++) {
				char c = w->cls[w->g.adj[r][i]];
				const char *k = c ? strchr(from, c) : NULL;
				if (k) {
					w->cls[r] = to[k - from];
					changed = 1;
					break;
				}
			}
		}
	} while (changed);
}

static int on_dead_node(const struct col_rank *x, const struct col_node *nodes, size_t nnodes)
{
	return x->node >= 0 && (size_t)x->node < nnodes && nodes[x->node].probed &&
	       nodes[x->node].state == MW_PROBE_DEAD;
}

/* Cause D, hardware (res->ndead dead nodes): ranks on a dead node are lost,
 * ranks stuck or ended on a live node are stranded; computing and slow
 * ranks stay A.  Fill res.  Return 0, or -1 (ENOMEM). */
static int cause_d(const struct col_rank *ranks, size_t size, const struct col_node *nodes,
		   size_t nnodes, struct col_result *res)
{
	char detail[256], buf[160], dn[128];
	res->verdict = COL_V_HARDWARE;
	col_dead_names(nodes, res, dn, sizeof dn);
	for (size_t r = 0; r < size; r++) {
		const struct col_rank *x = &ranks[r];
		char c = 0;
		if (on_dead_node(x, nodes, nnodes)) {
			c = 'D';
			snprintf(detail, sizeof detail, "lost with dead node %s",
				 nodes[x->node].name);
		} else if (x->state == MW_HB_S_IN_MPI) {
			c = 'D';
			snprintf(detail, sizeof detail,
				 "stranded in MPI on a live node: waiting for ranks on dead node(s) %s",
				 dn);
		} else if (x->state == MW_HB_S_EXITED || x->state == MW_HB_S_VANISHED) {
			c = 'D';
			col_exit_text(x, buf, sizeof buf);
			snprintf(detail, sizeof detail, "%.120s after the failure of node(s) %.60s", buf, dn);
		} else if (x->state == MW_HB_S_COMPUTING) {
			c = 'A';
			snprintf(detail, sizeof detail,
				 "computing outside MPI (a long computation, not an error)");
		} else if (x->state == MW_HB_S_SLOW) {
			c = 'A';
			col_slow_text(x, detail, sizeof detail);
		}
		if (c) {
			res->rank_cause[r] = c;
			if (add_rank_to_cause(res, c, detail, (int)r))
				return -1;
		}
	}
	return 0;
}

/* Return 1 if a rank stuck in MPI waits for rank r, else 0. */
static int waited_for(const struct waits *w, size_t r)
{
	for (size_t q = 0; q < w->g.n; q++)
		if (w->active[q])
			for (size_t i = 0; i < w->g.nadj[q]; i++)
				if ((size_t)w->g.adj[q][i] == r)
					return 1;
	return 0;
}

/* Whether x ended with a status or a signal of its own (not one a launcher
 * or Slurm ends a step with). */
static int own_end(const struct col_rank *x)
{
	return col_graph_failed(x) &&
	       ((x->exit_signal > 0 && !col_killed_from_outside(x)) || x->exit_code > 0);
}

/* Cause B, an own fault: a rank that ended outside MPI, or while blocked on
 * ranks none of which failed ('B'); a stuck rank on a cycle of waits that
 * waits for no failed rank ('b', and res->cycle.found).  Ranks that ended
 * blocked only on each other are B too (see cause_c). */
static void cause_b(const struct col_rank *ranks, size_t size, struct waits *w,
		    struct col_result *res)
{
	int lib = 0;
	/* Computing past the hang limit while stuck ranks wait for it: the
	 * program's own fault (an endless loop...), whatever it computes. */
	for (size_t r = 0; r < size; r++)
		if (ranks[r].overdue && ranks[r].state == MW_HB_S_COMPUTING && waited_for(w, r))
			w->cls[r] = 'o';
	/* The MPI library ended it (its own error line): its fault, whatever it
	 * waited for; the ranks killed with the step, waiting on nobody (in
	 * MPI_Finalize, or computing), are its cascade. */
	for (size_t r = 0; r < size; r++)
		if (!w->cls[r] && col_graph_failed(&ranks[r]) && ranks[r].lib_error) {
			w->cls[r] = 'B';
			lib = 1;
		}
	for (size_t r = 0; lib && r < size; r++)
		if (!w->cls[r] && col_killed_from_outside(&ranks[r]) && !w->g.nadj[r])
			w->cls[r] = 'k';
	/* A rank that ended before MPI_Init with no status of its own (it
	 * vanished, or was killed from outside) while another ended with one:
	 * the launcher ended it with the step of the failed rank ('p'). */
	for (size_t r = 0; r < size; r++)
		if (own_end(&ranks[r])) {
			for (size_t q = 0; q < size; q++)
				if (!w->cls[q] && ranks[q].preinit && !own_end(&ranks[q]))
					w->cls[q] = 'p';
			break; /* one is enough */
		}
	for (size_t r = 0; r < size; r++) {
		if (w->cls[r])
			continue;
		if (col_graph_failed(&ranks[r]) && !waits_on_failed(ranks, w, r)) {
			w->cls[r] = 'B';
		} else if (w->active[r] && !waits_on_failed(ranks, w, r) &&
			   w->compsize[w->comp[r]] > 1) {
			w->cls[r] = 'b'; /* B: a cycle of waits */
			res->cycle.found = 1;
		}
	}
}

/* Cause C, a cascade: a rank that ended while blocked on a failed rank of
 * cause B, directly or through other such ranks ('f'); a stuck rank that
 * waits for a failed rank, or (transitively) for a rank of cause B or C
 * ('C').  Ranks that ended blocked on each other with no own fault among
 * them are B after all.  Call after cause_b. */
static void cause_c(const struct col_rank *ranks, size_t size, struct waits *w)
{
	char *cls = w->cls;

	/* Ended while blocked on a failed rank: a cascade (C, "f"). */
	spread(ranks, size, w, 0, "Bf", "ff");
	/* Failed ranks waiting for each other (a collective they all were in):
	 * those that ended on their own (an exit status, their own signal)
	 * are the fault; those killed from outside while waiting on them were
	 * ended by the launcher because of it (a cascade). */
	for (size_t r = 0; r < size; r++)
		if (col_graph_failed(&ranks[r]) && !cls[r] && !col_killed_from_outside(&ranks[r]))
			for (size_t i = 0; i < w->g.nadj[r]; i++)
				if (col_killed_from_outside(&ranks[w->g.adj[r][i]])) {
					cls[r] = 'B';
					break;
				}
	spread(ranks, size, w, 0, "Bf", "ff");
	for (size_t r = 0; r < size; r++)
		if (col_graph_failed(&ranks[r]) && !cls[r])
			cls[r] = 'B'; /* failed ranks waiting for each other: all own */
	/* Stuck ranks waiting for gone ranks. */
	for (size_t r = 0; r < size; r++)
		if (w->active[r] && cls[r] != 'd' && waits_on_failed(ranks, w, r))
			cls[r] = 'C';
	/* Waiting (transitively) for a failed or stuck rank (a bystander of
	 * the analysis' deadlock included). */
	spread(ranks, size, w, 1, "BbdCfwo", "CCCCCCC");
}

/* Cause A, not an error: a rank computing outside MPI ('A') or whose
 * transfers move ('S', slow); a stuck rank not of cause B or C that waits
 * for such ranks, or for ranks waiting on them ('a'; 's' when the first of
 * them it waits for is slow).  Call after cause_c. */
static void cause_a(const struct col_rank *ranks, size_t size, struct waits *w)
{
	char *cls = w->cls;

	for (size_t r = 0; r < size; r++) {
		if (cls[r])
			continue; /* computing past the hang limit: 'o' */
		if (ranks[r].state == MW_HB_S_COMPUTING)
			cls[r] = 'A';
		else if (ranks[r].state == MW_HB_S_SLOW)
			cls[r] = 'S';
	}
	spread(ranks, size, w, 1, "AaSs", "aass");
}

/* The members of the cycle of waits (class 'b') into res->cycle.  Return 0,
 * or -1 (ENOMEM). */
static int cycle_members(const struct col_rank *ranks, size_t size, const struct waits *w,
			 struct col_result *res)
{
	if (!res->cycle.found)
		return 0;
	res->cycle.ranks = malloc(size * sizeof(int));
	if (!res->cycle.ranks)
		return -1;
	for (size_t r = 0; r < size; r++)
		if (w->cls[r] == 'b') {
			res->cycle.ranks[res->cycle.n++] = (int)r;
			if (strcmp(ranks[r].kind, "collective") == 0)
				res->cycle.collective = 1;
		}
	return 0;
}

/* The detail text of rank r of class c into detail.  Return its cause,
 * 'A', 'B' or 'C'. */
static char rank_detail(const struct col_rank *ranks, size_t r, char c, struct waits *w,
			char *detail, size_t len)
{
	const struct col_rank *x = &ranks[r];
	char buf[160];
	int bad[64];

	switch (c) {
	case 'A':
		snprintf(detail, len, "computing outside MPI (a long computation, not an error)");
		break;
	case 'a':
		snprintf(detail, len, "waiting in MPI for ranks that are computing (not an error)");
		c = 'A';
		break;
	case 'S':
		col_slow_text(x, detail, len);
		c = 'A';
		break;
	case 's':
		snprintf(detail, len,
			 "waiting in MPI for ranks whose transfers move (slow, not an error)");
		c = 'A';
		break;
	case 'o':
		snprintf(detail, len,
			 "computing outside MPI for %.0f s, past the hang limit, while other ranks wait for it in MPI "
			 "(it never came back to MPI)", x->computed_s);
		c = 'B';
		break;
	case 'b':
		snprintf(detail, len, "stuck in MPI, waiting for each other in a cycle");
		c = 'B';
		break;
	case 'd':
		snprintf(detail, len, "deadlocked (%s)", w->dl_what ? w->dl_what : "deadlock");
		c = 'B';
		break;
	case 'w':
		snprintf(detail, len, "waiting in %s for deadlocked rank(s) %s (cascade)", col_call_name(x),
			 w->dl_core);
		c = 'C';
		break;
	case 'B':
		if (x->state == MW_HB_S_IN_MPI) {
			int me = (int)r;
			snprintf(detail, len,
				 col_others_run(ranks, w->g.n, &me, 1)
					 ? "stuck in %s while its peers still run (a message that never matches?)"
					 : "stuck in %s while every other rank is stuck or ended too (what it waits for never comes)",
				 col_call_name(x));
		}
		else
			col_exit_text(x, detail, len);
		break;
	case 'p': {
		size_t nb = 0;
		if (!w->failed[0]) { /* once: every 'p' rank names the same ones */
			for (size_t i = 0; i < w->g.n && nb < 64; i++)
				if (own_end(&ranks[i]))
					bad[nb++] = (int)i;
			mw_ranges_format(bad, nb, w->failed, sizeof w->failed);
		}
		col_exit_text(x, detail, len);
		size_t used = strlen(detail);
		snprintf(detail + used, len - used, ", with the step of failed rank(s) %.100s (cascade)", w->failed);
		c = 'C';
		break;
	}
	case 'k': {
		size_t nb = 0;
		for (size_t i = 0; i < w->g.n && nb < 64; i++)
			if (ranks[i].lib_error)
				bad[nb++] = (int)i;
		mw_ranges_format(bad, nb, buf, sizeof buf);
		col_exit_text(x, detail, len);
		size_t used = strlen(detail);
		snprintf(detail + used, len - used, ", with the step the MPI library ended for rank(s) %.100s (cascade)",
			 buf);
		c = 'C';
		break;
	}
	case 'C':
	case 'f': {
		/* Name the culprits: the B ranks this one (transitively) waits for. */
		size_t nb = culprits(&w->g, w->cls, r, w->seen, w->queue, bad);
		mw_ranges_format(bad, nb, buf, sizeof buf);
		if (c == 'f')
			snprintf(detail, len,
				 "ended while blocked in MPI on failed rank(s) %.100s (cascade)",
				 nb ? buf : "?");
		else if (x->state == MW_HB_S_IN_INIT)
			snprintf(detail, len,
				 "left in %s by rank(s) %.100s that ended before or inside MPI_Init (cascade)",
				 col_call_name(x), nb ? buf : "?");
		else
			snprintf(detail, len,
				 "blocked in MPI by rank(s) %.100s that failed or are stuck (cascade)",
				 nb ? buf : "?");
		c = 'C';
		break;
	}
	}
	return c;
}

/* No failure: a rank that was slow or computing (cause A) and has moved on
 * since keeps its cause A, in the past tense, so that the answer says what
 * the suspected hang was even when it was over before the evaluation.
 * Return 0, or -1 (ENOMEM). */
static int moved_on_causes(const struct col_rank *ranks, size_t size, struct col_result *res)
{
	char detail[256];
	for (size_t r = 0; r < size; r++) {
		const struct col_rank *x = &ranks[r];
		if (res->rank_cause[r] || !x->was_state ||
		    (x->state != MW_HB_S_RESUMED && x->state != MW_HB_S_FINALIZED))
			continue;
		if (x->was_state == MW_HB_S_SLOW)
			col_slow_text_of(x->was_call, x->was_moving, "; the transfer completed", detail,
				     sizeof detail);
		else
			snprintf(detail, sizeof detail,
				 "computed outside MPI for a long time (not an error); then it went on");
		res->rank_cause[r] = 'A';
		if (add_rank_to_cause(res, 'A', detail, (int)r))
			return -1;
	}
	return 0;
}

/* Group the classified ranks into res's causes; set the verdict.  Return 0,
 * or -1 (ENOMEM). */
static int group_causes(const struct col_rank *ranks, size_t size, struct waits *w,
			struct col_result *res)
{
	char detail[256];
	for (size_t r = 0; r < size; r++) {
		char c = w->cls[r];
		if (!c && w->active[r])
			c = 'B'; /* stuck, peers still running */
		if (!c)
			continue;
		c = rank_detail(ranks, r, c, w, detail, sizeof detail);
		res->rank_cause[r] = c;
		if (add_rank_to_cause(res, c, detail, (int)r))
			return -1;
		if (w->cls[r] == 'b' || w->cls[r] == 'd')
			for (size_t i = 0; i < res->ncauses; i++)
				if (res->causes[i].cause == 'B' && !strcmp(res->causes[i].detail, detail)) {
					res->causes[i].cycle |= w->cls[r] == 'b';
					res->causes[i].deadlock |= w->cls[r] == 'd';
				}
	}
	res->verdict = COL_V_NONE;
	for (size_t i = 0; i < res->ncauses; i++)
		if (res->causes[i].cause == 'B' || res->causes[i].cause == 'C')
			res->verdict = COL_V_SOFTWARE;
	return res->verdict == COL_V_NONE ? moved_on_causes(ranks, size, res) : 0;
}

int col_others_run(const struct col_rank *ranks, size_t size, const int *skip, size_t n)
{
	size_t k = 0;
	for (size_t r = 0; r < size; r++) {
		while (k < n && skip[k] >= 0 && (size_t)skip[k] < r)
			k++;
		if (k < n && skip[k] >= 0 && (size_t)skip[k] == r)
			continue;
		int st = ranks[r].state;
		if (st != MW_HB_S_IN_MPI && st != MW_HB_S_EXITED && st != MW_HB_S_VANISHED &&
		    st != MW_HB_S_FINALIZED && st != MW_HB_S_IN_INIT)
			return 1;
	}
	return 0;
}

int col_overdue(const struct col_rank *ranks, const struct col_result *res, size_t i)
{
	return i < res->size && res->rank_cause[i] == 'B' && ranks[i].overdue;
}

int col_killed_from_outside(const struct col_rank *x)
{
	return !x->lib_error && (x->state == MW_HB_S_EXITED || x->state == MW_HB_S_VANISHED) &&
	       (x->exit_signal == SIGKILL || x->exit_signal == SIGTERM);
}

/* Every rank ended from outside: vanished with no exit status, or killed
 * by a signal a launcher or Slurm sends to end a job (SIGTERM, SIGINT,
 * SIGHUP; SIGKILL too, from a rank never seen stuck: slurmstepd kills the
 * tasks of an srun that was killed so), none with an exit code or a signal
 * of its own (SIGSEGV, SIGABRT...): the launcher was killed or the job
 * ended, not a failure.  Ranks killed by SIGKILL while stuck (blocked on
 * each other) are left to the other rules: they stay B.  Nor is it when a
 * rank ended before MPI_Init while others were inside MPI (in MPI_Init,
 * waiting for it): the launcher ended them because that rank failed. */
static int all_vanished(const struct col_rank *ranks, size_t size)
{
	int preinit = 0, inited = 0;
	for (size_t r = 0; r < size; r++) {
		preinit |= ranks[r].preinit;
		inited |= ranks[r].call[0] != 0;
	}
	if (preinit && inited)
		return 0; /* one ended before MPI_Init while others were inside MPI: its failure */
	for (size_t r = 0; r < size; r++) {
		const struct col_rank *x = &ranks[r];
		int sig = x->exit_signal;
		if ((x->state != MW_HB_S_VANISHED && x->state != MW_HB_S_EXITED) || x->lib_error)
			return 0;
		if (x->exit_code >= 0)
			return 0;
		if (sig > 0 && sig != SIGTERM && sig != SIGINT && sig != SIGHUP &&
		    !(sig == SIGKILL && !x->stuck_seen))
			return 0;
		if (x->state == MW_HB_S_EXITED && sig <= 0)
			return 0;
	}
	return size > 0;
}

int col_classify(const struct col_rank *ranks, size_t size, const struct col_node *nodes,
		 size_t nnodes, struct col_result *res)
{
	return col_classify_dl(ranks, size, nodes, nnodes, NULL, res);
}

int col_classify_dl(const struct col_rank *ranks, size_t size, const struct col_node *nodes,
		    size_t nnodes, const struct col_dl_input *dl, struct col_result *res)
{
	struct waits w = {0};
	int rv = -1;

	memset(res, 0, sizeof *res);
	res->size = size;
	res->rank_cause = calloc(size ? size : 1, 1);
	res->dead_nodes = calloc(nnodes ? nnodes : 1, sizeof *res->dead_nodes);
	if (waits_alloc(&w, size) < 0 || !res->rank_cause || !res->dead_nodes)
		goto fail;
	for (size_t i = 0; i < nnodes; i++)
		if (nodes[i].state == MW_PROBE_DEAD && nodes[i].probed)
			res->dead_nodes[res->ndead++] = (int)i;
	res->partition = COL_PARTITION_RULE(res->ndead, nnodes);

	if (res->ndead) {
		if (cause_d(ranks, size, nodes, nnodes, res))
			goto fail;
	} else if (all_vanished(ranks, size)) {
		res->launcher_killed = 1;
		res->verdict = COL_V_NONE;
	} else {
		if (build_waits(ranks, size, &w))
			goto fail;
		/* The analysis' deadlock first: its stuck ranks are 'd', those
		 * of them that only wait for the others 'w'. */
		for (size_t i = 0; dl && i < dl->n; i++)
			if (dl->ranks[i] >= 0 && (size_t)dl->ranks[i] < size && w.active[dl->ranks[i]])
				w.cls[dl->ranks[i]] = 'd';
		for (size_t i = 0; dl && i < dl->nwaiting; i++)
			if (dl->waiting[i] >= 0 && (size_t)dl->waiting[i] < size && w.cls[dl->waiting[i]] == 'd')
				w.cls[dl->waiting[i]] = 'w';
		w.dl_what = dl ? dl->what : NULL;
		if (dl && dl->nwaiting) {
			int *core = malloc((dl->n + 1) * sizeof *core);
			size_t nc = 0;
			for (size_t i = 0; core && i < dl->n; i++) {
				size_t j = 0;
				while (j < dl->nwaiting && dl->waiting[j] != dl->ranks[i])
					j++;
				if (j == dl->nwaiting)
					core[nc++] = dl->ranks[i];
			}
			if (core)
				mw_ranges_format(core, nc, w.dl_core, sizeof w.dl_core);
			else
				snprintf(w.dl_core, sizeof w.dl_core, "?");
			free(core);
		}
		cause_b(ranks, size, &w, res);
		cause_c(ranks, size, &w);
		cause_a(ranks, size, &w);
		if (cycle_members(ranks, size, &w, res) || group_causes(ranks, size, &w, res))
			goto fail;
	}
	if (res->ncauses > 1)
		qsort(res->causes, res->ncauses, sizeof *res->causes, cmp_cause);
	rv = 0;
fail:
	waits_free(&w);
	if (rv) {
		col_result_free(res);
		errno = ENOMEM;
	}
	return rv;
}

void col_result_free(struct col_result *res)
{
	if (!res)
		return;
	for (size_t i = 0; i < res->ncauses; i++)
		free(res->causes[i].ranks);
	free(res->causes);
	free(res->cycle.ranks);
	free(res->dead_nodes);
	free(res->rank_cause);
	memset(res, 0, sizeof *res);
}
