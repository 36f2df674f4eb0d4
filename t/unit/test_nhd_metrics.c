/* Unit tests for nodehealthd/nhd_metrics.c: the metrics table follows
 * Prometheus's naming guide, the text is the exposition format (HELP and
 * TYPE once, labels escaped, samples of a metric together), the file is
 * written atomically (a new inode renamed over the old, never through a
 * link), nothing is written when metrics_dir is empty, and doc/admin.md's
 * metrics table is the one generated from the table (`make metricsdoc`). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "docsplice.h"
#include "conf.h"
#include "fsutil.h"
#include "log.h"
#include "nhd.h"
#include "nhd_conf.h"
#include "nhd_metrics.h"
#include "unit.h"

static int matches(const char *re, const char *s)
{
	regex_t r;
	int m;
	ck_assert_int_eq(regcomp(&r, re, REG_EXTENDED | REG_NOSUB), 0);
	m = regexec(&r, s, 0, NULL, 0) == 0;
	regfree(&r);
	return m;
}

START_TEST(test_table_names)
{
	for (int m = 0; m < NHD_M_N; m++) {
		const struct nhd_metric_def *d = &nhd_metric_defs[m];
		size_t n;
		ck_assert_msg(d->name && d->help && d->help[0] && d->values, "metric %d is complete", m);
		n = strlen(d->name);
		ck_assert_msg(matches("^mpiwatch_[a-z_]*[a-z]$", d->name), "%s: mpiwatch_ prefix, lower case", d->name);
		if (!strcmp(d->type, "counter"))
			ck_assert_msg(n > 6 && !strcmp(d->name + n - 6, "_total"), "counter %s ends in _total", d->name);
		else
			ck_assert_msg(!strcmp(d->type, "gauge") && !strstr(d->name, "_total"), "gauge %s: no _total",
				      d->name);
		/* base units: seconds, never ms/us/ns, minutes, hours */
		ck_assert_msg(!matches("_(ms|us|ns|milliseconds|microseconds|nanoseconds|minutes|hours)(_|$)", d->name),
			      "%s is in base units", d->name);
		if (d->label)
			ck_assert_msg(matches("^[a-z][a-z_]*$", d->label) && strcmp(d->label, "le") &&
					      strcmp(d->label, "quantile"),
				      "%s: label %s", d->name, d->label);
		for (int o = 0; o < m; o++)
			ck_assert_msg(strcmp(d->name, nhd_metric_defs[o].name), "%s once", d->name);
	}
}
END_TEST

START_TEST(test_text_format)
{
	struct nhd_mtext t = {0};
	const char *want =
		"# HELP mpiwatch_probes_answered_total liveness probes answered\n"
		"# TYPE mpiwatch_probes_answered_total counter\n"
		"mpiwatch_probes_answered_total 3\n"
		"# HELP mpiwatch_drain_requests_total drain requests answered, by result\n"
		"# TYPE mpiwatch_drain_requests_total counter\n"
		"mpiwatch_drain_requests_total{result=\"drained\"} 1\n"
		"mpiwatch_drain_requests_total{result=\"refused\"} 0\n"
		"# HELP mpiwatch_calibration_resolution_seconds the timer resolution the last calibration measured\n"
		"# TYPE mpiwatch_calibration_resolution_seconds gauge\n"
		"mpiwatch_calibration_resolution_seconds 2.1e-08\n"
		"# HELP mpiwatch_calibration_interval_seconds the shortest interval the last calibration found measurable\n"
		"# TYPE mpiwatch_calibration_interval_seconds gauge\n"
		"mpiwatch_calibration_interval_seconds 0.1\n";
	nhd_mtext_add(&t, NHD_M_PROBES_ANSWERED, NULL, 3);
	nhd_mtext_add(&t, NHD_M_DRAIN_REQUESTS, "drained", 1);
	nhd_mtext_add(&t, NHD_M_DRAIN_REQUESTS, "refused", 0);
	nhd_mtext_add(&t, NHD_M_CALIB_RESOLUTION, NULL, 21e-9);
	nhd_mtext_add(&t, NHD_M_CALIB_INTERVAL, NULL, 0.1);
	ck_assert_int_eq(t.err, 0);
	ck_assert_str_eq(t.buf, want);
	ck_assert_uint_eq(t.len, strlen(want));
	free(t.buf);
}
END_TEST

