/* cli.h - subcommand registration for the mpiwatch command-line tool.
 *
 * Each subcommand lives in its own cli/cmd_<name>.c and registers itself with
 * MW_CLI_COMMAND(); the dispatcher in mpiwatch.c never needs editing.
 */
#ifndef MW_CLI_H
#define MW_CLI_H

struct mw_cli_command {
	const char *name;    /* first word after "mpiwatch" */
	const char *usage;   /* one line, without the program name */
	const char *summary; /* one line, shown by "mpiwatch --help" */
	/* Run the command with argv[0] == name.  Return the process exit status. */
	int (*run)(int argc, char **argv);
	struct mw_cli_command *next;
};

/* Add cmd to the dispatcher's list (called from constructors). */
void mw_cli_register(struct mw_cli_command *cmd);

/* "mpiwatch analyze imbalance ..." (cli/cmd_imbalance.c), argv[0] == "imbalance".
 * Return the exit status. */
int mw_cli_analyze_imbalance(int argc, char **argv);

/* "mpiwatch analyze fluctuation A B ..." (cli/cmd_fluctuation.c), argv[0] ==
 * "fluctuation".  Return the exit status: 0 not a real fluctuation, 1 a real
 * one, 2 error. */
int mw_cli_analyze_fluctuation(int argc, char **argv);

/* The load-imbalance analysis of the profiles in profdir written to
 * outdir/imbalance.txt, .json and .html (mpiwatch run --profile); problems
 * are said on stderr, once.  Return 0 or -1. */
int mw_cli_imbalance_report(const char *profdir, const char *outdir);

#define MW_CLI_COMMAND(ident, name_, usage_, summary_, fn_)                           \
	static struct mw_cli_command mw_cli_cmd_##ident = {name_, usage_, summary_, fn_, 0}; \
	__attribute__((constructor)) static void mw_cli_reg_##ident(void)                \
	{                                                                                \
		mw_cli_register(&mw_cli_cmd_##ident);                                    \
	}

#endif
