/* uvslurm.c - Slurm's commands on a libuv loop (uvslurm.h).  The commands,
 * their arguments and the error texts are slurm.c's (mw_slurm_job,
 * mw_slurm_nodes, node_update and run_checked there); slurm.c stays the
 * CLI's blocking path. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uvcmd.h"
#include "uvslurm.h"

#define MAX_ARGS 14

enum kind { K_JOB, K_NODES, K_DRAIN };

struct mw_uvslurm {
	enum kind kind;
	const char *name;           /* "squeue", "sinfo", "scontrol" */
	char prog[4096];
	char jobid[64];
	struct mw_slurm_job *j;
	struct mw_slurm_node **nodes;
	struct mw_uvcmd *cmd;
	mw_uvslurm_fn done;
	void *arg;
};

static void finished(struct mw_uvcmd *cmd, struct mw_runcmd_result *r, void *arg)
{
	struct mw_uvslurm *c = arg;
	char err[512] = "";
	long rc = -1;
	int st;

	(void)cmd;
	/* As mw_run_command and run_checked: a timeout is "cannot run",
	 * a signal 128+N, anything but 0 "failed (status N)". */
	if (r->timed_out) {
		snprintf(err, sizeof(err), "cannot run %.400s: %s", c->prog, strerror(ETIMEDOUT));
		goto out;
	}
	st = r->signal ? 128 + r->signal : r->status >= 0 ? r->status : -1;
	if (st != 0) {
		const char *o = r->output ? r->output : "";
		size_t l = strcspn(o, "\n");
		snprintf(err, sizeof(err), "%s failed (status %d): %.*s", c->name, st, (int)(l > 200 ? 200 : l), o);
		goto out;
	}
	switch (c->kind) {
	case K_JOB:
		if (mw_slurm_job_parse(r->output, c->jobid, c->j) < 0)
			snprintf(err, sizeof(err), "job %s: %s", c->jobid,
				 errno == ENOMEM ? "out of memory" : "Invalid job id (not in squeue's answer)");
		else
			rc = 0;
		break;
	case K_NODES:
		rc = mw_slurm_nodes_parse(r->output, c->nodes);
		if (rc < 0)
			snprintf(err, sizeof(err), "%s",
				 errno == ENOMEM ? "out of memory" : "sinfo --json: not the JSON expected");
		break;
	case K_DRAIN:
		rc = 0;
		break;
	}
out:
	free(r->output);
	c->done(c->arg, rc, err);
	free(c);
}

static struct mw_uvslurm *start(uv_loop_t *loop, const struct mw_slurm *s, struct mw_uvslurm *c,
				char *const args[], char *err, size_t errlen)
{
	struct mw_runcmd_opts o = {.timeout_s = s && s->timeout_s > 0 ? s->timeout_s : MW_SLURM_TIMEOUT};
	char *argv[MAX_ARGS + 2];
	int i = 0;

	if (mw_slurm_prog(s, c->name, c->prog, sizeof(c->prog)) < 0) {
		snprintf(err, errlen, "cannot run %s: %s", c->name, strerror(errno));
		free(c);
		return NULL;
	}
	argv[i++] = c->prog;
	for (int k = 0; args[k] && k < MAX_ARGS; k++)
		argv[i++] = args[k];
	argv[i] = NULL;
	/* stdin a pipe closed at once, as mw_run_command's */
	c->cmd = mw_uvcmd_start(loop, argv, "", &o, finished, c);
	if (!c->cmd) {
		snprintf(err, errlen, "cannot run %s: %s", c->prog, strerror(errno));
		free(c);
		return NULL;
	}
	return c;
}

static struct mw_uvslurm *new_call(enum kind k, const char *name, mw_uvslurm_fn done, void *arg)
{
	struct mw_uvslurm *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->kind = k;
	c->name = name;
	c->done = done;
	c->arg = arg;
	return c;
}

struct mw_uvslurm *mw_uvslurm_job(uv_loop_t *loop, const struct mw_slurm *s, const char *jobid,
				  struct mw_slurm_job *j, mw_uvslurm_fn done, void *arg, char *err,
				  size_t errlen)
{
	struct mw_uvslurm *c = new_call(K_JOB, "squeue", done, arg);
	char *args[] = {"--json", "--states=all", "-j", NULL, NULL};

	memset(j, 0, sizeof(*j));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	snprintf(c->jobid, sizeof(c->jobid), "%s", jobid);
	c->j = j;
	args[3] = c->jobid;
	return start(loop, s, c, args, err, errlen);
}

struct mw_uvslurm *mw_uvslurm_nodes(uv_loop_t *loop, const struct mw_slurm *s, struct mw_slurm_node **nodes,
				    mw_uvslurm_fn done, void *arg, char *err, size_t errlen)
{
	struct mw_uvslurm *c = new_call(K_NODES, "sinfo", done, arg);
	char *args[] = {"--json", NULL};

	*nodes = NULL;
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->nodes = nodes;
	return start(loop, s, c, args, err, errlen);
}

struct mw_uvslurm *mw_uvslurm_drain(uv_loop_t *loop, const struct mw_slurm *s, const char *node,
				    const char *reason, mw_uvslurm_fn done, void *arg, char *err,
				    size_t errlen)
{
	struct mw_uvslurm *c = new_call(K_DRAIN, "scontrol", done, arg);
	char a1[128], a2[64], a3[512];
	char *args[] = {"update", a1, a2, reason ? a3 : NULL, NULL};

	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	snprintf(a1, sizeof(a1), "NodeName=%s", node);
	snprintf(a2, sizeof(a2), "State=%s", "DRAIN");
	if (reason)
		snprintf(a3, sizeof(a3), "Reason=%s", reason);
	return start(loop, s, c, args, err, errlen);
}

void mw_uvslurm_kill(struct mw_uvslurm *c)
{
	mw_uvcmd_kill(c->cmd);
}
