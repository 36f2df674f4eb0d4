/* colact.h - the collector's actions on a verdict, and their retry while
 * Slurm does not answer (slurmctld down or restarting).  Internal to
 * collector/.
 */
#ifndef COL_ACT_H
#define COL_ACT_H

#include <stddef.h>

#include "colctx.h"

/* Act on the verdict just reached (c->s.res): drain the dead nodes
 * (unless a partition is suspected or --drain no), post the comment
 * (--post), cancel or requeue (--action).  Each action is recorded in the
 * report; one that fails while Slurm does not answer is queued for a retry
 * (c->retry) with backoff (2 s doubled up to 15 s, 40 tries at most). */
void col_act_verdict(struct collector *c);

/* Do the retries that are due on c's clock (each written to the report);
 * a failed one is queued again while Slurm does not answer. */
void col_act_retry_due(struct collector *c);

/* When the next retry is due on c's clock, or -1 if none is queued. */
double col_act_next(const struct collector *c);

/* At shutdown: one last try of each queued retry, noted when it fails;
 * the queue is then empty.  With a loop (and no env.action), the tries run
 * on it (uv_spawn, the pool) as the others do, and the loop turns until
 * they are over; without, in line. */
void col_act_last_tries(struct collector *c);

/* The real action (struct col_env's action): a drain request to
 * nodehealthd, the comment through scontrol or slurmrestd, scancel,
 * scontrol requeue.  These block until the command answers.  msg (len
 * bytes) says what happened.  Return 1 if done, 0 if not. */
int col_act_real(void *arg, struct collector *c, enum col_act_kind kind, int node, char *msg, size_t len);

#endif
