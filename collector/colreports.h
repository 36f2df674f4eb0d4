/* colreports.h - the collector's reports and the files it reads into them.
 * Internal to collector/.
 */
#ifndef COL_REPORTS_H
#define COL_REPORTS_H

#include "colctx.h"

/* Keep a report left in dir by an earlier collector of the same job (the
 * job was requeued) as report-runN.{json,txt}. */
void col_reports_keep_old(const char *dir);

/* Write report.json, report.txt, report.html and collector-stats.json
 * (col_report_write), reading the agents' link errors first at most every
 * 5 s (always when stopping); then remove the plugin's pending mark once
 * the report tells what happened.  A write error is logged (rate-limited).
 * With a loop the files are made here and written on libuv's pool, one
 * write at a time (asked again meanwhile: written again once it is over,
 * as the state is then); else, or after col_reports_inline, here. */
void col_reports_write(struct collector *c);

/* From now on write in line (the end of the run), once the write under way
 * on the pool is over. */
void col_reports_inline(struct collector *c);

/* Remove the plugin's pending mark (OUTDIR/MW_PENDING_FILE), if any. */
void col_reports_pending_clear(const struct collector *c);

/* The agents' link errors (OUTDIR/logs/link-error-NODE.txt) into the
 * state's link errors. */
void col_reports_read_link_errors(struct collector *c);

/* OUTDIR/mpi-errors.txt and crash-stacks.txt ("mpiwatch run") into the
 * state, when they exist. */
void col_reports_read_mpi_errors(struct collector *c);

/* Under Slurm (job_check_s > 0, no OUTDIR/mpi-errors.txt), when a rank
 * ended without a stack: the batch job's output file (asked of Slurm once)
 * scanned for the MPI library's crash reports and error lines; told in the
 * timeline.  Blocks while Slurm is asked and the file read, unless
 * col_reports_job_output_ready said 1 just before on the loop (then what
 * it read is applied). */
void col_reports_read_job_output(struct collector *c);

/* Before an evaluation on the loop: whether col_reports_read_job_output
 * may run now without blocking.  1 if so (no loop, the final evaluation,
 * nothing to read, or read); 0 while squeue (uvslurm.h) or the file's read
 * (the loop's pool) is under way: the evaluation is scheduled again when
 * it is over (col_eval_schedule). */
int col_reports_job_output_ready(struct collector *c);

/* The deadlock analysis (analyze/) of the dumps received so far, from
 * memory, into s->analysis and s->dl (and OUTDIR/deadlock.txt).  Nothing
 * without dumps or before a classification. */
void col_reports_analyse_dumps(struct collector *c);

/* --profile DIR at the end of the job: the imbalance analysis of DIR's
 * profiles (or of each step folder's) beside the report, told in the
 * timeline. */
void col_reports_imbalance(struct collector *c);

#endif
