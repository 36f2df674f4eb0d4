/* runlaunch.h - processes of "mpiwatch run": the local probe responder, the
 * collector, the agent and the MPI launcher. */
#ifndef MW_RUNLAUNCH_H
#define MW_RUNLAUNCH_H

#include <limits.h>
#include <stdio.h>
#include <sys/types.h>

#include "dl_crash.h"
#include "jobconf.h"

/* Where the pieces are, found next to the running mpiwatch binary (build tree
 * or installed tree); $MPIWATCH_LIB overrides the monitor library. */
struct mw_run_paths {
	char lib[PATH_MAX];
	char agent[PATH_MAX];
	char collector[PATH_MAX];
	char nhd[PATH_MAX];
};

struct mw_run_spec {
	const char *work;    /* private work folder (config, sockets) */
	const char *slots;   /* the ranks' slot folder (the settings' slot_dir) */
	const char *outdir;  /* reports and dumps */
	const char *report;  /* outdir/report.json */
	struct mw_jobconf *jc; /* the settings (shared/jobconf.h): start_helpers
				* completes them for this machine and writes them
				* to WORK/settings for the collector, the agent and
				* the monitor */
	const char *auth_file; /* token file for --auth-file (agent and collector) */
	const char *calibration; /* this machine's quick calibration (JSON) for the
				  * collector's --calibration, or NULL */
	long np;
	int collector_port, probe_port;
	int mpi; /* enum mw_mpi_kind */
	char **prog;
	int verbose;
};

struct mw_run_procs {
	pid_t nhd, collector, agent, launcher;
	int err_fd;      /* the launcher's stderr (a pipe), -1 when closed */
	int sig_fd;      /* mw_run_signals_open()'s signalfd, or <= 0: none */
	char line[4096]; /* partial stderr line being assembled */
	size_t used;
	pid_t last_pid;  /* MPICH: the PID of the last "BAD TERMINATION" block */
	struct dl_mpierr_state mpierr;     /* Open MPI's error block being read */
	char mpierr_file[4200]; /* where the MPI library's error lines go ("" none) */
	struct dl_crash_bt bt;    /* Open MPI's crash report being read */
	char crash_file[4200];  /* where the crashed ranks' stacks go ("" none) */
};

/* Take SIGINT, SIGTERM and SIGHUP through a signalfd (shared/sigfd.h), and
 * remember the signal mask and SIGPIPE's disposition as they were, which
 * every process started later gets back before its exec: the program's
 * signals are its own.  Return the signalfd, or -1 with errno set. */
int mw_run_signals_open(void);

/* Read the signals that arrived on fd (non-blocking).  Return the last one
 * read that ends the run at once (SIGTERM, SIGHUP), else SIGINT if one came,
 * else 0. */
int mw_run_signal_take(int fd);

/* Print to out, one line per rank, where the ranks in the slot folder are
 * now: in which MPI call and for how long, computing, or ended. */
void mw_run_print_ranks(const char *slots, FILE *out);

/* Start a watchdog for the work folder: a child of mpiwatch run (no exec)
 * in its own process group, with no terminal, that waits on a pipe.  When
 * mpiwatch run dies without saying it is done (SIGKILL), the pipe ends: the
 * watchdog gives the helpers and the launcher, which the kernel has sent
 * SIGTERM (spawn: PR_SET_PDEATHSIG), 2 s, then removes the work folder.
 * Return the pipe's write end for mw_run_watchdog_done, or -1 (errno set). */
int mw_run_watchdog_start(const char *work);

/* Tell the watchdog of fd that mpiwatch run cleans up itself, and close fd
 * (the watchdog then exits without doing anything). */
void mw_run_watchdog_done(int fd);

/* Fill paths.  Return 0, or -1 after printing what is missing. */
int mw_run_find_paths(struct mw_run_paths *p);

/* Resolve a program name like execvp would.  Return 0 or -1. */
int mw_run_which(const char *name, char *out, size_t len);

/* Complete s->jc for this machine (ports, sockets, report folder, action
 * report, no drain, no comment), write it to WORK/settings, start the probe
 * responder, the collector and the agent, and wait until the collector
 * listens.  Return 0, or -1 after printing why. */
int mw_run_start_helpers(const struct mw_run_paths *p, const struct mw_run_spec *s,
			 struct mw_run_procs *procs);

/* Start the MPI launcher in its own process group with the monitor preloaded.
 * Return 0, or -1 after printing why. */
int mw_run_start_program(const struct mw_run_paths *p, const struct mw_run_spec *s,
			 struct mw_run_procs *procs);

/* Copy the launcher's stderr to ours unchanged for up to ms milliseconds
 * (less if a signal arrives on procs->sig_fd: it is left to be read), and
 * record in their slots the exit status of ranks the launcher reports dead.
 * Return 0, or -1 once the stream has ended. */
int mw_run_pump_stderr(struct mw_run_procs *procs, const char *slots, int ms);

/* The verdict in the text of a report.json (len bytes, any bytes: the
 * collector's file, which the user may replace): its "verdict" string into
 * buf (cut to len - 1 bytes; "" if there is none or the text is not a JSON
 * object).  Return 1 if the run is over for "mpiwatch run": a verdict other
 * than "none" with "confirmed": true; else 0. */
int mw_run_verdict_parse(const char *text, size_t textlen, char *buf, size_t len);

/* End the launcher's process group (SIGTERM, then SIGKILL) and reap it. */
void mw_run_end_program(struct mw_run_procs *procs, int *status);

/* SIGTERM the helpers (the collector writes its final report) and reap them. */
void mw_run_stop_helpers(struct mw_run_procs *procs);

/* A rank the launcher reported dead. */
struct mw_run_death {
	int rank;        /* world rank, or -1 if only the pid is known */
	pid_t pid;       /* pid, or 0 if only the rank is known */
	int wait_status; /* as waitpid() would report it */
};

/* Record a dead rank's wait status in its slot, found by rank (checked
 * against the pid when both are known) or by pid.  Return 0 if a slot was
 * updated, -1 if none matched. */
int mw_run_record_exit(const char *slots, const struct mw_run_death *d);

/* Parse one line of launcher output for a dead rank: Open MPI's "... process
 * rank R with PID P on node H exited on signal S ..." (its PID may be 0) or
 * MPICH's "PID P RUNNING AT H" followed by "EXIT CODE: C".  Return 1 and fill
 * d when the line completes a report; *state keeps MPICH's pending PID
 * between lines. */
int mw_run_parse_death(const char *line, pid_t *state, struct mw_run_death *d);

/* Copy a file.  Return 0 or -1 (errno set). */
int mw_run_copy_file(const char *from, const char *to);

#endif
