/* slurm.c - Slurm's commands, run without a shell (slurm.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostlist.h"
#include "runcmd.h"
#include "slurm.h"
#include "slurmplan.h"

#define MAX_ARGS 14

int mw_slurm_prog(const struct mw_slurm *s, const char *name, char *buf, size_t len)
{
	const char *sc = s ? s->scontrol : NULL;
	const char *slash = sc ? strrchr(sc, '/') : NULL;
	const char *path;
	char tmp[4096];
	int n;

	if (slash) {
		if (!strcmp(name, "scontrol"))
			n = snprintf(buf, len, "%s", sc);
		else
			n = snprintf(buf, len, "%.*s/%s", (int)(slash - sc), sc, name);
		if (n < 0 || (size_t)n >= len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		return 0;
	}
	if (sc && *sc && !strcmp(name, "scontrol"))
		name = sc;
	path = getenv("PATH");
	snprintf(tmp, sizeof tmp, "%s:/usr/bin:/usr/local/bin:/bin", path ? path : "");
	for (char *save = NULL, *d = strtok_r(tmp, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		if (!*d)
			continue;
		n = snprintf(buf, len, "%s/%s", d, name);
		if (n > 0 && (size_t)n < len && access(buf, X_OK) == 0)
			return 0;
	}
	errno = ENOENT;
	return -1;
}

int mw_slurm_run(const struct mw_slurm *s, const char *name, char *const args[], char **out)
{
	char prog[4096];
	char *argv[MAX_ARGS + 2];
	int i = 0;

	if (out)
		*out = NULL;
	if (mw_slurm_prog(s, name, prog, sizeof prog) < 0)
		return -1;
	argv[i++] = prog;
	for (int k = 0; args && args[k] && k < MAX_ARGS; k++)
		argv[i++] = args[k];
	argv[i] = NULL;
	return mw_run_command(argv, NULL, s && s->timeout_s > 0 ? s->timeout_s : MW_SLURM_TIMEOUT, out);
}

void mw_slurm_job_args(const char *jobid, char *args[5])
{
	args[0] = "--json";
	args[1] = "--states=all";
	args[2] = "-j";
	args[3] = (char *)jobid;
	args[4] = NULL;
}

char *const mw_slurm_nodes_args[2] = {"--json", NULL};

void mw_slurm_update_args(struct mw_slurm_update *u, const char *node, const char *state,
			  const char *reason)
{
	snprintf(u->node, sizeof(u->node), "NodeName=%s", node);
	snprintf(u->state, sizeof(u->state), "State=%s", state);
	if (reason)
		snprintf(u->reason, sizeof(u->reason), "Reason=%s", reason);
	u->args[0] = "update";
	u->args[1] = u->node;
	u->args[2] = u->state;
	u->args[3] = reason ? u->reason : NULL;
	u->args[4] = NULL;
}

void mw_slurm_say_failed(const char *name, const char *prog, int ran, int st, int e, const char *out,
			 char *err, size_t errlen)
{
	if (!ran) {
		snprintf(err, errlen, "cannot run %s: %s", prog, strerror(e));
		return;
	}
	const char *o = out ? out : "";
	size_t l = strcspn(o, "\n");
	snprintf(err, errlen, "%s failed (status %d): %.*s", name, st, (int)(l > 200 ? 200 : l), o);
}

int mw_slurm_job_answer(const char *out, const char *jobid, struct mw_slurm_job *j, char *err,
			size_t errlen)
{
	if (mw_slurm_job_parse(out, jobid, j) == 0)
		return 0;
	int e = errno;
	snprintf(err, errlen, "job %s: %s", jobid, e == ENOMEM ? "out of memory" : "Invalid job id (not in squeue's answer)");
	errno = e;
	return -1;
}

long mw_slurm_nodes_answer(const char *out, struct mw_slurm_node **nodes, char *err, size_t errlen)
{
	long n = mw_slurm_nodes_parse(out, nodes);
	if (n < 0) {
		int e = errno;
		snprintf(err, errlen, "%s", e == ENOMEM ? "out of memory" : "sinfo --json: not the JSON expected");
		errno = e;
	}
	return n;
}

/* Run name; a failure (could not run, or a non-zero status) is said in err
 * (mw_slurm_say_failed).  Return 0 or -1. */
static int run_checked(const struct mw_slurm *s, const char *name, char *const args[], char **out,
		       char *err, size_t errlen)
{
	int rc = mw_slurm_run(s, name, args, out);
	if (rc == 0)
		return 0;
	int e = errno;
	char prog[4096] = "";
	if (rc < 0 && mw_slurm_prog(s, name, prog, sizeof prog) < 0)
		snprintf(prog, sizeof prog, "%s", name);
	mw_slurm_say_failed(name, prog, rc >= 0, rc, e, out ? *out : NULL, err, errlen);
	errno = e;
	return -1;
}

int mw_slurm_job(const struct mw_slurm *s, const char *jobid, struct mw_slurm_job *j, char *err,
		 size_t errlen)
{
	char *out = NULL, *args[5];
	int rv = -1;

	memset(j, 0, sizeof(*j));
	mw_slurm_job_args(jobid, args);
	if (run_checked(s, "squeue", args, &out, err, errlen) == 0)
		rv = mw_slurm_job_answer(out, jobid, j, err, errlen);
	free(out);
	return rv;
}

