/* mpiwatch.c - the mpiwatch command-line tool: dispatches to subcommands. */
#include <stdio.h>
#include <stdlib.h>
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

void mw_cli_usage(const struct mw_cliopt_cmd *c, FILE *f)
{
	char *text = mw_cliopt_help(c);
	if (text)
		fputs(text, f);
	free(text);
}

int mw_cli_options(const struct mw_cliopt_cmd *c, int argc, char **argv, int *first)
{
	char err[1024];

	switch (mw_cliopt_parse(c, argc, argv, first, err, sizeof(err))) {
	case MW_CLIOPT_OK:
		return -1;
	case MW_CLIOPT_HELP:
		mw_cli_usage(c, stdout);
		return fflush(stdout) == 0 ? 0 : 1;
	default:
		fprintf(stderr, "%s: %s\n", c->prog, err);
		return MW_CLI_EXIT_USAGE;
	}
}

/* The length of cmd's first word when it is group's (a group's own name is
 * its first word), else 0. */
static size_t in_group(const struct mw_cli_command *cmd, const char *group)
{
	size_t n = strcspn(cmd->name, " ");
	return cmd->name[n] == ' ' && strlen(group) == n && !strncmp(cmd->name, group, n) ? n : 0;
}

static void usage(FILE *f, const char *group)
{
	if (group)
		fprintf(f, "Usage: mpiwatch %s WHAT [ARGS...]\n\n", group);
	else
		fprintf(f, "Usage: mpiwatch COMMAND [ARGS...]\n"
			   "       mpiwatch --help | --version\n\n"
			   "Watch MPI jobs: tell a dead node from a stuck program, and say why.\n\n");
	fprintf(f, "Commands:\n");
	for (struct mw_cli_command *c = commands; c; c = c->next)
		if (!group || in_group(c, group))
			fprintf(f, "  %-20s %s\n", c->name, c->summary);
	fprintf(f, "\nRun 'mpiwatch COMMAND --help' for a command's options. See mpiwatch(1).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr, NULL);
		return MW_CLI_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout, NULL);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("mpiwatch %s\n", MW_VERSION);
		return 0;
	}
	int group = 0;
	for (struct mw_cli_command *c = commands; c; c = c->next) {
		if (!strcmp(c->name, argv[1]))
			return c->run(argc - 1, argv + 1);
		if (in_group(c, argv[1])) {
			group = 1;
			if (argc > 2 && !strcmp(c->name + strlen(argv[1]) + 1, argv[2]))
				return c->run(argc - 2, argv + 2);
		}
	}
	if (group) {
		/* "mpiwatch analyze", "... --help" or an unknown analysis. */
		if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
			usage(stdout, argv[1]);
			return 0;
		}
		if (argc > 2) {
			fprintf(stderr, "mpiwatch %s: unknown command '%s' (known:", argv[1], argv[2]);
			for (struct mw_cli_command *c = commands; c; c = c->next)
				if (in_group(c, argv[1]))
					fprintf(stderr, " %s", c->name + strlen(argv[1]) + 1);
			fprintf(stderr, ")\n");
		} else {
			usage(stderr, argv[1]);
		}
		return MW_CLI_EXIT_USAGE;
	}
	fprintf(stderr, "mpiwatch: unknown command '%s'\n", argv[1]);
	usage(stderr, NULL);
	return MW_CLI_EXIT_USAGE;
}
