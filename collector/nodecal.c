/* nodecal.c - the nodes' calibrations for the compute-phase flag
 * (nodecal.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colctx.h"
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
		if (c->env.probe)
			c->env.probe(c->env.arg, names, s->nnodes, out);
		else
			mw_probe_nodes(names, addrs, s->nnodes, col_probe_port(),
				       col_probe_budget(c) < NODECAL_BUDGET_S ? col_probe_budget(c) : NODECAL_BUDGET_S,
				       col_probe_tries(), out);
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
