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
#include "mw_slot.h"
#include "mws_taskexit.h"

SPANK_PLUGIN(mpiwatch, 1);

/* Special step ids (slurm.h): batch script, extern, interactive, pending. */
#define MWS_STEP_SPECIAL_MIN 0xfffffff0u
#define MWS_STEP_BATCH 0xfffffffbu	  /* SLURM_BATCH_SCRIPT */
#define MWS_STEP_INTERACTIVE 0xfffffffau /* SLURM_INTERACTIVE_STEP */

static struct mws_site site;
static struct mws_user user;
static int site_bad;

/* Computed in init_post_opt (remote) for user_init and task_exit. */
static int watch_ok;
static char rundir[PATH_MAX], env_rundir[PATH_MAX], outdir[PATH_MAX];
static char collector_host[256];
static unsigned collector_port;

/* srun: when the step started, to show only a verdict reached during it. */
static time_t step_start;

static int opt_cb(int val, const char *optarg, int remote);

static struct spank_option mws_option = {
	"mpiwatch", "[ARGS]",
	"Watch this MPI job with mpiwatch: tell a dead node from a stuck program. "
	"ARGS: off, timeout=S, threshold=N|P%, dir=PATH, action=report|cancel|requeue, profile "
	"(comma-separated).",
	2, 0, opt_cb};

static int opt_cb(int val, const char *optarg, int remote)
{
	char err[512];
	(void)val;
	(void)remote;
	if (mws_user_parse(optarg, &user, err, sizeof(err)) < 0) {
		slurm_error("%s", err);
		return -1;
	}
	return 0;
}

static void log_site_errors(const char *errs)
{
	char buf[4096];
	char *save = NULL;
	snprintf(buf, sizeof(buf), "%s", errs);
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		slurm_error("mpiwatch: %s", l);
	slurm_error("mpiwatch: plugin disabled until plugstack.conf is fixed%s",
		    site.strict ? " (strict: watched jobs fail)" : "");
}

