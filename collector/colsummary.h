/* colsummary.h - the collector's last word to its node's nodehealthd: one
 * summary (the job and its verdict) through the drain socket (op
 * "summary", shared/drainreq.h), so that the node's metrics count the
 * verdicts of the jobs watched from it. */
#ifndef COL_SUMMARY_H
#define COL_SUMMARY_H

#include <stddef.h>

#include <uv.h>

#include "verdict.h"

/* The request for job with verdict v (JSON text, one line, malloc'd), or
 * NULL (errno EINVAL: job is not a Slurm job id; ENOMEM). */
char *col_summary_request(const char *job, enum col_verdict v);

/* Send it to the nodehealthd at sockpath ("" or NULL: the default socket),
 * waiting at most timeout_s (asking again while the daemon is busy).
 * Logs what came of it (not being heard is no error of the job's).
 * Return 0 if the daemon counted it (or had already), else -1. */
int col_summary_send(const char *sockpath, const char *job, enum col_verdict v, double timeout_s);

/* col_summary_send on loop's pool (the socket's wait off the loop's
 * thread), the loop run until it is over (at most timeout_s and a pool
 * worker's start).  With a NULL loop, or no worker, in line.  The same
 * return. */
int col_summary_send_on(uv_loop_t *loop, const char *sockpath, const char *job, enum col_verdict v,
			double timeout_s);

#endif
