/* colprobe.c - the collector's probe round (colprobe.h): the CPs asked to
 * probe their subtrees in a tree job, then our own UDP round of the rest
 * (nodehealthd's protocol, shared/probe.h), stepped by the event loop; the
 * nodes' states and the report's probe events from the results.
 */
#include "colprobe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coleval.h"
#include "colnodaemon.h"
#include "colquick.h"
#include "colresolve.h"
#include "collinks.h"
#include "coltree.h"
#include "log.h"
#include "mwt_cp.h"
#include "mwt_plan.h"
#include "slurm.h"
#include "settings.h"

/* Probing down the tree (doc/tree.md): in a tree job the collector first
 * asks the CPs it serves to probe their subtrees (PROBEREQ) and waits for
 * their summaries, up to the budget and a margin per level.  Return 1 when
 * the results are in (or the job runs no tree), 0 while waiting (the
 * evaluation is scheduled again). */
int col_probe_tree_ready(struct collector *c)
{
	double now = col_now(c);
	if (!c->tree || c->final_eval)
		return 1; /* a round under way: what came in is used, the rest probed by us */
	if (!c->tprobe_round) {
		struct mw_hb_probereq r = {0};
		int asked;
		r.round = ++c->tprobe_seq;
		r.port = col_probe_port();
		r.tries = col_probe_tries();
		r.budget_s = col_probe_budget(c);
		r.wait_s = r.budget_s + 0.2 + MWT_PROBE_LEVEL_S * col_tree_depth(c->tree);
		asked = col_tree_probe_begin(c->tree, &c->s, &r, col_links_send_to_node, c);
		if (asked <= 0)
			return 1;
		c->s.st.probe_requests += (unsigned long)asked;
		c->tprobe_round = r.round;
		c->tprobe_until = now + r.wait_s + 0.5;
		col_state_event(&c->s, "probe_start", "probe round %u down the tree: %d CP(s) asked to probe their "
				"subtrees (%d tries, %.1f s budget, summaries due within %.1f s)",
				r.round, asked, r.tries, r.budget_s, r.wait_s);
		col_eval_schedule(c, c->tprobe_until - now);
		return 0;
	}
	if (!col_tree_probe_done(c->tree) && now < c->tprobe_until) {
		col_eval_schedule(c, c->tprobe_until - now);
		return 0;
	}
	return 1;
}

void col_probe_free(struct col_own_probe *pr)
{
	col_nodaemon_free(pr); /* Slurm's answer, if asked, is not waited for */
	col_resolve_free(pr->resolve); /* look-ups under way: cancelled */
	if (pr->round) {
		struct mw_uvprobe *r = pr->round;
		pr->round = NULL; /* its end (now) is not ours any more: round_done ignores it */
		mw_uvprobe_stop(r);
	}
	free(pr->names);
	free(pr->addrs);
	free(pr->nodes);
	free(pr->hosts);
	free(pr->out);
	free(pr->own);
	free(pr->covered);
	free(pr->by);
	free(pr->idx);
	memset(pr, 0, sizeof *pr);
}

/* mw_uvprobe_fn: our round is over; the evaluation goes on. */
static void round_done(void *arg, int rc)
{
	struct collector *c = arg;
	struct col_own_probe *pr = &c->pr;
	if (!pr->round)
		return; /* stopped by col_probe_free */
	pr->round = NULL;
	pr->rc = rc;
	pr->rc_errno = errno;
	pr->done = 1;
	if (!pr->early) /* an evaluation waits for it */
		col_eval_schedule(c, 0);
}

/* Our UDP round of the nodes of ours, their names resolved (colresolve.c). */
static void round_start(struct collector *c)
{
	struct col_own_probe *pr = &c->pr;
	pr->round = mw_uvprobe_start(c->loop, pr->names, pr->addrs, pr->nown, col_probe_port(),
				     col_probe_budget(c), col_probe_tries(), 0, pr->own, round_done, c);
	if (!pr->round)
		pr->start_errno = errno;
}

/* colresolve's then: the names are addresses (or errors); the round starts
 * (if it cannot, the evaluation waiting for it goes on). */
static void resolved(void *arg)
{
	struct collector *c = arg;
	round_start(c);
	if (!c->pr.round)
		col_eval_schedule(c, 0);
}

