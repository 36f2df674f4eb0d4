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
#include "settings.h"

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
	if (col_state_init(&c->s, o->job) < 0) {
		mw_err("out of memory");
		return -1;
	}
	c->s.ap = col_ap_create(o->ap_conf, 0);
	/* the timeout, hang limit and threshold are read where they are used,
	 * through the accessors (shared/settings.h): checked here once */
	struct col_threshold thr;
	if (col_threshold_parse(mw_setting_str(MW_SET_THRESHOLD), &thr) < 0) {
		mw_err("threshold %s: not a threshold", mw_setting_str(MW_SET_THRESHOLD));
		return -1;
	}
	c->s.expected_ranks = o->ranks;
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

double col_probe_budget(const struct collector *c)
{
	double b = mw_setting_double(MW_SET_PROBE_BUDGET);
	return c->final_eval && b > 1.5 ? 1.5 : b;
}

uint16_t col_probe_port(void)
{
	return (uint16_t)mw_setting_long(MW_SET_PROBE_PORT);
}

int col_probe_tries(void)
{
	return (int)mw_setting_long(MW_SET_PROBE_TRIES);
}

enum mw_jc_action col_action(const struct collector *c)
{
	return c->final_eval ? MW_JC_REPORT : (enum mw_jc_action)mw_setting_int(MW_SET_ACTION);
}

void col_ctx_plan_tree(struct collector *c, const struct mwt_factors *f)
{
	double w[MW_JOBCONF_NWEIGHTS];
	const char *ws = mw_setting_str(MW_SET_TREE_WEIGHTS);
	int wset = ws[0] && mw_jobconf_weights(ws, w, MW_JOBCONF_NWEIGHTS) == 0;
	c->tree = col_tree_plan(&c->s, mw_setting_long(MW_SET_TREE_THRESHOLD), mw_setting_long(MW_SET_TREE_FANOUT),
				mw_setting_long(MW_SET_TREE_CPS), f, wset ? w : NULL);
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
