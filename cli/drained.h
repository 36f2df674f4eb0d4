/* drained.h - "mpiwatch status --drained": the nodes mpiwatch drained, why
 * and since when, from what "sinfo --json" says (shared/slurmjson.h) and
 * the one format of mpiwatch's drain reason (shared/drainreason.h).  A node
 * is listed if Slurm shows it draining or drained (the DRAIN flag) with a
 * reason of ours; a reason written by anyone else is not ours, whatever it
 * says after its own first word. */
#ifndef MW_DRAINED_H
#define MW_DRAINED_H

#include <stdio.h>
#include <time.h>

#include <json-c/json.h>

#include "slurmjson.h"

struct mw_drained {
	char node[64];
	char state[64];    /* Slurm's, e.g. IDLE+DRAIN, DOWN+DRAIN+NOT_RESPONDING */
	char job[32];      /* the job the drain was asked for; "" if the reason is not in our format */
	char summary[256]; /* the evidence text of the reason */
	char reason[256];  /* the whole reason */
	char set_by[64];   /* who set the reason, as Slurm says ("" if unknown) */
	time_t since;      /* when the reason was set (0 if unknown) */
};

/* The nodes among v[0..n-1] that mpiwatch drained into *out (malloc'd,
 * free(); NULL when there are none), in v's order.  Return their count, or
 * -1 (out of memory; *out NULL). */
long mw_drained_pick(const struct mw_slurm_node *v, long n, struct mw_drained **out);

/* {"drained": [{"node", "state", "since" (seconds since the epoch, or null),
 * "since_utc" (ISO 8601, or null), "job" (or null), "summary", "reason",
 * "set_by" (or null)}...]} for d[0..n-1].
 * Return a new object (json_object_put), or NULL (out of memory). */
struct json_object *mw_drained_json(const struct mw_drained *d, long n);

/* The list as text to out: a header and one line per node (NODE STATE SINCE
 * JOB REASON, SINCE in local time), or "no node is drained by mpiwatch". */
void mw_drained_print(const struct mw_drained *d, long n, FILE *out);

#endif
