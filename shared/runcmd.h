/* runcmd.h - run a program without a shell, with a time limit: Slurm's
 * commands (shared/slurm.c), nodehealthd's drain hooks and the agent's
 * auxiliary processes (agent/agap.c, with the bounds of mw_run_command_ex). */
#ifndef MW_RUNCMD_H
#define MW_RUNCMD_H

#include <stddef.h>

/* Run argv (argv[0] a path) without a shell, feeding input (may be NULL) on
 * stdin and collecting stdout and stderr (at most 1 MiB) into *output
 * (malloc'd, NUL-terminated; may be NULL to discard).  The child gets an empty
 * signal mask and is killed after timeout_s.
 * Return the exit status (0-255), 128+signal if it was killed, or -1 if it
 * could not be run (errno set; ETIMEDOUT on timeout). */
int mw_run_command(char *const argv[], const char *input, double timeout_s, char **output);

/* How mw_run_command_ex runs a command. */
struct mw_runcmd_opts {
	double timeout_s;  /* killed (SIGKILL) after this long */
	size_t max_output; /* output bytes kept (0 = 1 MiB) */
	int stop_at_max;   /* 1: killed once it wrote more than max_output (else
			      read on and dropped) */
	int own_group;     /* 1: in a new process group (setpgid), and the whole
			      group is killed at a bound and when it ends */
	int nice;          /* niceness added to ours in the child (0 = none) */
	char *const *envp; /* the child's whole environment (NULL: ours);
			      nodehealthd's hooks get a fixed one */
};

/* What happened to it. */
struct mw_runcmd_result {
	int status;        /* exit status 0-255, or -1 if it did not exit */
	int signal;        /* the signal that ended it, or 0 */
	int timed_out;     /* killed at the time bound */
	int truncated;     /* wrote more than max_output (only max_output kept) */
	int exec_errno;    /* it could not be executed: execv's errno (status 127) */
	size_t len;        /* bytes in output */
	double elapsed_s;  /* from fork to its end */
	char *output;      /* malloc'd, NUL-terminated; stdout and stderr as they
			      came (it may hold NUL bytes: len counts) */
};

/* Run argv (argv[0] a path) without a shell, input (may be NULL: stdin is
 * then /dev/null) on stdin, stdout and stderr into r->output, with the
 * bounds of o.  The child gets an empty signal mask, default signal
 * handlers, no inherited descriptor beyond 0-2, and dies with its parent
 * (PR_SET_PDEATHSIG).  Output read before a bound is kept.
 * Return 0 when it ran (r filled; free r->output), or -1 (errno set) if
 * it could not be started (pipe, fork). */
int mw_run_command_ex(char *const argv[], const char *input, const struct mw_runcmd_opts *o,
		      struct mw_runcmd_result *r);

#endif
