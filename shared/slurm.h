/* slurm.h - what mpiwatch asks and tells Slurm: the one module through which
 * the collector, the agent, nodehealthd and the mpiwatch CLI run Slurm's
 * commands.
 *
 * Every command runs without a shell and with a time limit
 * (mw_run_command).  What Slurm says about jobs and nodes is read as data,
 * from "squeue --json" and "sinfo --json" (slurmjson.h), never from
 * scontrol's text.  Changes go through scontrol and scancel.  (The job
 * comment through slurmrestd's HTTP API is the collector's:
 * collector/restd.c, which falls back on mw_slurm_comment.)
 */
#ifndef MW_SLURM_H
#define MW_SLURM_H

#include <stddef.h>

#include "slurmjson.h"

/* Seconds one command may take unless told otherwise. */
#define MW_SLURM_TIMEOUT 30.0

/* Where Slurm's commands are and how long each may take.  Every function
 * takes a pointer to one; NULL means {NULL, MW_SLURM_TIMEOUT}. */
struct mw_slurm {
	/* The path of scontrol; squeue, sinfo and scancel are taken from its
	 * folder (nodehealthd.conf's scontrol, "mpiwatch resume -S").  NULL,
	 * or a name without '/': each command is looked up in $PATH, then
	 * /usr/bin, /usr/local/bin and /bin. */
	const char *scontrol;
	double timeout_s; /* per command; 0 = MW_SLURM_TIMEOUT */
};

/* The path of Slurm's command name ("squeue", "scontrol"...) in buf.
 * Return 0, or -1 (errno ENOENT: not found in $PATH; ENAMETOOLONG). */
int mw_slurm_prog(const struct mw_slurm *s, const char *name, char *buf, size_t len);

/* Run Slurm's command name with args (NULL-terminated, at most 14), stdout
 * and stderr collected in *out (malloc'd, NUL-terminated; out may be NULL).
 * Return its exit status (0-255, 128+signal if killed), or -1 if it could
 * not be run (errno set: ENOENT not found, ETIMEDOUT killed at the time
 * limit; *out is then NULL). */
int mw_slurm_run(const struct mw_slurm *s, const char *name, char *const args[], char **out);

/* The one definition of the commands, their arguments and their error texts,
 * shared by this blocking path (the CLI) and the loop's (uvslurm.c). */

/* "squeue --json --states=all -j JOBID": its arguments after the program
 * into args (5 entries, NULL-terminated; jobid is not copied). */
void mw_slurm_job_args(const char *jobid, char *args[5]);

/* "sinfo --json": its arguments after the program (NULL-terminated). */
extern char *const mw_slurm_nodes_args[2];

/* "scontrol update NodeName=NODE State=STATE [Reason=REASON]": the
 * arguments after the program, built in u (args is NULL-terminated). */
struct mw_slurm_update {
	char node[128], state[64], reason[512];
	char *args[5];
};
void mw_slurm_update_args(struct mw_slurm_update *u, const char *node, const char *state,
			  const char *reason);

/* A failed command into err: "cannot run PROG: strerror(e)" when it did
 * not run (!ran: not found, killed at the time limit), else "NAME failed
 * (status ST): " and the first line of out (NULL: none). */
void mw_slurm_say_failed(const char *name, const char *prog, int ran, int st, int e, const char *out,
			 char *err, size_t errlen);

/* squeue's answer out for job jobid into j, as mw_slurm_job.  Return 0, or
 * -1 with "job JOBID: ..." in err (errno ENOMEM or EINVAL). */
int mw_slurm_job_answer(const char *out, const char *jobid, struct mw_slurm_job *j, char *err,
			size_t errlen);

/* sinfo's answer out into *nodes, as mw_slurm_nodes.  Return the count, or
 * -1 with the reason in err. */
long mw_slurm_nodes_answer(const char *out, struct mw_slurm_node **nodes, char *err, size_t errlen);

