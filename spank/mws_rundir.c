/* mws_rundir.c - the job's run folder on a node: claimed, filled.
 *
 * The folder's name is predictable (mpiwatch.UID.JOB.HOST in /dev/shm, a
 * sticky folder every user may write), so another user may have taken it
 * first; and it belongs to the job user, who may rename it and put a link
 * in its place at any time.  So: root checks the folder through a file
 * descriptor opened without following links, swaps a fresh folder in for
 * what another user put at its name (one atomic rename, then that thing is
 * removed acting as its owner), and does everything inside it with the
 * job user's file-system identity (mw_fsid_enter): a link the user planted
 * leads root nowhere the user could not go. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"
#include "mws_rundir.h"

/* How often the claim looks again after putting a fresh folder in place
 * (each exchange is atomic: another user cannot take the name back from a
 * folder of the job user's, so a second look finds it). */
#define MWS_CLAIM_TRIES 4

/* Remove what another user left at path (moved there from the run folder's
 * name), as its owner: a file or link is unlinked, a folder removed with its
 * contents.  Whatever cannot be removed stays at that random name, where it
 * is in nobody's way. */
static void evict(const char *path)
{
	struct stat st;
	struct mw_fsid old;

	if (lstat(path, &st) < 0)
		return;
	mw_fsid_enter(&old, st.st_uid, st.st_gid);
	if (S_ISDIR(st.st_mode))
		(void)mw_rmtree(path, st.st_uid);
	else
		(void)unlink(path);
	mw_fsid_leave(&old);
}

/* Put a fresh folder of uid:gid, mode 0700, at dir, whatever is there: made
 * at a random name beside it (mkdtemp: root's, nobody else can rename or
 * remove it in the sticky folder), then swapped with what is at dir in one
 * step (renameat2 RENAME_EXCHANGE), or moved there if dir is free.  Another
 * user racing to re-create the name has no moment in which to do it.  What
 * was at dir is then removed as its owner.  Return 0, or -1 with errno set. */
static int replace_with_fresh(const char *dir, uid_t uid, gid_t gid)
{
	char tmp[PATH_MAX];
	int rc, e;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", dir) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (!mkdtemp(tmp))
		return -1;
	if (chown(tmp, uid, gid) < 0 || chmod(tmp, 0700) < 0)
		goto fail;
	rc = renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE);
	if (rc < 0 && errno == ENOENT)
		rc = renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_NOREPLACE);
	if (rc < 0)
		goto fail;
	evict(tmp); /* what was at dir, if anything */
	return 0;
fail:
	e = errno;
	(void)rmdir(tmp);
	errno = e;
	return -1;
}

int mws_rundir_claim(const char *dir, uid_t uid, gid_t gid)
{
	for (int attempt = 0; attempt < MWS_CLAIM_TRIES; attempt++) {
		struct stat st;
		int fd, ok = 0;

		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			return -1;
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) &&
		    (st.st_uid == uid || st.st_uid == geteuid())) {
			/* The job user's own (an earlier step), or ours: made by
			 * root, here or by a step starting beside this one (no one
			 * else makes a folder of root, or renames one in a sticky
			 * folder). */
			ok = (st.st_uid == uid || fchown(fd, uid, gid) == 0) &&
			     ((st.st_mode & 07777) == 0700 || fchmod(fd, 0700) == 0);
			close(fd);
			return ok ? 0 : -1;
		}
		if (fd >= 0)
			close(fd);
		/* A file, a link, someone else's folder: not the job's. */
		if (replace_with_fresh(dir, uid, gid) < 0)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

int mws_rundir_fill(const char *dir, const struct mw_jobconf *conf, uid_t uid, gid_t gid, int *lockfd,
		    char *err, size_t errlen)
{
	char path[PATH_MAX + 32];
	struct mw_fsid old;
	struct stat st;
	int e;

	*lockfd = -1;
	mw_fsid_enter(&old, uid, gid);
	snprintf(path, sizeof(path), "%s/dumps", dir);
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		goto fail;
	if (lstat(path, &st) < 0)
		goto fail;
	if (!S_ISDIR(st.st_mode) || st.st_uid != uid) {
		errno = EPERM;
		goto fail;
	}
	/* One launcher at a time per job and node (steps may start together). */
	snprintf(path, sizeof(path), "%s/launch.lock", dir);
	*lockfd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	if (*lockfd < 0 || fstat(*lockfd, &st) < 0)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		errno = EPERM;
		goto fail;
	}
	if (flock(*lockfd, LOCK_EX) < 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/%s", dir, MW_JOBCONF_FILE);
	if (mw_jobconf_write(conf, path, uid, gid) < 0)
		goto fail;
	mw_fsid_leave(&old);
	return 0;
fail:
	e = errno;
	mw_fsid_leave(&old);
	snprintf(err, errlen, "%s: %s", path, strerror(e));
	if (*lockfd >= 0) {
		close(*lockfd);
		*lockfd = -1;
	}
	errno = e;
	return -1;
}

int mws_rundir_pidfile(const char *dir, const char *name, pid_t pid, uid_t uid, gid_t gid)
{
	char path[PATH_MAX + 32];
	struct mw_fsid old;
	int rc, e;

	snprintf(path, sizeof(path), "%s/%s.pid", dir, name);
	mw_fsid_enter(&old, uid, gid);
	rc = mw_pidfile_write(path, pid, uid, gid);
	e = errno;
	mw_fsid_leave(&old);
	errno = e;
	return rc;
}