int mw_slurm_job_active_answer(int st, const char *out, const char *job)
{
	/* "Invalid job id" means "over" only once this squeue has seen the
	 * job: an squeue that reads another cluster's slurm.conf must not make
	 * us leave a running job. */
	static int seen;
	const char *state;
	struct mw_slurm_job j;
	int rv = -1;
	if (st < 0)
		return -1;
	/* Slurm's answer as data: a job named "x JobState=COMPLETED" is not over. */
	if (st == 0 && out && mw_slurm_job_parse(out, job, &j) == 0) {
		state = j.state;
		mw_slurm_job_free(&j);
	} else {
		state = NULL;
	}
	if (!state && out && (strstr(out, "Invalid job id") || strstr(out, "invalid job id"))) {
		rv = seen ? 0 : -1;
	} else if (state && *state) {
		static const char *const over[] = {"COMPLETED", "CANCELLED", "FAILED",    "TIMEOUT",
						   "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE",
						   "OUT_OF_MEMORY", NULL};
		rv = 1;
		for (int i = 0; over[i]; i++)
			if (strcmp(state, over[i]) == 0)
				rv = 0;
		seen = 1;
	}
	return rv;
}

int mw_slurm_job_active(const struct mw_slurm *s, const char *job)
{
	char *out = NULL;
	char *args[5];
	int st, rv;
	mw_slurm_job_args(job, args);
	st = mw_slurm_run(s, "squeue", args, &out);
	rv = mw_slurm_job_active_answer(st, out, job);
	free(out);
	return rv;
}

long mw_slurm_nodes(const struct mw_slurm *s, struct mw_slurm_node **nodes, char *err, size_t errlen)
{
	char *out = NULL;
	long n = -1;

	*nodes = NULL;
	if (run_checked(s, "sinfo", mw_slurm_nodes_args, &out, err, errlen) == 0)
		n = mw_slurm_nodes_answer(out, nodes, err, errlen);
	free(out);
	return n;
}

int mw_slurm_node_pick(const struct mw_slurm_node *v, long n, const char *name, struct mw_slurm_node *node,
		       char *err, size_t errlen)
{
	for (long i = 0; i < n; i++)
		if (!strcmp(v[i].name, name)) {
			*node = v[i];
			return 0;
		}
	if (n >= 0) {
		snprintf(err, errlen, "node %s is unknown to Slurm", name);
		errno = ENOENT;
	}
	return -1;
}

int mw_slurm_node(const struct mw_slurm *s, const char *name, struct mw_slurm_node *node, char *err,
		  size_t errlen)
{
	struct mw_slurm_node *v = NULL;
	long n = mw_slurm_nodes(s, &v, err, errlen);
	int rv = mw_slurm_node_pick(v, n, name, node, err, errlen);
	free(v);
	return rv;
}

int mw_slurm_node_down(const struct mw_slurm_node *node)
{
	return strstr(node->state, "DOWN") != NULL || strstr(node->state, "NOT_RESPONDING") != NULL;
}

/* "scontrol update NodeName=NODE State=STATE [Reason=REASON]". */
static int node_update(const struct mw_slurm *s, const char *node, const char *state, const char *reason,
		       char *err, size_t errlen)
{
	struct mw_slurm_update u;
	char *out = NULL;
	int rv;

	mw_slurm_update_args(&u, node, state, reason);
	rv = run_checked(s, "scontrol", u.args, &out, err, errlen);
	free(out);
	return rv;
}

int mw_slurm_drain(const struct mw_slurm *s, const char *node, const char *reason, char *err,
		   size_t errlen)
{
	return node_update(s, node, "DRAIN", reason, err, errlen);
}

int mw_slurm_resume(const struct mw_slurm *s, const char *node, char *err, size_t errlen)
{
	return node_update(s, node, "RESUME", NULL, err, errlen);
}

/* Walk plan p with the blocking runner; its message into msg.  Return
 * p's answer (0 or -1). */
static int walk(const struct mw_slurm *s, struct mw_slurm_plan *p, char *msg, size_t msglen)
{
	const char *name;
	char *const *args;
	while ((name = mw_slurm_plan_next(p, &args))) {
		char *out = NULL;
		int st = mw_slurm_run(s, name, args, &out);
		mw_slurm_plan_result(p, st, errno, out);
		free(out);
	}
	if (p->msg[0] || p->kind != MW_PLAN_COMMENT)
		snprintf(msg, msglen, "%s", p->msg);
	mw_slurm_plan_free(p);
	return p->rv;
}

int mw_slurm_comment(const struct mw_slurm *s, const char *job, const char *text, char *msg,
		     size_t msglen)
{
	struct mw_slurm_plan p;
	if (mw_slurm_plan_init(&p, MW_PLAN_COMMENT, job, text, NULL, 0) < 0)
		return -1;
	return walk(s, &p, msg, msglen);
}

int mw_slurm_cancel(const struct mw_slurm *s, const char *job, char *msg, size_t msglen)
{
	struct mw_slurm_plan p;
	if (mw_slurm_plan_init(&p, MW_PLAN_CANCEL, job, NULL, NULL, 0) < 0)
		return -1;
	return walk(s, &p, msg, msglen);
}

int mw_slurm_requeue(const struct mw_slurm *s, const char *job, const char *const *nodes, size_t n,
		     char *msg, size_t msglen)
{
	struct mw_slurm_plan p;
	if (mw_slurm_plan_init(&p, MW_PLAN_REQUEUE, job, NULL, nodes, n) < 0) {
		snprintf(msg, msglen, "%s", strerror(errno));
		return -1;
	}
	return walk(s, &p, msg, msglen);
}

int mw_slurm_token(const struct mw_slurm *s, char *tok, size_t len)
{
	char *out = NULL, *p;
	char *args[] = {"token", NULL};
	if (mw_slurm_run(s, "scontrol", args, &out) != 0 || !out || !(p = strstr(out, "SLURM_JWT="))) {
		free(out);
		return -1;
	}
	p += 10;
	p[strcspn(p, " \r\n")] = 0;
	snprintf(tok, len, "%s", p);
	free(out);
	return *tok ? 0 : -1;
}
