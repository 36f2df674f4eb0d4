/* uvslurm.h - Slurm's commands on a libuv loop: the loop's counterpart of
 * slurm.h's mw_slurm_job, mw_slurm_nodes and mw_slurm_drain, with the same
 * commands, the same results and the same error texts, run through
 * uvcmd.h (no command blocks the loop).  The programs are found by
 * mw_slurm_prog and Slurm's answers read by slurmjson.h, as in slurm.c. */
#ifndef MW_UVSLURM_H
#define MW_UVSLURM_H

#include <uv.h>

#include "slurm.h"

struct mw_uvslurm;

/* Called once, on the loop, when the command is over: rc as the blocking
 * twin returns it (0, a node count, or -1), err its error text when rc < 0
 * (valid during the call). */
typedef void (*mw_uvslurm_fn)(void *arg, long rc, const char *err);

/* mw_slurm_job on loop: j (the caller's, kept until done) is filled.
 * Return the call, or NULL when it could not start: then done is not
 * called and err (errlen bytes) says why, in the blocking twin's words. */
struct mw_uvslurm *mw_uvslurm_job(uv_loop_t *loop, const struct mw_slurm *s, const char *jobid,
				  struct mw_slurm_job *j, mw_uvslurm_fn done, void *arg, char *err,
				  size_t errlen);

/* mw_slurm_nodes on loop: *nodes (malloc'd, free()) and rc the count.
 * Return and err as mw_uvslurm_job. */
struct mw_uvslurm *mw_uvslurm_nodes(uv_loop_t *loop, const struct mw_slurm *s, struct mw_slurm_node **nodes,
				    mw_uvslurm_fn done, void *arg, char *err, size_t errlen);

/* mw_slurm_node on loop: node name copied into *node (the caller's, kept
 * until done); rc 0, or -1 with err ("node NAME is unknown to Slurm" when
 * sinfo answered without it).  Return and err as mw_uvslurm_job. */
struct mw_uvslurm *mw_uvslurm_node(uv_loop_t *loop, const struct mw_slurm *s, const char *name,
				   struct mw_slurm_node *node, mw_uvslurm_fn done, void *arg, char *err,
				   size_t errlen);

/* mw_slurm_drain on loop.  Return and err as mw_uvslurm_job. */
struct mw_uvslurm *mw_uvslurm_drain(uv_loop_t *loop, const struct mw_slurm *s, const char *node,
				    const char *reason, mw_uvslurm_fn done, void *arg, char *err,
				    size_t errlen);

/* mw_slurm_job_active on loop: done gets rc as it returns it (1 active, 0
 * over, -1 Slurm could not be asked; err may be empty).  Return and err as
 * mw_uvslurm_job. */
struct mw_uvslurm *mw_uvslurm_job_active(uv_loop_t *loop, const struct mw_slurm *s, const char *jobid,
					 mw_uvslurm_fn done, void *arg, char *err, size_t errlen);

/* Walk plan p (slurmplan.h: a cancel, a comment, a requeue; the caller's,
 * kept until done) on loop, one command after the other: done gets p->rv
 * and p->msg (what happened, also when rc is 0).  Return and err as
 * mw_uvslurm_job. */
struct mw_slurm_plan;
struct mw_uvslurm *mw_uvslurm_plan(uv_loop_t *loop, const struct mw_slurm *s, struct mw_slurm_plan *p,
				   mw_uvslurm_fn done, void *arg, char *err, size_t errlen);

/* Kill the call's command now (a plan stops there): done is still called (rc -1). */
void mw_uvslurm_kill(struct mw_uvslurm *call);

#endif
