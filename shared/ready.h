/* ready.h - a helper tells whoever started it that its start-up is done.
 *
 * The SPANK plugin starts the agent and the collector detached, with the
 * write end of a pipe named by $MPIWATCH_READY_FD.  The helper writes "ok"
 * and closes it once it runs (settings read, port bound, folders made); if
 * it exits first, the plugin reads end-of-file and tells the job's output
 * that the job is not watched, and why (spank/mws_launch.h). */
#ifndef MW_READY_H
#define MW_READY_H

/* Say "ok" on $MPIWATCH_READY_FD, close it and unset the variable (so that
 * programs we start do not inherit it).  Without the variable, nothing.
 * Safe to call more than once. */
void mw_ready_notify(void);

#endif