/* Read the plugstack.conf arguments (init is not called before job_epilog). */
static void load_site(int ac, char **av, int log_errors)
{
	char err[4096];

	mws_site_defaults(&site);
	site_bad = mws_site_parse(ac, av, &site, err, sizeof(err));
	if (site_bad && log_errors)
		log_site_errors(err);
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();

	mws_user_defaults(&user);
	load_site(ac, av, 1);
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

/* The name of this step's profile folder: "batch", "interactive", "stepN". */
static void step_label(spank_t sp, char *buf, size_t len)
{
	uint32_t stepid = 0;
	spank_get_item(sp, S_JOB_STEPID, &stepid);
	if (stepid == MWS_STEP_BATCH)
		snprintf(buf, len, "batch");
	else if (stepid == MWS_STEP_INTERACTIVE)
		snprintf(buf, len, "interactive");
	else
		snprintf(buf, len, "step%u", stepid);
}

/* Start one helper if its pid file names no live process.  Its log goes to
 * logs/NAME-HOST.log in the job's report folder, so that it outlives the job
 * (the epilog removes the run folder), or to the run folder if the report
 * folder cannot be written.  Return 0 or -1. */
static int ensure_running(const char *name, const char *host, char *const *argv, uid_t uid,
			  gid_t gid)
{
	char pidfile[PATH_MAX + 32], log[PATH_MAX + 300], fallback[PATH_MAX + 32], err[512];
	struct mws_spawn s = {argv, uid, gid, rundir, log, fallback};
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
	if (mw_pidfile_write(pidfile, pid, uid, gid) < 0)
		slurm_error("mpiwatch: cannot write %s: %s", pidfile, strerror(errno));
	return 0;
}

static int start_helpers(spank_t sp)
{
	uint32_t jobid = 0;
	uid_t uid;
	gid_t gid;
	char host[256], nodelist[4096], cwd[PATH_MAX], dumps[PATH_MAX + 8], lock[PATH_MAX + 16];
	char prog_agent[PATH_MAX + 32], prog_coll[PATH_MAX + 32], sport[16], stimeout[32],
		sthreshold[32], scoll[300], sprobe[16];
	struct mw_hostlist hl = {0};
	int lockfd = -1, rc = -1;

	if (spank_get_item(sp, S_JOB_ID, &jobid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS) {
		start_fail("cannot read the job's ids");
		return -1;
	}
	if (access(site.lib, R_OK) < 0) {
		start_fail("monitor library %s: %s", site.lib, strerror(errno));
		return -1;
	}
	snprintf(prog_agent, sizeof(prog_agent), "%s/mpiwatch-agent", site.bindir);
	snprintf(prog_coll, sizeof(prog_coll), "%s/mpiwatch-collector", site.bindir);
	if (access(prog_agent, X_OK) < 0 || access(prog_coll, X_OK) < 0) {
		start_fail("agent/collector not found in %s", site.bindir);
		return -1;
	}
	{
		/* The agents prove who they are with MUNGE: without it the
		 * collector would refuse them all and the watch be silently off. */
		char merr[300], cred[MW_HB_CRED_MAX + 1];
		if (mw_auth_encode(site.munge_socket, "", cred, sizeof(cred), merr, sizeof(merr)) < 0) {
			start_fail("%s (the agents cannot prove who they are to the collector; "
				   "munge_socket= in plugstack.conf?)", merr);
			return -1;
		}
	}
	mw_node_name(host, sizeof(host));
	if (mws_rundir(site.rundir, uid, jobid, host, rundir, sizeof(rundir)) < 0 ||
	    mws_rundir(site.rundir, uid, jobid, "%h", env_rundir, sizeof(env_rundir)) < 0 ||
	    mws_mkdir_owned(rundir, uid, gid) < 0) {
		start_fail("run directory %s: %s", rundir, strerror(errno));
		return -1;
	}
	snprintf(dumps, sizeof(dumps), "%s/dumps", rundir);
	if (mws_mkdir_owned(dumps, uid, gid) < 0) {
		start_fail("%s: %s", dumps, strerror(errno));
		return -1;
	}
	if (get_env(sp, "SLURM_JOB_NODELIST", nodelist, sizeof(nodelist)) < 0 ||
	    mw_hostlist_expand(nodelist, 100000, &hl) < 0) {
		start_fail("cannot read the job's node list");
		return -1;
	}
	snprintf(collector_host, sizeof(collector_host), "%s", hl.host[0]);
	mw_hostlist_free(&hl);
	collector_port = mws_collector_port(site.port_base, jobid);
	if (get_env(sp, "PWD", cwd, sizeof(cwd)) < 0 || cwd[0] != '/')
		if (get_env(sp, "SLURM_SUBMIT_DIR", cwd, sizeof(cwd)) < 0 || cwd[0] != '/')
			snprintf(cwd, sizeof(cwd), "/tmp");
	if (mws_outdir(cwd, user.dir, jobid, outdir, sizeof(outdir)) < 0) {
		start_fail("output directory path too long");
		return -1;
	}

	/* One launcher at a time per job and node (steps may start together). */
	snprintf(lock, sizeof(lock), "%s/launch.lock", rundir);
	lockfd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (lockfd < 0 || flock(lockfd, LOCK_EX) < 0) {
		start_fail("%s: %s", lock, strerror(errno));
		goto out;
	}
	snprintf(stimeout, sizeof(stimeout), "%g", user.timeout > 0 ? user.timeout : site.timeout);
	mws_threshold_str(&site, &user, sthreshold, sizeof(sthreshold));
	snprintf(sport, sizeof(sport), "%u", collector_port);
	snprintf(sprobe, sizeof(sprobe), "%ld", site.probe_port);
	snprintf(scoll, sizeof(scoll), "%s:%u", collector_host, collector_port);
	if (!strcmp(host, collector_host)) {
		char sjob[16];
		const char *action = mws_action_name(user.action >= 0 ? user.action : (int)site.action);
		snprintf(sjob, sizeof(sjob), "%u", jobid);
		char *argv[40]; /* 31 at most, with every option */
		int n = 0;
		argv[n++] = prog_coll;
		argv[n++] = "--job";
		argv[n++] = sjob;
		argv[n++] = "--nodes";
		argv[n++] = nodelist;
		argv[n++] = "--port";
		argv[n++] = sport;
		argv[n++] = "--timeout";
		argv[n++] = stimeout;
		argv[n++] = "--threshold";
		argv[n++] = sthreshold;
		argv[n++] = "--dir";
		argv[n++] = outdir;
		argv[n++] = "--action";
		argv[n++] = (char *)action;
		argv[n++] = "--drain";
		argv[n++] = site.drain ? "yes" : "no";
		argv[n++] = "--post";
		argv[n++] = site.post ? "yes" : "no";
		argv[n++] = "--nhd-socket";
		argv[n++] = site.nhd_socket;
		argv[n++] = "--probe-port";
		argv[n++] = sprobe;
		double hang = user.hang_limit > 0 ? user.hang_limit : site.hang_limit;
		char shang[32];
		if (hang > 0) {
			snprintf(shang, sizeof(shang), "%g", hang);
			argv[n++] = "--hang-limit";
			argv[n++] = shang;
		}
		if (site.restd[0]) {
			argv[n++] = "--restd";
			argv[n++] = site.restd;
		}
		if (site.munge_socket[0]) {
			argv[n++] = "--munge-socket";
			argv[n++] = site.munge_socket;
		}
		/* Always: a later step may profile when the first does not. */
		char sprof[PATH_MAX + 16];
		snprintf(sprof, sizeof(sprof), "%s/profile", outdir);
		argv[n++] = "--profile";
		argv[n++] = sprof;
		argv[n] = NULL;
		if (ensure_running("mpiwatch-collector", host, argv, uid, gid) < 0)
			goto out;
	}
	{
		char sjob[16];
		snprintf(sjob, sizeof(sjob), "%u", jobid);
		char *argv[] = {prog_agent, "--job", sjob,	"--node",    host,     "--rundir",
				rundir,     "--collector", scoll, "--timeout", stimeout, NULL, NULL, NULL};
		if (site.munge_socket[0]) {
			argv[11] = "--munge-socket";
			argv[12] = site.munge_socket;
		}
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
	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE)
		return 0;
	if (site_bad)
		return site.strict && mws_enabled(&site, &user) ? -1 : 0;
	if (!mws_enabled(&site, &user) || !is_watched_step(sp))
		return 0;
	start_why[0] = 0;
	{
		char part[256];
		if (get_env(sp, "SLURM_JOB_PARTITION", part, sizeof(part)) == 0 &&
		    mws_partition_off(&site, part)) {
			/* Said in the job's output only to a user who asked. */
			if (user.given)
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
			    site.strict ? "; strict mode: failing the step" : "");
		return site.strict ? -1 : 0;
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
	uint32_t gtid = 1;
	char host[256];
	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE || watch_ok || !start_why[0])
		return 0;
	if (spank_get_item(sp, S_TASK_GLOBAL_ID, &gtid) != ESPANK_SUCCESS || gtid != 0)
		return 0;
	mw_node_name(host, sizeof(host));
	fprintf(stderr, "mpiwatch: this step is not watched: %s (node %s)\n", start_why, host);
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
	if (mws_preload_append(cur, site.lib, preload, sizeof(preload)) < 0) {
		slurm_error("mpiwatch: LD_PRELOAD too long; not injecting the monitor");
		return site.strict ? -1 : 0;
	}
	snprintf(buf, sizeof(buf), "%g", user.timeout > 0 ? user.timeout : site.timeout);
	set_env(sp, "MPIWATCH_TIMEOUT", buf);
	/* One value for every node ("%h": the monitor puts its node's name):
	 * Open MPI's orted and MPICH's hydra pass mpirun's environment on to
	 * the ranks they start on other nodes. */
	if (env_rundir[0]) {
		set_env(sp, "MPIWATCH_RUNDIR", env_rundir);
		snprintf(buf, sizeof(buf), "%s/dumps", env_rundir);
		set_env(sp, "MPIWATCH_DUMPDIR", buf);
	}
	set_env(sp, "MPIWATCH_DIR", outdir);
	snprintf(buf, sizeof(buf), "%s:%u", collector_host, collector_port);
	set_env(sp, "MPIWATCH_COLLECTOR", buf);
	if (user.profile) {
		/* A folder per step: steps of different sizes do not mix. */
		char step[32];
		step_label(sp, step, sizeof(step));
		snprintf(buf, sizeof(buf), "%.4000s/profile/%s", outdir, step);
		set_env(sp, "MPIWATCH_PROFILE", buf);
	}
	return set_env(sp, "LD_PRELOAD", preload) < 0 && site.strict ? -1 : 0;
}

int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE || !watch_ok)
		return 0;
	return mws_task_exit_record(sp, rundir);
}

