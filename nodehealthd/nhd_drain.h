/* nhd_drain.h - confirmed drains: every check a drain request must pass. */
#ifndef NHD_DRAIN_H
#define NHD_DRAIN_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>
#include <uv.h>

#include "drainreq.h"
#include "nhd_conf.h"
#include "slurm.h"

/* Seconds each Slurm command may take (squeue, sinfo, scontrol update). */
#define NHD_SLURM_TIMEOUT 20.0

#define NHD_STORM_MAX 1024

/* Times (monotonic) of the drains this daemon made. */
struct nhd_storm {
	double t[NHD_STORM_MAX];
	size_t n;
};

/* Drop entries older than window; return how many remain. */
size_t nhd_storm_recent(struct nhd_storm *s, double now, double window);
void nhd_storm_add(struct nhd_storm *s, double now);

/* The storm guard: may one more node be drained, given local_recent drains
 * by this daemon in the window, cluster_drained nodes drained now with an
 * mpiwatch reason and cluster_total nodes?  The fraction limit allows at
 * least one node.  Return 1 if allowed, else 0 with the reason in why. */
int nhd_storm_allow(const struct nhd_conf *c, size_t local_recent, size_t cluster_drained,
		    size_t cluster_total, char *why, size_t whylen);

/* Is job j one whose nodes may be drained now: running (RUNNING, COMPLETING,
 * SUSPENDED, CONFIGURING) or ended (FAILED, NODE_FAIL, TIMEOUT, CANCELLED,
 * COMPLETED, OUT_OF_MEMORY, DEADLINE, BOOT_FAIL) no more than grace seconds
 * before now?  Return 1, or 0 with the reason in why. */
int nhd_job_eligible(const struct mw_slurm_job *j, time_t now, long grace, char *why, size_t whylen);

/* Does nodelist (a Slurm hostlist) contain node?  Return 1, 0, or -1 if the
 * list cannot be parsed. */
int nhd_nodelist_has(const char *nodelist, const char *node);

/* Does a Slurm reason carry our prefix?  (shared/drainreason.h's rule) */
int nhd_reason_ours(const char *reason);

struct nhd_drain_ctx {
	const struct nhd_conf *conf;
	const char *self;        /* this node's name */
	struct nhd_storm *storm;
};

/* Handle one drain request from uid: check job ownership, membership, the
 * node's Slurm reason, our own re-probes, the partition and storm guards,
 * then drain.  Return 0 if the node is drained (msg says what was done, and
 * *verdict gets the verdict JSON for the hooks, malloc'd, or NULL when it was
 * already drained), or -1 if refused (the reason in msg).  Blocking: the
 * procedure of nhd_drain_start run on a loop of its own (tests). */
int nhd_drain_handle(struct nhd_drain_ctx *ctx, uid_t uid, const struct mw_drainreq *req, char *msg,
		     size_t msglen, char **verdict);

/* The drain procedure on a loop (nhd_drainop.c): every Slurm command
 * through uvslurm.h, the re-probes through uvprobe.h (a privileged source
 * port), nothing blocks the loop. */
struct nhd_drain_op;

/* The procedure's end: rv and msg as nhd_drain_handle's (msg valid during
 * the call), verdict malloc'd (the callee's) or NULL. */
typedef void (*nhd_drain_done_fn)(void *arg, int rv, const char *msg, char *verdict);

/* Start handling req from uid on loop; ctx (with the configuration it
 * points to) and req stay the caller's and must live until done.  done is
 * called once, on the loop, never from here.  Return the operation, or NULL
 * (out of memory; done not called). */
struct nhd_drain_op *nhd_drain_start(uv_loop_t *loop, struct nhd_drain_ctx *ctx, uid_t uid,
				     const struct mw_drainreq *req, nhd_drain_done_fn done, void *arg);

/* Stop op now (the daemon stops): its command is killed, its probe round
 * ended; done is called (refused: "nodehealthd is stopping"), possibly
 * before this returns. */
void nhd_drain_cancel(struct nhd_drain_op *op);

/* The whole PATH a hook gets (its environment is this and LC_ALL=C). */
#define NHD_HOOK_PATH "PATH=/usr/sbin:/usr/bin:/sbin:/bin"

struct nhd_hooks;

/* Run every configured hook of c (kept by the caller until done), one after
 * the other on loop (uvcmd.h), with verdict on stdin (data only), each
 * bounded by hook_timeout, with a clean environment (NHD_HOOK_PATH and
 * LC_ALL=C, nothing inherited); log their exit status and output.  done
 * (may be NULL) is called once when the last has ended, on the loop, or
 * before this returns when none could start (no hook, out of memory).
 * Return the run (for nhd_hooks_cancel, valid until done), or NULL when it
 * is already over. */
struct nhd_hooks *nhd_hooks_start(uv_loop_t *loop, const struct nhd_conf *c, const char *verdict,
				  void (*done)(void *arg), void *arg);

/* Kill the running hook and run no more; done is still called. */
void nhd_hooks_cancel(struct nhd_hooks *h);

#endif
