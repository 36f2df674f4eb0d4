/* colquick.c - a one-off probe round of a list of nodes on the event loop
 * (colquick.h). */
#include "colquick.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colresolve.h"
#include "uvprobe.h"

struct col_quick {
	uv_loop_t *loop;
	size_t n;
	uint16_t port;
	double budget_s;
	int tries;
	const char **names, **addrs;
	char (*nodes)[64], (*hosts)[64];
	struct mw_probe_result *out;
	struct col_resolve *resolve;
	struct mw_uvprobe *round;
	int busy;
	col_quick_fn done;
	void *arg;
};

/* The round is over (rc), or could not start (started 0; errno): done is
 * told (it may free q). */
static void finish(struct col_quick *q, int rc, int started)
{
	q->busy = 0;
	if (!started) /* every node a local error */
		for (size_t i = 0; i < q->n; i++) {
			memset(&q->out[i], 0, sizeof q->out[i]);
			q->out[i].state = MW_PROBE_ERROR;
			snprintf(q->out[i].summary, sizeof q->out[i].summary, "local error: %s", strerror(errno));
		}
	col_resolve_summaries(q->resolve, q->out, q->n);
	q->done(q->arg, rc);
}

/* mw_uvprobe_fn */
static void round_done(void *arg, int rc)
{
	struct col_quick *q = arg;
	if (!q->round)
		return; /* given up (col_quick_free) */
	q->round = NULL;
	finish(q, rc, 1);
}

/* The names are addresses (or errors): the round starts. */
static void resolved(void *arg)
{
	struct col_quick *q = arg;
	q->round = mw_uvprobe_start(q->loop, q->names, q->addrs, q->n, q->port, q->budget_s, q->tries, 0, q->out,
				    round_done, q);
	if (!q->round)
		finish(q, -1, 0);
}

struct col_quick *col_quick_start(uv_loop_t *loop, const char *const *names, const char *const *addrs,
				  size_t n, uint16_t port, double budget_s, int tries,
				  struct mw_probe_result *out, col_quick_fn done, void *arg)
{
	struct col_quick *q;
	size_t nn = n ? n : 1;

	if (!loop || !done) {
		errno = EINVAL;
		return NULL;
	}
	q = calloc(1, sizeof *q);
	if (!q || !(q->names = calloc(nn, sizeof *q->names)) || !(q->addrs = calloc(nn, sizeof *q->addrs)) ||
	    !(q->nodes = calloc(nn, sizeof *q->nodes)) || !(q->hosts = calloc(nn, sizeof *q->hosts))) {
		col_quick_free(q);
		errno = ENOMEM;
		return NULL;
	}
	q->loop = loop;
	q->n = n;
	q->port = port;
	q->budget_s = budget_s;
	q->tries = tries;
	q->out = out;
	q->done = done;
	q->arg = arg;
	for (size_t i = 0; i < n; i++) {
		snprintf(q->nodes[i], sizeof q->nodes[i], "%s", names[i]);
		snprintf(q->hosts[i], sizeof q->hosts[i], "%s", addrs && addrs[i] ? addrs[i] : "");
		q->names[i] = q->nodes[i];
		q->addrs[i] = q->hosts[i][0] ? q->hosts[i] : NULL;
	}
	q->busy = 1;
	q->resolve = col_resolve_start(loop, q->names, q->addrs, q->hosts, n, resolved, q);
	if (!col_resolve_busy(q->resolve)) {
		q->round = mw_uvprobe_start(loop, q->names, q->addrs, n, port, budget_s, tries, 0, out, round_done, q);
		if (!q->round) {
			int e = errno;
			col_quick_free(q);
			errno = e;
			return NULL;
		}
	}
	return q;
}

int col_quick_busy(const struct col_quick *q)
{
	return q && q->busy;
}

void col_quick_free(struct col_quick *q)
{
	if (!q)
		return;
	col_resolve_free(q->resolve); /* look-ups under way: cancelled */
	if (q->round) {
		struct mw_uvprobe *r = q->round;
		q->round = NULL; /* its end (now) is not ours any more */
		mw_uvprobe_stop(r);
	}
	free(q->names);
	free(q->addrs);
	free(q->nodes);
	free(q->hosts);
	free(q);
}
