/* nhd_metrics.c - the table of nodehealthd's metrics, the Prometheus text
 * built from it, its atomic write, and doc/admin.md's table from it. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "docsplice.h"
#include "nhd_metrics.h"

/* Prometheus's naming guide: the mpiwatch_ prefix, base units (seconds),
 * _total for counters, one label per metric with a bounded set of values. */
const struct nhd_metric_def nhd_metric_defs[NHD_M_N] = {
	[NHD_M_UP] = {"mpiwatch_nodehealthd_up", "gauge", NULL, "",
		      "1 while nodehealthd runs (the file is removed when it stops)"},
	[NHD_M_START_TIME] = {"mpiwatch_nodehealthd_start_time_seconds", "gauge", NULL, "",
			      "when nodehealthd started, seconds since the epoch"},
	[NHD_M_PROBES_RECEIVED] = {"mpiwatch_probes_received_total", "counter", NULL, "",
				   "liveness probes received (UDP datagrams)"},
	[NHD_M_PROBES_ANSWERED] = {"mpiwatch_probes_answered_total", "counter", NULL, "",
				   "liveness probes answered"},
	[NHD_M_PROBES_DROPPED] = {"mpiwatch_probes_dropped_total", "counter", "reason",
				  "each malformed kind, `send_error`",
				  "probes dropped unanswered: malformed, by reason, or the reply not sent"},
	[NHD_M_PROBES_RATE_LIMITED] = {"mpiwatch_probes_rate_limited_total", "counter", "source",
				       "`user`, `privileged`",
				       "probes dropped by the rate limit, by source port (privileged: < 1024)"},
	[NHD_M_DRAIN_REQUESTS] = {"mpiwatch_drain_requests_total", "counter", "result",
				  "`drained`, `already_drained`, `refused`",
				  "drain requests answered, by result"},
	[NHD_M_BAD_REQUESTS] = {"mpiwatch_bad_requests_total", "counter", NULL, "",
				"requests on the drain socket that could not be read or parsed"},
	[NHD_M_HEALTHY] = {"mpiwatch_node_healthy", "gauge", NULL, "",
			   "1 if every health check passed at the last run, else 0"},
	[NHD_M_CHECK_OK] = {"mpiwatch_health_check_ok", "gauge", "check", "the checks run (`load`, `memory`, ...)",
			    "1 if the health check passed at the last run, else 0"},
	[NHD_M_CHECK_RUNS] = {"mpiwatch_health_check_runs_total", "counter", NULL, "",
			      "health check runs"},
	[NHD_M_CALIB_RUNS] = {"mpiwatch_calibration_runs_total", "counter", NULL, "",
			      "quick calibrations of the node's timers run"},
	[NHD_M_CALIB_DEGRADED] = {"mpiwatch_calibration_degraded", "gauge", NULL, "",
				  "1 if the last calibration found the timers degraded, else 0"},
	[NHD_M_CALIB_RESOLUTION] = {"mpiwatch_calibration_resolution_seconds", "gauge", NULL, "",
				    "the timer resolution the last calibration measured"},
	[NHD_M_CALIB_INTERVAL] = {"mpiwatch_calibration_interval_seconds", "gauge", NULL, "",
				  "the shortest interval the last calibration found measurable"},
	[NHD_M_JOBS_WATCHED] = {"mpiwatch_jobs_watched_total", "counter", NULL, "",
				"jobs whose collector ran on this node and reported its end"},
	[NHD_M_VERDICTS] = {"mpiwatch_verdicts_total", "counter", "verdict", "`none`, `software`, `hardware`",
			    "verdicts of the jobs whose collector ran on this node, by kind"},
	[NHD_M_SUMMARIES] = {"mpiwatch_summaries_total", "counter", "result",
			     "`counted`, `duplicate`, `refused`",
			     "collectors' end summaries received, by result"},
};

static void grow(struct nhd_mtext *t, size_t more)
{
	size_t cap;
	char *nb;
	if (t->err || t->len + more + 1 <= t->cap)
		return;
	cap = t->cap ? t->cap : 4096;
	while (cap < t->len + more + 1)
		cap *= 2;
	nb = realloc(t->buf, cap);
	if (!nb) {
		t->err = ENOMEM;
		return;
	}
	t->buf = nb;
	t->cap = cap;
}

static void put(struct nhd_mtext *t, const char *s, size_t n)
{
	grow(t, n);
	if (t->err)
		return;
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = 0;
}

static void puts_(struct nhd_mtext *t, const char *s)
{
	put(t, s, strlen(s));
}

/* s escaped as the text format wants: in HELP, '\' and newline; in a label
 * value, '"' too. */
static void put_escaped(struct nhd_mtext *t, const char *s, int quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			puts_(t, "\\\\");
		else if (*s == '\n')
			puts_(t, "\\n");
		else if (quote && *s == '"')
			puts_(t, "\\\"");
		else
			put(t, s, 1);
	}
}

