/* cmd_run.c - "mpiwatch run": watch an MPI program on one machine, with no
 * cluster.  It plays every part that Slurm and the SPANK plugin play on a
 * cluster: it starts a local probe responder (mpiwatch-nodehealthd on
 * loopback), the collector and one agent, runs the program through its MPI's
 * launcher with the monitor preloaded, records a crashed rank's exit status
 * in its slot (as the plugin's task_exit does), and ends the program after a
 * hang verdict. */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jobconf.h"
#include "auth.h"
#include "cli.h"
#include "conf.h"
#include "elfneeded.h"
#include "fsutil.h"
#include "log.h"
#include "mw_slot.h"
#include "runlaunch.h"

#define RUN_EXIT_HANG 2
#define RUN_EXIT_USAGE 2

/* mpiwatch run plays the site: its own defaults, given as plugstack.conf
 * arguments would be (a short timeout: one machine, a program under test). */
static char *const run_site[] = {"timeout=10"};

struct run_opts {
	long np;
	struct mw_jobconf jc; /* timeout, threshold, hang_limit, profile */
	const char *report;
	const char *dir;
	int mpi; /* enum mw_mpi_kind */
	int verbose;
	char **prog; /* argv of the program */
};

static const char run_intro[] =
	"Run an MPI program on this machine under watch: the monitor in every rank, a\n"
	"node agent, the collector and a local probe responder.  Prints the verdict and\n"
	"the report; writes the JSON report (default DIR/report.json).";

static const char run_epilog[] =
	"Ctrl-C prints where the ranks are; a second Ctrl-C within 1 s, SIGTERM or SIGHUP\n"
	"end the program and the helpers, and write the report.\n\n"
	"Exit status: the program's own, or 2 after a confirmed hang verdict (the program\n"
	"is ended); ended by a signal: 128 + its number (130 for Ctrl-C, 143 SIGTERM);\n"
	"2 for a usage error.";

static const char *const run_mpis[] = {"openmpi", "mpich", NULL};

/* Read the options into o.  Return -1 to go on, else the exit status. */
static int parse_opts(int argc, char **argv, struct run_opts *o)
{
	int mpi = -1, rc, first;
	char err[600];
	/* The settings: the one table's ranges (shared/jobconf.c). */
	const struct mw_cliopt opts[] = {
		{.name = "np", .shortname = 'n', .kind = MW_CLIOPT_LONG, .dst = &o->np, .arg = "N",
		 .min = 1, .max = 4096, .unit = "a rank count", .help = "ranks (default 2)"},
		{.name = "timeout", .shortname = 't', .kind = MW_CLIOPT_SETTING, .setting = "timeout",
		 .arg = "S", .help = "seconds without MPI progress before a rank is stuck (default 10)"},
		{.name = "hang-limit", .kind = MW_CLIOPT_SETTING, .setting = "hang_limit", .arg = "S",
		 .help = "end the program on a hang the analysis does not confirm "
			 "(no deadlock found: a slow transfer?) only after S seconds "
			 "(default 10 x the timeout)"},
		{.name = "threshold", .kind = MW_CLIOPT_SETTING, .setting = "threshold", .arg = "N|P%",
		 .help = "stuck ranks that make a suspicious event: N or P% (default 1)"},
		{.name = "report", .shortname = 'r', .kind = MW_CLIOPT_STRING, .dst = &o->report,
		 .arg = "FILE", .help = "also write the JSON report to FILE"},
		{.name = "dir", .shortname = 'd', .kind = MW_CLIOPT_STRING, .dst = &o->dir, .arg = "DIR",
		 .help = "where reports and dumps go (default ./mpiwatch-run.<pid>)"},
		{.name = "mpi", .kind = MW_CLIOPT_CHOICE, .dst = &mpi, .choices = run_mpis, .arg = "KIND",
		 .help = "openmpi or mpich (default: the MPI PROGRAM is linked against)"},
		{.name = "profile", .kind = MW_CLIOPT_SETTING, .setting = "profile", .fixed = "yes",
		 .help = "profile every rank (DIR/profile) and write the load-imbalance "
			 "analysis to DIR/imbalance.{txt,json,html} at the end"},
		{.name = "verbose", .shortname = 'v', .kind = MW_CLIOPT_FLAG, .dst = &o->verbose,
		 .help = "show what is started"},
		{.name = NULL},
	};
	const struct mw_cliopt_cmd cmd = {
		.prog = "mpiwatch run", .args = "-- PROGRAM [ARGS...]", .intro = run_intro,
		.epilog = run_epilog, .in_order = 1, .keys = mw_jobconf_keys, .conf = &o->jc, .opts = opts,
	};

	o->np = 2;
	o->mpi = MW_MPI_UNKNOWN;
	if (mw_jobconf_init(&o->jc) < 0 ||
	    mw_jobconf_parse_site(&o->jc, 1, run_site, err, sizeof(err)) != 0) {
		fprintf(stderr, "mpiwatch run: out of memory\n");
		return RUN_EXIT_USAGE;
	}
	if ((rc = mw_cli_options(&cmd, argc, argv, &first)) >= 0)
		return rc;
	if (mpi >= 0)
		o->mpi = mpi == 0 ? MW_MPI_OPENMPI : MW_MPI_MPICH;
	if (first >= argc) {
		fprintf(stderr, "mpiwatch run: no program given\n");
		mw_cli_usage(&cmd, stderr);
		return RUN_EXIT_USAGE;
	}
	o->prog = argv + first;
	return -1;
}

