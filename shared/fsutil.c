/* fsutil.c - small file-system helpers. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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

int mw_mkdir_p(const char *dir, mode_t mode)
{
	char tmp[PATH_MAX];
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof(tmp)) {
		errno = n ? ENAMETOOLONG : ENOENT;
		return -1;
	}
	memcpy(tmp, dir, n + 1);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, mode) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(tmp, mode) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

int mw_rundir_path(char *buf, size_t len, const char *base, unsigned uid, const char *job,
		   const char *host)
{
	int n;

	if (!*job || !*host || strchr(job, '/') || strchr(host, '/')) {
		errno = EINVAL;
		return -1;
	}
	n = snprintf(buf, len, "%s/mpiwatch.%u.%s.%s", base, uid, job, host);
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* The temporary file beside path: "DIR/.NAME.tmp.PID".  Return 0 or -1. */
static int tmp_name(char *tmp, size_t len, const char *path)
{
	const char *slash = strrchr(path, '/');
	int n;

	if (slash)
		n = snprintf(tmp, len, "%.*s/.%s.tmp.%d", (int)(slash - path), path, slash + 1, (int)getpid());
	else
		n = snprintf(tmp, len, ".%s.tmp.%d", path, (int)getpid());
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Create tmp for writing, never through a link (a stale one is replaced). */
static int tmp_create(const char *tmp, mode_t mode)
{
	unlink(tmp);
	return open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
}

int mw_write_atomic(const char *path, const void *data, size_t len, mode_t mode, uid_t owner,
		    gid_t group)
{
	char tmp[4200];
	const char *p = data;
	size_t off = 0;
	int fd, e;

	if (tmp_name(tmp, sizeof(tmp), path) < 0)
		return -1;
	fd = tmp_create(tmp, mode);
	if (fd < 0)
		return -1;
	while (off < len) {
		ssize_t w = write(fd, p + off, len - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		off += (size_t)w;
	}
	if (owner != (uid_t)-1 && geteuid() == 0 && fchown(fd, owner, group) < 0)
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

int mw_atomic_open(struct mw_atomic_file *a, const char *path, mode_t mode)
{
	int n = snprintf(a->path, sizeof(a->path), "%s", path), fd, e;

	a->f = NULL;
	if (n < 0 || (size_t)n >= sizeof(a->path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (tmp_name(a->tmp, sizeof(a->tmp), path) < 0)
		return -1;
	fd = tmp_create(a->tmp, mode);
	if (fd < 0)
		return -1;
	a->f = fdopen(fd, "w");
	if (!a->f) {
		e = errno;
		close(fd);
		unlink(a->tmp);
		errno = e;
		return -1;
	}
	return 0;
}

int mw_atomic_close(struct mw_atomic_file *a, int ok)
{
	int e = errno, bad = !ok;

	if (!a->f)
		return -1;
	if (!bad && ferror(a->f)) {
		bad = 1;
		e = EIO;
	}
	if (fclose(a->f) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	a->f = NULL;
	if (!bad && rename(a->tmp, a->path) == 0)
		return 0;
	if (!bad)
		e = errno;
	unlink(a->tmp);
	errno = e ? e : EIO;
	return -1;
}

int mw_pidfile_write(const char *path, pid_t pid, uid_t owner, gid_t group)
{
	char buf[32];
	int len = snprintf(buf, sizeof(buf), "%d\n", (int)pid);

	return mw_write_atomic(path, buf, (size_t)len, 0644, owner, group);
}

/* This thread's supplementary groups (glibc's setgroups would set every
 * thread's: slurmstepd's other threads keep theirs). */
static int thread_setgroups(size_t n, const gid_t *g)
{
	return (int)syscall(SYS_setgroups, n, g);
}

void mw_fsid_enter(struct mw_fsid *old, uid_t uid, gid_t gid)
{
	int n = getgroups(0, NULL);

	old->ngroups = -1;
	old->groups = NULL;
	if (n >= 0 && (old->groups = malloc(((size_t)n + 1) * sizeof(gid_t))) != NULL &&
	    getgroups(n, old->groups) != n) {
		free(old->groups);
		old->groups = NULL;
	}
	/* Only a caller allowed to (root) changes them; a user's are its own. */
	if (thread_setgroups(1, &gid) == 0)
		old->ngroups = old->groups ? n : 0;
	/* Both calls return the previous identity.  The group first: it is
	 * set while we still have every right. */
	old->gid = (gid_t)setfsgid(gid);
	old->uid = (uid_t)setfsuid(uid);
}

void mw_fsid_leave(const struct mw_fsid *old)
{
	setfsuid(old->uid);
	setfsgid(old->gid);
	if (old->ngroups >= 0)
		thread_setgroups((size_t)old->ngroups, old->groups);
	free(old->groups);
}

int mw_open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), e;
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		e = errno;
	else if (!S_ISREG(st.st_mode))
		e = EINVAL;
	else
		return fd;
	close(fd);
	errno = e;
	return -1;
}

int mw_read_regular(const char *path, size_t max, char **buf, size_t *len)
{
	int fd = mw_open_regular(path), e;
	struct stat st;
	char *b = NULL;
	size_t got = 0, cap;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		goto fail;
	if ((unsigned long long)st.st_size > max) {
		errno = EFBIG;
		goto fail;
	}
	/* The size may change while we read: never more than max. */
	cap = (size_t)st.st_size + 1;
	if (!(b = malloc(cap + 1)))
		goto fail;
	for (;;) {
		ssize_t n;
		if (got == cap) {
			char *nb;
			if (got > max) {
				errno = EFBIG;
				goto fail;
			}
			cap = cap > max / 2 ? max + 1 : cap * 2 + 4096;
			if (cap > max + 1)
				cap = max + 1;
			if (!(nb = realloc(b, cap + 1)))
				goto fail;
			b = nb;
		}
		n = read(fd, b + got, cap - got);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		got += (size_t)n;
	}
	if (got > max) {
		errno = EFBIG;
		goto fail;
	}
	close(fd);
	b[got] = 0;
	*buf = b;
	*len = got;
	return 0;
fail:
	e = errno;
	free(b);
	close(fd);
	errno = e;
	return -1;
}

const char *mw_read_regular_why(int e)
{
	switch (e) {
	case ELOOP:
		return "a symbolic link (not followed)";
	case EINVAL:
		return "not a regular file";
	case EFBIG:
		return "too large";
	default:
		return strerror(e);
	}
}
