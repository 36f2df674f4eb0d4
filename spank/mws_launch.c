/* mws_launch.c - start and stop the job's helper processes. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"
#include "mws_launch.h"

static void close_fds_from(int lowest)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d) {
		for (int fd = lowest; fd < 4096; fd++)
			close(fd);
		return;
	}
	int dfd = dirfd(d);
	struct dirent *e;
	int fds[1024], n = 0;
	while ((e = readdir(d)) && n < 1024) {
		int fd = atoi(e->d_name);
		if (e->d_name[0] != '.' && fd >= lowest && fd != dfd)
			fds[n++] = fd;
	}
	closedir(d);
	for (int i = 0; i < n; i++)
		close(fds[i]);
}

/* Open a helper's log for appending, as the user, creating the folders
 * above it (the report folder and its logs/) if they are missing. */
static int open_log(const char *path)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", path);
	char *sl = strrchr(dir, '/');
	if (sl && sl != dir) {
		*sl = 0;
		mw_mkdir_p(dir, 0755);
	}
	return open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
}

/* The start-up pipe's write end in the program (MPIWATCH_READY_FD). */
#define MWS_READY_FD 4

/* In the grandchild: set everything up and exec, or report errno on fd. */
static void child_exec(const struct mws_spawn *sp, int report_fd, int ready_fd)
{
	int err, fd;
	sigset_t all;
	struct passwd *pw;

	/* Undo what slurmstepd may have blocked or ignored. */
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			signal(s, SIG_DFL);
	/* Out of the way first, so neither lands on the other's number. */
	report_fd = fcntl(report_fd, F_DUPFD_CLOEXEC, 10);
	if (ready_fd >= 0 && (ready_fd = fcntl(ready_fd, F_DUPFD, 10)) < 0)
		goto fail;
	if (report_fd < 0 || dup2(report_fd, 3) < 0)
		goto fail;
	report_fd = 3;
	fcntl(report_fd, F_SETFD, FD_CLOEXEC);
	unsetenv("MPIWATCH_READY_FD");
	if (ready_fd >= 0) {
		if (dup2(ready_fd, MWS_READY_FD) < 0)
			goto fail;
		setenv("MPIWATCH_READY_FD", "4", 1);
	}
	close_fds_from(MWS_READY_FD + (ready_fd >= 0));
	fd = open("/proc/self/oom_score_adj", O_WRONLY);
	if (fd >= 0) {
		(void)!write(fd, "0\n", 2);
		close(fd);
	}
	/* Regain root (stepd may run us with euid = the user) and drop for good. */
	if (geteuid() != 0 && getuid() == 0)
		(void)!seteuid(0);
	if (geteuid() == 0) {
		pw = getpwuid(sp->uid);
		if (pw ? initgroups(pw->pw_name, sp->gid) : setgroups(0, NULL))
			goto fail;
		if (setresgid(sp->gid, sp->gid, sp->gid) || setresuid(sp->uid, sp->uid, sp->uid))
			goto fail;
	}
	if (getuid() != sp->uid || geteuid() != sp->uid) {
		errno = EPERM;
		goto fail;
	}
	/* Files are opened as the user, so the log belongs to the user. */
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0 || dup2(fd, 0) < 0)
		goto fail;
	if (fd > 2)
		close(fd);
	if (sp->log) {
		fd = open_log(sp->log);
		if (fd < 0 && sp->log_fallback)
			fd = open_log(sp->log_fallback);
	} else {
		fd = open("/dev/null", O_WRONLY);
	}
	if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		goto fail;
	if (fd > 2)
		close(fd);
	if (chdir(sp->cwd ? sp->cwd : "/") < 0)
		goto fail;
	execv(sp->argv[0], sp->argv);
fail:
	err = errno;
	(void)!write(report_fd, &err, sizeof(err));
	_exit(127);
}

