/* core.h - the job collector: heartbeat server, threshold, probes, verdict,
 * drain, comment, action, reports.  Used by mpiwatch-collector (and later by
 * "mpiwatch run"). */
#ifndef COL_CORE_H
#define COL_CORE_H

#include <stdint.h>

#include "jobconf.h"
#include "verdict.h"

/* What the launcher gives this collector beyond the settings: the job,
 * its nodes, files and the test seams.  The settings themselves (timeout,
 * threshold, report folder, action, ports, probe budget...) are read
 * through shared/settings.h, loaded once by the program. */
struct col_opts {
	char job[32];              /* --job */
	char nodes[8192];          /* --nodes HOSTLIST ("" = learn from agents) */
	char report[4096];         /* --report FILE ("" = OUTDIR/report.json) */
	long ranks;                /* --ranks N (0 = learn) */
	int exit_on_verdict;       /* leave after a confirmed verdict (standalone use) */
	int auth;                  /* --auth munge (1, the default) | none (0) |
				    * token (2: --auth-file, one machine without MUNGE) */
	char auth_token[128];      /* the token read from --auth-file */
	char ap_conf[1024];        /* --ap-conf FILE: the site's auxiliary processes
				    * ("" = none; collector/colap.h) */
	char profile[4096];        /* --profile DIR: at the end, the imbalance analysis of
				    * DIR's profiles (or of each of its step folders) */
	char calibration[4096];    /* --calibration FILE: every node's timer calibration
				    * ("" = each node's nodehealthd's, probed; nodecal.h) */
};

/* Defaults: nothing given, MUNGE authentication. */
void col_opts_default(struct col_opts *o);

/* Run until SIGTERM/SIGINT or the job is over; then write the final report.
 * The settings are read through shared/settings.h (mw_settings_load first).
 * Return 0 on a clean stop, or -1 on a startup error (logged). */
int col_run(struct col_opts *o);

#endif
