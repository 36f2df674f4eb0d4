/* restd.h - the verdict as the job's comment: through slurmrestd's HTTP API
 * (JWT auth), else "scontrol update" (shared/slurm.h, which runs every Slurm
 * command, also cancels and requeues for the collector). */
#ifndef COL_RESTD_H
#define COL_RESTD_H

#include <stddef.h>

/* From slurmrestd's OpenAPI document (the text of GET URL/openapi), the
 * version of its job API: the highest "/slurm/vX.Y.Z/job/{job_id}" path that
 * takes a POST, as "vX.Y.Z" in ver.  Return 0, or -1 if there is none (not
 * JSON, no such path). */
int col_restd_version(const char *doc, char *ver, size_t len);

/* Read slurmrestd's reply to the comment's POST (its body, as received;
 * NULL or not JSON is no error list): whether it lists errors (a non-empty
 * "errors" array), then said as "slurmrestd: [...]" (at most 200 bytes of
 * the list) in msg.  Return 1 if it does, else 0 (msg untouched). */
int col_restd_reply_errors(const char *body, char *msg, size_t msglen);

/* Post text as the job's comment: through slurmrestd at restd_url (NULL or
 * "" = skip) with JWT auth (env SLURM_JWT, else "scontrol token"), falling
 * back to "scontrol update JobId=JOB Comment=...".  *via gets "slurmrestd" or
 * "scontrol".  Return 0, or -1 with the reason in msg. */
int col_post_comment(const char *restd_url, const char *job, const char *text, char *via, size_t vialen,
		     char *msg, size_t msglen);

/* What a comment posted by "scontrol update" says in msg, after
 * slurmrestd's failure rmsg ("" if it was not tried). */
void col_comment_by_scontrol(const char *rmsg, char *msg, size_t msglen);

#endif
