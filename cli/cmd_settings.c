/* cmd_settings.c - "mpiwatch settings": the one table of per-job settings
 * (shared/jobconf.c), as a site administrator or a user looks them up. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "jobconf.h"

static int settings_main(int argc, char **argv)
{
	const struct mw_cliopt opts[] = {{.name = NULL}};
	const struct mw_cliopt_cmd cmd = {
		.prog = "mpiwatch settings",
		.intro = "List the per-job settings: who may set each (site: plugstack.conf arguments;\n"
			 "user: --mpiwatch=ITEM,... or mpiwatch run's options), its default, what it\n"
			 "accepts and what it does.",
		.opts = opts,
	};
	int rc, first;

	if ((rc = mw_cli_options(&cmd, argc, argv, &first)) >= 0)
		return rc;
	if (first < argc) {
		fprintf(stderr, "mpiwatch settings: unexpected argument '%s'\n", argv[first]);
		mw_cli_usage(&cmd, stderr);
		return 2;
	}
	printf("%-15s %-10s %-22s %s\n", "SETTING", "WHO", "DEFAULT", "VALUES / MEANING");
	for (const struct mw_conf_key *k = mw_jobconf_keys; k->name; k++) {
		char what[256], who[16] = "";
		if (k->scope & MW_JC_SITE)
			strcat(who, "site");
		if (k->scope & MW_JC_USER)
			strcat(who, who[0] ? ",user" : "user");
		if (!who[0] && (k->scope & MW_JC_HELPER))
			strcat(who, "helper");
		if (!who[0])
			strcat(who, "resolved");
		mw_conf_expect(k, what, sizeof(what));
		printf("%-15s %-10s %-22s %s\n%-49s %s\n", k->name, who,
		       k->def && *k->def ? k->def : "-", what, "", k->doc);
	}
	printf("\nsite: plugstack.conf arguments; user: --mpiwatch=ITEM,... (%s);\n"
	       "helper: an option of mpiwatch-collector or mpiwatch-agent (--probe-budget for\n"
	       "probe_budget).\n",
	       mw_jobconf_user_items());
	return 0;
}

MW_CLI_COMMAND(settings, "settings",
	       "list the per-job settings, their ranges and defaults", settings_main)
