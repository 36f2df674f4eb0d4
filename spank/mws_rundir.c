/* mws_rundir.c - the job's run folder on a node: claimed, filled. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "mws_rundir.h"

/* Create dir (mode 0700) owned by uid/gid, or check that an existing one is
 * a real directory (not a link) owned by uid. */
static int mkdir_owned(const char *dir, uid_t uid, gid_t gid)
{
	struct stat st;

	if (mkdir(dir, 0700) == 0) {
		if (chown(dir, uid, gid) < 0 && geteuid() == 0) {
			int e = errno;
			rmdir(dir);
			errno = e;
			return -1;
		}
		return 0;
	}
	if (errno != EEXIST)
		return -1;
	if (lstat(dir, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode) || st.st_uid != uid) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

int mws_rundir_claim(const char *dir, uid_t uid, gid_t gid)
{
	return mkdir_owned(dir, uid, gid);
}

int mws_rundir_fill(const char *dir, const struct mw_jobconf *conf, uid_t uid, gid_t gid, int *lockfd,
		    char *err, size_t errlen)
{
	char path[PATH_MAX + 32];

	*lockfd = -1;
	snprintf(path, sizeof(path), "%s/dumps", dir);
	if (mkdir_owned(path, uid, gid) < 0)
		goto fail;
	/* One launcher at a time per job and node (steps may start together). */
	snprintf(path, sizeof(path), "%s/launch.lock", dir);
	*lockfd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (*lockfd < 0 || flock(*lockfd, LOCK_EX) < 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/%s", dir, MW_JOBCONF_FILE);
	if (mw_jobconf_write(conf, path, uid, gid) < 0)
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "%s: %s", path, strerror(errno));
	if (*lockfd >= 0) {
		int e = errno;
		close(*lockfd);
		*lockfd = -1;
		errno = e;
	}
	return -1;
}

int mws_rundir_pidfile(const char *dir, const char *name, pid_t pid, uid_t uid, gid_t gid)
{
	char path[PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/%s.pid", dir, name);
	return mw_pidfile_write(path, pid, uid, gid);
}
