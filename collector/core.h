/* core.h - the job collector: heartbeat server, threshold, probes, verdict,
 * drain, comment, action, reports.  Used by mpiwatch-collector (and later by
 * "mpiwatch run"). */
#ifndef COL_CORE_H
#define COL_CORE_H

#include <stdint.h>

#include "jobconf.h"
#include "verdict.h"

struct col_opts {
	char job[32];              /* --job */
	char nodes[8192];          /* --nodes HOSTLIST ("" = learn from agents) */
	uint16_t port;             /* --port (first of nports) */
	int nports;                /* 5 */
	double timeout_s;          /* --timeout (the agents' timeout) */
	char threshold[16];        /* --threshold N|P% */
	struct col_threshold thr;
	char dir[4096];            /* --dir OUTDIR */
	char report[4096];         /* --report FILE ("" = OUTDIR/report.json) */
	enum mw_jc_action action;  /* --action (the settings' one enum) */
	int drain, post;           /* --drain yes|no, --post yes|no */
	char restd[512];           /* --restd URL ("" = scontrol only) */
	char nhd_socket[512];      /* --nhd-socket PATH ("" = default) */
	uint16_t probe_port;       /* --probe-port */
	long ranks;                /* --ranks N (0 = learn) */
	double settle_s;           /* wait after the threshold for more heartbeats/dumps */
	double probe_budget_s;     /* time budget of one probe round (3 s) */
	int probe_tries;           /* probes per node per round (3) */
	double job_check_s;        /* ask Slurm whether the job runs (job_check; 0 = never) */
	int exit_on_verdict;       /* leave after a confirmed verdict (standalone use) */
	double hang_limit_s;       /* --hang-limit: act on an unconfirmed hang after this
				    * long (0 = MW_HANG_LIMIT_FACTOR x timeout) */
	int auth;                  /* --auth munge (1, the default) | none (0) |
				    * token (2: --auth-file, one machine without MUNGE) */
	char auth_token[128];      /* the token read from --auth-file */
	char munge_socket[512];    /* --munge-socket PATH ("" = MUNGE's default) */
	char ap_conf[1024];        /* --ap-conf FILE: the site's auxiliary processes
				    * ("" = none; collector/colap.h) */
	long tree_threshold;       /* tree overlay: more nodes than this (doc/tree.md) */
	long tree_fanout, tree_cps;
	int tree_strategy;         /* CP placement: MWT_AVERAGE or MWT_FUZZY (tree_strategy=) */
	double tree_weights[MW_JOBCONF_NWEIGHTS]; /* the fuzzy weights (tree_weights=) */
	int tree_weights_set;      /* ... given (0: the planner's default) */
	double liveness_s;         /* the link liveness setting (jobconf liveness; 0 = off) */
	char profile[4096];        /* --profile DIR: at the end, the imbalance analysis of
				    * DIR's profiles (or of each of its step folders) */
	char calibration[4096];    /* --calibration FILE: every node's timer calibration
				    * ("" = each node's nodehealthd's, probed; nodecal.h) */
};

/* Defaults: the job settings' own (shared/jobconf.c: port port_base,
 * timeout, threshold, action, drain, post, probe port...), 5 ports, settle
 * timeout/4 within [1, 3] s. */
void col_opts_default(struct col_opts *o);

/* Take the job settings (a settings file read with mw_jobconf_read) into o:
 * timeout, hang limit, threshold, report folder (if set), action, drain,
 * post, slurmrestd, sockets, probe port, and the port (port, else
 * port_base).  Return 0, or -1 (errno ENAMETOOLONG, EINVAL). */
int col_opts_set_job(struct col_opts *o, const struct mw_jobconf *jc);

/* Run until SIGTERM/SIGINT or the job is over; then write the final report.
 * Return 0 on a clean stop, or -1 on a startup error (logged). */
int col_run(struct col_opts *o);

#endif