/* Begin probing the job's nodes: the CPs' summaries first, our own round
 * for the rest.  Return 0, or -1 (no memory: nothing probed). */
static int probe_begin(struct collector *c)
{
	struct col_state *s = &c->s;
	struct col_own_probe *pr = &c->pr;
	size_t nn = s->nnodes ? s->nnodes : 1;

	memset(pr, 0, sizeof *pr);
	pr->began = col_now(c);
	pr->nn = s->nnodes;
	pr->names = calloc(nn, sizeof *pr->names);
	pr->addrs = calloc(nn, sizeof *pr->addrs);
	pr->nodes = calloc(nn, sizeof *pr->nodes);
	pr->hosts = calloc(nn, sizeof *pr->hosts);
	pr->out = calloc(nn, sizeof *pr->out);
	pr->own = calloc(nn, sizeof *pr->own);
	pr->covered = calloc(nn, 1);
	pr->by = calloc(nn, sizeof *pr->by);
	pr->idx = calloc(nn, sizeof *pr->idx);
	if (!pr->names || !pr->addrs || !pr->nodes || !pr->hosts || !pr->out || !pr->own || !pr->covered ||
	    !pr->by || !pr->idx) {
		col_probe_free(pr);
		return -1;
	}
	pr->active = 1;
	s->st.probe_rounds++;
	/* The CPs' summaries first: the same results as our own probes. */
	if (c->tprobe_round) {
		pr->ncp = col_tree_probe_take(c->tree, s, pr->out, pr->covered, pr->by);
		c->tprobe_round = 0;
	}
	for (size_t i = 0; i < pr->nn; i++) {
		if (pr->covered[i])
			continue;
		pr->idx[pr->nown] = i;
		snprintf(pr->nodes[pr->nown], sizeof pr->nodes[pr->nown], "%s", s->nodes[i].name);
		snprintf(pr->hosts[pr->nown], sizeof pr->hosts[pr->nown], "%s", s->agents[i].addr);
		pr->names[pr->nown] = pr->nodes[pr->nown];
		pr->addrs[pr->nown] = pr->hosts[pr->nown][0] ? pr->hosts[pr->nown] : NULL;
		pr->nown++;
	}
	col_state_event(s, "probe_start", "probing %zu node(s) on udp port %u (%d tries, %.1f s budget)%s",
			pr->nown, col_probe_port(), col_probe_tries(), col_probe_budget(c),
			pr->ncp ? ": those the CPs did not report on" : "");
	if (pr->nown && c->env.probe) {
		c->env.probe(c->env.arg, pr->names, pr->nown, pr->own);
		pr->done = 1;
	} else if (pr->nown && !c->loop) {
		/* No loop and no env.probe: no round (the collector always runs
		 * its loop; the blocking mw_probe_nodes is the CLI's, mpiwatch
		 * probe and status): each node a local error. */
		pr->start_errno = EINVAL;
	} else if (pr->nown) {
		pr->resolve = col_resolve_start(c->loop, pr->names, pr->addrs, pr->hosts, pr->nown, resolved, c);
		if (!col_resolve_busy(pr->resolve))
			round_start(c);
	}
	return 0;
}

/* The round is over: the nodes' states from the CPs' summaries and our own
 * results, the report's probe events; free the round. */
