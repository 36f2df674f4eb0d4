/* uvslurm.c - Slurm's commands on a libuv loop (uvslurm.h).  The commands,
 * their arguments and the error texts are slurm.c's, called from here
 * (mw_slurm_job_args, mw_slurm_nodes_args, mw_slurm_update_args,
 * mw_slurm_say_failed and the *_answer parsers); slurm.c stays the CLI's
 * blocking path. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurmplan.h"
#include "uvcmd.h"
#include "uvslurm.h"

#define MAX_ARGS 14

enum kind { K_JOB, K_NODES, K_NODE, K_DRAIN, K_ACTIVE, K_PLAN };

struct mw_uvslurm {
	enum kind kind;
	const char *name;           /* "squeue", "sinfo", "scontrol" */
	char prog[4096];
	char jobid[64];
	struct mw_slurm_update update; /* a drain's arguments */
	struct mw_slurm_job *j;
	struct mw_slurm_node **nodes;
	struct mw_slurm_node *node, *all; /* K_NODE: the caller's, and sinfo's answer */
	char nodename[128];
	struct mw_slurm_plan *plan;   /* K_PLAN: the caller's, walked */
	uv_loop_t *loop;
	const struct mw_slurm *s;
	struct mw_uvcmd *cmd;
	int killed;
	mw_uvslurm_fn done;
	void *arg;
};

static int launch(uv_loop_t *loop, const struct mw_slurm *s, struct mw_uvslurm *c, char *const args[],
		  char *err, size_t errlen);
static void plan_step(struct mw_uvslurm *c);

static void finished(struct mw_uvcmd *cmd, struct mw_runcmd_result *r, void *arg)
{
	struct mw_uvslurm *c = arg;
	char err[512] = "";
	long rc = -1;
	int st;

	(void)cmd;
	if (c->kind == K_PLAN) { /* as mw_slurm_run returns it */
		int e = r->timed_out ? ETIMEDOUT : r->exec_errno;
		st = e ? -1 : r->signal ? 128 + r->signal : r->status;
		mw_slurm_plan_result(c->plan, st, e, r->output);
		free(r->output);
		plan_step(c);
		return;
	}
	if (c->kind == K_ACTIVE) { /* as mw_slurm_job_active: its one rule */
		rc = mw_slurm_job_active_answer(r->timed_out ? -1 : r->signal ? 128 + r->signal : r->status,
						r->output, c->jobid);
		goto out;
	}
	/* As mw_run_command and run_checked: a timeout is "cannot run",
	 * a signal 128+N, anything but 0 "failed (status N)". */
	if (r->timed_out) {
		mw_slurm_say_failed(c->name, c->prog, 0, -1, ETIMEDOUT, NULL, err, sizeof(err));
		goto out;
	}
	st = r->signal ? 128 + r->signal : r->status >= 0 ? r->status : -1;
	if (st != 0) {
		mw_slurm_say_failed(c->name, c->prog, 1, st, 0, r->output, err, sizeof(err));
		goto out;
	}
	switch (c->kind) {
	case K_JOB:
		rc = mw_slurm_job_answer(r->output, c->jobid, c->j, err, sizeof(err));
		break;
	case K_NODES:
		rc = mw_slurm_nodes_answer(r->output, c->nodes, err, sizeof(err));
		break;
	case K_NODE:
		rc = mw_slurm_nodes_answer(r->output, &c->all, err, sizeof(err));
		rc = mw_slurm_node_pick(c->all, rc, c->nodename, c->node, err, sizeof(err));
		free(c->all);
		break;
	case K_DRAIN:
	case K_ACTIVE:
	case K_PLAN:
		rc = 0;
		break;
	}
out:
	free(r->output);
	c->done(c->arg, rc, err);
	free(c);
}

/* Start c's command c->name with args.  Return 0, or -1 with err (errno
 * set; c not freed). */
static int launch(uv_loop_t *loop, const struct mw_slurm *s, struct mw_uvslurm *c, char *const args[],
		  char *err, size_t errlen)
{
	struct mw_runcmd_opts o = {.timeout_s = s && s->timeout_s > 0 ? s->timeout_s : MW_SLURM_TIMEOUT};
	char *argv[MAX_ARGS + 2];
	int i = 0, e;

	if (mw_slurm_prog(s, c->name, c->prog, sizeof(c->prog)) < 0) {
		e = errno;
		snprintf(err, errlen, "cannot run %s: %s", c->name, strerror(e));
		errno = e;
		return -1;
	}
	argv[i++] = c->prog;
	for (int k = 0; args[k] && k < MAX_ARGS; k++)
		argv[i++] = args[k];
	argv[i] = NULL;
	/* stdin a pipe closed at once, as mw_run_command's */
	c->cmd = mw_uvcmd_start(loop, argv, "", &o, finished, c);
	if (!c->cmd) {
		e = errno;
		snprintf(err, errlen, "cannot run %s: %s", c->prog, strerror(e));
		errno = e;
		return -1;
	}
	return 0;
}

