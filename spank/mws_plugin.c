/* mws_plugin.c - mpiwatch.so, the SPANK plugin: entry points, one branch per
 * SPANK context.  See doc/spank.md and mpiwatch-spank(8).
 *
 *   sbatch/salloc/srun (allocator, local): register and check --mpiwatch.
 *   slurmstepd (remote), per step: start the node agent (and the collector on
 *     the job's first node) once per job and node; inject libmpiwatch.so and
 *     the MPIWATCH_* environment into the tasks.
 *   epilog (job_script), per node at job end: stop them, remove the run dir.
 *   srun (local), at step end: print the verdict if one was reached.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <slurm/spank.h>

#include "fsutil.h"
#include "hostlist.h"
#include "mws_env.h"
#include "auth.h"
#include "heartbeat.h"
#include "mws_launch.h"
#include "mws_opts.h"
#include "mws_rundir.h"
#include "mw_slot.h"
#include "mws_taskexit.h"

SPANK_PLUGIN(mpiwatch, 1);

/* Special step ids (slurm.h): batch script, extern, interactive, pending. */
#define MWS_STEP_SPECIAL_MIN 0xfffffff0u
#define MWS_STEP_BATCH MW_STEP_BATCH	     /* SLURM_BATCH_SCRIPT (jobconf.h) */
#define MWS_STEP_INTERACTIVE MW_STEP_INTERACTIVE /* SLURM_INTERACTIVE_STEP */

/* The job's settings (shared/jobconf.h): site arguments, then the user's
 * --mpiwatch (kept as given, applied by load_conf). */
static struct mw_jobconf conf;
static int conf_bad;
static int user_given;
static char user_arg[1024];

/* Computed in init_post_opt (remote) for user_init and task_exit. */
static int watch_ok;
static char rundir[PATH_MAX], env_rundir[PATH_MAX], outdir[PATH_MAX];
static char collector_host[256];
static unsigned collector_port;

/* srun: when the step started, to show only a verdict reached during it. */
static time_t step_start;
static uint32_t step_job; /* srun: the job, from local_user_init (exit has no S_JOB_ID) */

static int opt_cb(int val, const char *optarg, int remote);

static struct spank_option mws_option = {
	"mpiwatch", "[ARGS]",
	"Watch this MPI job with mpiwatch: tell a dead node from a stuck program. "
	"ARGS (comma-separated): off, on, timeout=S, hang_limit=S, threshold=N|P%, "
	"action=report|cancel|requeue, profile, dir=PATH.  See mpiwatch-spank(8).",
	2, 0, opt_cb};

/* Check the user's argument against the table at once (sbatch and srun
 * refuse a bad one before anything starts) and keep it. */
static int opt_cb(int val, const char *optarg, int remote)
{
	char err[512];
	struct mw_jobconf tmp;
	int rc;
	(void)val;
	(void)remote;
	if (mws_conf_init(&tmp) < 0) {
		slurm_error("mpiwatch: out of memory");
		return -1;
	}
	rc = mw_jobconf_parse_user(&tmp, optarg, err, sizeof(err));
	mw_jobconf_free(&tmp);
	if (rc < 0 || (optarg && strlen(optarg) >= sizeof(user_arg))) {
		slurm_error("%s", rc < 0 ? err : "--mpiwatch: argument too long");
		return -1;
	}
	user_given = 1;
	snprintf(user_arg, sizeof(user_arg), "%s", optarg ? optarg : "");
	return 0;
}

/* The settings: defaults, plugstack.conf arguments, then the user's option
 * if it was given (init is not called before job_epilog). */
