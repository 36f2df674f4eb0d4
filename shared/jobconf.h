/* jobconf.h - the one table of per-job settings (timeout, threshold,
 * action, report folder, ports, profile, on/off...): each declared once in
 * shared/jobconf.c with its type, range, default, scope and one line of
 * doc, on the key-table machinery of shared/conf.h.
 *
 *   site  (MW_JC_SITE): plugstack.conf arguments ("key=value" words);
 *   user  (MW_JC_USER): items of --mpiwatch=... ("off", "profile",
 *                       "timeout=S", ...) and the options of mpiwatch run;
 *   job   (MW_JC_JOB):  what the plugin (or mpiwatch run) resolves once
 *                       into the job's settings file; the agent, the
 *                       collector and the monitor read that file and
 *                       nothing else.
 *
 * The monitor finds the file through the one variable MW_JOBCONF_ENV
 * (MPIWATCH_SETTINGS: the plugin and mpiwatch run set it; under plain
 * mpirun the user names a settings file of their own there) and reads its
 * settings (timeout, dir, profile, profile_dir, slot_dir, dump_dir, mpit,
 * monitor_debug) from that file only; without one it runs with the table's
 * defaults.  No MPIWATCH_TIMEOUT, _DIR, _PROFILE, _KEEP_SLOT, _MPIT or
 * _DEBUG is read (doc/monitor.md "Settings").
 *
 * The one other variable the monitor reads is the emergency switch
 * MPIWATCH_DISABLE (mw_env_disables, header-only, for the monitor's
 * dispatcher, which links nothing of shared/): it must work when no
 * settings file can be read and before any is looked for, and it turns the
 * watch off rather than setting anything (doc/monitor.md says why).
 */
#ifndef MW_JOBCONF_H
#define MW_JOBCONF_H

#include <stddef.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include "conf.h"

/* Ranges that code outside the table needs as numbers. */
#define MW_TIMEOUT_MIN 1.0
#define MW_TIMEOUT_MAX 604800.0 /* 7 days */
#define MW_HANG_LIMIT_FACTOR 10 /* hang_limit default: 10 x the timeout */

#define MW_JC_SITE 1u
#define MW_JC_USER 2u
#define MW_JC_JOB 4u
#define MW_JC_HELPER 8u /* an option of mpiwatch-collector's or -agent's command line */

/* The settings file in a job's run directory. */
#define MW_JOBCONF_FILE "settings"
/* In the job's report folder: a watched task of the step ended badly and
 * the collector has not told its verdict yet.  Made (as the job's user) by
 * the plugin's task_exit, removed by the collector once its report says
 * what happened; srun's exit waits for it to go (MW_PENDING_WAIT_S at
 * most) before it prints the answer. */
#define MW_PENDING_FILE "verdict-pending"
#define MW_PENDING_WAIT_S 10
/* In the job's report folder, written with each report: the answer srun
 * prints after the step (the collector's sentences, one a line, as the
 * first lines of report.txt), or empty when nothing failed: srun prints
 * nothing then. */
#define MW_ANSWER_FILE "answer.txt"
/* Side files `mpiwatch run` writes in its OUTDIR for the collector: the MPI
 * library's own error lines from the launcher's output, the stacks the
 * ranks printed when they crashed, and the launcher's exit status when it
 * failed by itself (not killed by us). */
#define MW_MPI_ERRORS_FILE "mpi-errors.txt"
#define MW_CRASH_STACKS_FILE "crash-stacks.txt"
#define MW_LAUNCHER_EXIT_FILE "launcher-exit.txt"
/* The environment variable that names it for the monitor. */
#define MW_JOBCONF_ENV "MPIWATCH_SETTINGS"

enum mw_jc_action { MW_JC_REPORT = 0, MW_JC_CANCEL, MW_JC_REQUEUE };
/* mpit: MPI_T only at MPI_THREAD_MULTIPLE (auto), always, never. */
enum mw_jc_mpit { MW_JC_MPIT_AUTO = 0, MW_JC_MPIT_YES, MW_JC_MPIT_NO };

