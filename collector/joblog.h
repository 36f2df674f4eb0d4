/* joblog.h - where a crashed rank died, under Slurm: the MPI library's own
 * crash report read from the batch job's output file (doc/collector.md,
 * "Where a crashed rank died").  No signal handler of ours: Open MPI and
 * UCX (MPICH) print the dying rank's frames themselves, into the job's
 * stderr; the collector (the job's user) reads that file back, finds the
 * rank by its pid and host, and symbolises the frames with libdw
 * (analyze/dl_crash.h).
 */
#ifndef COL_JOBLOG_H
#define COL_JOBLOG_H

#include <stddef.h>

#include "colstate.h"
#include "slurmjson.h"

/* The tail of the output file read at most (a crash report is near its end). */
#define COL_JOBLOG_TAIL (1024 * 1024)

/* The file where the ranks' stderr of batch job jobid goes: Slurm's
 * standard_error, else standard_output, else "slurm-JOBID.out"; a relative
 * path taken from the job's working directory; "%j", "%J", "%A" (the job),
 * "%u" (its user) and "%%" expanded.  Return 0 with the path in buf, or -1
 * if there is none to read: not a batch job (srun's output goes to its
 * terminal), another pattern, or no room. */
int col_joblog_path(const struct mw_slurm_job *j, const char *jobid, char *buf, size_t len);

/* Read the last COL_JOBLOG_TAIL bytes of path and add to s->crash_stacks
 * ("RANK<TAB>FRAME..." lines) the stack of each crash report in it whose
 * process is a rank of s with no stack yet: same pid, and same host (or a
 * host name that starts with the node's name and a dot) when the report
 * names one; and to s->mpi_errors ("RANK<TAB>LINE" lines) the MPI
 * library's own error line for each rank of s it ended that has none yet
 * (dl_mpierr_parse: the line names the rank).  Return the number of stacks
 * added, with the number of error lines added in *nerr, or -1 if path
 * cannot be read (errno set). */
int col_joblog_scan(struct col_state *s, const char *path, int *nerr);

/* col_joblog_scan in two halves: the read (touches nothing of ours: a
 * thread of the loop's pool may run it) gives the last COL_JOBLOG_TAIL
 * bytes of path (malloc'd, NUL-terminated), or NULL (errno set); the
 * apply (on the loop) adds what text (changed in place) tells to s, and
 * returns as col_joblog_scan (-1: no memory). */
char *col_joblog_read(const char *path);
int col_joblog_apply(struct col_state *s, char *text, int *nerr);

#endif
