/* cmd_resume.c - "mpiwatch resume": resume nodes that mpiwatch drained. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "drainreq.h"
#include "hostlist.h"
#include "slurm.h"

static void resume_usage(FILE *f)
{
	fprintf(f, "Usage: mpiwatch resume [-n] [-S SCONTROL] NODE|HOSTLIST...\n"
		   "Resume nodes drained by mpiwatch (Slurm reason starting with \"%s\").\n"
		   "Nodes drained for another reason are left alone.  Needs root (or SlurmUser).\n\n"
		   "  -n, --dry-run          say what would be done\n"
		   "  -S, --scontrol PATH    scontrol to run (default /usr/bin/scontrol; sinfo\n"
		   "                         is taken from the same folder)\n\n"
		   "Exit status: 0 all resumed, 1 some not resumed, 2 usage error.\n",
		MW_DRAIN_REASON_PREFIX);
}

static int resume_one(const struct mw_slurm *slurm, const char *node, int dry)
{
	struct mw_slurm_node x;
	char err[512];

	if (mw_slurm_node(slurm, node, &x, err, sizeof(err)) < 0) {
		fprintf(stderr, "mpiwatch resume: %s: cannot read node state: %s\n", node, err);
		return 1;
	}
	if (strncmp(x.reason, MW_DRAIN_REASON_PREFIX, strlen(MW_DRAIN_REASON_PREFIX)) != 0) {
		fprintf(stderr, "mpiwatch resume: %s: not resumed: %s\n", node,
			x.reason[0] ? "its reason was not set by mpiwatch" : "not drained by mpiwatch");
		if (x.reason[0])
			fprintf(stderr, "  (State=%s Reason=%s)\n", x.state, x.reason);
		return 1;
	}
	if (dry) {
		printf("%s: would resume (State=%s Reason=%s)\n", node, x.state, x.reason);
		return 0;
	}
	if (mw_slurm_resume(slurm, node, err, sizeof(err)) < 0) {
		fprintf(stderr, "mpiwatch resume: %s: %s\n", node, err);
		return 1;
	}
	printf("%s: resumed (was %s: %s)\n", node, x.state, x.reason);
	return 0;
}

static int cmd_resume(int argc, char **argv)
{
	static const struct option opts[] = {
		{"dry-run", no_argument, NULL, 'n'},
		{"scontrol", required_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct mw_slurm slurm = {"/usr/bin/scontrol", 30};
	int opt, dry = 0, bad = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "nS:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n': dry = 1; break;
		case 'S': slurm.scontrol = optarg; break;
		case 'h': resume_usage(stdout); return 0;
		default: resume_usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		resume_usage(stderr);
		return 2;
	}
	if (!dry && geteuid() != 0)
		fprintf(stderr, "mpiwatch resume: warning: not root; Slurm will likely refuse the update\n");
	for (int i = optind; i < argc; i++) {
		struct mw_hostlist hl = {0};
		if (mw_hostlist_expand(argv[i], 100000, &hl) < 0) {
			fprintf(stderr, "mpiwatch resume: bad node list '%s'\n", argv[i]);
			return 2;
		}
		for (size_t k = 0; k < hl.n; k++) {
			if (!mw_drainreq_valid_node(hl.host[k])) {
				fprintf(stderr, "mpiwatch resume: bad node name '%s'\n", hl.host[k]);
				bad = 1;
				continue;
			}
			bad |= resume_one(&slurm, hl.host[k], dry);
		}
		mw_hostlist_free(&hl);
	}
	return bad ? 1 : 0;
}

MW_CLI_COMMAND(resume, "resume", "resume [-n] [-S SCONTROL] NODE|HOSTLIST...",
	       "resume nodes that mpiwatch drained (and only those)", cmd_resume)
