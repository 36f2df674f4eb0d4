/* colnodaemon.h - the probe round's question to Slurm about the nodes that
 * answered without nodehealthd (colprobe.c), asked on the event loop.
 * Internal to collector/. */
#ifndef COL_NODAEMON_H
#define COL_NODAEMON_H

#include <stddef.h>

#include "probe.h"

struct collector;
struct col_own_probe;

/* Whether Slurm's answer about the round's nodes up without nodehealthd is
 * in: asked on the first call, when such a node is among c->pr's results
 * (sinfo through uvslurm.h on c->loop, or blocking without a loop); the
 * answer schedules the evaluation.  At the last evaluation (final_eval)
 * the loop runs here until it is in.  Return 1 (in, or not needed), or 0
 * while Slurm is asked (the loop goes on meanwhile). */
int col_nodaemon_ready(struct collector *c);

/* The rule on out[0..n) (names[i] each node's name): a node up without
 * nodehealthd is dead only when Slurm says it is down
 * (mw_slurm_node_down, nodehealthd's drain check's rule too).  Slurm's
 * answer is the one col_nodaemon_ready waited for; without it (Slurm
 * could not be asked) nothing changes and the reason is logged. */
void col_nodaemon_apply(struct collector *c, struct mw_probe_result *out, size_t n, const char **names);

/* Forget the question (its command killed if still running: its end then
 * frees what is left).  Safe to call when nothing was asked. */
void col_nodaemon_free(struct col_own_probe *pr);

#endif
