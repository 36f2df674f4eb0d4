/* nhd_metrics.h - nodehealthd's metrics in Prometheus's text format, for
 * node_exporter's textfile collector: the one table of metrics (name, type,
 * label, help) the writer walks and doc/admin.md's table is generated from
 * (`make metricsdoc`, t/unit/test_nhd_metrics.c), the text builder, and the
 * atomic write of the file.  No daemon state here: nhd_mexport.c gathers
 * the values on the loop. */
#ifndef NHD_METRICS_H
#define NHD_METRICS_H

#include <stddef.h>

/* The file written in metrics_dir (node_exporter reads *.prom), and the
 * temporary name it is written under first (not *.prom: never read half
 * written). */
#define NHD_METRICS_FILE "mpiwatch.prom"
#define NHD_METRICS_TMP ".mpiwatch.prom.tmp"

enum nhd_metric {
	NHD_M_UP,
	NHD_M_START_TIME,
	NHD_M_PROBES_RECEIVED,
	NHD_M_PROBES_ANSWERED,
	NHD_M_PROBES_DROPPED,
	NHD_M_PROBES_RATE_LIMITED,
	NHD_M_DRAIN_REQUESTS,
	NHD_M_BAD_REQUESTS,
	NHD_M_HEALTHY,
	NHD_M_CHECK_OK,
	NHD_M_CHECK_RUNS,
	NHD_M_CALIB_RUNS,
	NHD_M_CALIB_DEGRADED,
	NHD_M_CALIB_RESOLUTION,
	NHD_M_CALIB_INTERVAL,
	NHD_M_JOBS_WATCHED,
	NHD_M_VERDICTS,
	NHD_M_SUMMARIES,
	NHD_M_N
};

struct nhd_metric_def {
	const char *name;  /* mpiwatch_..., base units, _total for counters */
	const char *type;  /* "counter" or "gauge" */
	const char *label; /* the one label's name, or NULL */
	const char *values; /* the label's values, for the doc ("" if open) */
	const char *help;  /* one line */
};

/* The table, indexed by enum nhd_metric. */
extern const struct nhd_metric_def nhd_metric_defs[NHD_M_N];

/* A text being built.  Zero-initialise; free buf when done. */
struct nhd_mtext {
	char *buf;
	size_t len, cap;
	int err;      /* out of memory, or samples out of the table's order */
	int last;     /* the metric of the last sample (nhd_mtext_add's) */
	unsigned char started[NHD_M_N];
};

/* Append one sample of metric m (label value lv, NULL for a metric without
 * a label; escaped as the format wants) with value v.  The first sample of
 * a metric comes with its # HELP and # TYPE lines; the samples of one
 * metric must follow each other (else t->err is set and nothing added).
 * A metric without samples is left out of the text. */
void nhd_mtext_add(struct nhd_mtext *t, enum nhd_metric m, const char *lv, double v);

/* Write text (len bytes) as dir/NHD_METRICS_FILE atomically: into
 * NHD_METRICS_TMP (created anew, no link followed, mode 0644), then renamed
 * over it.  dir must be a directory owned by root (or us) that no one else
 * can write (unless sticky).  dir NULL or "": off, nothing written.
 * Return 0, or -1 with errno set and the reason in err. */
int nhd_metrics_write(const char *dir, const char *text, size_t len, char *err, size_t errlen);

/* Remove dir/NHD_METRICS_FILE (the daemon stops).  dir "" or NULL: nothing. */
void nhd_metrics_remove(const char *dir);

/* doc/admin.md's metrics table (markdown, malloc'd), from the table. */
char *nhd_metrics_doc(void);

#define NHD_METRICS_DOC_BEGIN "<!-- BEGIN generated: metrics (make metricsdoc) -->\n"
#define NHD_METRICS_DOC_END "<!-- END generated: metrics -->\n"

/* doc/admin.md's generated part: the markers and nhd_metrics_doc()
 * (spliced with mw_doc_part_splice, docsplice.h). */
struct mw_doc_part;
extern const struct mw_doc_part nhd_metrics_doc_part;

#endif
