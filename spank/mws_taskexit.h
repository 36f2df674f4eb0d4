/* mws_taskexit.h - record a task's exit status in its monitor slot, so the
 * node agent can tell "exited with status 3" or "killed by SIGSEGV" from a
 * hang (the monitor itself takes no signal and cannot see its own death). */
#ifndef MWS_TASKEXIT_H
#define MWS_TASKEXIT_H

#include <slurm/spank.h>

/* In task_exit (remote, root): find the slot of the task that ended, in
 * rundir, and record its wait status.  When the task was watched (it has
 * its slot) and ended badly (a signal, or a status other than 0), make
 * outdir/MW_PENDING_FILE as the job's user (its file-system identity:
 * the user's own permissions, no symbolic link followed), so that srun
 * waits for the collector's verdict before it ends.  Always return 0: a
 * task without a slot (not an MPI program) is normal. */
int mws_task_exit_record(spank_t sp, const char *rundir, const char *outdir);

#endif
