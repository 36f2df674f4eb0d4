/* fsutil.h - small file-system helpers for every part of mpiwatch: the
 * programs, the plugin and the monitor (libc only: no logging, no exit). */
#ifndef MW_FSUTIL_H
#define MW_FSUTIL_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Remove dir and everything below it (at most 8 levels), never following
 * symbolic links.  If owner is not (uid_t)-1, dir must be a real directory
 * owned by owner, else nothing is removed and errno is EPERM.  A missing dir
 * is not an error.  Return 0, or -1 with errno set. */
int mw_rmtree(const char *dir, uid_t owner);

/* mkdir -p: create dir and the folders above it that are missing, with mode
 * (before the umask).  A folder that exists already is fine.  Return 0, or -1
 * with errno set (ENAMETOOLONG for a path of PATH_MAX or more, ENOENT for
 * ""). */
int mw_mkdir_p(const char *dir, mode_t mode);

/* Where run directories are unless the site says otherwise. */
#define MW_RUNDIR_BASE "/dev/shm"

/* The run directory of a job on a node, "<base>/mpiwatch.<uid>.<job>.<host>"
 * (the slots, pid files and token of the job's helpers; base is the
 * plugin's rundir=, /dev/shm by default).  job is the Slurm job id, or
 * "nojob-<ppid>" for ranks outside a job; host may be "%h" (mw_path_host).
 * Return 0, or -1 with errno ENAMETOOLONG (or EINVAL if job or host is empty
 * or holds a '/'). */
int mw_rundir_path(char *buf, size_t len, const char *base, unsigned uid, const char *job,
		   const char *host);

/* Write len bytes of data to path atomically: a temporary file in the same
 * folder (".NAME.tmp.PID", mode before the umask, never following a link),
 * renamed over path; readers see the old file or the whole new one.  If owner
 * is not (uid_t)-1 and we are root, the file is given to owner:group.
 * Return 0, or -1 with errno set (path is then unchanged, the temporary file
 * removed). */
int mw_write_atomic(const char *path, const void *data, size_t len, mode_t mode, uid_t owner,
		    gid_t group);

/* The same for a file written through stdio: mw_atomic_open opens the
 * temporary file as a->f; mw_atomic_close closes it and, if ok and every
 * write succeeded, renames it over path, else removes it. */
struct mw_atomic_file {
	FILE *f;
	char path[4096];
	char tmp[4200];
};

/* Return 0 with a->f open for writing, or -1 with errno set. */
int mw_atomic_open(struct mw_atomic_file *a, const char *path, mode_t mode);

/* Return 0 if path now holds what was written, or -1 with errno set (the
 * caller's errno when ok is 0; EIO if a write failed unnoticed). */
int mw_atomic_close(struct mw_atomic_file *a, int ok);

/* Write pid to a pid file atomically (a temporary file in the same folder,
 * renamed over path), mode 0644, never following a link.  If owner is not
 * (uid_t)-1 and we are root, the file is given to owner:group.  Return 0, or
 * -1 with errno set. */
int mw_pidfile_write(const char *path, pid_t pid, uid_t owner, gid_t group);

/* Open a file another user may control, for reading: without following a
 * link at its last component (ELOOP) and without blocking (a FIFO), and
 * only if it is a regular file (else EINVAL).  Return the fd (O_NONBLOCK,
 * O_CLOEXEC), or -1 with errno set. */
int mw_open_regular(const char *path);

/* Read a whole file another user may control (a job's report.json, read by
 * root): opened without following a link at its last component (ELOOP)
 * and without blocking (a FIFO), and read only if it is a regular file
 * (else EINVAL) of at most max bytes (else EFBIG).  On success *buf is a
 * malloc'd copy with a NUL after its *len bytes (free it).  Return 0, or -1
 * with errno set. */
int mw_read_regular(const char *path, size_t max, char **buf, size_t *len);

/* What mw_read_regular's errno means, for a message: "a symbolic link (not
 * followed)", "not a regular file", "too large", or strerror(e). */
const char *mw_read_regular_why(int e);

/* A thread's file-system identity (setfsuid(2), setfsgid(2)): the uid and
 * gid the kernel checks when the thread opens, creates, renames or removes
 * a file.  Root uses it to act in a user's folder with that user's rights
 * only (a link the user planted then leads nowhere the user could not go);
 * the kernel also ignores root's file capabilities meanwhile.  The caller's
 * supplementary groups are set aside too (this thread's only: the raw
 * setgroups system call, not glibc's, which changes every thread), so a
 * file of one of root's groups is out of reach as well; the user's own
 * supplementary groups are not taken (only gid). */
struct mw_fsid {
	uid_t uid;
	gid_t gid;
	int ngroups;   /* the caller's groups, kept; -1: they were not changed */
	gid_t *groups; /* (allocated) */
};

/* Take uid:gid as this thread's (only this thread's: slurmstepd is
 * threaded) file-system identity, with gid its only supplementary group,
 * keeping the one it had in old.  Never fails for root (if the caller's
 * groups cannot be kept, for want of memory, they are dropped all the same
 * and mw_fsid_leave leaves none); for others the kernel keeps what it does
 * not allow.  Every mw_fsid_enter is followed by one mw_fsid_leave. */
void mw_fsid_enter(struct mw_fsid *old, uid_t uid, gid_t gid);

/* Go back to the identity mw_fsid_enter kept in old (and free what it
 * kept). */
void mw_fsid_leave(const struct mw_fsid *old);

#endif
