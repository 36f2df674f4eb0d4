/* slurm.c - Slurm's commands, run without a shell (slurm.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostlist.h"
#include "runcmd.h"
#include "slurm.h"

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

/* After a failed command (status st, errno from the runner): "what: " and
 * the first line of its output, the runner's error, or "failed". */
static void say_failed(char *msg, size_t msglen, const char *what, int st, int err, char *out)
{
	if (out)
		out[strcspn(out, "\n")] = 0;
	snprintf(msg, msglen, "%s: %s", what, st < 0 ? strerror(err) : (out && *out ? out : "failed"));
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

int mw_slurm_node(const struct mw_slurm *s, const char *name, struct mw_slurm_node *node, char *err,
		  size_t errlen)
{
	struct mw_slurm_node *v = NULL;
	long n = mw_slurm_nodes(s, &v, err, errlen);
	int rv = -1;

	for (long i = 0; i < n; i++)
		if (!strcmp(v[i].name, name)) {
			*node = v[i];
			rv = 0;
			break;
		}
	if (n >= 0 && rv < 0) {
		snprintf(err, errlen, "node %s is unknown to Slurm", name);
		errno = ENOENT;
	}
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

int mw_slurm_comment(const struct mw_slurm *s, const char *job, const char *text, char *msg,
		     size_t msglen)
{
	char arg1[64], arg2[1024], *out = NULL;
	char *args[] = {"update", arg1, arg2, NULL};
	int st;

	snprintf(arg1, sizeof arg1, "JobId=%s", job);
	snprintf(arg2, sizeof arg2, "Comment=%s", text);
	st = mw_slurm_run(s, "scontrol", args, &out);
	if (st != 0)
		say_failed(msg, msglen, "scontrol update", st, errno, out);
	free(out);
	return st == 0 ? 0 : -1;
}

int mw_slurm_cancel(const struct mw_slurm *s, const char *job, char *msg, size_t msglen)
{
	char *out = NULL, what[64];
	char *args[] = {(char *)job, NULL};
	int st = mw_slurm_run(s, "scancel", args, &out);
	if (st != 0) {
		snprintf(what, sizeof what, "scancel %s", job);
		say_failed(msg, msglen, what, st, errno, out);
	} else {
		snprintf(msg, msglen, "job %s cancelled", job);
	}
	free(out);
	return st == 0 ? 0 : -1;
}

/* Run scontrol args; on failure put "what: output" in msg.  Return 0 or -1. */
static int scontrol(const struct mw_slurm *s, char **args, const char *what, char *msg, size_t msglen)
{
	char *out = NULL;
	int st = mw_slurm_run(s, "scontrol", args, &out);
	if (st != 0)
		say_failed(msg, msglen, what, st, errno, out);
	free(out);
	return st == 0 ? 0 : -1;
}

int mw_slurm_requeue(const struct mw_slurm *s, const char *job, const char *const *nodes, size_t n,
		     char *msg, size_t msglen)
{
	char exc[2048] = "", list[2048] = "", a1[64], a2[4200], err[256];
	struct mw_slurm_job j;
	char *hold[] = {"requeuehold", (char *)job, NULL};
	char *upd[] = {"update", a1, a2, NULL};
	char *rel[] = {"release", (char *)job, NULL};
	char *rq[] = {"requeue", (char *)job, NULL};

	if (mw_slurm_job(s, job, &j, err, sizeof err) == 0) {
		snprintf(exc, sizeof exc, "%s", j.excluded);
		mw_slurm_job_free(&j);
	}
	if (n) {
		struct mw_hostlist hl = {0};
		if (*exc)
			mw_hostlist_expand(exc, 100000, &hl);
		for (size_t i = 0; i < n; i++) {
			char **p = realloc(hl.host, (hl.n + 1) * sizeof *p);
			if (!p)
				break;
			hl.host = p;
			hl.host[hl.n++] = strdup(nodes[i]);
		}
		mw_hostlist_compress(&hl, list, sizeof list);
		mw_hostlist_free(&hl);
	}
	snprintf(a1, sizeof a1, "JobId=%s", job);
	snprintf(a2, sizeof a2, "ExcNodeList=%s", list);
	if (!n) {
		if (scontrol(s, rq, "scontrol requeue", msg, msglen) != 0)
			return -1;
		snprintf(msg, msglen, "job %s requeued", job);
		return 0;
	}
	/* Requeue held, so that the scheduler cannot restart it on the dead
	 * node before its ExcNodeList is set (a running job's ExcNodeList
	 * cannot be changed), then release it. */
	if (scontrol(s, hold, "scontrol requeuehold", msg, msglen) == 0) {
		int upd_ok = scontrol(s, upd, "scontrol update ExcNodeList", msg, msglen) == 0;
		char m2[256];
		if (scontrol(s, rel, "scontrol release", m2, sizeof m2) != 0) {
			snprintf(msg, msglen, "job %s requeued but held: %s", job, m2);
			return -1;
		}
		if (!upd_ok)
			return -1;
		snprintf(msg, msglen, "job %s requeued excluding %s", job, list);
		return 0;
	}
	/* No requeuehold: set the list first (may be refused while running),
	 * then requeue. */
	if (scontrol(s, upd, "scontrol update ExcNodeList", msg, msglen) != 0 ||
	    scontrol(s, rq, "scontrol requeue", msg, msglen) != 0)
		return -1;
	snprintf(msg, msglen, "job %s requeued excluding %s", job, list);
	return 0;
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
