/* fsutil.c - small file-system helpers. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"

static int rmtree_at(int dfd, int depth)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;
	int rc = 0;

	if (!d) {
		close(dfd);
		return -1;
	}
	while ((e = readdir(d))) {
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			int sub = depth < 8 ? openat(dirfd(d), e->d_name,
						    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
					    : -1;
			if (sub >= 0 && rmtree_at(sub, depth + 1) < 0)
				rc = -1;
			if (unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) < 0)
				rc = -1;
		} else if (unlinkat(dirfd(d), e->d_name, 0) < 0) {
			rc = -1;
		}
	}
	closedir(d);
	return rc;
}

int mw_rmtree(const char *dir, uid_t owner)
{
	struct stat st;
	int fd;

	if (lstat(dir, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode) || (owner != (uid_t)-1 && st.st_uid != owner)) {
		errno = EPERM;
		return -1;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	rmtree_at(fd, 0);
	return rmdir(dir);
}

int mw_write_atomic(const char *path, const void *data, size_t len, mode_t mode, uid_t owner,
		    gid_t group)
{
	char tmp[4200];
	int fd, n, e;

	n = snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return -1;
	if (write(fd, data, len) != (ssize_t)len ||
	    (owner != (uid_t)-1 && geteuid() == 0 && fchown(fd, owner, group) < 0))
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) < 0)
		goto fail;
	return 0;
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	errno = e;
	return -1;
}

int mw_pidfile_write(const char *path, pid_t pid, uid_t owner, gid_t group)
{
	char buf[32];
	int len = snprintf(buf, sizeof(buf), "%d\n", (int)pid);
	return mw_write_atomic(path, buf, (size_t)len, 0644, owner, group);
}
