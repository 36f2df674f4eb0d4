/* cmd_drain.c - "mpiwatch drain": ask this node's nodehealthd for a
 * confirmed drain (what the job collector does through mw_drain_request). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "drainreq.h"

static void drain_usage(FILE *f)
{
	fprintf(f, "Usage: mpiwatch drain [-s SOCKET] [-e EVIDENCE_JSON] JOBID NODE\n"
		   "Ask this node's mpiwatch-nodehealthd to drain NODE for job JOBID.  The daemon\n"
		   "drains only if you own the job, NODE is one of its nodes, and NODE fails the\n"
		   "daemon's own probes (see mpiwatch-nodehealthd(8)).\n\n"
		   "  -s, --socket PATH         daemon socket (default %s)\n"
		   "  -e, --evidence JSON       evidence, a JSON value; its \"summary\" string goes\n"
		   "                            into the Slurm reason\n\n"
		   "Exit status: 0 drained, 1 refused or no daemon, 2 usage error.\n",
		MW_DRAIN_DEFAULT_SOCKET);
}

static int cmd_drain(int argc, char **argv)
{
	static const struct option opts[] = {
		{"socket", required_argument, NULL, 's'},
		{"evidence", required_argument, NULL, 'e'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *sock = MW_DRAIN_DEFAULT_SOCKET, *evidence = NULL;
	char msg[2048];
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "s:e:h", opts, NULL)) != -1) {
		switch (opt) {
		case 's': sock = optarg; break;
		case 'e': evidence = optarg; break;
		case 'h': drain_usage(stdout); return 0;
		default: drain_usage(stderr); return 2;
		}
	}
	if (argc - optind != 2) {
		drain_usage(stderr);
		return 2;
	}
	if (!mw_drainreq_valid_job(argv[optind]) || !mw_drainreq_valid_node(argv[optind + 1])) {
		fprintf(stderr, "mpiwatch drain: bad job id or node name\n");
		return 2;
	}
	if (mw_drain_request(sock, argv[optind], argv[optind + 1], evidence, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "mpiwatch drain: refused: %s\n", msg);
		return 1;
	}
	printf("%s\n", msg);
	return 0;
}

MW_CLI_COMMAND(drain, "drain", "drain [-s SOCKET] [-e EVIDENCE_JSON] JOBID NODE",
	       "ask this node's health daemon for a confirmed drain", cmd_drain)