/* A label value as the format wants it: backslash, quote and newline escaped. */
START_TEST(test_label_escape)
{
	struct nhd_mtext t = {0};
	nhd_mtext_add(&t, NHD_M_CHECK_OK, "a\"b\\c\nd", 1);
	ck_assert_int_eq(t.err, 0);
	ck_assert_ptr_nonnull(strstr(t.buf, "\nmpiwatch_health_check_ok{check=\"a\\\"b\\\\c\\nd\"} 1\n"));
	free(t.buf);
}
END_TEST

START_TEST(test_text_misuse)
{
	struct nhd_mtext t = {0};
	/* the samples of a metric must follow each other */
	nhd_mtext_add(&t, NHD_M_VERDICTS, "none", 1);
	nhd_mtext_add(&t, NHD_M_JOBS_WATCHED, NULL, 1);
	nhd_mtext_add(&t, NHD_M_VERDICTS, "software", 1);
	ck_assert_int_eq(t.err, EINVAL);
	free(t.buf);
	memset(&t, 0, sizeof t);
	nhd_mtext_add(&t, NHD_M_VERDICTS, NULL, 1); /* its label missing */
	ck_assert_int_eq(t.err, EINVAL);
	free(t.buf);
	memset(&t, 0, sizeof t);
	nhd_mtext_add(&t, NHD_M_UP, "x", 1); /* a label it has not */
	ck_assert_int_eq(t.err, EINVAL);
	free(t.buf);
}
END_TEST

static char dir[64];

