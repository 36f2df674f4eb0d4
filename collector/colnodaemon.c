/* colnodaemon.c - Slurm asked about the nodes up without nodehealthd
 * (colnodaemon.h): sinfo on the loop (uvslurm.h), never blocking it. */
#include "colnodaemon.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colctx.h"
#include "coleval.h"
#include "log.h"
#include "slurm.h"
#include "uvslurm.h"

/* One question to Slurm: on the heap, since a round freed while sinfo still
 * runs leaves it to the command's end (c NULL: nobody waits). */
struct col_nodaemon {
	struct collector *c;
	struct mw_uvslurm *call; /* under way on the loop, or NULL */
	struct mw_slurm_node *v;
	long nv; /* node count, or -1 with err */
	char err[256];
	int done;
};

/* Whether a result of the round is "up without nodehealthd": ours, or a CP's. */
static int needed(const struct col_own_probe *pr)
{
	for (size_t k = 0; k < pr->nown; k++)
		if (pr->own[k].state == MW_PROBE_NODAEMON)
			return 1;
	for (size_t i = 0; i < pr->nn; i++)
		if (pr->covered[i] && pr->out[i].state == MW_PROBE_NODAEMON)
			return 1;
	return 0;
}

/* mw_uvslurm_fn: sinfo is over. */
static void told(void *arg, long rc, const char *err)
{
	struct col_nodaemon *q = arg;
	q->call = NULL;
	if (!q->c) { /* the round is gone */
		free(q->v);
		free(q);
		return;
	}
	q->nv = rc;
	snprintf(q->err, sizeof q->err, "%s", rc < 0 && err ? err : "");
	q->done = 1;
	col_eval_schedule(q->c, 0);
}

int col_nodaemon_ready(struct collector *c)
{
	struct col_own_probe *pr = &c->pr;
	struct col_nodaemon *q = pr->nd;

	if (pr->nd_asked && !q)
		return 1; /* not needed */
	if (!pr->nd_asked) {
		pr->nd_asked = 1;
		if (!needed(pr))
			return 1;
		q = calloc(1, sizeof *q);
		if (!q)
			return 1; /* col_nodaemon_apply: "no memory" */
		q->c = c;
		pr->nd = q;
		if (!c->loop) { /* no loop: the blocking twin */
			q->nv = mw_slurm_nodes(NULL, &q->v, q->err, sizeof q->err);
			q->done = 1;
		} else if (!(q->call = mw_uvslurm_nodes(c->loop, NULL, &q->v, told, q, q->err, sizeof q->err))) {
			q->nv = -1;
			q->done = 1;
		}
	}
	if (!q->done && c->final_eval)
		while (!q->done)
			uv_run(c->loop, UV_RUN_ONCE);
	return q->done;
}

void col_nodaemon_apply(struct collector *c, struct mw_probe_result *out, size_t n, const char **names)
{
	struct col_nodaemon *q = c->pr.nd;

	for (size_t i = 0; i < n; i++) {
		if (out[i].state != MW_PROBE_NODAEMON)
			continue;
		if (!q || !q->done || q->nv < 0) {
			mw_warn("cannot ask Slurm about node %s, up without nodehealthd: %s", names[i],
				!q ? strerror(ENOMEM) : q->err);
			return;
		}
		for (long k = 0; k < q->nv; k++)
			if (!strcmp(q->v[k].name, names[i]) && mw_slurm_node_down(&q->v[k])) {
				out[i].state = MW_PROBE_DEAD;
				snprintf(out[i].summary, sizeof out[i].summary,
					 "no nodehealthd, and Slurm says the node is %.100s", q->v[k].state);
			}
	}
}

void col_nodaemon_free(struct col_own_probe *pr)
{
	struct col_nodaemon *q = pr->nd;
	pr->nd = NULL;
	pr->nd_asked = 0;
	if (!q)
		return;
	if (q->call) {
		q->c = NULL; /* told frees it */
		mw_uvslurm_kill(q->call);
		return;
	}
	free(q->v);
	free(q);
}