static void load_conf(int ac, char **av, int log_errors)
{
	char err[4096], *save = NULL;

	mw_jobconf_free(&conf);
	conf_bad = mws_conf_load(&conf, ac, av, user_given, user_arg, err, sizeof(err));
	if (!conf_bad || !log_errors)
		return;
	for (char *l = strtok_r(err, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		slurm_error("mpiwatch: %s", l);
	slurm_error("mpiwatch: plugin disabled until plugstack.conf is fixed%s",
		    conf.strict ? " (strict: watched jobs fail)" : "");
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();

	user_given = 0;
	user_arg[0] = '\0';
	load_conf(ac, av, 1);
	if (ctx == S_CTX_LOCAL || ctx == S_CTX_REMOTE || ctx == S_CTX_ALLOCATOR) {
		if (spank_option_register(sp, &mws_option) != ESPANK_SUCCESS)
			slurm_error("mpiwatch: could not register --mpiwatch");
	}
	return 0;
}

static int get_env(spank_t sp, const char *name, char *buf, int len)
{
	if (spank_getenv(sp, name, buf, len) != ESPANK_SUCCESS) {
		buf[0] = '\0';
		return -1;
	}
	return 0;
}

/* This node's name: its short host name.  (slurmstepd has no trustworthy
 * SLURMD_NODENAME: the job environment carries the batch step's into every
 * step.)  Sites whose NodeName differs from the host name are documented in
 * mpiwatch-spank(8). */
/* Whether a step is watched: srun's steps, and the batch script and the
 * interactive step, whose processes include mpirun/mpiexec and the ranks
 * they start on this node (the ranks on other nodes come through the
 * launcher's own srun step, orted or hydra's proxy).  Not the extern step. */
static int is_watched_step(spank_t sp)
{
	uint32_t stepid = 0;
	if (spank_get_item(sp, S_JOB_STEPID, &stepid) != ESPANK_SUCCESS)
		return 0;
	return stepid < MWS_STEP_SPECIAL_MIN || stepid == MWS_STEP_BATCH ||
	       stepid == MWS_STEP_INTERACTIVE;
}

/* Why watching could not start on this node (for the job's output). */
static char start_why[400];

/* Log a start-up failure to the slurmd log and keep it for the job's output. */
__attribute__((format(printf, 1, 2))) static void start_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(start_why, sizeof(start_why), fmt, ap);
	va_end(ap);
	slurm_error("mpiwatch: %s", start_why);
}

/* How long a helper may take to start before we stop waiting for it. */
#define MWS_READY_WAIT_S 10.0

/* Start one helper if its pid file names no live process, and wait until
 * it says it runs (shared/ready.h).  Its log goes to logs/NAME-HOST.log in
 * the job's report folder, so that it outlives the job (the epilog removes
 * the run folder), or to the run folder if the report folder cannot be
 * written.  A helper that exits at start-up (a port in use, a report folder
 * it cannot make) leaves the last line of its log as the reason.  Return 0
 * or -1. */
static int ensure_running(const char *name, const char *host, char *const *argv, uid_t uid,
			  gid_t gid)
{
	char pidfile[PATH_MAX + 32], log[PATH_MAX + 300], fallback[PATH_MAX + 32], err[512];
	char why[300];
	int ready = -1;
	struct mws_spawn s = {argv, uid, gid, rundir, log, fallback, &ready};
	pid_t pid;

	snprintf(pidfile, sizeof(pidfile), "%s/%s.pid", rundir, name);
	snprintf(log, sizeof(log), "%s/logs/%s-%s.log", outdir, name, host);
	snprintf(fallback, sizeof(fallback), "%s/%s.log", rundir, name);
	if (mws_pidfile_alive(pidfile, uid, name))
		return 0;
	if (mws_spawn_detached(&s, &pid, err, sizeof(err)) < 0) {
		start_fail("%s", err);
		return -1;
	}
	if (mws_rundir_pidfile(rundir, name, pid, uid, gid) < 0)
		slurm_error("mpiwatch: cannot write %s: %s", pidfile, strerror(errno));
	if (mws_wait_ready(ready, MWS_READY_WAIT_S) == 0) {
		if (!mws_last_line(log, uid, gid, why, sizeof(why))[0])
			mws_last_line(fallback, uid, gid, why, sizeof(why));
		start_fail("%s exited at start-up: %s", name, why[0] ? why : "(no message; see its log)");
		return -1;
	}
	return 0;
}

static int start_helpers(spank_t sp)
{
	uint32_t jobid = 0;
	uid_t uid;
	gid_t gid;
	char host[256], nodelist[4096], cwd[PATH_MAX], err[PATH_MAX + 300];
	char prog_agent[PATH_MAX + 32], prog_coll[PATH_MAX + 32], scoll[300], sjob[16];
	char settings[PATH_MAX + 16];
	struct mw_hostlist hl = {0};
	int lockfd = -1, rc = -1;

	if (spank_get_item(sp, S_JOB_ID, &jobid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS) {
		start_fail("cannot read the job's ids");
		return -1;
	}
	if (access(conf.lib, R_OK) < 0) {
		start_fail("monitor library %s: %s", conf.lib, strerror(errno));
		return -1;
	}
	snprintf(prog_agent, sizeof(prog_agent), "%s/mpiwatch-agent", conf.bindir);
	snprintf(prog_coll, sizeof(prog_coll), "%s/mpiwatch-collector", conf.bindir);
	if (access(prog_agent, X_OK) < 0 || access(prog_coll, X_OK) < 0) {
		start_fail("agent/collector not found in %s", conf.bindir);
		return -1;
	}
	{
		/* The agents prove who they are with MUNGE: without it the
		 * collector would refuse them all and the watch be silently off. */
		char merr[300], cred[MW_HB_CRED_MAX + 1];
		if (mw_auth_encode(conf.munge_socket, "", cred, sizeof(cred), merr, sizeof(merr)) < 0) {
			start_fail("%s (the agents cannot prove who they are to the collector; "
				   "munge_socket= in plugstack.conf?)", merr);
			return -1;
		}
	}
	mw_node_name(host, sizeof(host));
	if (mws_rundir(conf.rundir, uid, jobid, host, rundir, sizeof(rundir)) < 0 ||
	    mws_rundir(conf.rundir, uid, jobid, "%h", env_rundir, sizeof(env_rundir)) < 0 ||
	    mws_rundir_claim(rundir, uid, gid) < 0) {
		start_fail("run directory %s: %s", rundir, strerror(errno));
		return -1;
	}
	if (get_env(sp, "SLURM_JOB_NODELIST", nodelist, sizeof(nodelist)) < 0 ||
	    mw_hostlist_expand(nodelist, 100000, &hl) < 0) {
		start_fail("cannot read the job's node list");
		return -1;
	}
	snprintf(collector_host, sizeof(collector_host), "%s", hl.host[0]);
	mw_hostlist_free(&hl);
	if (get_env(sp, "PWD", cwd, sizeof(cwd)) < 0 || cwd[0] != '/')
		if (get_env(sp, "SLURM_SUBMIT_DIR", cwd, sizeof(cwd)) < 0 || cwd[0] != '/')
			snprintf(cwd, sizeof(cwd), "/tmp");
	/* The settings, resolved once for the job: the agent, the collector
	 * and the monitor read this file and nothing else. */
	if (mw_jobconf_resolve(&conf, jobid, cwd) < 0) {
		start_fail("report folder in %s: %s", cwd, strerror(errno));
		return -1;
	}
	snprintf(outdir, sizeof(outdir), "%s", conf.dir);
	collector_port = (unsigned)conf.port;
	/* The ranks' slots and dumps: this node's run directory, one value
	 * for every node ("%h": the monitor puts its node's name), since Open
	 * MPI's orted and MPICH's hydra pass the settings file's name on to
	 * the ranks they start on other nodes. */
	{
		char dumps[PATH_MAX + 8];
		snprintf(dumps, sizeof(dumps), "%s/dumps", env_rundir);
		if (mw_jobconf_set(&conf, MW_JC_JOB, "slot_dir", env_rundir, err, sizeof(err)) < 0 ||
		    mw_jobconf_set(&conf, MW_JC_JOB, "dump_dir", dumps, err, sizeof(err)) < 0) {
			start_fail("%s", err);
			return -1;
		}
	}

	/* dumps/, the launch lock (one launcher at a time per job and node:
	 * steps may start together) and the settings. */
	if (mws_rundir_fill(rundir, &conf, uid, gid, &lockfd, err, sizeof(err)) < 0) {
		start_fail("%s", err);
		goto out;
	}
	snprintf(settings, sizeof(settings), "%s/%s", rundir, MW_JOBCONF_FILE);
	snprintf(sjob, sizeof(sjob), "%u", jobid);
	snprintf(scoll, sizeof(scoll), "%s:%u", collector_host, collector_port);
	if (!strcmp(host, collector_host)) {
		char *argv[] = {prog_coll, "--job", sjob, "--nodes", nodelist, "--settings", settings,
				/* the site's auxiliary processes: never from the job's settings */
				conf.ap_conf[0] ? "--ap-conf" : NULL, conf.ap_conf, NULL};
		if (ensure_running("mpiwatch-collector", host, argv, uid, gid) < 0)
			goto out;
	}
	{
		char *argv[] = {prog_agent, "--job",     sjob,  "--node",     host,     "--rundir",
				rundir,     "--collector", scoll, "--settings", settings,
				conf.ap_conf[0] ? "--ap-conf" : NULL, conf.ap_conf, NULL};
		if (ensure_running("mpiwatch-agent", host, argv, uid, gid) < 0)
			goto out;
	}
	rc = 0;
out:
	if (lockfd >= 0)
		close(lockfd);
	return rc;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	if (spank_context() != S_CTX_REMOTE)
		return 0;
	load_conf(ac, av, 0); /* now with the user's option */
	if (conf_bad)
		return conf.strict && conf.on ? -1 : 0;
	if (!conf.on || !is_watched_step(sp))
		return 0;
	start_why[0] = 0;
	{
		char part[256];
		if (get_env(sp, "SLURM_JOB_PARTITION", part, sizeof(part)) == 0 &&
		    mws_partition_off(&conf, part)) {
			/* Said in the job's output only to a user who asked. */
			if (user_given)
				snprintf(start_why, sizeof(start_why),
					 "the site turned mpiwatch off for partition %s", part);
			return 0;
		}
	}
	if (start_helpers(sp) < 0) {
		/* The job's output hears it from task 0 (slurm_spank_task_init). */
		if (!start_why[0])
			snprintf(start_why, sizeof(start_why), "start-up failed");
		slurm_error("mpiwatch: this step is not watched%s",
			    conf.strict ? "; strict mode: failing the step" : "");
		return conf.strict ? -1 : 0;
	}
	watch_ok = 1;
	return 0;
}

static int set_env(spank_t sp, const char *name, const char *val)
{
	if (spank_setenv(sp, name, val, 1) != ESPANK_SUCCESS) {
		slurm_error("mpiwatch: cannot set %s", name);
		return -1;
	}
	return 0;
}

/* In the task, before the program: a step that could not be watched says so
 * in the job's own output (stderr), once: from the step's task 0, with the
 * reason its node found (other nodes' reasons are in their slurmd log). */
int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	uint32_t gtid = 1, jobid = 0;
	char host[256];
	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE || watch_ok || !start_why[0])
		return 0;
	if (spank_get_item(sp, S_TASK_GLOBAL_ID, &gtid) != ESPANK_SUCCESS || gtid != 0)
		return 0;
	mw_node_name(host, sizeof(host));
	spank_get_item(sp, S_JOB_ID, &jobid);
	fprintf(stderr, "mpiwatch: not watching job %u: %s (node %s)\n", jobid, start_why, host);
	fflush(stderr);
	return 0;
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	char cur[8192], preload[8192], buf[PATH_MAX + 16];
	(void)ac;
	(void)av;

	if (spank_context() != S_CTX_REMOTE || !watch_ok)
		return 0;
	get_env(sp, "LD_PRELOAD", cur, sizeof(cur));
	if (mws_preload_append(cur, conf.lib, preload, sizeof(preload)) < 0) {
		slurm_error("mpiwatch: LD_PRELOAD too long; not injecting the monitor");
		return conf.strict ? -1 : 0;
	}
	/* One value for every node ("%h": the monitor puts its node's name):
	 * Open MPI's orted and MPICH's hydra pass mpirun's environment on to
	 * the ranks they start on other nodes.  The settings (the timeout,
	 * the slot and dump folders) come from the job's settings file, as
	 * for the agent and collector: the monitor reads no other source. */
	if (env_rundir[0]) {
		snprintf(buf, sizeof(buf), "%s/%s", env_rundir, MW_JOBCONF_FILE);
		set_env(sp, MW_JOBCONF_ENV, buf);
	}
	/* The report folder and the profile's (a folder per step, so that
	 * steps of different sizes do not mix: mw_jobconf_profile_folder) are
	 * the settings file's too: the monitor reads nothing else.  The
	 * collector's address is the agent's business (its command line), not
	 * the ranks': no variable for it. */
	return set_env(sp, "LD_PRELOAD", preload) < 0 && conf.strict ? -1 : 0;
}

