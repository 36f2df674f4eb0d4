/* nodecal.c - the nodes' calibrations for the compute-phase flag
 * (nodecal.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colctx.h"
#include "colquick.h"
#include "imb_phases.h"
#include "log.h"
#include "nodecal.h"

#define NODECAL_BUDGET_S 1.0 /* the probe at the job's end: at most this */

int col_nodecal_of_probe(const char *node, const struct mw_probe_result *r, struct imb_nodecal *k)
{
	if ((r->state != MW_PROBE_ALIVE && r->state != MW_PROBE_DEGRADED) || !r->has_calib)
		return 0;
	memset(k, 0, sizeof(*k));
	snprintf(k->node, sizeof k->node, "%s", node);
	k->interval_ns = r->cal.interval_ns;
	k->resolution_ns = r->cal.resolution_ns;
	k->degraded = r->cal.degraded;
	return 1;
}

/* col_quick_fn: the probe at the job's end is over. */
static void probed(void *arg, int rc)
{
	(void)rc;
	*(int *)arg = 1;
}

/* One probe of the n nodes (names, addrs) on c's loop (c->env.probe when
 * set), within NODECAL_BUDGET_S: the loop turns until it is over (the
 * shutdown waits for it, nothing else blocks meanwhile).  out[] filled;
 * without a loop nothing is probed (out[] left dead).  Return 0, or -1
 * when the round could not start (errno). */
static int probe(struct collector *c, const char **names, const char **addrs, size_t n,
		 struct mw_probe_result *out)
{
	double budget = col_probe_budget(c) < NODECAL_BUDGET_S ? col_probe_budget(c) : NODECAL_BUDGET_S;
	struct col_quick *q;
	int over = 0;

	if (c->env.probe) {
		c->env.probe(c->env.arg, names, n, out);
		return 0;
	}
	q = col_quick_start(c->loop, names, addrs, n, col_probe_port(), budget, col_probe_tries(), out, probed,
			    &over);
	if (!q)
		return -1;
	while (!over)
		uv_run(c->loop, UV_RUN_ONCE);
	col_quick_free(q);
	return 0;
}

/* The calibration file's figures, for every node (one entry, node ""). */
static int from_file(struct collector *c, struct imb_nodecal *t, size_t *n)
{
	char err[600];
	if (imb_nodecal_load(c->o->calibration, t, err, sizeof err) < 0) {
		mw_warn("node calibration: %s; the compute-phase flag uses its fixed criterion", err);
		return 0;
	}
	*n = 1;
	mw_info("node calibration from %s: interval %.0f ns, resolution %.0f ns", c->o->calibration,
		t->interval_ns, t->resolution_ns);
	return 0;
}

int col_nodecal_get(struct collector *c, struct imb_nodecal **tab, size_t *n)
{
	struct col_state *s = &c->s;
	struct imb_nodecal *t;
	*tab = NULL;
	*n = 0;
	if (!s->nnodes)
		return 0;
	if (!(t = calloc(s->nnodes, sizeof *t)))
		return -1;
	if (c->o->calibration[0]) {
		from_file(c, t, n);
	} else {
		const char **names = calloc(s->nnodes, sizeof *names), **addrs = calloc(s->nnodes, sizeof *addrs);
		struct mw_probe_result *out = calloc(s->nnodes, sizeof *out);
		if (!names || !addrs || !out) {
			free(names);
			free(addrs);
			free(out);
			free(t);
			errno = ENOMEM;
			return -1;
		}
		for (size_t i = 0; i < s->nnodes; i++) {
			names[i] = s->nodes[i].name;
			addrs[i] = s->agents[i].addr[0] ? s->agents[i].addr : NULL;
		}
		if (probe(c, names, addrs, s->nnodes, out) < 0)
			mw_warn("node calibration: no probe: %s", strerror(errno));
		for (size_t i = 0; i < s->nnodes; i++)
			*n += (size_t)col_nodecal_of_probe(s->nodes[i].name, &out[i], &t[*n]);
		mw_info("node calibration: %zu of %zu node(s) reported one", *n, s->nnodes);
		free(names);
		free(addrs);
		free(out);
	}
	if (!*n) {
		free(t);
		t = NULL;
	}
	*tab = t;
	return 0;
}
