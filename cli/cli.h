/* cli.h - subcommand registration for the mpiwatch command-line tool.
 *
 * Each subcommand lives in its own cli/cmd_<name>.c and registers itself with
 * MW_CLI_COMMAND(); the dispatcher in mpiwatch.c never needs editing.  Its
 * options, their checks and its --help come from one table
 * (shared/cliopt.h), read with mw_cli_options().
 */
#ifndef MW_CLI_H
#define MW_CLI_H

#include <stdio.h>

#include "cliopt.h"

struct mw_cli_command {
	/* The words after "mpiwatch": "run", or a group and a name ("analyze
	 * deadlock": "mpiwatch analyze" alone lists the group). */
	const char *name;
	const char *summary; /* one line, shown by "mpiwatch --help" (the
			      * command's usage is its option table's) */
	/* Run the command with argv[0] == its last word.  Return the process
	 * exit status. */
	int (*run)(int argc, char **argv);
	struct mw_cli_command *next;
};

/* Add cmd to the dispatcher's list (called from constructors). */
void mw_cli_register(struct mw_cli_command *cmd);

/* The usage error status of every command (mpiwatch(1)). */
#define MW_CLI_EXIT_USAGE 2

/* Read a command's options by its table c (shared/cliopt.h).  Return -1
 * to go on (*first: the first operand), or the exit status: 0 after the
 * help on stdout (--help), MW_CLI_EXIT_USAGE after one line "PROG: ERROR"
 * on stderr. */
int mw_cli_options(const struct mw_cliopt_cmd *c, int argc, char **argv, int *first);

/* Write c's help (generated from its table) to f. */
void mw_cli_usage(const struct mw_cliopt_cmd *c, FILE *f);

/* The load-imbalance analysis of the profiles in profdir written to
 * outdir/imbalance.txt, .json and .html (mpiwatch run --profile), the
 * compute-phase flag judged with the calibration file calibration (NULL:
 * the fixed criterion); problems are said on stderr, once.  Return 0 or -1. */
int mw_cli_imbalance_report(const char *profdir, const char *outdir, const char *calibration);

/* "mpiwatch calibrate --quick --json" of this machine into path (written
 * whole or not at all), within 2 s of wall time (the rounds so far are
 * judged): mpiwatch run's calibration for the compute-phase flag
 * (issue 32).  Return 0, or -1 with the reason in err. */
int mw_cli_calibrate_quick_file(const char *path, char *err, size_t errlen);

#define MW_CLI_COMMAND(ident, name_, summary_, fn_)                                    \
	static struct mw_cli_command mw_cli_cmd_##ident = {name_, summary_, fn_, 0};      \
	__attribute__((constructor)) static void mw_cli_reg_##ident(void)                \
	{                                                                                \
		mw_cli_register(&mw_cli_cmd_##ident);                                    \
	}

#endif
