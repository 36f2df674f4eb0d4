/* cmd_resume.c - "mpiwatch resume": resume nodes that mpiwatch drained. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "drainreason.h"
#include "hostlist.h"
#include "slurm.h"

static int resume_one(const struct mw_slurm *slurm, const char *node, int dry)
{
	struct mw_slurm_node x;
	char err[512];

	if (mw_slurm_node(slurm, node, &x, err, sizeof(err)) < 0) {
		fprintf(stderr, "mpiwatch resume: %s: cannot read node state: %s\n", node, err);
		return 1;
	}
	if (!mw_drain_reason_ours(x.reason)) {
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
	struct mw_slurm slurm = {"/usr/bin/scontrol", 30};
	int dry = 0, bad = 0, rc, first;
	const char *scontrol = slurm.scontrol;
	const struct mw_cliopt opts[] = {
		{.name = "dry-run", .shortname = 'n', .kind = MW_CLIOPT_FLAG, .dst = &dry,
		 .help = "say what would be done"},
		{.name = "scontrol", .shortname = 'S', .kind = MW_CLIOPT_STRING, .dst = &scontrol,
		 .arg = "PATH", .help = "scontrol to run (default /usr/bin/scontrol; sinfo is taken from the same folder)"},
		{.name = NULL},
	};
	const struct mw_cliopt_cmd cmd = {
		.prog = "mpiwatch resume", .args = "NODE|HOSTLIST...",
		.intro = "Resume nodes drained by mpiwatch (Slurm reason starting with \"" MW_DRAIN_REASON_PREFIX
			 "\").\nNodes drained for another reason are left alone.  Needs root (or SlurmUser).",
		.epilog = "Exit status: 0 all resumed, 1 some not resumed, 2 usage error.", .opts = opts,
	};

	if ((rc = mw_cli_options(&cmd, argc, argv, &first)) >= 0)
		return rc;
	slurm.scontrol = scontrol;
	if (first >= argc) {
		mw_cli_usage(&cmd, stderr);
		return 2;
	}
	if (!dry && geteuid() != 0)
		fprintf(stderr, "mpiwatch resume: warning: not root; Slurm will likely refuse the update\n");
	for (int i = first; i < argc; i++) {
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

MW_CLI_COMMAND(resume, "resume",
	       "resume nodes that mpiwatch drained (and only those)", cmd_resume)
