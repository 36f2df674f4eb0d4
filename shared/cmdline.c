/* cmdline.c - helpers shared by the two programs (cmdline.h). */
#include "cmdline.h"
#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "log.h"

int mw_stderr_to(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (dup2(fd, STDERR_FILENO) < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	setvbuf(stderr, NULL, _IOLBF, 0);
	return 0;
}

int mw_pidfile_self(const char *path)
{
	return mw_pidfile_write(path, getpid(), (uid_t)-1, (gid_t)-1);
}

int mw_helper_setup(const char *name, const char *logfile, const char *pidfile, int verbose)
{
	if (logfile && mw_stderr_to(logfile) < 0) {
		fprintf(stderr, "%s: --log %s: %m\n", name, logfile);
		return 1;
	}
	mw_log_open(name, MW_LOG_STDERR, verbose ? LOG_DEBUG : LOG_INFO);
	mw_log_cap(MW_LOG_HELPER_MAX);
	if (pidfile && mw_pidfile_self(pidfile) < 0) {
		mw_err("--pidfile %s: %m", pidfile);
		return 1;
	}
	return 0;
}

int mw_parse_hostport(const char *s, char *host, size_t hostlen, unsigned short *port)
{
	const char *colon = s ? strrchr(s, ':') : NULL;
	long p;
	if (!colon || colon == s || (size_t)(colon - s) >= hostlen ||
	    mw_conf_parse_long(colon + 1, 1, 65535, &p) < 0) {
		errno = EINVAL;
		return -1;
	}
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = 0;
	*port = (unsigned short)p;
	return 0;
}

int mw_copy(char *dst, size_t len, const char *src)
{
	if (strlen(src) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(dst, src, strlen(src) + 1);
	return 0;
}
