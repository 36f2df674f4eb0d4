/* slurmplan.c - Slurm's changes to a job as a plan of commands
 * (slurmplan.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "slurm.h"
#include "slurmplan.h"

/* The steps.  A requeue that excludes nodes is done held, so that the
 * scheduler cannot restart it on a dead node before its ExcNodeList is set
 * (a running job's ExcNodeList cannot be changed), then released; without
 * requeuehold the list is set first (may be refused while running), then
 * the job requeued. */
enum { P_CANCEL, P_COMMENT, P_JOB, P_HOLD, P_UPD, P_REL, P_UPD2, P_RQ, P_DONE };

int mw_slurm_plan_init(struct mw_slurm_plan *p, enum mw_slurm_plan_kind kind, const char *job, const char *text,
		       const char *const *nodes, size_t n)
{
	memset(p, 0, sizeof *p);
	p->kind = kind;
	p->rv = -1;
	snprintf(p->job, sizeof p->job, "%s", job);
	snprintf(p->text, sizeof p->text, "%s", text ? text : "");
	p->step = kind == MW_PLAN_CANCEL ? P_CANCEL : kind == MW_PLAN_COMMENT ? P_COMMENT : P_JOB;
	if (n && !(p->nodes = calloc(n, sizeof *p->nodes)))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!(p->nodes[p->n++] = strdup(nodes[i]))) {
			mw_slurm_plan_free(p);
			errno = ENOMEM;
			return -1;
		}
	return 0;
}

void mw_slurm_plan_free(struct mw_slurm_plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->nodes[i]);
	free(p->nodes);
	p->nodes = NULL;
	p->n = 0;
}

static const char *scontrol(struct mw_slurm_plan *p, const char *a0, const char *a1, const char *a2,
			    char *const **args)
{
	p->args[0] = (char *)a0;
	p->args[1] = (char *)a1;
	p->args[2] = (char *)a2;
	p->args[3] = NULL;
	*args = p->args;
	return "scontrol";
}

const char *mw_slurm_plan_next(struct mw_slurm_plan *p, char *const **args)
{
	switch (p->step) {
	case P_CANCEL:
		p->args[0] = p->job;
		p->args[1] = NULL;
		*args = p->args;
		return "scancel";
	case P_COMMENT:
		snprintf(p->a1, sizeof p->a1, "JobId=%s", p->job);
		snprintf(p->a2, sizeof p->a2, "Comment=%s", p->text);
		return scontrol(p, "update", p->a1, p->a2, args);
	case P_JOB:
		mw_slurm_job_args(p->job, p->args);
		*args = p->args;
		return "squeue";
	case P_HOLD:
		return scontrol(p, "requeuehold", p->job, NULL, args);
	case P_UPD:
	case P_UPD2:
		return scontrol(p, "update", p->a1, p->a2, args);
	case P_REL:
		return scontrol(p, "release", p->job, NULL, args);
	case P_RQ:
		return scontrol(p, "requeue", p->job, NULL, args);
	}
	return NULL;
}

/* After a failed command (status st, errno e): "what: " and the first line
 * of its output, the runner's error, or "failed". */
static void say_failed(char *msg, size_t msglen, const char *what, int st, int e, char *out)
{
	if (out)
		out[strcspn(out, "\n")] = 0;
	snprintf(msg, msglen, "%s: %s", what, st < 0 ? strerror(e) : (out && *out ? out : "failed"));
}

/* The job's ExcNodeList (squeue's answer out, NULL: none) with the plan's
 * nodes, into p->list and the update's arguments. */
static void exclude_list(struct mw_slurm_plan *p, const char *out)
{
	struct mw_slurm_job j;
	char err[256], exc[2048] = "";
	if (out && mw_slurm_job_answer(out, p->job, &j, err, sizeof err) == 0) {
		snprintf(exc, sizeof exc, "%s", j.excluded);
		mw_slurm_job_free(&j);
	}
	if (p->n) {
		struct mw_hostlist hl = {0};
		if (*exc)
			mw_hostlist_expand(exc, 100000, &hl);
		for (size_t i = 0; i < p->n; i++) {
			char **v = realloc(hl.host, (hl.n + 1) * sizeof *v);
			if (!v)
				break;
			hl.host = v;
			hl.host[hl.n++] = strdup(p->nodes[i]);
		}
		mw_hostlist_compress(&hl, p->list, sizeof p->list);
		mw_hostlist_free(&hl);
	}
	snprintf(p->a1, sizeof p->a1, "JobId=%s", p->job);
	snprintf(p->a2, sizeof p->a2, "ExcNodeList=%s", p->list);
}

static void over(struct mw_slurm_plan *p, int rv)
{
	p->rv = rv;
	p->step = P_DONE;
}

void mw_slurm_plan_result(struct mw_slurm_plan *p, int st, int e, char *out)
{
	char what[96], m2[256];
	switch (p->step) {
	case P_CANCEL:
		if (st != 0) {
			snprintf(what, sizeof what, "scancel %s", p->job);
			say_failed(p->msg, sizeof p->msg, what, st, e, out);
			over(p, -1);
		} else {
			snprintf(p->msg, sizeof p->msg, "job %s cancelled", p->job);
			over(p, 0);
		}
		return;
	case P_COMMENT:
		if (st != 0)
			say_failed(p->msg, sizeof p->msg, "scontrol update", st, e, out);
		over(p, st == 0 ? 0 : -1);
		return;
	case P_JOB:
		exclude_list(p, st == 0 ? out : NULL);
		p->step = p->n ? P_HOLD : P_RQ;
		return;
	case P_HOLD:
		if (st != 0)
			say_failed(p->msg, sizeof p->msg, "scontrol requeuehold", st, e, out);
		p->step = st == 0 ? P_UPD : P_UPD2;
		return;
	case P_UPD:
		p->upd_ok = st == 0;
		if (st != 0)
			say_failed(p->msg, sizeof p->msg, "scontrol update ExcNodeList", st, e, out);
		p->step = P_REL;
		return;
	case P_REL:
		if (st != 0) {
			say_failed(m2, sizeof m2, "scontrol release", st, e, out);
			snprintf(p->msg, sizeof p->msg, "job %s requeued but held: %s", p->job, m2);
			over(p, -1);
		} else if (!p->upd_ok) {
			over(p, -1);
		} else {
			snprintf(p->msg, sizeof p->msg, "job %s requeued excluding %s", p->job, p->list);
			over(p, 0);
		}
		return;
	case P_UPD2:
		if (st != 0) {
			say_failed(p->msg, sizeof p->msg, "scontrol update ExcNodeList", st, e, out);
			over(p, -1);
		} else {
			p->step = P_RQ;
		}
		return;
	case P_RQ:
		if (st != 0) {
			say_failed(p->msg, sizeof p->msg, "scontrol requeue", st, e, out);
			over(p, -1);
		} else if (p->n) {
			snprintf(p->msg, sizeof p->msg, "job %s requeued excluding %s", p->job, p->list);
			over(p, 0);
		} else {
			snprintf(p->msg, sizeof p->msg, "job %s requeued", p->job);
			over(p, 0);
		}
		return;
	}
}
