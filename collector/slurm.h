/* slurm.h - what the collector and the agent tell or ask Slurm: is the job
 * still there, the verdict as the job's comment (slurmrestd, else scontrol),
 * cancel, requeue.  All commands run without a shell, with a time limit. */
#ifndef COL_SLURM_H
#define COL_SLURM_H

#include <stddef.h>

#include "slurmjson.h"

/* Find prog in $PATH (or /usr/bin, /usr/local/bin).  Return 0 with the full
 * path in buf, or -1 (errno ENOENT). */
int col_find_prog(const char *prog, char *buf, size_t len);

/* Ask "squeue --json" about JOB.  Return 1 if the job is still active
 * (pending, running, suspended, configuring, completing, requeued...), 0 if
 * it is over, or Slurm no longer knows a job it showed before, -1 if Slurm
 * could not be asked (or never knew the job: another cluster's config?). */
int col_slurm_job_active(const char *job);

/* What Slurm says of job (squeue --json --states=all -j JOB) in j (release
 * with mw_slurm_job_free).  Return 0, or -1 if squeue cannot be run or does
 * not know the job. */
int col_slurm_job_info(const char *job, struct mw_slurm_job *j);

/* From slurmrestd's OpenAPI document (the text of GET URL/openapi), the
 * version of its job API: the highest "/slurm/vX.Y.Z/job/{job_id}" path that
 * takes a POST, as "vX.Y.Z" in ver.  Return 0, or -1 if there is none (not
 * JSON, no such path). */
int col_slurm_restd_version(const char *doc, char *ver, size_t len);

/* Post text as the job's comment: through slurmrestd at restd_url (NULL or
 * "" = skip) with JWT auth (env SLURM_JWT, else "scontrol token"), falling
 * back to "scontrol update JobId=JOB Comment=...".  *via gets "slurmrestd" or
 * "scontrol".  Return 0, or -1 with the reason in msg. */
int col_slurm_post_comment(const char *restd_url, const char *job, const char *text, char *via,
			   size_t vialen, char *msg, size_t msglen);

/* scancel JOB.  Return 0, or -1 with the reason in msg. */
int col_slurm_cancel(const char *job, char *msg, size_t msglen);

/* Add nodes to the job's ExcNodeList, then "scontrol requeue JOB".
 * Return 0, or -1 with the reason in msg. */
int col_slurm_requeue(const char *job, const char *const *nodes, size_t n, char *msg,
		      size_t msglen);

#endif