/* What Slurm says of job jobid ("squeue --json --states=all -j JOBID") in j
 * (release with mw_slurm_job_free).  Return 0, or -1 with the reason in err
 * (squeue could not be run or failed, or does not know the job: errno
 * EINVAL, ENOMEM, or the runner's). */
int mw_slurm_job(const struct mw_slurm *s, const char *jobid, struct mw_slurm_job *j, char *err,
		 size_t errlen);

/* Is job still active (pending, running, suspended, configuring,
 * completing, requeued...)?  Return 1 if so, 0 if it is over, or Slurm no
 * longer knows a job it showed this process before, -1 if Slurm could not
 * be asked (or never knew the job: another cluster's configuration?). */
int mw_slurm_job_active(const struct mw_slurm *s, const char *job);

/* The answer of mw_slurm_job_active from squeue's exit status st (< 0: it
 * could not be run) and output out (NULL: none) for job, as it returns it;
 * the one rule of both paths (slurm.c, uvslurm.c).  Remembers, for the
 * process, that Slurm has shown the job once. */
int mw_slurm_job_active_answer(int st, const char *out, const char *job);

/* Every node ("sinfo --json"; Slurm 22.05 ignores -n with --json) in a
 * malloc'd array *nodes (free()).  Return the count, or -1 with the reason in
 * err (*nodes NULL). */
long mw_slurm_nodes(const struct mw_slurm *s, struct mw_slurm_node **nodes, char *err, size_t errlen);

/* One node by name, from mw_slurm_nodes, copied into node.  Return 0, or -1
 * with the reason in err (errno ENOENT: Slurm does not know the node). */
int mw_slurm_node(const struct mw_slurm *s, const char *name, struct mw_slurm_node *node, char *err,
		  size_t errlen);

/* Node name among v[0..n-1] (sinfo's answer, n < 0: sinfo failed, err
 * already says why) copied into node: mw_slurm_node's rule, shared with
 * uvslurm.c.  Return 0, or -1 (n >= 0: "node NAME is unknown to Slurm" in
 * err, errno ENOENT). */
int mw_slurm_node_pick(const struct mw_slurm_node *v, long n, const char *name, struct mw_slurm_node *node,
		       char *err, size_t errlen);

/* The rule for a node that is up without nodehealthd (MW_PROBE_NODAEMON):
 * it is dead only if Slurm agrees, i.e. its state (mw_slurm_node's state)
 * has DOWN or NOT_RESPONDING.  Return 1 if so, else 0. */
int mw_slurm_node_down(const struct mw_slurm_node *node);

/* "scontrol update NodeName=NODE State=DRAIN Reason=REASON".  Return 0, or
 * -1 with scontrol's message in err. */
int mw_slurm_drain(const struct mw_slurm *s, const char *node, const char *reason, char *err,
		   size_t errlen);

/* "scontrol update NodeName=NODE State=RESUME".  Return 0, or -1 with
 * scontrol's message in err. */
int mw_slurm_resume(const struct mw_slurm *s, const char *node, char *err, size_t errlen);

/* "scontrol update JobId=JOB Comment=TEXT".  Return 0, or -1 with
 * "scontrol update: " and the reason in msg. */
int mw_slurm_comment(const struct mw_slurm *s, const char *job, const char *text, char *msg,
		     size_t msglen);

/* "scancel JOB".  Return 0 ("job JOB cancelled" in msg), or -1 with the
 * reason in msg. */
int mw_slurm_cancel(const struct mw_slurm *s, const char *job, char *msg, size_t msglen);

/* Requeue job, adding nodes[0..n-1] to its ExcNodeList first (held while
 * the list is set, then released).  Return 0, or -1 with the reason in msg
 * (msg says what was done in both cases). */
int mw_slurm_requeue(const struct mw_slurm *s, const char *job, const char *const *nodes, size_t n,
		     char *msg, size_t msglen);

/* A JWT for slurmrestd from "scontrol token" in tok.  Return 0, or -1 (no
 * token in scontrol's answer, or it failed). */
int mw_slurm_token(const struct mw_slurm *s, char *tok, size_t len);

#endif