int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
	uint32_t jobid = 0;
	uid_t uid;
	char host[256], dir[PATH_MAX], pidfile[PATH_MAX + 32];

	load_site(ac, av, 0);
	if (spank_get_item(sp, S_JOB_ID, &jobid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS)
		return 0;
	mw_node_name(host, sizeof(host));
	if (mws_rundir(site.rundir, uid, jobid, host, dir, sizeof(dir)) < 0 || access(dir, F_OK) < 0)
		return 0;
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
	return 0;
}

int slurm_spank_local_user_init(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	step_start = time(NULL);
	return 0;
}

/* srun: print the verdict if the collector reached one during this step. */
int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	uint32_t jobid = 0;
	char cwd[PATH_MAX], dir[PATH_MAX], path[PATH_MAX + 16], line[1024];
	struct stat st;
	FILE *f;
	(void)ac;
	(void)av;

	if (spank_context() != S_CTX_LOCAL || !step_start || !mws_enabled(&site, &user) ||
	    spank_get_item(sp, S_JOB_ID, &jobid) != ESPANK_SUCCESS || !getcwd(cwd, sizeof(cwd)) ||
	    mws_outdir(cwd, user.dir, jobid, dir, sizeof(dir)) < 0)
		return 0;
	snprintf(path, sizeof(path), "%s/report.txt", dir);
	if (stat(path, &st) < 0 || st.st_mtime + 1 < step_start || !(f = fopen(path, "r")))
		return 0;
	while (fgets(line, sizeof(line), f))
		fprintf(stderr, "mpiwatch: %s", line);
	fclose(f);
	return 0;
}
