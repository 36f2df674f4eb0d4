/* fsutil.h - small file-system helpers shared by the plugin and the CLI. */
#ifndef MW_FSUTIL_H
#define MW_FSUTIL_H

#include <stddef.h>
#include <sys/types.h>

/* Remove dir and everything below it (at most 8 levels), never following
 * symbolic links.  If owner is not (uid_t)-1, dir must be a real directory
 * owned by owner, else nothing is removed and errno is EPERM.  A missing dir
 * is not an error.  Return 0, or -1 with errno set. */
int mw_rmtree(const char *dir, uid_t owner);

/* Write len bytes of data to path atomically: a temporary file in the same
 * folder (mode, never following a link), renamed over path.  If owner is
 * not (uid_t)-1 and we are root, the file is given to owner:group.  Return
 * 0, or -1 with errno set (path is then unchanged). */
int mw_write_atomic(const char *path, const void *data, size_t len, mode_t mode, uid_t owner,
		    gid_t group);

/* Write pid to a pid file atomically (a temporary file in the same folder,
 * renamed over path), mode 0644, never following a link.  If owner is not
 * (uid_t)-1 and we are root, the file is given to owner:group.  Return 0, or
 * -1 with errno set. */
int mw_pidfile_write(const char *path, pid_t pid, uid_t owner, gid_t group);
#endif