int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE || !watch_ok)
		return 0;
	return mws_task_exit_record(sp, rundir, outdir);
}

int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
	uint32_t jobid = 0;
	uid_t uid;
	gid_t gid;
	char host[256], dir[PATH_MAX], pidfile[PATH_MAX + 32];
	struct mw_fsid old;
	struct passwd *pw;

	load_conf(ac, av, 0);
	if (spank_get_item(sp, S_JOB_ID, &jobid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS)
		return 0;
	if (spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS)
		gid = (pw = getpwuid(uid)) ? pw->pw_gid : (gid_t)uid;
	mw_node_name(host, sizeof(host));
	if (mws_rundir(conf.rundir, uid, jobid, host, dir, sizeof(dir)) < 0 || access(dir, F_OK) < 0)
		return 0;
	/* Everything in the run folder as the job user (mws_rundir.h). */
	mw_fsid_enter(&old, uid, gid);
	/* The agent first, so the heartbeats it sends on its way out (ranks
	 * that died in the job's teardown) still reach the collector; then the
	 * collector, which writes its final report on SIGTERM. */
	snprintf(pidfile, sizeof(pidfile), "%s/mpiwatch-agent.pid", dir);
	mws_pidfile_stop(pidfile, uid, "mpiwatch-agent", 2.0);
	snprintf(pidfile, sizeof(pidfile), "%s/mpiwatch-collector.pid", dir);
	/* Up to 30 s: with profiles, the final report includes their
	 * imbalance analysis (about 2 s for 10,000 ranks). */
	mws_pidfile_stop(pidfile, uid, "mpiwatch-collector", 30.0);
	if (mws_rundir_remove(dir, uid) < 0)
		slurm_error("mpiwatch: job %u: cannot remove %s: %s", jobid, dir, strerror(errno));
	mw_fsid_leave(&old);
	return 0;
}

