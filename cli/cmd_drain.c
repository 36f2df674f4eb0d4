/* cmd_drain.c - "mpiwatch drain": ask this node's nodehealthd for a
 * confirmed drain (what the job collector does through mw_drain_request). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "drainreq.h"

static const char drain_intro[] =
	"Ask this node's mpiwatch-nodehealthd to drain NODE for job JOBID.  The daemon\n"
	"drains only if you own the job, NODE is one of its nodes, and NODE fails the\n"
	"daemon's own probes (see mpiwatch-nodehealthd(8)).";

static int cmd_drain(int argc, char **argv)
{
	const char *sock = MW_DRAIN_DEFAULT_SOCKET, *evidence = NULL;
	char msg[2048];
	int rc, first;
	const struct mw_cliopt opts[] = {
		{.name = "socket", .shortname = 's', .kind = MW_CLIOPT_STRING, .dst = &sock, .arg = "PATH",
		 .help = "daemon socket (default " MW_DRAIN_DEFAULT_SOCKET ")"},
		{.name = "evidence", .shortname = 'e', .kind = MW_CLIOPT_STRING, .dst = &evidence,
		 .arg = "JSON", .help = "evidence, a JSON value; its \"summary\" string goes into the Slurm reason"},
		{.name = NULL},
	};
	const struct mw_cliopt_cmd cmd = {
		.prog = "mpiwatch drain", .args = "JOBID NODE", .intro = drain_intro,
		.epilog = "Exit status: 0 drained, 1 refused or no daemon, 2 usage error.", .opts = opts,
	};

	if ((rc = mw_cli_options(&cmd, argc, argv, &first)) >= 0)
		return rc;
	if (argc - first != 2) {
		mw_cli_usage(&cmd, stderr);
		return 2;
	}
	if (!mw_drainreq_valid_job(argv[first]) || !mw_drainreq_valid_node(argv[first + 1])) {
		fprintf(stderr, "mpiwatch drain: bad job id or node name\n");
		return 2;
	}
	if (mw_drain_request(sock, argv[first], argv[first + 1], evidence, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "mpiwatch drain: refused: %s\n", msg);
		return 1;
	}
	printf("%s\n", msg);
	return 0;
}

MW_CLI_COMMAND(drain, "drain",
	       "ask this node's health daemon for a confirmed drain", cmd_drain)