/* A free local port of the given type (bound, then released). */
static int free_port(int type)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0), port = -1;

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	close(fd);
	return port;
}

/* The report's verdict ("none", "software", "hardware"), or "" if there is
 * no readable report yet.  Return whether the program is to be ended: a
 * verdict the collector confirmed (a suspected hang is only reported). */
static int read_verdict(const char *path, char *buf, size_t len)
{
	char *text;
	size_t n;
	int end;

	buf[0] = '\0';
	/* A regular file only, never blocking (runlaunch.h: the parser). */
	if (mw_read_regular(path, 256u << 20, &text, &n) < 0)
		return 0;
	end = mw_run_verdict_parse(text, n, buf, len);
	free(text);
	return end;
}

static void print_file(const char *path, FILE *to)
{
	char line[1024];
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		fputs(line, to);
	fclose(f);
}

static double now_s(void)
{
	return mw_now();
}

/* A fresh 64-hex-digit token in a new file of mode 0600.  Return 0 or -1. */
static int write_token(const char *path)
{
	char tok[80];
	int fd, rc = -1;
	if (mw_auth_nonce(tok, sizeof(tok)) < 0 || mw_auth_nonce(tok + 32, sizeof(tok) - 32) < 0)
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -1;
	if (write(fd, tok, 64) == 64)
		rc = 0;
	if (close(fd) != 0)
		rc = -1;
	return rc;
}

/* A second Ctrl-C within this many seconds of the first's message ends
 * the run (srun's rule). */
#define RUN_INT_WINDOW_S 1.0
/* After the launcher ended with a failure: seconds for the agent and the
 * collector to see the ranks gone and how, before the helpers stop. */
#define RUN_LAUNCHER_GRACE_S 5

/* The signals that arrived: a first SIGINT prints where the ranks are and
 * notes when (*int_at); a second within RUN_INT_WINDOW_S of that, SIGTERM or
 * SIGHUP end the run.  Return the ending signal, or 0 to go on. */
static int take_signal(struct mw_run_procs *procs, const char *slots, double *int_at)
{
	int sig = mw_run_signal_take(procs->sig_fd);

	if (sig != SIGINT)
		return sig;
	if (*int_at > 0 && now_s() - *int_at <= RUN_INT_WINDOW_S)
		return SIGINT;
	fprintf(stderr, "mpiwatch: interrupt: where the ranks are now "
			"(Ctrl-C again within 1 s ends the program):\n");
	mw_run_print_ranks(slots, stderr);
	*int_at = now_s();
	return 0;
}

