/* colctx.c - the collector's shared context (colctx.h): its clock, its
 * set-up from the options and its release. */
#include "colctx.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "colap.h"
#include "authq.h"
#include "colprobe.h"
#include "coltree.h"
#include "hostlist.h"
#include "jobconf.h"
#include "log.h"
#include "mw_link.h"

double col_now(const struct collector *c)
{
	return c->env.now ? c->env.now(c->env.arg) : mw_now();
}

int col_ctx_init(struct collector *c, struct col_opts *o, const struct col_env *env)
{
	memset(c, 0, sizeof *c);
	c->o = o;
	c->lfd = -1;
	if (env)
		c->env = *env;
	if (o->settle_s < 0) {
		o->settle_s = o->timeout_s / 4;
		if (o->settle_s < 1)
			o->settle_s = 1;
		if (o->settle_s > 3)
			o->settle_s = 3;
	}
	if (col_state_init(&c->s, o->job) < 0) {
		mw_err("out of memory");
		return -1;
	}
	c->s.ap = col_ap_create(o->ap_conf, 0);
	c->s.timeout_s = o->timeout_s;
	c->s.hang_limit_s = mw_jobconf_hang_limit(o->hang_limit_s, o->timeout_s);
	c->s.thr = o->thr;
	c->s.expected_ranks = o->ranks;
	snprintf(c->s.threshold_spec, sizeof c->s.threshold_spec, "%s", o->threshold);
	if (o->nodes[0]) {
		struct mw_hostlist hl = {0};
		if (mw_hostlist_expand(o->nodes, 65536, &hl) < 0) {
			mw_err("--nodes %s: not a valid hostlist", o->nodes);
			return -1;
		}
		for (size_t i = 0; i < hl.n; i++)
			col_state_node(&c->s, hl.host[i]);
		mw_hostlist_free(&hl);
		/* Above the threshold: the tree overlay (doc/tree.md); with the
		 * fuzzy placement, planned after its start-up probe
		 * (col_probe_fuzzy_start, on the loop). */
		if (!col_probe_fuzzy_wanted(c))
			col_ctx_plan_tree(c, NULL);
	}
	if (o->ranks > 0 && col_state_grow(&c->s, (size_t)o->ranks) < 0) {
		mw_err("--ranks %ld: %s", o->ranks, strerror(errno));
		return -1;
	}
	return 0;
}

void col_ctx_plan_tree(struct collector *c, const struct mwt_factors *f)
{
	const struct col_opts *o = c->o;
	c->tree = col_tree_plan(&c->s, o->tree_threshold, o->tree_fanout, o->tree_cps, f,
				o->tree_weights_set ? o->tree_weights : NULL);
	c->s.tree = c->tree;
}

void col_ctx_free(struct collector *c)
{
	free(c->joblog_text);
	c->joblog_text = NULL;
	col_probe_free(&c->pr);
	col_probe_fuzzy_free(c);
	col_authq_destroy(c->aq);
	c->aq = NULL;
	for (size_t k = 0; k < c->nc; k++) {
		mw_link_close(c->c[k].l);
		free(c->c[k].hello_wait);
	}
	free(c->c);
	c->c = NULL;
	c->nc = 0;
	free(c->retry);
	c->retry = NULL;
	c->nretry = 0;
	free(c->todo);
	c->todo = NULL;
	c->ntodo = 0;
	c->s.tree = NULL;
	col_tree_free(c->tree);
	c->tree = NULL;
	if (c->lfd >= 0)
		close(c->lfd);
	c->lfd = -1;
	col_ap_destroy(c->s.ap);
	c->s.ap = NULL;
	col_state_free(&c->s);
}
