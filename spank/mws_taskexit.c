/* mws_taskexit.c - record a task's exit status in its monitor slot. */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsutil.h"
#include "jobconf.h"
#include "mw_slot.h"
#include "mws_taskexit.h"

/* outdir/MW_PENDING_FILE made (or its time renewed) with the file-system
 * identity of uid:gid (this thread only: slurmstepd is threaded). */
static void mark_pending(const char *outdir, uid_t uid, gid_t gid)
{
	char path[PATH_MAX + 32];
	struct mw_fsid old;
	int fd;
	if (!outdir[0] || snprintf(path, sizeof(path), "%s/%s", outdir, MW_PENDING_FILE) >= (int)sizeof(path))
		return;
	mw_fsid_enter(&old, uid, gid);
	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	if (fd >= 0) {
		futimens(fd, NULL);
		close(fd);
	}
	mw_fsid_leave(&old); /* whatever slurmstepd's thread had */
}

int mws_task_exit_record(spank_t sp, const char *rundir, const char *outdir)
{
	uint32_t rank = 0;
	int status = 0, watched = 0;
	pid_t pid = 0;
	uid_t uid;
	gid_t gid;
	char path[PATH_MAX + 32];
	struct mw_slot *slot;
	struct mw_fsid old;

	if (spank_get_item(sp, S_TASK_GLOBAL_ID, &rank) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_TASK_EXIT_STATUS, &status) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS)
		return 0;
	/* The slot is the user's file in the user's run folder: opened as
	 * the user (shared/fsutil.h, mw_fsid_enter). */
	snprintf(path, sizeof(path), "%s/rank-%u", rundir, rank);
	mw_fsid_enter(&old, uid, gid);
	slot = mw_slot_map(path, 1);
	mw_fsid_leave(&old);
	if (!slot)
		return 0;
	/* The world rank is the task id under srun; the pid proves it.
	 * The mark first: the agent tells the collector once the exit is
	 * recorded, and the collector's verdict removes the mark. */
	watched = slot->pid == (int32_t)pid;
	if (watched && (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0)))
		mark_pending(outdir, uid, gid);
	if (watched)
		mw_slot_set_exit(slot, status);
	mw_slot_unmap(slot);
	return 0;
}
