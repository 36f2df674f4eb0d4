/* slurmplan.h - Slurm's changes to a job (cancel, comment, requeue) as a
 * plan: the commands one after the other, each chosen from the answers of
 * the ones before.  The one definition of those commands, their order and
 * their messages, walked by slurm.c (blocking: the CLI) and by uvslurm.c
 * (on a libuv loop: the collector). */
#ifndef MW_SLURMPLAN_H
#define MW_SLURMPLAN_H

#include <stddef.h>

enum mw_slurm_plan_kind { MW_PLAN_CANCEL, MW_PLAN_COMMENT, MW_PLAN_REQUEUE };

struct mw_slurm_plan {
	enum mw_slurm_plan_kind kind;
	int step, upd_ok;
	int rv;             /* when over: 0 done, -1 not (msg says why) */
	char job[64], text[1024];
	char **nodes;       /* MW_PLAN_REQUEUE: the nodes to exclude (copied) */
	size_t n;
	char list[2048], a1[80], a2[4200];
	char *args[5];
	char msg[2600];     /* what happened ("job 12 cancelled", or why not) */
};

/* A plan for kind on job: text is the comment (MW_PLAN_COMMENT, else
 * NULL), nodes[0..n-1] those a requeue excludes (added to the job's
 * ExcNodeList).  Return 0, or -1 (errno ENOMEM). */
int mw_slurm_plan_init(struct mw_slurm_plan *p, enum mw_slurm_plan_kind kind, const char *job, const char *text,
		       const char *const *nodes, size_t n);

/* The next command of p: its program's name ("scancel", "scontrol",
 * "squeue"), *args its arguments after the program (NULL-terminated, valid
 * until the next call).  NULL when the plan is over: p->rv, p->msg. */
const char *mw_slurm_plan_next(struct mw_slurm_plan *p, char *const **args);

/* The command mw_slurm_plan_next gave has run: st its exit status as
 * mw_slurm_run returns it (-1: it could not be run, e its errno), out its
 * output (NULL: none; its first line may be cut). */
void mw_slurm_plan_result(struct mw_slurm_plan *p, int st, int e, char *out);

/* Release what p holds. */
void mw_slurm_plan_free(struct mw_slurm_plan *p);

#endif