struct mw_jobconf {
	int on;               /* default (site) / on|off (user): the job is watched */
	char *lib;            /* the monitor library to inject */
	char *bindir;         /* where mpiwatch-agent and -collector are */
	char *rundir;         /* base of the per-node run directory */
	double timeout;       /* s in one MPI call before a rank is stuck */
	double hang_limit;    /* s before an unconfirmed hang is acted on; 0 = 10 x timeout */
	char *threshold;      /* "N" or "P%" */
	int action;           /* enum mw_jc_action */
	int profile;          /* per-rank profiles */
	char *dir;            /* the report folder ("" = ./mpiwatch-JOBID) */
	char *profile_dir;    /* the ranks' profile folder ("" = dir/profile/STEP) */
	char *slot_dir;       /* the ranks' slot folder, %h = node ("" = /dev/shm/mpiwatch.UID.JOB.HOST) */
	char *dump_dir;       /* the ranks' dump folder, %h = node ("" = dir/dumps) */
	int drain, post, strict;
	char *restd, *munge_socket, *nhd_socket, *off_partitions;
	long probe_port, port_base;
	long port;            /* the collector's port (resolved: port_base + job % 500) */
	char *ap_conf;        /* the site's auxiliary processes (shared/apconf.h; "" = none) */
	int mpit;             /* the monitor reads MPI_T for dumps: enum mw_jc_mpit */
	int monitor_debug;    /* the monitor prints a few diagnostics on stderr */
	long tree_threshold;  /* nodes above which the tree overlay is used (doc/tree.md) */
	long tree_fanout;     /* the tree's fanout */
	long tree_cps;        /* CPs of the tree (0 = the planner's default) */
	int tree_strategy;    /* CP placement: 0 average, 1 fuzzy (enum mwt_strategy) */
	char *tree_weights;   /* the fuzzy placement's weights "L,M,C,H,R" ("" = the planner's default) */
	double liveness;      /* s of silence before a link is declared lost (0 = off) */
	double connect_timeout;   /* s for an agent's TCP connect to its collector */
	double handshake_timeout; /* s for each step of the hello exchange after it */
	double job_check;     /* s between "is the job still running?" asks of Slurm (0 = never) */
	/* The helpers' own options (MW_JC_HELPER): */
	double settle;        /* s the collector waits after the threshold (settings.h: derived) */
	double probe_budget;  /* s of one probe round */
	long probe_tries;     /* probes per node per round */
	long ports;           /* collector ports tried from port on */
	double tick;          /* s between the agent's slot scans (0 = derived) */
};

/* One enum per setting: the index of its row in mw_jobconf_keys (read
 * through shared/settings.h's accessors). */
enum mw_setting {
	MW_SET_DEFAULT,
	MW_SET_TIMEOUT,
	MW_SET_HANG_LIMIT,
	MW_SET_THRESHOLD,
	MW_SET_ACTION,
	MW_SET_PROFILE,
	MW_SET_DIR,
	MW_SET_PROFILE_DIR,
	MW_SET_SLOT_DIR,
	MW_SET_DUMP_DIR,
	MW_SET_DRAIN,
	MW_SET_POST,
	MW_SET_STRICT,
	MW_SET_LIB,
	MW_SET_BINDIR,
	MW_SET_RUNDIR,
	MW_SET_RESTD,
	MW_SET_MUNGE_SOCKET,
	MW_SET_NHD_SOCKET,
	MW_SET_OFF_PARTITIONS,
	MW_SET_PROBE_PORT,
	MW_SET_PORT_BASE,
	MW_SET_PORT,
	MW_SET_AP_CONF,
	MW_SET_MPIT,
	MW_SET_MONITOR_DEBUG,
	MW_SET_TREE_THRESHOLD,
	MW_SET_TREE_FANOUT,
	MW_SET_TREE_CPS,
	MW_SET_TREE_STRATEGY,
	MW_SET_TREE_WEIGHTS,
	MW_SET_LIVENESS,
	MW_SET_CONNECT_TIMEOUT,
	MW_SET_HANDSHAKE_TIMEOUT,
	MW_SET_JOB_CHECK,
	MW_SET_SETTLE,
	MW_SET_PROBE_BUDGET,
	MW_SET_PROBE_TRIES,
	MW_SET_PORTS,
	MW_SET_TICK,
	MW_SET_COUNT
};

/* The table, ended by a NULL name; row i is enum mw_setting i. */
extern const struct mw_conf_key mw_jobconf_keys[];

/* Fill c with the table's defaults (c need not be initialised).  Return 0,
 * or -1 (out of memory). */
int mw_jobconf_init(struct mw_jobconf *c);

/* Release the strings of c. */
void mw_jobconf_free(struct mw_jobconf *c);

/* Set one setting from text, if its scope has a bit of scope.  Return 0, or
 * -1 with "KEY=VAL: expected WHAT" (or "unknown setting 'KEY'") in err. */
int mw_jobconf_set(struct mw_jobconf *c, unsigned scope, const char *key, const char *val, char *err,
		   size_t errlen);

/* Site arguments (plugstack.conf "key=value" words) into c.  Every bad one
 * adds a line "plugstack.conf argument N (TEXT): why" to err.  Return the
 * number of bad arguments (0 = all fine). */
