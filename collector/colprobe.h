/* colprobe.h - the collector's probe round of the job's nodes.  Internal
 * to collector/.
 */
#ifndef COL_PROBE_H
#define COL_PROBE_H

#include "colctx.h"

struct mwt_factors;

/* In a tree job: ask the CPs to probe their subtrees (PROBEREQ) on the
 * first call, then wait for their summaries up to the budget and a margin
 * per level.  Return 1 when they are in (or the job runs no tree, or this
 * is the final evaluation), 0 while waiting (the evaluation is scheduled
 * again for then). */
int col_probe_tree_ready(struct collector *c);

/* Our own round of the nodes the CPs did not report on: begun on the first
 * call (through c->env.probe when set, else UDP), stepped by the loop
 * meanwhile, run to its end here at the final evaluation.  Return 1 when
 * the nodes' states are in (c->s.nodes[], the probe events), 0 while it
 * goes on (the evaluation is scheduled again). */
int col_probe_own_ready(struct collector *c);

/* Begin our own probe round now, ahead of the evaluation that will use it
 * (the threshold: the round runs beside the dumps, issue 34); nothing in a
 * tree job (the CPs probe first) or when a round is under way.  Its end
 * does not run the evaluation by itself; col_probe_own_ready takes its
 * results, or begins a fresh round when they are older than
 * COL_PROBE_FRESH_S. */
#define COL_PROBE_FRESH_S 5.0
void col_probe_early(struct collector *c);

/* Free pr's round and tables (pr zeroed). */
void col_probe_free(struct col_own_probe *pr);

/* tree_strategy=fuzzy above the tree threshold: 1, else 0. */
int col_probe_fuzzy_wanted(const struct collector *c);

/* The fuzzy placement's start-up probe of every node (at most 1 s), on
 * c->loop: when it is over, the replies are made placement factors, the
 * tree is planned with them (col_ctx_plan_tree) and then(arg) is called,
 * on the loop.  Nothing to wait for (not wanted, a tree already planned,
 * c->env.probe set: its answer at once, no loop: the average placement, or
 * the round could not start: logged, the average placement): the tree is
 * planned before this returns and then is not called.  Return 1 when the
 * round is under way, else 0. */
int col_probe_fuzzy_start(struct collector *c, void (*then)(void *arg), void *arg);

/* Give up the start-up probe under way (if any; then is not called). */
void col_probe_fuzzy_free(struct collector *c);

#endif