static void probe_end(struct collector *c)
{
	struct col_state *s = &c->s;
	struct col_own_probe *pr = &c->pr;
	size_t nn = pr->nn < s->nnodes ? pr->nn : s->nnodes; /* nodes that joined since: not probed */
	int alive = 0, dead = 0, degraded = 0, nodaemon = 0, own_alive = 0;
	struct mw_probe_result *out = pr->out;

	if (pr->done) {
		own_alive = pr->rc;
		errno = pr->rc_errno;
	} else if (pr->nown) {
		own_alive = -1;
		errno = pr->start_errno;
		for (size_t k = 0; k < pr->nown; k++) {
			pr->own[k].state = MW_PROBE_ERROR;
			snprintf(pr->own[k].summary, sizeof pr->own[k].summary, "local error: %s",
				 strerror(pr->start_errno));
		}
	}
	int saved = errno;
	for (size_t k = 0; k < pr->nown; k++) {
		out[pr->idx[k]] = pr->own[k];
		s->st.probes_sent += (unsigned long)(pr->own[k].tries > 0 ? pr->own[k].tries : 0);
		s->st.probe_answers += pr->own[k].state == MW_PROBE_ALIVE || pr->own[k].state == MW_PROBE_DEGRADED ||
				       pr->own[k].state == MW_PROBE_NODAEMON;
	}
	for (size_t i = 0; i < nn; i++)
		pr->names[i] = s->nodes[i].name;
	col_nodaemon_apply(c, out, nn, pr->names);
	for (size_t i = 0; i < nn; i++) {
		struct col_node *n = &s->nodes[i];
		n->probed = 1;
		n->state = out[i].state;
		n->rtt_ms = out[i].rtt_ms;
		snprintf(n->summary, sizeof n->summary, "%s", out[i].summary);
		snprintf(n->probed_by, sizeof n->probed_by, "%s", pr->covered[i] ? pr->by[i] : "");
		if (out[i].addr[0])
			snprintf(n->addr, sizeof n->addr, "%s", out[i].addr);
		alive += n->state == MW_PROBE_ALIVE || n->state == MW_PROBE_DEGRADED;
		dead += n->state == MW_PROBE_DEAD;
		degraded += n->state == MW_PROBE_DEGRADED;
		nodaemon += n->state == MW_PROBE_NODAEMON;
		if (pr->covered[i] && n->state != MW_PROBE_ALIVE)
			col_state_event(s, "probe", "node %s: %s, probed by CP on %s (%d tries%s%s)", n->name,
					mw_probe_state_name(n->state), pr->by[i], out[i].tries, n->summary[0] ? ": " : "",
					n->summary);
	}
	if (own_alive < 0)
		alive = -1;
	if (alive == 0 && dead > 0) {
		/* Not even our own node answered: the probe itself is broken
		 * (no nodehealthd, wrong port, firewall).  Judging every node
		 * dead would drain the job's nodes for nothing. */
		for (size_t i = 0; i < nn; i++) {
			if (s->nodes[i].state != MW_PROBE_DEAD)
				continue;
			s->nodes[i].state = MW_PROBE_ERROR;
			snprintf(s->nodes[i].summary, sizeof s->nodes[i].summary,
				 "no node answered any probe: is mpiwatch-nodehealthd running on port %u?",
				 col_probe_port());
		}
		col_state_event(s, "probe_end",
				"no node answered (%d probe(s) lost): liveness unknown, no node judged dead",
				dead);
	} else if (alive < 0)
		col_state_event(s, "probe_end", "probe failed locally: %s (no node judged dead)",
				strerror(saved));
	else
		col_state_event(s, "probe_end", "%d alive, %d degraded, %d dead, %d up without nodehealthd, "
				"%zu unprobeable; %zu node(s) probed by CPs, %zu by the collector",
				alive - degraded, degraded, dead, nodaemon,
				nn - (size_t)alive - (size_t)dead - (size_t)nodaemon, pr->ncp, pr->nown);
	col_probe_free(pr);
}

/* Our own probe round for the evaluation: begun on the first call, over on
 * a later one (the round runs on the loop meanwhile, and its end schedules
 * the evaluation: agents attach and heartbeats count while it waits for
 * replies).  At the last evaluation (shutdown) the loop runs here, once at
 * a time, until the round is over.  Return 1 when the nodes' states are
 * in, 0 while it goes on (the evaluation is scheduled again). */
int col_probe_own_ready(struct collector *c)
{
	struct col_own_probe *pr = &c->pr;
	if (pr->active && pr->early && !pr->round && !col_resolve_busy(pr->resolve) &&
	    col_now(c) - pr->began > COL_PROBE_FRESH_S)
		col_probe_free(pr); /* begun early, too long ago: probe again */
	if (!pr->active && probe_begin(c) < 0)
		return 1; /* no memory: judged without probing */
	pr->early = 0;
	if ((pr->round || col_resolve_busy(pr->resolve)) && c->final_eval) {
		while (pr->round || col_resolve_busy(pr->resolve))
			uv_run(c->loop, UV_RUN_ONCE);
	} else if (pr->round || col_resolve_busy(pr->resolve)) {
		return 0; /* round_done (resolved, if it fails) schedules the evaluation */
	}
	col_resolve_summaries(pr->resolve, pr->own, pr->nown);
	if (!col_nodaemon_ready(c))
		return 0; /* Slurm's answer schedules the evaluation */
	probe_end(c);
	return 1;
}