int mw_jobconf_parse_site(struct mw_jobconf *c, int argc, char *const *argv, char *err, size_t errlen);

/* The user's --mpiwatch[=ARGS] into c: NULL, "", "(null)" mean "on".
 * Return 0, or -1 with one line "--mpiwatch: ..." naming the bad item. */
int mw_jobconf_parse_user(struct mw_jobconf *c, const char *arg, char *err, size_t errlen);

/* The user items, for help texts: "off, on, timeout=S, ...". */
const char *mw_jobconf_user_items(void);

/* Complete c for one job: hang_limit 0 becomes 10 x timeout (capped at its
 * maximum), dir becomes an absolute folder (relative to cwd; "" =
 * cwd/mpiwatch-JOBID), port = port_base + jobid % 500.  Return 0, or -1
 * (errno ENAMETOOLONG, ENOMEM, or EINVAL for a folder whose name holds a
 * control character, which the settings file cannot carry). */
int mw_jobconf_resolve(struct mw_jobconf *c, unsigned jobid, const char *cwd);

/* The hang limit in effect: hang_limit, or 10 x timeout (at most a year)
 * when it is 0. */
double mw_jobconf_hang_limit(double hang_limit, double timeout);

/* The collector's port for a job: port_base + jobid % 500. */
long mw_jobconf_collector_port(long port_base, unsigned jobid);

/* Write the job-scope settings to path (0644, atomically; owned by
 * uid:gid when we are root, else by us).  Return 0, or -1 with errno. */
int mw_jobconf_write(const struct mw_jobconf *c, const char *path, uid_t uid, gid_t gid);

/* Read a settings file into c (which holds defaults).  Return 0, or -1
 * with the first error ("FILE:LINE: ...") in err. */
int mw_jobconf_read(struct mw_jobconf *c, const char *path, char *err, size_t errlen);

/* A job setting given on a helper's command line (--timeout S ...). */
struct mw_jobconf_override {
	const char *key, *val;
};

/* What a helper runs with: c = the table's defaults, then the settings
 * file (if file is not NULL), then the n overrides in order (job or helper
 * settings), each checked by the table.  Return 0, or -1 with the first error in err (c then holds
 * nothing to free). */
int mw_jobconf_load(struct mw_jobconf *c, const char *file, const struct mw_jobconf_override *ov,
		    int n, char *err, size_t errlen);

/* One line "key=value key=value ..." of the job-scope settings, for logs. */
void mw_jobconf_summary(const struct mw_jobconf *c, char *buf, size_t len);

/* "N" (1..1000000 ranks) or "P%" (1..100): return 0 and set *n, *pct, or -1. */
int mw_jobconf_threshold(const char *s, long *n, int *pct);

/* The fuzzy placement's weights (doc/tree.md): "L,M,C,H,R", five numbers
 * from 0 to 1000000 for load, free memory, cores, health and round-trip,
 * not all 0, into w[0..n) (n must be 5).  Return 0, or -1 (errno EINVAL). */
#define MW_JOBCONF_NWEIGHTS 5
int mw_jobconf_weights(const char *s, double *w, size_t n);

/* Slurm's step ids of the batch and the interactive step (slurm.h
 * SLURM_BATCH_SCRIPT, SLURM_INTERACTIVE_STEP). */
#define MW_STEP_BATCH 0xfffffffbu
#define MW_STEP_INTERACTIVE 0xfffffffau

/* The name of a step's profile folder from its id as Slurm writes it in
 * SLURM_STEP_ID: "stepN", or "batch" when step_id is NULL, "" or not a
 * number (Slurm sets no SLURM_STEP_ID in the batch step, nor in the
 * interactive one: both are "batch" here), "interactive" for its id. */
void mw_jobconf_step_label(const char *step_id, char *buf, size_t len);

/* Where a rank of step step_id (SLURM_STEP_ID, may be NULL) writes its
 * profile: "" when c->profile is off, else c->profile_dir, or
 * c->dir/profile/LABEL (mw_jobconf_step_label) when that is "".  Return 0,
 * or -1 (errno ENAMETOOLONG; buf is then ""). */
int mw_jobconf_profile_folder(const struct mw_jobconf *c, const char *step_id, char *buf, size_t len);

/* The action's name ("report" for an unknown one). */
const char *mw_jobconf_action_name(int action);

/* MPIWATCH_DISABLE: the monitor is off when it is set to anything but "",
 * "0", "no" or "false" (any case).  The one reading of that variable. */
static inline int mw_env_disables(const char *v)
{
	return v && *v && strcmp(v, "0") != 0 && strcasecmp(v, "no") != 0 &&
	       strcasecmp(v, "false") != 0;
}

#endif
