/* log.c - prefixed logging to stderr or syslog, with rate limiting. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "log.h"

static char log_prefix[64] = "mpiwatch";
static enum mw_log_dest log_dest = MW_LOG_STDERR;
static int log_level = LOG_INFO;
static int syslog_open;
static unsigned long log_cap, log_written;
static int log_capped; /* 0, 1: only warnings and errors, 2: nothing */

void mw_log_open(const char *prefix, enum mw_log_dest dest, int level)
{
	if (prefix)
		snprintf(log_prefix, sizeof(log_prefix), "%s", prefix);
	if (syslog_open) {
		closelog();
		syslog_open = 0;
	}
	log_dest = dest;
	log_level = level;
	if (dest == MW_LOG_SYSLOG) {
		openlog(log_prefix, LOG_PID | LOG_NDELAY, LOG_DAEMON);
		syslog_open = 1;
	}
}

void mw_log_set_level(int level)
{
	log_level = level;
}

int mw_log_get_level(void)
{
	return log_level;
}

void mw_log_cap(unsigned long max_bytes)
{
	log_cap = max_bytes;
	log_written = 0;
	log_capped = 0;
}

/* Whether a stderr message of level may still be written; says once when
 * the bound is reached. */
static int cap_allows(int level, size_t len)
{
	if (!log_cap)
		return 1;
	if (log_capped == 0 && log_written + len > log_cap) {
		log_capped = 1;
		fprintf(stderr,
			"%s: log limit of %lu bytes reached: only warnings and errors from now on\n",
			log_prefix, log_cap);
	}
	if (log_capped == 1 && log_written + len > 2 * log_cap) {
		log_capped = 2;
		fprintf(stderr, "%s: log limit reached twice: nothing more is logged\n", log_prefix);
	}
	if (log_capped == 2 || (log_capped == 1 && level > LOG_WARNING))
		return 0;
	log_written += len;
	return 1;
}

void mw_log_close(void)
{
	if (syslog_open)
		closelog();
	syslog_open = 0;
	log_dest = MW_LOG_STDERR;
}

void mw_vlog(int level, const char *fmt, va_list ap)
{
	char msg[1024];
	int saved = errno;

	if (level > log_level)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (log_dest == MW_LOG_SYSLOG)
		syslog(level, "%s", msg);
	else if (cap_allows(level, strlen(log_prefix) + strlen(msg) + 3))
		/* One write per message so lines from several processes don't interleave. */
		fprintf(stderr, "%s: %s\n", log_prefix, msg);
	errno = saved;
}

void mw_log(int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	mw_vlog(level, fmt, ap);
	va_end(ap);
}

double mw_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int mw_ratelimit_take(struct mw_ratelimit *rl, double now)
{
	if (rl->last == 0)
		rl->last = now;
	if (now > rl->last) {
		rl->tokens += (now - rl->last) * rl->per_sec;
		if (rl->tokens > rl->burst)
			rl->tokens = rl->burst;
		rl->last = now;
	}
	if (rl->tokens >= 1.0) {
		rl->tokens -= 1.0;
		return 1;
	}
	rl->suppressed++;
	return 0;
}

void mw_log_limited(struct mw_ratelimit *rl, int level, const char *fmt, ...)
{
	char msg[900];
	va_list ap;
	unsigned long dropped = rl->suppressed;

	if (level > log_level || !mw_ratelimit_take(rl, mw_now()))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (dropped)
		mw_log(level, "%s (%lu similar messages suppressed)", msg, dropped);
	else
		mw_log(level, "%s", msg);
	rl->suppressed = 0;
}
