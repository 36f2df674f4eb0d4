/* mws_rundir.h - the job's run folder on a node (shared/fsutil.h:
 * mw_rundir_path), as root in slurmstepd and the epilog: claimed for the job
 * user, then filled (dumps/, launch.lock, the settings, the helpers' pid
 * files).  The folder belongs to the job user, who may rename or replace it
 * at any time: see doc/security.md, "The run folder". */
#ifndef MWS_RUNDIR_H
#define MWS_RUNDIR_H

#include <stddef.h>
#include <sys/types.h>

#include "jobconf.h"

/* Make dir the job's run folder: a real directory (not a link) owned by
 * uid:gid, mode 0700.  It is created if missing; an existing folder of uid
 * (an earlier step's) is kept; anything else at that name (a file, a link,
 * another user's folder: the name squatted) is swapped in one atomic step
 * for a fresh folder made at a random name beside it, then removed acting
 * as its owner, so a squatter racing to take the name again cannot win.
 * Return 0, or -1 with errno set. */
int mws_rundir_claim(const char *dir, uid_t uid, gid_t gid);

/* Fill a claimed run folder for a step, as uid:gid (file-system identity):
 * the dumps/ folder, the launch lock (a regular file; taken: its fd, held
 * until closed, in *lockfd) and the job's settings file (MW_JOBCONF_FILE).
 * If the user replaced the folder since the claim, what cannot be done as
 * the user fails.  Return 0, or -1 with what failed in err (errno set). */
int mws_rundir_fill(const char *dir, const struct mw_jobconf *conf, uid_t uid, gid_t gid, int *lockfd,
		    char *err, size_t errlen);

/* Write a helper's pid file, dir/NAME.pid, as uid:gid.  Return 0, or -1
 * with errno set. */
int mws_rundir_pidfile(const char *dir, const char *name, pid_t pid, uid_t uid, gid_t gid);

#endif
