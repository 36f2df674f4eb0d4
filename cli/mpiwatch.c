/* mpiwatch.c - the mpiwatch command-line tool: dispatches to subcommands. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static struct mw_cli_command *commands;

void mw_cli_register(struct mw_cli_command *cmd)
{
	/* Keep the list sorted by name so --help is stable. */
	struct mw_cli_command **p = &commands;
	while (*p && strcmp((*p)->name, cmd->name) < 0)
		p = &(*p)->next;
	cmd->next = *p;
	*p = cmd;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: mpiwatch COMMAND [ARGS...]\n"
		   "       mpiwatch --help | --version\n\n"
		   "Watch MPI jobs: tell a dead node from a stuck program, and say why.\n\n"
		   "Commands:\n");
	for (struct mw_cli_command *c = commands; c; c = c->next)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f, "\nRun 'mpiwatch COMMAND --help' for a command's options. See mpiwatch(1).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("mpiwatch %s\n", MW_VERSION);
		return 0;
	}
	for (struct mw_cli_command *c = commands; c; c = c->next)
		if (!strcmp(c->name, argv[1]))
			return c->run(argc - 1, argv + 1);
	fprintf(stderr, "mpiwatch: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