static void mkdir_tmp(void)
{
	snprintf(dir, sizeof dir, "/tmp/test_nhd_metrics.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(chmod(dir, 0755), 0);
}

static void rm_tmp(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static char *slurp(const char *name)
{
	char p[256], *buf = NULL;
	size_t len;
	snprintf(p, sizeof p, "%s/%s", dir, name);
	ck_assert_msg(mw_read_regular(p, 1 << 20, &buf, &len) == 0, "%s: %s", p, mw_read_regular_why(errno));
	return buf;
}

START_TEST(test_write_atomic)
{
	char err[256] = "", p[256], victim[256];
	struct stat st1, st2, st;
	char *got, old[32] = "";
	int fd;

	mkdir_tmp();
	ck_assert_msg(nhd_metrics_write(dir, "a 1\n", 4, err, sizeof err) == 0, "%s", err);
	got = slurp(NHD_METRICS_FILE);
	ck_assert_str_eq(got, "a 1\n");
	free(got);
	snprintf(p, sizeof p, "%s/%s", dir, NHD_METRICS_FILE);
	ck_assert_int_eq(stat(p, &st1), 0);
	ck_assert_int_eq(st1.st_mode & 07777, 0644); /* node_exporter reads it as another user */
	/* A reader that opened the old file reads it whole, the next open the new. */
	fd = open(p, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	/* A link planted where the temporary file goes is replaced, not followed. */
	snprintf(victim, sizeof victim, "%s/victim", dir);
	mw_unit_put(dir, "victim", "keep\n");
	snprintf(p, sizeof p, "%s/%s", dir, NHD_METRICS_TMP);
	ck_assert_int_eq(symlink(victim, p), 0);
	ck_assert_msg(nhd_metrics_write(dir, "a 2\nb 3\n", 8, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(read(fd, old, sizeof old - 1), 4);
	ck_assert_str_eq(old, "a 1\n");
	close(fd);
	got = slurp(NHD_METRICS_FILE);
	ck_assert_str_eq(got, "a 2\nb 3\n");
	free(got);
	got = slurp("victim");
	ck_assert_str_eq(got, "keep\n");
	free(got);
	snprintf(p, sizeof p, "%s/%s", dir, NHD_METRICS_FILE);
	ck_assert_int_eq(stat(p, &st2), 0);
	ck_assert_msg(st2.st_ino != st1.st_ino, "a new file renamed over the old one");
	snprintf(p, sizeof p, "%s/%s", dir, NHD_METRICS_TMP);
	ck_assert_msg(lstat(p, &st) < 0 && errno == ENOENT, "no temporary file left");
	/* stopping removes it */
	nhd_metrics_remove(dir);
	snprintf(p, sizeof p, "%s/%s", dir, NHD_METRICS_FILE);
	ck_assert_msg(stat(p, &st) < 0 && errno == ENOENT, "removed at stop");
	rm_tmp();
}
END_TEST

/* metrics_dir empty (or unset): off, nothing written anywhere. */
START_TEST(test_write_off)
{
	char err[256] = "", cwd[4096], p[256];
	struct stat st;
	mkdir_tmp();
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
	ck_assert_int_eq(chdir(dir), 0);
	ck_assert_int_eq(nhd_metrics_write("", "a 1\n", 4, err, sizeof err), 0);
	ck_assert_int_eq(nhd_metrics_write(NULL, "a 1\n", 4, err, sizeof err), 0);
	ck_assert_int_eq(chdir(cwd), 0);
	snprintf(p, sizeof p, "%s/%s", dir, NHD_METRICS_FILE);
	ck_assert_msg(stat(p, &st) < 0 && errno == ENOENT, "nothing written");
	rm_tmp();
}
END_TEST

/* A folder others can write (not sticky) is refused: they could swap the file. */
START_TEST(test_write_refuses_open_dir)
{
	char err[256] = "", p[256];
	struct stat st;
	mkdir_tmp();
	ck_assert_int_eq(chmod(dir, 0777), 0);
	ck_assert_int_eq(nhd_metrics_write(dir, "a 1\n", 4, err, sizeof err), -1);
	ck_assert_int_eq(errno, EPERM);
	ck_assert_msg(strstr(err, "writable by no one else"), "%s", err);
	snprintf(p, sizeof p, "%s/%s", dir, NHD_METRICS_FILE);
	ck_assert_msg(stat(p, &st) < 0, "nothing written");
	ck_assert_int_eq(nhd_metrics_write("/nonexistent-mw-dir", "a 1\n", 4, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "/nonexistent-mw-dir"), "%s", err);
	rm_tmp();
}
END_TEST

/* The setting: Debian's folder by default, empty allowed (off), a relative
 * path refused. */
START_TEST(test_conf_metrics_dir)
{
	struct mw_conf_errors errs = {0};
	struct nhd_conf *c;
	char p[256];
	mkdir_tmp();
	snprintf(p, sizeof p, "%s/c.conf", dir);
	mw_unit_put(dir, "c.conf", "port = 7000\n");
	c = nhd_conf_load(p, &errs);
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c->metrics_dir, "/var/lib/prometheus/node-exporter");
	nhd_conf_free(c);
	mw_unit_put(dir, "c.conf", "metrics_dir =\n");
	c = nhd_conf_load(p, &errs);
	ck_assert_msg(c != NULL, "empty metrics_dir: %s", errs.n ? errs.msg[0] : "");
	ck_assert_str_eq(c->metrics_dir, "");
	nhd_conf_free(c);
	mw_unit_put(dir, "c.conf", "metrics_dir = prom\n");
	c = nhd_conf_load(p, &errs);
	ck_assert_ptr_null(c);
	ck_assert_msg(errs.n == 1 && strstr(errs.msg[0], "metrics_dir: must be an absolute path"), "%s",
		      errs.n ? errs.msg[0] : "");
	mw_conf_errors_free(&errs);
	rm_tmp();
}
END_TEST

START_TEST(test_doc_is_generated)
{
	char *doc = mw_unit_read_top("doc/admin.md"), *want = mw_doc_part_splice(&nhd_metrics_doc_part, doc);
	ck_assert_msg(want != NULL, "doc/admin.md has the markers %s and %s", NHD_METRICS_DOC_BEGIN,
		      NHD_METRICS_DOC_END);
	ck_assert_msg(strcmp(doc, want) == 0, "doc/admin.md's metrics table differs from the table: run make metricsdoc");
	for (int m = 0; m < NHD_M_N; m++) {
		char row[128];
		snprintf(row, sizeof row, "\n| `%s` | %s |", nhd_metric_defs[m].name, nhd_metric_defs[m].type);
		ck_assert_msg(strstr(doc, row), "doc/admin.md has the row %s", row + 1);
	}
	free(want);
	free(doc);
}
END_TEST

/* The daemon's state as metrics: every check's state, the drain results,
 * the summaries (a job counted once), all verdict kinds present from 0. */
START_TEST(test_gather)
{
	static struct nhd d;
	struct nhd_conf *c = calloc(1, sizeof(*c));
	size_t len = 0;
	char *text;

	ck_assert_int_eq(nhd_conf_defaults(c), 0);
	c->refs = 1;
	pthread_mutex_init(&d.conf_mu, NULL);
	pthread_mutex_init(&d.health_mu, NULL);
	d.conf = c;
	d.started = mw_now();
	mw_strlist_add(&c->daemon, "no-such-daemon");
	mw_strlist_add(&c->daemon, "init");
	mw_strlist_add(&c->daemon, "init");
	nhd_checks_run(c, &d.check_state, &d.health);
	d.cnt.rx = 10;
	d.cnt.replies = 7;
	d.cnt.malformed[MW_PROBE_E_SHORT] = 3;
	d.cnt.drains = 2;
	d.mx.already_drained = 1;
	d.cnt.drains_refused = 4;
	ck_assert_int_eq(nhd_mexport_summary(&d, "12", 1), NHD_SUM_COUNTED);
	ck_assert_int_eq(nhd_mexport_summary(&d, "12", 1), NHD_SUM_DUPLICATE);
	ck_assert_int_eq(nhd_mexport_summary(&d, "13", 2), NHD_SUM_COUNTED);
	nhd_mexport_refused(&d);
	text = nhd_mexport_text(&d, &len);
	ck_assert_ptr_nonnull(text);
	ck_assert_uint_eq(strlen(text), len);
	{
		const char *want[] = {
			"\nmpiwatch_nodehealthd_up 1\n",
			"\nmpiwatch_probes_received_total 10\n",
			"\nmpiwatch_probes_answered_total 7\n",
			"\nmpiwatch_probes_dropped_total{reason=\"short\"} 3\n",
			"\nmpiwatch_probes_dropped_total{reason=\"send_error\"} 0\n",
			"\nmpiwatch_probes_rate_limited_total{source=\"user\"} 0\n",
			"\nmpiwatch_drain_requests_total{result=\"drained\"} 1\n",
			"\nmpiwatch_drain_requests_total{result=\"already_drained\"} 1\n",
			"\nmpiwatch_drain_requests_total{result=\"refused\"} 4\n",
			"\nmpiwatch_node_healthy 0\n",
			"\nmpiwatch_health_check_ok{check=\"memory\"} 1\n",
			"\nmpiwatch_jobs_watched_total 2\n",
			"\nmpiwatch_verdicts_total{verdict=\"none\"} 0\n",
			"\nmpiwatch_verdicts_total{verdict=\"software\"} 1\n",
			"\nmpiwatch_verdicts_total{verdict=\"hardware\"} 1\n",
			"\nmpiwatch_summaries_total{result=\"counted\"} 2\n",
			"\nmpiwatch_summaries_total{result=\"duplicate\"} 1\n",
			"\nmpiwatch_summaries_total{result=\"refused\"} 1\n",
		};
		for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
			ck_assert_msg(strstr(text, want[i]), "the text has %s", want[i] + 1);
		/* the daemon check that failed */
		ck_assert_msg(strstr(text, "\nmpiwatch_health_check_ok{check=\"daemon\"} 0\n"),
			      "the failed check (daemon) is 0:\n%s", text);
		/* one series per check (three daemon results, one failed) */
		ck_assert_msg(!strstr(strstr(text, "check=\"daemon\"") + 1, "check=\"daemon\""),
			      "check daemon once:\n%s", text);
		/* no calibration ran: its gauges are left out */
		ck_assert_ptr_null(strstr(text, "mpiwatch_calibration_degraded"));
	}
	free(text);
	nhd_conf_free(c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nodehealthd metrics");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_table_names);
	tcase_add_test(tc, test_text_format);
	tcase_add_test(tc, test_label_escape);
	tcase_add_test(tc, test_text_misuse);
	tcase_add_test(tc, test_write_atomic);
	tcase_add_test(tc, test_write_off);
	tcase_add_test(tc, test_write_refuses_open_dir);
	tcase_add_test(tc, test_conf_metrics_dir);
	tcase_add_test(tc, test_doc_is_generated);
	tcase_add_test(tc, test_gather);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