int slurm_spank_local_user_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	step_start = time(NULL);
	if (spank_get_item(sp, S_JOB_ID, &step_job) != ESPANK_SUCCESS)
		step_job = 0;
	return 0;
}

/* srun: whether path was written during this step. */
static int this_step(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && st.st_mtime + 1 >= step_start;
}

/* srun: print the answer if the collector reached a verdict during this
 * step: MW_ANSWER_FILE (one sentence per finding, the first lines of
 * report.txt) and report.txt's path; nothing when that file is empty (the
 * answer is that nothing failed).  A watched task that ended badly left
 * MW_PENDING_FILE: wait for the collector to tell (MW_PENDING_WAIT_S at
 * most) so that the answer is in srun's output, not only in the report. */
int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	char cwd[PATH_MAX], path[PATH_MAX + 16], answer[PATH_MAX + 16], pending[PATH_MAX + 32], line[1024];
	FILE *f;

	(void)sp;
	if (spank_context() != S_CTX_LOCAL || !step_start || !step_job)
		return 0;
	load_conf(ac, av, 0);
	if (conf_bad || !conf.on || !getcwd(cwd, sizeof(cwd)) || mw_jobconf_resolve(&conf, step_job, cwd) < 0)
		return 0;
	snprintf(path, sizeof(path), "%s/report.txt", conf.dir);
	snprintf(answer, sizeof(answer), "%s/%s", conf.dir, MW_ANSWER_FILE);
	snprintf(pending, sizeof(pending), "%s/%s", conf.dir, MW_PENDING_FILE);
	for (int i = 0; i < MW_PENDING_WAIT_S * 10 && this_step(pending); i++) {
		struct timespec ts = {0, 100000000L};
		nanosleep(&ts, NULL);
	}
	if (!this_step(answer) || !(f = fopen(answer, "r")))
		return 0;
	/* Nothing to tell (a healthy step, or a report of nothing: the file is
	 * empty): nothing is added to the step's output. */
	if (!fgets(line, sizeof(line), f) || line[0] == '\n') {
		fclose(f);
		return 0;
	}
	do
		fprintf(stderr, "mpiwatch: %s%s", line, strchr(line, '\n') ? "" : "\n");
	while (fgets(line, sizeof(line), f) && line[0] != '\n');
	fclose(f);
	fprintf(stderr, "mpiwatch: report %s\n", path);
	return 0;
}