static struct mw_uvslurm *start(uv_loop_t *loop, const struct mw_slurm *s, struct mw_uvslurm *c,
				char *const args[], char *err, size_t errlen)
{
	if (launch(loop, s, c, args, err, errlen) < 0) {
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
	char *args[5];

	memset(j, 0, sizeof(*j));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	snprintf(c->jobid, sizeof(c->jobid), "%s", jobid);
	c->j = j;
	mw_slurm_job_args(c->jobid, args);
	return start(loop, s, c, args, err, errlen);
}

struct mw_uvslurm *mw_uvslurm_nodes(uv_loop_t *loop, const struct mw_slurm *s, struct mw_slurm_node **nodes,
				    mw_uvslurm_fn done, void *arg, char *err, size_t errlen)
{
	struct mw_uvslurm *c = new_call(K_NODES, "sinfo", done, arg);

	*nodes = NULL;
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->nodes = nodes;
	return start(loop, s, c, mw_slurm_nodes_args, err, errlen);
}

struct mw_uvslurm *mw_uvslurm_node(uv_loop_t *loop, const struct mw_slurm *s, const char *name,
				   struct mw_slurm_node *node, mw_uvslurm_fn done, void *arg, char *err,
				   size_t errlen)
{
	struct mw_uvslurm *c = new_call(K_NODE, "sinfo", done, arg);

	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	snprintf(c->nodename, sizeof(c->nodename), "%s", name);
	c->node = node;
	return start(loop, s, c, mw_slurm_nodes_args, err, errlen);
}

struct mw_uvslurm *mw_uvslurm_drain(uv_loop_t *loop, const struct mw_slurm *s, const char *node,
				    const char *reason, mw_uvslurm_fn done, void *arg, char *err,
				    size_t errlen)
{
	struct mw_uvslurm *c = new_call(K_DRAIN, "scontrol", done, arg);

	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	mw_slurm_update_args(&c->update, node, "DRAIN", reason);
	return start(loop, s, c, c->update.args, err, errlen);
}

void mw_uvslurm_kill(struct mw_uvslurm *c)
{
	c->killed = 1;
	mw_uvcmd_kill(c->cmd);
}

struct mw_uvslurm *mw_uvslurm_job_active(uv_loop_t *loop, const struct mw_slurm *s, const char *jobid,
					 mw_uvslurm_fn done, void *arg, char *err, size_t errlen)
{
	struct mw_uvslurm *c = new_call(K_ACTIVE, "squeue", done, arg);
	char *args[5];
	if (!c) {
		snprintf(err, errlen, "cannot run squeue: %s", strerror(errno));
		return NULL;
	}
	snprintf(c->jobid, sizeof(c->jobid), "%s", jobid);
	mw_slurm_job_args(c->jobid, args);
	return start(loop, s, c, args, err, errlen);
}

/* The plan's next command, or its end told (c freed then).  A command
 * that cannot start is a command that could not be run, as for
 * mw_slurm_run (-1, errno); after mw_uvslurm_kill the plan stops. */
static void plan_step(struct mw_uvslurm *c)
{
	char *const *args;
	char err[512];
	const char *name;
	while (!c->killed && (name = mw_slurm_plan_next(c->plan, &args))) {
		c->name = name;
		if (launch(c->loop, c->s, c, args, err, sizeof err) == 0)
			return;
		mw_slurm_plan_result(c->plan, -1, errno, NULL);
	}
	if (c->killed && mw_slurm_plan_next(c->plan, &args)) { /* not over */
		c->plan->rv = -1;
		if (!c->plan->msg[0])
			snprintf(c->plan->msg, sizeof c->plan->msg, "stopped");
	}
	c->done(c->arg, c->plan->rv, c->plan->msg);
	free(c);
}

struct mw_uvslurm *mw_uvslurm_plan(uv_loop_t *loop, const struct mw_slurm *s, struct mw_slurm_plan *p,
				   mw_uvslurm_fn done, void *arg, char *err, size_t errlen)
{
	struct mw_uvslurm *c = new_call(K_PLAN, "", done, arg);
	char *const *args;
	const char *name = mw_slurm_plan_next(p, &args);
	if (!c || !name) {
		snprintf(err, errlen, "%s", c ? p->msg : "out of memory");
		free(c);
		return NULL;
	}
	c->name = name;
	c->plan = p;
	c->loop = loop;
	c->s = s;
	return start(loop, s, c, args, err, errlen);
}
