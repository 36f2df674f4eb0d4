/* nhd_slurm.c - what nodehealthd asks Slurm: squeue/sinfo --json (read as
 * data by shared/slurmjson.c), scontrol update to drain. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "drainreq.h"
#include "nhd_slurm.h"

#define SCONTROL_TIMEOUT 20.0

/* Run one of Slurm's commands (name, from the folder of the configured
 * scontrol) with args; on failure put its first output line in err. */
static int run_slurm(const struct nhd_conf *c, const char *name, char *const args[], char **out,
		     char *err, size_t errlen)
{
	char prog[4096], *argv[16];
	const char *slash = strrchr(c->scontrol, '/');
	int i = 0, rc;
	if (!strcmp(name, "scontrol") || !slash)
		snprintf(prog, sizeof(prog), "%s", !strcmp(name, "scontrol") ? c->scontrol : name);
	else
		snprintf(prog, sizeof(prog), "%.*s/%s", (int)(slash - c->scontrol), c->scontrol, name);
	argv[i++] = prog;
	for (int k = 0; args[k] && i < 15; k++)
		argv[i++] = args[k];
	argv[i] = NULL;
	rc = mw_drain_run(argv, NULL, SCONTROL_TIMEOUT, out);
	if (rc < 0) {
		snprintf(err, errlen, "cannot run %s: %s", prog, strerror(errno));
		return -1;
	}
	if (rc != 0) {
		char *o = out && *out ? *out : "";
		size_t l = strcspn(o, "\n");
		snprintf(err, errlen, "%s failed (status %d): %.*s", name, rc, (int)(l > 200 ? 200 : l), o);
		return -1;
	}
	return 0;
}

int nhd_slurm_job(const struct nhd_conf *c, const char *jobid, struct mw_slurm_job *j, char *err,
		  size_t errlen)
{
	char *out = NULL;
	char *args[] = {"--json", "--states=all", "-j", (char *)jobid, NULL};
	int rv = -1;

	memset(j, 0, sizeof(*j));
	if (run_slurm(c, "squeue", args, &out, err, errlen) < 0)
		goto fail;
	if (mw_slurm_job_parse(out, jobid, j) < 0) {
		snprintf(err, errlen, "job %s: %s", jobid,
			 errno == ENOMEM ? "out of memory" : "Invalid job id (not in squeue's answer)");
		goto fail;
	}
	rv = 0;
fail:
	free(out);
	return rv;
}

long nhd_slurm_nodes(const struct nhd_conf *c, struct mw_slurm_node **nodes, char *err, size_t errlen)
{
	char *out = NULL;
	char *args[] = {"--json", NULL};
	long n = -1;

	*nodes = NULL;
	if (run_slurm(c, "sinfo", args, &out, err, errlen) == 0) {
		n = mw_slurm_nodes_parse(out, nodes);
		if (n < 0)
			snprintf(err, errlen, "%s", errno == ENOMEM ? "out of memory" : "sinfo --json: not the JSON expected");
	}
	free(out);
	return n;
}

int nhd_slurm_drain(const struct nhd_conf *c, const char *node, const char *reason, char *err, size_t errlen)
{
	char a1[128], a3[512], *out = NULL;
	char *args[] = {"update", a1, "State=DRAIN", a3, NULL};
	int rv;

	snprintf(a1, sizeof(a1), "NodeName=%s", node);
	snprintf(a3, sizeof(a3), "Reason=%s", reason);
	rv = run_slurm(c, "scontrol", args, &out, err, errlen);
	free(out);
	return rv;
}
