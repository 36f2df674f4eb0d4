/* drainreason.h - the Slurm reason of a node mpiwatch drained: the one
 * definition of its format, written by nodehealthd's drain (nhd_drainop.c)
 * and read back by whatever must tell mpiwatch's drains from others'
 * ("mpiwatch resume", "mpiwatch status --drained", the drain op's own
 * checks).
 *
 *   mpiwatch: job JOB: SUMMARY
 *
 * JOB is a job id as the drain request takes it (mw_drainreq_valid_job);
 * SUMMARY the request's evidence text.  A reason that does not start with
 * MW_DRAIN_REASON_PREFIX was written by someone else (an admin, another
 * tool) and is never ours, whatever follows.
 *
 * Library code: never prints, never exits. */
#ifndef MW_DRAINREASON_H
#define MW_DRAINREASON_H

#include <stddef.h>

#include "drainreq.h"

/* The reason for a drain of job's node with summary into buf (truncated to
 * len - 1 bytes, as Slurm keeps what it is given).  Return the length the
 * whole reason has (snprintf's), or -1 if buf is too small for any. */
int mw_drain_reason_format(char *buf, size_t len, const char *job, const char *summary);

/* Return 1 if reason (NULL: none) was written by mpiwatch (it starts with
 * MW_DRAIN_REASON_PREFIX), else 0. */
int mw_drain_reason_ours(const char *reason);

/* A reason of ours read back: the job id into job (joblen bytes) and a
 * pointer to the summary inside reason into *summary.  Return 0; or -1 if
 * the reason is not ours (errno ENOENT), or ours but not in the format
 * above, e.g. cut short or edited (errno EINVAL: job is then "" and
 * *summary the text after the prefix, blanks skipped). */
int mw_drain_reason_parse(const char *reason, char *job, size_t joblen, const char **summary);

#endif
