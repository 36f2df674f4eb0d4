/* cmd_resume.c - "mpiwatch resume": resume nodes that mpiwatch drained. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "drainreq.h"
#include "hostlist.h"

static void resume_usage(FILE *f)
{
	fprintf(f, "Usage: mpiwatch resume [-n] [-S SCONTROL] NODE|HOSTLIST...\n"
		   "Resume nodes drained by mpiwatch (Slurm reason starting with \"%s\").\n"
		   "Nodes drained for another reason are left alone.  Needs root (or SlurmUser).\n\n"
		   "  -n, --dry-run          say what would be done\n"
		   "  -S, --scontrol PATH    scontrol to run (default /usr/bin/scontrol)\n\n"
		   "Exit status: 0 all resumed, 1 some not resumed, 2 usage error.\n",
		MW_DRAIN_REASON_PREFIX);
}

static int resume_one(const char *scontrol, const char *node, int dry)
{
	char *argv[6], arg[128], reason[512] = "", state[128] = "", *out = NULL;
	int rc;

	argv[0] = (char *)scontrol;
	argv[1] = "show";
	argv[2] = "node";
	argv[3] = "-o";
	argv[4] = (char *)node;
	argv[5] = NULL;
	rc = mw_drain_run(argv, NULL, 30, &out);
	if (rc != 0) {
		fprintf(stderr, "mpiwatch resume: %s: cannot read node state%s%s", node, out ? ": " : "\n",
			out ? out : "");
		free(out);
		return 1;
	}
	mw_drain_kv(out, "Reason", reason, sizeof(reason));
	mw_drain_kv(out, "State", state, sizeof(state));
	free(out);
	out = NULL;
	if (strncmp(reason, MW_DRAIN_REASON_PREFIX, strlen(MW_DRAIN_REASON_PREFIX)) != 0) {
		fprintf(stderr, "mpiwatch resume: %s: not resumed: %s\n", node,
			reason[0] && strcmp(reason, "(null)") ? "its reason was not set by mpiwatch"
							     : "not drained by mpiwatch");
		if (reason[0] && strcmp(reason, "(null)"))
			fprintf(stderr, "  (State=%s Reason=%s)\n", state, reason);
		return 1;
	}
	if (dry) {
		printf("%s: would resume (State=%s Reason=%s)\n", node, state, reason);
		return 0;
	}
	snprintf(arg, sizeof(arg), "NodeName=%s", node);
	argv[1] = "update";
	argv[2] = arg;
	argv[3] = "State=RESUME";
	argv[4] = NULL;
	rc = mw_drain_run(argv, NULL, 30, &out);
	if (rc != 0) {
		fprintf(stderr, "mpiwatch resume: %s: scontrol update failed: %s", node, out ? out : "\n");
		free(out);
		return 1;
	}
	free(out);
	printf("%s: resumed (was %s: %s)\n", node, state, reason);
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
	const char *scontrol = "/usr/bin/scontrol";
	int opt, dry = 0, bad = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "nS:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n': dry = 1; break;
		case 'S': scontrol = optarg; break;
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
			bad |= resume_one(scontrol, hl.host[k], dry);
		}
		mw_hostlist_free(&hl);
	}
	return bad ? 1 : 0;
}

MW_CLI_COMMAND(resume, "resume", "resume [-n] [-S SCONTROL] NODE|HOSTLIST...",
	       "resume nodes that mpiwatch drained (and only those)", cmd_resume)
