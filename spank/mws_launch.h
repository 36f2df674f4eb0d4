/* mws_launch.h - start and stop the job's helper processes (agent, collector)
 * from slurmstepd and from the epilog, safely: slurmstepd is threaded, reaps
 * every child with wait3(), and kills a step's processes when it ends. */
#ifndef MWS_LAUNCH_H
#define MWS_LAUNCH_H

#include <sys/types.h>
#include <stddef.h>

struct mws_spawn {
	char *const *argv;  /* argv[0] is the program's path */
	uid_t uid;          /* run as this user ... */
	gid_t gid;          /* ... and group */
	const char *cwd;    /* working directory */
	const char *log;    /* stdout and stderr go here (appended), or NULL for /dev/null;
			     * the two folders above it are created if missing */
	const char *log_fallback; /* used if log cannot be opened (NULL: fail) */
	int *ready;         /* if not NULL: the read end of the start-up pipe is
			     * stored here (see mws_wait_ready); the program
			     * finds the write end in $MPIWATCH_READY_FD */
};

/* Start a detached process (double fork + setsid, so it outlives the step that
 * started it): close inherited fds, stdin from /dev/null, oom_score_adj 0,
 * drop to uid/gid, exec at once.  On success store its pid and return 0; on
 * failure return -1 with the reason in err (exec errors are reported back
 * through a close-on-exec pipe). */
int mws_spawn_detached(const struct mws_spawn *sp, pid_t *pid, char *err, size_t errlen);

/* Wait up to timeout_s for a program started with .ready to say it has
 * started (shared/ready.h: it writes "ok" and closes the pipe), and close
 * fd.  Return 1 if it started, 0 if it closed the pipe without "ok" (it
 * exited at start-up), -1 if it said nothing in time (taken as started:
 * a slow start must not cost the job its watch). */
int mws_wait_ready(int fd, double timeout_s);

/* The last non-empty line of a text file of uid:gid (at most its last 4 KiB)
 * in buf without its newline; "" if there is none, or if the file is not a
 * regular file uid:gid may read (opened with that file-system identity,
 * without following a link, never blocking).  Return buf. */
const char *mws_last_line(const char *path, uid_t uid, gid_t gid, char *buf, size_t len);

/* Read a pid file (a regular file, not through a link, never blocking) and
 * tell whether that process is alive, belongs to uid and
 * runs a program whose command line contains name.  Return the pid, or 0. */
pid_t mws_pidfile_alive(const char *pidfile, uid_t uid, const char *name);

/* Stop the process named by a pid file (checked as in mws_pidfile_alive):
 * SIGTERM, wait up to grace seconds, then SIGKILL.  Return 1 if a process was
 * stopped, 0 if none was running. */
int mws_pidfile_stop(const char *pidfile, uid_t uid, const char *name, double grace);

/* Remove a run directory and the plain files directly inside it (not
 * following links).  Return 0 or -1. */
int mws_rundir_remove(const char *dir, uid_t uid);

#endif
