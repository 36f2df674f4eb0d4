/* stall.h - the one stall rule: is a rank stuck, polling, slow or computing?
 *
 * Both the monitor's watcher thread (which writes a dump) and the node agent
 * (which sends a heartbeat) call mw_stall_rule() on consistent copies of the
 * rank's slot, each with its own clock and its own struct mw_stall, so they
 * judge a rank by the same rule.  Given the timeout T (seconds):
 *
 *   stuck     inside a blocking call (state in_mpi, A != B) whose A value has
 *             not changed for T (the same call for T), seed 002's rule;
 *   polling   test-family calls continue (at least 2 since the last
 *             completion, the last call less than T ago) with requests
 *             pending or a test-family call current, and nothing completed
 *             for T;
 *   slow      stuck or polling by the two rules above, but the watcher saw
 *             the rank's transfer move (slot `motion`, monitor/motion.c) less
 *             than T ago: a slow transfer, not a hang;
 *   computing outside MPI with no MPI call for T (seed 000 cause A);
 *   fine      anything else.
 *
 * The agent keeps its own check for a process that is gone or frozen.
 */
#ifndef MW_STALL_H
#define MW_STALL_H

#include <stdint.h>

#include "mw_slot.h"

enum mw_stall_class {
	MW_STALL_FINE = 0,
	MW_STALL_STUCK = 1,
	MW_STALL_POLLING = 2,
	MW_STALL_SLOW = 3,
	MW_STALL_COMPUTING = 4,
};

/* What the rule remembers of one rank between observations (zero it before
 * the first one). */
struct mw_stall {
	int init;
	uint64_t a, completions, calls, motion, tests_at_completion;
	double t_a, t_completion, t_call, t_motion; /* caller's clock, seconds */
};

/* Observe slot s at time now (seconds, any monotonic clock, the same on
 * every call for one st) with timeout timeout_s > 0, update st and return
 * the rank's class.  Pure: no system call, no allocation. */
enum mw_stall_class mw_stall_rule(struct mw_stall *st, const struct mw_slot *s, double now,
				  double timeout_s);

/* When the rank was last seen leaving MPI (the later of its last call and
 * its last completion, on st's clock): a computing rank has been outside MPI
 * since then. */
double mw_stall_t_outside(const struct mw_stall *st);

/* Whether call is MPI_Init or MPI_Init_thread: the calls never judged by
 * time on their own (they may be long on large jobs).  call NULL: 0. */
int mw_stall_init_call(const char *call);

/* "fine", "stuck", "polling", "slow", "computing" ("?" if out of range). */
const char *mw_stall_name(int cls);

#endif