int mws_spawn_detached(const struct mws_spawn *sp, pid_t *pid, char *err, size_t errlen)
{
	int p[2], r[2] = {-1, -1};
	pid_t c;
	struct {
		pid_t pid;
		int err;
	} msg = {0, 0};

	if (pipe2(p, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	if (sp->ready && pipe2(r, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	c = fork();
	if (c < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		if (r[0] >= 0)
			close(r[0]), close(r[1]);
		return -1;
	}
	if (c == 0) {
		/* Intermediate child: new session, fork the real process, tell its pid. */
		int q[2];
		pid_t g;
		close(p[0]);
		setsid();
		if (pipe2(q, O_CLOEXEC) < 0)
			_exit(1);
		g = fork();
		if (g == 0) {
			close(q[0]);
			close(p[1]);
			if (r[0] >= 0)
				close(r[0]);
			child_exec(sp, q[1], r[1]);
		}
		close(q[1]);
		msg.pid = g;
		if (g > 0) {
			ssize_t n = read(q[0], &msg.err, sizeof(msg.err));
			if (n != (ssize_t)sizeof(msg.err))
				msg.err = 0; /* EOF: exec succeeded */
		} else {
			msg.err = errno;
		}
		(void)!write(p[1], &msg, sizeof(msg));
		_exit(0);
	}
	close(p[1]);
	if (r[1] >= 0)
		close(r[1]);
	ssize_t n;
	do
		n = read(p[0], &msg, sizeof(msg));
	while (n < 0 && errno == EINTR);
	close(p[0]);
	/* slurmstepd may reap it first with wait3(): ECHILD is fine. */
	while (waitpid(c, NULL, 0) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(msg) || msg.pid <= 0) {
		snprintf(err, errlen, "could not start %s: fork failed", sp->argv[0]);
		goto fail;
	}
	if (msg.err) {
		snprintf(err, errlen, "could not start %s: %s", sp->argv[0], strerror(msg.err));
		goto fail;
	}
	*pid = msg.pid;
	if (sp->ready)
		*sp->ready = r[0];
	return 0;
fail:
	if (r[0] >= 0)
		close(r[0]);
	return -1;
}

int mws_wait_ready(int fd, double timeout_s)
{
	struct timespec t0, t;
	char buf[8];
	size_t got = 0;
	int rc = -1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		double left;
		struct pollfd p = {fd, POLLIN, 0};
		ssize_t n;

		clock_gettime(CLOCK_MONOTONIC, &t);
		left = timeout_s - ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9);
		if (left <= 0)
			break;
		if (poll(&p, 1, (int)(left * 1000) + 1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (!p.revents)
			continue;
		n = read(fd, buf + got, sizeof(buf) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = got >= 2 && !memcmp(buf, "ok", 2);
			break;
		}
		got += (size_t)n;
		if (got >= 2) {
			rc = !memcmp(buf, "ok", 2);
			break;
		}
	}
	close(fd);
	return rc;
}

const char *mws_last_line(const char *path, uid_t uid, gid_t gid, char *buf, size_t len)
{
	char tail[4097];
	struct mw_fsid old;
	off_t end;
	ssize_t n = 0;
	int fd;

	/* As the user (a link leads root nowhere the user could not read);
	 * never blocking (a FIFO); a regular file only. */
	buf[0] = '\0';
	mw_fsid_enter(&old, uid, gid);
	fd = mw_open_regular(path);
	mw_fsid_leave(&old);
	if (fd < 0)
		return buf;
	end = lseek(fd, 0, SEEK_END);
	if (end > 0 && lseek(fd, end > 4096 ? end - 4096 : 0, SEEK_SET) >= 0)
		n = read(fd, tail, sizeof(tail) - 1);
	close(fd);
	if (n <= 0)
		return buf;
	tail[n] = '\0';
	while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == '\r'))
		tail[--n] = '\0';
	char *nl = strrchr(tail, '\n');
	snprintf(buf, len, "%s", nl ? nl + 1 : tail);
	return buf;
}

static pid_t read_pidfile(const char *pidfile)
{
	char buf[32];
	int fd = mw_open_regular(pidfile); /* a FIFO would block */
	ssize_t n;
	long v;
	char *end;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	v = strtol(buf, &end, 10);
	if (v <= 1 || v > 0x3fffffff || (*end && *end != '\n'))
		return 0;
	return (pid_t)v;
}

pid_t mws_pidfile_alive(const char *pidfile, uid_t uid, const char *name)
{
	pid_t pid = read_pidfile(pidfile);
	char path[64], cmd[4096];
	struct stat st;
	ssize_t n;
	int fd;

	if (!pid)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (stat(path, &st) < 0 || st.st_uid != uid)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, cmd, sizeof(cmd) - 1);
	close(fd);
	if (n <= 0)
		return 0; /* a zombie has an empty command line */
	cmd[n] = '\0';
	for (ssize_t i = 0; i < n; i++)
		if (!cmd[i])
			cmd[i] = ' ';
	return strstr(cmd, name) ? pid : 0;
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int mws_pidfile_stop(const char *pidfile, uid_t uid, const char *name, double grace)
{
	pid_t pid = mws_pidfile_alive(pidfile, uid, name);

	if (!pid)
		return 0;
	kill(pid, SIGTERM);
	for (double t = 0; t < grace; t += 0.05) {
		if (kill(pid, 0) < 0 || !mws_pidfile_alive(pidfile, uid, name))
			return 1;
		sleep_s(0.05);
	}
	kill(pid, SIGKILL);
	return 1;
}

int mws_rundir_remove(const char *dir, uid_t uid)
{
	return mw_rmtree(dir, uid);
}