static void put_value(struct nhd_mtext *t, double v)
{
	char b[64];
	if (isnan(v))
		snprintf(b, sizeof b, "NaN");
	else if (isinf(v))
		snprintf(b, sizeof b, "%sInf", v > 0 ? "+" : "-");
	else if (snprintf(b, sizeof b, "%.15g", v), strtod(b, NULL) != v)
		snprintf(b, sizeof b, "%.17g", v); /* the shortest that reads back as v */
	puts_(t, b);
}

void nhd_mtext_add(struct nhd_mtext *t, enum nhd_metric m, const char *lv, double v)
{
	const struct nhd_metric_def *d;
	if ((int)m < 0 || m >= NHD_M_N || (t->started[m] && t->last != (int)m) || (!lv) != !nhd_metric_defs[m].label) {
		t->err = EINVAL;
		return;
	}
	d = &nhd_metric_defs[m];
	if (!t->started[m]) {
		t->started[m] = 1;
		puts_(t, "# HELP ");
		puts_(t, d->name);
		puts_(t, " ");
		put_escaped(t, d->help, 0);
		puts_(t, "\n# TYPE ");
		puts_(t, d->name);
		puts_(t, " ");
		puts_(t, d->type);
		puts_(t, "\n");
	}
	t->last = (int)m;
	puts_(t, d->name);
	if (lv) {
		puts_(t, "{");
		puts_(t, d->label);
		puts_(t, "=\"");
		put_escaped(t, lv, 1);
		puts_(t, "\"}");
	}
	puts_(t, " ");
	put_value(t, v);
	puts_(t, "\n");
}

/* dir opened and checked as the socket's: a directory owned by root or us,
 * writable by no one else unless sticky (no one can then move our file). */
static int open_dir(const char *dir, char *err, size_t errlen)
{
	struct stat st;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		int e = errno;
		snprintf(err, errlen, "metrics_dir %s: %s", dir, strerror(e));
		errno = e;
		return -1;
	}
	if (fstat(dfd, &st) < 0 || (st.st_uid != geteuid() && st.st_uid != 0) ||
	    ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))) {
		snprintf(err, errlen, "metrics_dir %s must be owned by root (or us) and writable by no one else", dir);
		close(dfd);
		errno = EPERM;
		return -1;
	}
	return dfd;
}

int nhd_metrics_write(const char *dir, const char *text, size_t len, char *err, size_t errlen)
{
	int dfd, fd, e;
	size_t off = 0;

	if (!dir || !dir[0])
		return 0;
	dfd = open_dir(dir, err, errlen);
	if (dfd < 0)
		return -1;
	/* A leftover of an earlier write (or anything put there): never
	 * followed, never reused. */
	if (unlinkat(dfd, NHD_METRICS_TMP, 0) < 0 && errno != ENOENT)
		goto fail;
	fd = openat(dfd, NHD_METRICS_TMP, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		goto fail;
	while (off < len) {
		ssize_t w = write(fd, text + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			e = errno;
			close(fd);
			errno = e;
			goto fail_unlink;
		}
		off += (size_t)w;
	}
	if (fchmod(fd, 0644) < 0) {
		e = errno;
		close(fd);
		errno = e;
		goto fail_unlink;
	}
	if (close(fd) < 0 || renameat(dfd, NHD_METRICS_TMP, dfd, NHD_METRICS_FILE) < 0)
		goto fail_unlink;
	close(dfd);
	return 0;
fail_unlink:
	e = errno;
	unlinkat(dfd, NHD_METRICS_TMP, 0);
	errno = e;
fail:
	e = errno;
	snprintf(err, errlen, "cannot write %s/%s: %s", dir, NHD_METRICS_FILE, strerror(e));
	close(dfd);
	errno = e;
	return -1;
}

void nhd_metrics_remove(const char *dir)
{
	char err[256];
	int dfd;
	if (!dir || !dir[0])
		return;
	dfd = open_dir(dir, err, sizeof err);
	if (dfd < 0)
		return;
	unlinkat(dfd, NHD_METRICS_FILE, 0);
	close(dfd);
}

char *nhd_metrics_doc(void)
{
	struct nhd_mtext t = {0};
	puts_(&t, "| metric | type | label | meaning |\n|---|---|---|---|\n");
	for (int m = 0; m < NHD_M_N; m++) {
		const struct nhd_metric_def *d = &nhd_metric_defs[m];
		char row[1024];
		snprintf(row, sizeof row, "| `%s` | %s | %s%s%s%s%s | %s |\n", d->name, d->type, d->label ? "`" : "",
			 d->label ? d->label : "", d->label ? "`" : "", d->label && d->values[0] ? ": " : "",
			 d->label ? d->values : "", d->help);
		puts_(&t, row);
	}
	if (t.err) {
		free(t.buf);
		errno = t.err;
		return NULL;
	}
	return t.buf;
}

const struct mw_doc_part nhd_metrics_doc_part = {"metrics", NHD_METRICS_DOC_BEGIN, NHD_METRICS_DOC_END,
						 nhd_metrics_doc};