/* End mpiwatch run by sig itself, as a shell expects of a program that a
 * signal ended (status 128 + sig); returns only if that fails. */
static void end_by_signal(int sig)
{
	sigset_t set;

	fflush(NULL);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	raise(sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/* Everything after the options. */
static int run_watched(struct run_opts *o)
{
	struct mw_run_paths paths;
	struct mw_run_procs procs = {0};
	char work[] = "/dev/shm/mpiwatch-run.XXXXXX", outdir[PATH_MAX], report[PATH_MAX + 16];
	char slots[PATH_MAX], verdict[32] = "", txt[PATH_MAX + 16];
	int coll_port, probe_port, status = 0, exit_code = 1, hang = 0, interrupted = 0;
	double deadline, int_at = 0;

	mw_log_open("mpiwatch run", MW_LOG_STDERR, o->verbose ? LOG_DEBUG : LOG_WARNING);
	procs.err_fd = -1;
	/* SIGINT, SIGTERM and SIGHUP are read in the watch loop (take_signal),
	 * before any helper starts. */
	if ((procs.sig_fd = mw_run_signals_open()) < 0) {
		fprintf(stderr, "mpiwatch run: cannot take the signals: %s\n", strerror(errno));
		return 1;
	}
	if (mw_run_find_paths(&paths) < 0)
		return 1;
	if (o->mpi == MW_MPI_UNKNOWN) {
		char prog[PATH_MAX];
		if (mw_run_which(o->prog[0], prog, sizeof(prog)) < 0) {
			fprintf(stderr, "mpiwatch run: %s: program not found\n", o->prog[0]);
			return 1;
		}
		int k = mw_elf_mpi_kind(prog);
		if (k <= 0) {
			fprintf(stderr,
				"mpiwatch run: cannot tell which MPI %s is linked against; use --mpi openmpi|mpich\n",
				prog);
			return 1;
		}
		o->mpi = k;
	}
	if (!mkdtemp(work)) {
		fprintf(stderr, "mpiwatch run: cannot create a work folder in /dev/shm: %s\n", strerror(errno));
		return 1;
	}
	/* If mpiwatch run is SIGKILLed, this removes the work folder. */
	int wd = mw_run_watchdog_start(work);
	snprintf(slots, sizeof(slots), "%s/slots", work);
	if (o->dir)
		snprintf(outdir, sizeof(outdir), "%s", o->dir);
	else
		snprintf(outdir, sizeof(outdir), "mpiwatch-run.%d", (int)getpid());
	if (mkdir(slots, 0700) < 0 || (mkdir(outdir, 0755) < 0 && errno != EEXIST)) {
		fprintf(stderr, "mpiwatch run: cannot create %s: %s\n", outdir, strerror(errno));
		mw_run_watchdog_done(wd);
		mw_rmtree(work, (uid_t)-1);
		return 1;
	}
	snprintf(report, sizeof(report), "%s/report.json", outdir);
	snprintf(txt, sizeof(txt), "%s/report.txt", outdir);
	/* The ranks' profile folder, in the settings file (the monitor reads
	 * nothing else): DIR/profile with --profile (and the load-imbalance
	 * report at the end). */
	char profdir[PATH_MAX + 16], perr[PATH_MAX + 64];
	int imb_report = o->jc.profile;
	snprintf(profdir, sizeof(profdir), "%s/profile", outdir);
	if (o->jc.profile && mw_jobconf_set(&o->jc, MW_JC_JOB, "profile_dir", profdir, perr, sizeof(perr)) < 0) {
		fprintf(stderr, "mpiwatch run: %s: %s\n", profdir, perr);
		mw_run_watchdog_done(wd);
		mw_rmtree(work, (uid_t)-1);
		return 1;
	}
	unlink(report);
	unlink(txt);
	coll_port = free_port(SOCK_STREAM);
	probe_port = free_port(SOCK_DGRAM);
	if (coll_port < 0 || probe_port < 0) {
		fprintf(stderr, "mpiwatch run: no free local port\n");
		mw_run_watchdog_done(wd);
		mw_rmtree(work, (uid_t)-1);
		return 1;
	}

	/* The agent proves itself to the collector with a token only this user
	 * can read (one machine: no MUNGE daemon needed), in the work folder. */
	char token[PATH_MAX + 16];
	snprintf(token, sizeof(token), "%s/auth.token", work);
	if (write_token(token) < 0) {
		fprintf(stderr, "mpiwatch run: %s: %s\n", token, strerror(errno));
		mw_run_watchdog_done(wd);
		mw_rmtree(work, (uid_t)-1);
		return 1;
	}

	/* The MPI library's own error lines, for the collector (doc/collector.md). */
	snprintf(procs.mpierr_file, sizeof(procs.mpierr_file), "%s/" MW_MPI_ERRORS_FILE, outdir);
	/* Created empty: it tells the collector the launcher's output is read
	 * (it then gives the library's line a moment before a verdict). */
	if (mw_write_atomic(procs.mpierr_file, "", 0, 0644, (uid_t)-1, (gid_t)-1) < 0)
		unlink(procs.mpierr_file);
	snprintf(procs.crash_file, sizeof(procs.crash_file), "%s/" MW_CRASH_STACKS_FILE, outdir);
	unlink(procs.crash_file);
	{
		char le[PATH_MAX + 32]; /* written when the launcher failed by itself */
		snprintf(le, sizeof(le), "%s/" MW_LAUNCHER_EXIT_FILE, outdir);
		unlink(le);
	}
	/* Profiled: a quick calibration of this machine (before the ranks
	 * start, so they do not share a core with it), whose figures the
	 * compute-phase flag uses (issue 32; doc/imbalance.md). */
	char calfile[PATH_MAX + 32], calerr[600];
	int have_cal = 0;
	snprintf(calfile, sizeof(calfile), "%s/calibration.json", work);
	if (o->jc.profile) {
		have_cal = mw_cli_calibrate_quick_file(calfile, calerr, sizeof(calerr)) == 0;
		if (!have_cal)
			fprintf(stderr, "mpiwatch run: warning: %s; the compute-phase flag uses its fixed criterion\n",
				calerr);
		else if (o->verbose)
			fprintf(stderr, "mpiwatch run: quick calibration of this machine in %s\n", calfile);
	}
	struct mw_run_spec spec = {
		.calibration = have_cal ? calfile : NULL,
		.work = work, .slots = slots, .outdir = outdir, .report = report, .auth_file = token,
		.jc = &o->jc, .np = o->np,
		.collector_port = coll_port, .probe_port = probe_port, .mpi = o->mpi,
		.prog = o->prog, .verbose = o->verbose,
	};
	if (mw_run_start_helpers(&paths, &spec, &procs) < 0) {
		mw_run_stop_helpers(&procs);
		mw_run_watchdog_done(wd);
		mw_rmtree(work, (uid_t)-1);
		return 1;
	}
	if (mw_run_start_program(&paths, &spec, &procs) < 0) {
		mw_run_stop_helpers(&procs);
		mw_run_watchdog_done(wd);
		mw_rmtree(work, (uid_t)-1);
		return 1;
	}

	/* Watch: forward the launcher's stderr, note crashed ranks, and stop the
	 * program as soon as the collector reaches a verdict or a signal ends
	 * the run. */
	for (;;) {
		if (mw_run_pump_stderr(&procs, slots, 200) < 0)
			break;
		if ((interrupted = take_signal(&procs, slots, &int_at))) {
			mw_run_end_program(&procs, &status);
			break;
		}
		pid_t w = waitpid(procs.launcher, &status, WNOHANG);
		if (w == procs.launcher) {
			procs.launcher = 0;
			break;
		}
		if (read_verdict(report, verdict, sizeof(verdict))) {
			hang = 1;
			mw_run_end_program(&procs, &status);
			break;
		}
	}
	/* The rest of the launcher's messages (bounded: a stray child may hold
	 * the pipe open). */
	for (int i = 0; i < 30 && mw_run_pump_stderr(&procs, slots, 100) == 0; i++)
		if (!interrupted && (interrupted = take_signal(&procs, slots, &int_at)))
			mw_run_end_program(&procs, &status);
	if (interrupted) {
		exit_code = 128 + interrupted;
	} else if (!hang) {
		if (procs.launcher > 0)
			while (waitpid(procs.launcher, &status, 0) < 0 && errno == EINTR)
				;
		procs.launcher = 0;
		/* Its output is read to its end: tell the collector the launcher
		 * failed by itself (not killed), so ranks that vanished are the
		 * program's failure although the library's own line was lost. */
		if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
			char ex[16], path[PATH_MAX + 32];
			int n = snprintf(ex, sizeof(ex), "%d\n", WEXITSTATUS(status));
			snprintf(path, sizeof(path), "%s/" MW_LAUNCHER_EXIT_FILE, outdir);
			if (mw_write_atomic(path, ex, (size_t)n, 0644, (uid_t)-1, (gid_t)-1) < 0)
				fprintf(stderr, "mpiwatch run: cannot write %s: %s\n", path, strerror(errno));
		}
		/* The program ended.  If it failed, give the agent and collector
		 * time to see which rank died and how (a signal cuts it short).
		 * A launcher ended by a signal (killed: SIGKILL, an OOM kill) took
		 * the ranks with it: the run is over, and the agent reports the
		 * ranks gone within seconds; the collector's evaluation at
		 * shutdown then says the launcher was killed, without waiting
		 * for the stall timeout. */
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			deadline = now_s() + RUN_LAUNCHER_GRACE_S + (WIFSIGNALED(status) ? 0 : o->jc.timeout);
			while (now_s() < deadline && !interrupted) {
				if (read_verdict(report, verdict, sizeof(verdict)))
					break;
				mw_run_pump_stderr(&procs, slots, 100);
				interrupted = take_signal(&procs, slots, &int_at);
			}
		}
		exit_code = interrupted ? 128 + interrupted
			    : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	} else {
		exit_code = RUN_EXIT_HANG;
	}
	mw_run_stop_helpers(&procs); /* the collector writes its final report */
	read_verdict(report, verdict, sizeof(verdict));
	if ((verdict[0] && strcmp(verdict, "none")) || (!hang && !WIFEXITED(status)))
		print_file(txt, stderr); /* a verdict, or the launcher killed */
	if (o->report && mw_run_copy_file(report, o->report) < 0)
		fprintf(stderr, "mpiwatch run: cannot write %s: %s\n", o->report, strerror(errno));
	/* The last line names the readable report; the JSON one is beside it. */
	{
		char html[PATH_MAX + 16];
		snprintf(html, sizeof(html), "%s/report.html", outdir);
		if (access(html, R_OK) == 0)
			fprintf(stderr, "mpiwatch: HTML report %s\n", html);
	}
	fprintf(stderr, "mpiwatch: JSON report %s\n", o->report ? o->report : report);
	fprintf(stderr, "mpiwatch: verdict %s%s; report %s\n", verdict[0] ? verdict : "unknown",
		hang ? " (the program was ended)" : "", txt);
	if (imb_report && !hang)
		mw_cli_imbalance_report(profdir, outdir, have_cal ? calfile : NULL);
	mw_run_watchdog_done(wd);
	mw_rmtree(work, (uid_t)-1);
	if (interrupted) {
		fprintf(stderr, "mpiwatch: ended by %s\n", strsignal(interrupted));
		end_by_signal(interrupted);
	}
	close(procs.sig_fd);
	return exit_code;
}

static int run_main(int argc, char **argv)
{
	struct run_opts o = {0};
	int rc = parse_opts(argc, argv, &o);

	if (rc < 0)
		rc = run_watched(&o);
	mw_jobconf_free(&o.jc);
	return rc;
}

MW_CLI_COMMAND(run, "run",
	       "run an MPI program on this machine under watch", run_main)
