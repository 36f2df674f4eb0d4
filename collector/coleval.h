/* coleval.h - the collector's evaluation: the decisions, as a state
 * machine driven by the times it asks for on the collector's clock
 * (struct col_env's now: tests set it).  Internal to collector/.
 */
#ifndef COL_EVAL_H
#define COL_EVAL_H

#include "colctx.h"

/* The number of suspicious ranks (stuck in MPI, exited, vanished). */
long col_eval_suspicious(const struct col_state *s);

/* Ask for an evaluation delay seconds from now on c's clock (the earliest
 * asked wins); nothing once decided. */
void col_eval_schedule(struct collector *c, double delay);

/* A heartbeat of node's agent (or out of a CP's aggregate): the rank's
 * state, the timeline's notes, the threshold (an evaluation scheduled
 * after the settle time, or the timeout when only exits are seen; the
 * dumps and auxiliary processes asked for), a hang that moved on looked at
 * again.  After a verdict: folded in or only noted. */
void col_eval_beat(struct collector *c, int node, const struct mw_hb_beat *b);

/* A rank's dump (m->u.dump.json, taken): kept (and written under
 * OUTDIR/dumps); analysed again after a software verdict, or a suspected
 * hang evaluated again soon. */
void col_eval_dump(struct collector *c, struct mw_hb_msg *m);

/* A rank announced by node's agent (rank of size).  Return 0, or -1 (out of
 * range, no memory; logged). */
int col_eval_rank_info(struct collector *c, int node, int rank, int size);

/* node's agent is lost without a goodbye (its link, or its CP says so), why
 * as the timeline says it: the node is a suspect, evaluated (probed) in
 * 0.5 s.  Nothing of it while stopping. */
void col_eval_agent_lost(struct collector *c, int node, const char *why);

/* Evaluate now: probe (may return to wait for the round), classify, then
 * decide or wait (scheduling itself again) or note; a verdict is written
 * and acted on. */
void col_eval_run(struct collector *c);

/* Do what is due on c's clock: the evaluation, the actions' retries. */
void col_eval_tick(struct collector *c);

/* When something is next due on c's clock (col_eval_tick), or -1 if
 * nothing is. */
double col_eval_next(const struct collector *c);

/* The evaluation at shutdown: with unevaluated suspicious heartbeats,
 * evaluate now without waiting (probe budget at most 1.5 s, action report
 * only); else a job that only computed gets its classification. */
void col_eval_final(struct collector *c);

#endif
