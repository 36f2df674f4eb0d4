/* nhd_checks.h - NHC-style local health checks. */
#ifndef NHD_CHECKS_H
#define NHD_CHECKS_H

#include <time.h>

#include "nhd_conf.h"
#include "probe.h"

#define NHD_MAX_CHECKS 48

struct nhd_check_result {
	char name[16];    /* "load", "memory", "mount", "tmp", "daemon", "clock", "edac" */
	int ok;
	char detail[120];
};

struct nhd_health {
	int state;        /* MW_PROBE_ALIVE or MW_PROBE_DEGRADED */
	int failed;       /* failed checks */
	int n;            /* results in r[] */
	struct nhd_check_result r[NHD_MAX_CHECKS];
	char summary[224]; /* "ok", or the failed checks' details joined by "; " */
	struct mw_probe_factors f; /* load, free memory, cores, read at every run (the probe reply's factors) */
	double mono;      /* monotonic time the checks finished, 0 = never run */
	time_t wall;
};

/* State kept between runs (the clock-jump check compares with the last run). */
struct nhd_check_state {
	int have_offset;
	double offset; /* CLOCK_REALTIME - CLOCK_MONOTONIC at the last run */
};

/* Run every configured check and fill out.  Never fails: a check that
 * cannot read its source is reported as failed with the reason. */
void nhd_checks_run(const struct nhd_conf *c, struct nhd_check_state *st, struct nhd_health *out);

/* Use another /proc (tests).  NULL restores "/proc". */
void nhd_checks_set_proc_root(const char *root);

/* Join failed details into summary (exposed for tests).  Sets state/failed. */
void nhd_health_summarize(struct nhd_health *h);

#endif