void col_probe_early(struct collector *c)
{
	if (c->tree || c->pr.active || probe_begin(c) < 0)
		return;
	c->pr.early = 1;
}

/* The fuzzy placement's start-up probe (tree_strategy=fuzzy, a job above
 * the tree threshold): one probe round of every node's nodehealthd (at
 * most COL_FUZZY_BUDGET s) on the loop, each reply made factors by
 * col_tree_factors, then the tree planned with them. */
#define COL_FUZZY_BUDGET 1.0
struct col_fuzzy {
	struct col_quick *q;
	const char **names;
	struct mw_probe_result *out;
	void (*then)(void *arg);
	void *arg;
};

void col_probe_fuzzy_free(struct collector *c)
{
	struct col_fuzzy *z = c->fuzzy;
	if (!z)
		return;
	c->fuzzy = NULL;
	col_quick_free(z->q); /* under way: given up */
	free(z->names);
	free(z->out);
	free(z);
}

int col_probe_fuzzy_wanted(const struct collector *c)
{
	return mw_setting_int(MW_SET_TREE_STRATEGY) == MWT_FUZZY &&
	       c->s.nnodes > (size_t)mw_setting_long(MW_SET_TREE_THRESHOLD);
}

/* The replies (alive of them answered) made factors; the tree planned. */
static void fuzzy_plan(struct collector *c, const struct mw_probe_result *out, int alive)
{
	struct col_state *s = &c->s;
	struct mwt_factors *f = calloc(s->nnodes, sizeof *f);
	for (size_t i = 0; f && i < s->nnodes; i++)
		col_tree_factors(&out[i], &f[i]);
	if (f)
		mw_info("tree: fuzzy placement: %d of %zu node(s) answered the start-up probe", alive < 0 ? 0 : alive,
			s->nnodes);
	col_ctx_plan_tree(c, f); /* without memory: the average placement */
	free(f);
}

/* col_quick_fn: the start-up probe is over. */
static void fuzzy_done(void *arg, int rc)
{
	struct collector *c = arg;
	struct col_fuzzy *z = c->fuzzy;
	void (*then)(void *) = z->then;
	void *targ = z->arg;
	fuzzy_plan(c, z->out, rc);
	col_probe_fuzzy_free(c);
	then(targ);
}

int col_probe_fuzzy_start(struct collector *c, void (*then)(void *arg), void *arg)
{
	struct col_state *s = &c->s;
	struct col_fuzzy *z;

	if (!col_probe_fuzzy_wanted(c) || c->tree || c->fuzzy)
		return 0;
	z = calloc(1, sizeof *z);
	if (!z || !(z->names = calloc(s->nnodes, sizeof *z->names)) || !(z->out = calloc(s->nnodes, sizeof *z->out))) {
		c->fuzzy = z;
		col_probe_fuzzy_free(c);
		col_ctx_plan_tree(c, NULL);
		return 0;
	}
	c->fuzzy = z;
	z->then = then;
	z->arg = arg;
	for (size_t i = 0; i < s->nnodes; i++)
		z->names[i] = s->nodes[i].name;
	if (c->env.probe || !c->loop || !then) { /* the test's answer, or no loop: no probe */
		int alive = 0;
		if (c->env.probe)
			c->env.probe(c->env.arg, z->names, s->nnodes, z->out);
		for (size_t i = 0; i < s->nnodes; i++)
			alive += z->out[i].state == MW_PROBE_ALIVE || z->out[i].state == MW_PROBE_DEGRADED;
		if (c->env.probe)
			fuzzy_plan(c, z->out, alive);
		else
			col_ctx_plan_tree(c, NULL);
		col_probe_fuzzy_free(c);
		return 0;
	}
	z->q = col_quick_start(c->loop, z->names, NULL, s->nnodes, col_probe_port(),
			       col_probe_budget(c) < COL_FUZZY_BUDGET ? col_probe_budget(c) : COL_FUZZY_BUDGET,
			       col_probe_tries(), z->out, fuzzy_done, c);
	if (!z->q) {
		mw_warn("tree: fuzzy placement: no start-up probe (%s): the average placement", strerror(errno));
		col_probe_fuzzy_free(c);
		col_ctx_plan_tree(c, NULL);
		return 0;
	}
	return 1;
}
