/* log.h - prefixed logging to stderr or syslog, with rate limiting.
 *
 * Library code (the monitor, the SPANK plugin) uses it too; nothing here exits.
 */
#ifndef MW_LOG_H
#define MW_LOG_H

#include <stdarg.h>
#include <syslog.h>
#include <time.h>

enum mw_log_dest {
	MW_LOG_STDERR = 0, /* "<prefix>: <message>\n" on stderr */
	MW_LOG_SYSLOG = 1, /* syslog(3) with ident <prefix>, facility LOG_DAEMON */
};

/* Set the prefix (copied), destination and the most verbose level kept
 * (a syslog LOG_* value; default LOG_INFO).  May be called again. */
void mw_log_open(const char *prefix, enum mw_log_dest dest, int level);
void mw_log_set_level(int level);
int mw_log_get_level(void);
void mw_log_close(void);

/* Bound what this process logs to stderr (a helper's log file that stays
 * with the job's report): after max_bytes, only warnings and errors are
 * kept, with one line saying so, and after twice that nothing more.  0 (the
 * default) means no bound.  Syslog is not counted. */
void mw_log_cap(unsigned long max_bytes);

/* The bound of each per-job helper's log (mpiwatch-agent, -collector). */
#define MW_LOG_HELPER_MAX (4ul << 20)

/* Log one message at a syslog level.  A trailing newline is added. */
void mw_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mw_vlog(int level, const char *fmt, va_list ap);

#define mw_err(...) mw_log(LOG_ERR, __VA_ARGS__)
#define mw_warn(...) mw_log(LOG_WARNING, __VA_ARGS__)
#define mw_info(...) mw_log(LOG_INFO, __VA_ARGS__)
#define mw_debug(...) mw_log(LOG_DEBUG, __VA_ARGS__)

/* A token bucket for messages that may repeat (one per bad packet...). */
struct mw_ratelimit {
	double per_sec;   /* refill rate */
	double burst;     /* bucket size */
	double tokens;    /* current tokens (start at burst: set by the initialiser) */
	double last;      /* monotonic seconds of the last refill, 0 = never */
	unsigned long suppressed; /* messages dropped since the last one logged */
};
#define MW_RATELIMIT_INIT(per_sec_, burst_) {(per_sec_), (burst_), (burst_), 0, 0}

/* Return 1 if an event may pass the limiter now (and take a token), else 0
 * (and count it as suppressed).  now is monotonic seconds. */
int mw_ratelimit_take(struct mw_ratelimit *rl, double now);

/* Log through a limiter; when messages were suppressed, the next one that
 * passes says how many. */
void mw_log_limited(struct mw_ratelimit *rl, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Monotonic clock in seconds. */
double mw_now(void);

#endif
