/* mws_opts.h - the SPANK plugin's settings: site arguments from
 * plugstack.conf and the user's --mpiwatch[=ARGS] option.  Pure parsing,
 * no Slurm calls, so it is unit-tested and fuzzed on its own. */
#ifndef MWS_OPTS_H
#define MWS_OPTS_H

#include <limits.h>
#include <stddef.h>

enum mws_action { MWS_ACTION_REPORT = 0, MWS_ACTION_CANCEL, MWS_ACTION_REQUEUE };

/* Site configuration: plugstack.conf arguments ("key=value" words). */
struct mws_site {
	int default_on;          /* default=on|off: watch jobs without --mpiwatch */
	char lib[PATH_MAX];      /* lib=PATH: the monitor library to inject */
	char bindir[PATH_MAX];   /* bindir=PATH: where mpiwatch-agent/-collector live */
	double timeout;          /* timeout=S: default stall timeout (s) */
	double hang_limit;       /* hang_limit=S: act on an unconfirmed hang after S (0 =
				  * MW_HANG_LIMIT_FACTOR x timeout) */
	long threshold;          /* threshold=N|P%: default heartbeat threshold */
	int threshold_pct;       /* 1 if threshold is a percentage */
	int drain;               /* drain=yes|no */
	int post;                /* post=yes|no: post the verdict as the job comment */
	int strict;              /* strict=yes|no: fail the job if watching fails */
	enum mws_action action;  /* action=report|cancel|requeue: site default */
	char restd[256];         /* restd=URL of slurmrestd ("" = scontrol fallback) */
	char munge_socket[256];  /* munge_socket=PATH of munged's socket ("" = MUNGE's default) */
	char off_partitions[512]; /* off_partitions=A,B: jobs in these partitions are never watched */
	char nhd_socket[PATH_MAX]; /* nhd_socket=PATH of nodehealthd's drain socket */
	long probe_port;         /* probe_port=N: nodehealthd's UDP port */
	long port_base;          /* port_base=N: collector port = base + jobid % 500 */
	char rundir[PATH_MAX];   /* rundir=PATH: base of the per-node run directory */
};

/* The user's --mpiwatch[=ARGS]. */
struct mws_user {
	int given;               /* the option was on the command line */
	int off;                 /* "off" */
	double timeout;          /* 0 = site default */
	double hang_limit;       /* 0 = site default */
	long threshold;          /* -1 = site default */
	int threshold_pct;
	char dir[PATH_MAX];      /* "" = ./mpiwatch-<jobid> */
	int action;              /* -1 = site default, else enum mws_action */
	int profile;             /* write per-rank profiles */
};

/* Fill in the built-in defaults. */
void mws_site_defaults(struct mws_site *s);
void mws_user_defaults(struct mws_user *u);

/* Parse plugstack.conf arguments into s (which holds defaults).  Every bad
 * argument adds one line "plugstack.conf argument N (TEXT): why" to err.
 * Return the number of bad arguments (0 = all fine). */
int mws_site_parse(int argc, char **argv, struct mws_site *s, char *err, size_t errlen);

/* Parse the --mpiwatch argument.  NULL, "", "(null)" mean "on".  Return 0,
 * or -1 with a one-line message in err naming the bad word. */
int mws_user_parse(const char *arg, struct mws_user *u, char *err, size_t errlen);

/* Whether a job with these settings is watched. */
int mws_enabled(const struct mws_site *s, const struct mws_user *u);

/* Whether the site turned watching off for partition (off_partitions=): 1 if
 * partition is one of the listed names, else 0 (also for NULL or ""). */
int mws_partition_off(const struct mws_site *s, const char *partition);

/* Render the effective threshold as "N" or "P%" into buf. */
void mws_threshold_str(const struct mws_site *s, const struct mws_user *u, char *buf, size_t len);

const char *mws_action_name(int action);

#endif
