/* colact.c - the collector's actions on a verdict (colact.h): the drain
 * requests of dead nodes (nodehealthd), the job's comment, the cancel or
 * requeue, each retried with backoff while Slurm does not answer.
 */
#include "colact.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colreports.h"
#include "drainreq.h"
#include "log.h"
#include "restd.h"
#include "slurm.h"
#include "slurmplan.h"
#include "uvslurm.h"
#include "settings.h"

/* An action on Slurm that failed while Slurm did not answer (slurmctld
 * down or restarting): retried with backoff, so the drain, the comment and
 * the cancel or requeue are not lost; the report is on disk already. */
#define COL_RETRY_MAX 40       /* tries per action (10 minutes at the cap) */
#define COL_RETRY_FIRST_S 2.0  /* first backoff, doubled up to ... */
#define COL_RETRY_CAP_S 15.0

static const char *const act_names[] = {"drain", "comment", "cancel", "requeue"};

/* One action's try, its inputs copied on the loop (act_prepare).  On the
 * loop (act_start): Slurm's commands through uvslurm.h (uv_spawn: the job's
 * comment read by squeue, posted by scontrol, scancel, the requeue's
 * scontrol commands, then "does Slurm answer?"), the drain request and a
 * comment through slurmrestd (a socket, HTTP) on libuv's pool (act_run);
 * its result read back on the loop (act_finish).  In line without a loop:
 * act_run and act_answers. */
struct act_job {
	uv_work_t w;
	struct collector *c;
	struct col_retry x;
	int step;            /* COL_DO_COMMENT: 0 read the job's comment, 1 post ours */
	char job[32], target[64], nhd_socket[512], restd[512];
	char *drain_ev;      /* COL_DO_DRAIN: the drain request's event (JSON) */
	char (*dead)[64];    /* COL_DO_REQUEUE: the dead nodes' names */
	size_t ndead;
	struct mw_slurm_job j; /* step 0's answer */
	int got_job;
	char text[1000];     /* step 1: the comment */
	int ok, answers;     /* done; Slurm answers (asked after a failure) */
	char msg[512];
	struct mw_slurm_plan plan; /* a cancel, a requeue, a comment by scontrol */
};

/* The drain request's event for node (JSON, malloc'd), or NULL. */
static char *drain_event(struct collector *c, int node)
{
	struct col_state *s = &c->s;
	const struct col_node *n = &s->nodes[node];
	json_object *ev = json_object_new_object(), *sr = json_object_new_array();
	char *text;

	for (size_t k = 0; k < s->size; k++)
		if (col_state_suspicious(s->ranks[k].state))
			json_object_array_add(sr, json_object_new_int((int)k));
	json_object_object_add(ev, "verdict", json_object_new_string("hardware"));
	json_object_object_add(ev, "detector", json_object_new_string("mpiwatch-collector"));
	json_object_object_add(ev, "node", json_object_new_string(n->name));
	json_object_object_add(ev, "probe_tries", json_object_new_int(col_probe_tries()));
	json_object_object_add(ev, "probe_budget_s", json_object_new_double(col_probe_budget(c)));
	json_object_object_add(ev, "stuck_ranks", sr);
	json_object_object_add(
		ev, "summary",
		json_object_new_string(json_object_array_length(sr)
					       ? "no answer to liveness probes; ranks on live nodes stuck waiting for it"
					       : "no answer to liveness probes after its link to the job's collector was lost"));
	text = strdup(json_object_to_json_string(ev));
	json_object_put(ev);
	return text;
}

/* A new job for x's next try, its inputs copied from c (on the loop), or
 * NULL (no memory). */
static struct act_job *act_prepare(struct collector *c, const struct col_retry *x)
{
	struct col_state *s = &c->s;
	const struct col_result *r = &s->res;
	struct act_job *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->c = c;
	a->x = *x;
	a->w.data = a;
	snprintf(a->job, sizeof a->job, "%s", s->job);
	snprintf(a->target, sizeof a->target, "%s", x->kind == COL_DO_DRAIN ? s->nodes[x->node].name : s->job);
	snprintf(a->nhd_socket, sizeof a->nhd_socket, "%s", mw_setting_str(MW_SET_NHD_SOCKET));
	snprintf(a->restd, sizeof a->restd, "%s", mw_setting_str(MW_SET_RESTD));
	if (x->kind == COL_DO_DRAIN) {
		s->st.drain_requests++;
		if (!(a->drain_ev = drain_event(c, x->node))) {
			free(a);
			return NULL;
		}
	} else if (x->kind == COL_DO_REQUEUE && r->ndead) {
		a->dead = calloc(r->ndead, sizeof *a->dead);
		if (!a->dead) {
			free(a);
			return NULL;
		}
		for (size_t i = 0; i < r->ndead && a->ndead < 64; i++)
			snprintf(a->dead[a->ndead++], sizeof a->dead[0], "%s", s->nodes[r->dead_nodes[i]].name);
	}
	return a;
}

/* The try itself (no access to the collector: a pool thread may run it).
 * After a failure, Slurm is asked whether it answers (a retry then). */
static void act_run(struct act_job *a)
{
	switch (a->x.kind) {
	case COL_DO_DRAIN:
		a->ok = mw_drain_request(a->nhd_socket[0] ? a->nhd_socket : NULL, a->job, a->target, a->drain_ev,
					 a->msg, sizeof a->msg) == 0;
		break;
	case COL_DO_COMMENT:
		/* Appended to the user's own --comment, never replacing it. */
		if (a->step == 0) {
			char err[256];
			if (mw_slurm_job(NULL, a->job, &a->j, err, sizeof err) < 0)
				/* Without the user's comment ours would replace it: not now. */
				snprintf(a->msg, sizeof a->msg,
					 "cannot read the job's own comment to append to it: %.400s", err);
			else
				a->got_job = 1;
		} else {
			char via[32];
			a->ok = col_post_comment(a->restd, a->job, a->text, via, sizeof via, a->msg, sizeof a->msg) == 0;
		}
		break;
	case COL_DO_CANCEL:
		a->ok = mw_slurm_cancel(NULL, a->job, a->msg, sizeof a->msg) == 0;
		break;
	case COL_DO_REQUEUE: {
		const char *dn[64];
		for (size_t i = 0; i < a->ndead; i++)
			dn[i] = a->dead[i];
		a->ok = mw_slurm_requeue(NULL, a->job, dn, a->ndead, a->msg, sizeof a->msg) == 0;
		break;
	}
	}
}

/* After a failure in line: does Slurm answer (a retry then)? */
static void act_answers(struct act_job *a)
{
	if (!a->ok && !a->got_job && a->x.tries < COL_RETRY_MAX)
		a->answers = mw_slurm_job_active(NULL, a->job) >= 0;
}

/* The comment's text, made on the loop from the state and the job's own
 * comment (step 0's answer), for step 1. */
static void act_compose(struct act_job *a)
{
	struct collector *c = a->c;
	char rpath[4200] = "";
	if (mw_setting_str(MW_SET_DIR)[0])
		snprintf(rpath, sizeof rpath, "%s/report.txt", mw_setting_str(MW_SET_DIR));
	col_report_comment(&c->s, a->j.comment, rpath, a->text, sizeof a->text);
	mw_slurm_job_free(&a->j);
	a->got_job = 0;
	a->step = 1;
}

static void act_free(struct act_job *a)
{
	if (a->got_job)
		mw_slurm_job_free(&a->j);
	free(a->drain_ev);
	free(a->dead);
	free(a);
}

static void after_try(struct collector *c, struct col_retry *x, int ok, int answers);

/* The try is over (on the loop): counted, recorded, a retry queued. */
static void act_finish(struct act_job *a)
{
	struct collector *c = a->c;
	if (a->ok && a->x.kind == COL_DO_DRAIN)
		c->s.st.drains_ok++;
	if (a->ok && a->x.kind == COL_DO_COMMENT)
		c->s.st.comments++;
	col_state_action(&c->s, act_names[a->x.kind], a->target, a->ok, a->msg);
	after_try(c, &a->x, a->ok, a->answers);
}

int col_act_real(void *arg, struct collector *c, enum col_act_kind kind, int node, char *msg, size_t len)
{
	struct col_retry x = {.kind = kind, .node = node};
	struct act_job *a = act_prepare(c, &x);
	int ok;
	(void)arg;
	if (!a) {
		snprintf(msg, len, "%s", strerror(ENOMEM));
		return 0;
	}
	act_run(a);
	if (a->got_job) {
		act_compose(a);
		act_run(a);
	}
	act_answers(a);
	ok = a->ok;
	snprintf(msg, len, "%s", a->msg);
	if (ok && kind == COL_DO_DRAIN)
		c->s.st.drains_ok++;
	if (ok && kind == COL_DO_COMMENT)
		c->s.st.comments++;
	act_free(a);
	return ok;
}

/* Do one action once, in line, through the environment; record it.
 * Return 1 if done. */
static int do_action(struct collector *c, enum col_act_kind kind, int node)
{
	char msg[512] = "";
	int ok = c->env.action ? c->env.action(c->env.arg, c, kind, node, msg, sizeof msg)
			       : col_act_real(NULL, c, kind, node, msg, sizeof msg);
	col_state_action(&c->s, act_names[kind], kind == COL_DO_DRAIN ? c->s.nodes[node].name : c->s.job, ok,
			 msg);
	return ok;
}

static void kick(struct collector *c);
static void act_start(struct act_job *a);

/* The try is over, on the loop: recorded, the next action started. */
static void act_end(struct act_job *a)
{
	struct collector *c = a->c;
	act_finish(a);
	act_free(a);
	c->act_busy = 0;
	kick(c);
	/* Written once the actions queued together are over, as when they
	 * ran in line: the report tells them all at once. */
	if (!c->act_busy)
		col_reports_write(c);
}

static void answers_told(void *arg, long rc, const char *err)
{
	struct act_job *a = arg;
	(void)err;
	a->answers = rc >= 0;
	act_end(a);
}

/* The try's result is in a: after a failure, Slurm is asked whether it
 * answers (squeue, on the loop), then the try ends. */
static void act_check(struct act_job *a)
{
	char err[300];
	if (!a->ok && !a->got_job && a->x.tries < COL_RETRY_MAX && !a->x.last &&
	    mw_uvslurm_job_active(a->c->loop, NULL, a->job, answers_told, a, err, sizeof err))
		return;
	act_end(a);
}

static void act_work(uv_work_t *w)
{
	act_run(w->data);
}

static void act_done(uv_work_t *w, int status)
{
	(void)status;
	act_check(w->data);
}

/* A plan's end (a cancel, a requeue, a comment by scontrol). */
static void plan_told(void *arg, long rc, const char *msg)
{
	struct act_job *a = arg;
	a->ok = rc == 0;
	if (a->ok && a->x.kind == COL_DO_COMMENT)
		col_comment_by_scontrol("", a->msg, sizeof a->msg);
	else
		snprintf(a->msg, sizeof a->msg, "%s", msg);
	mw_slurm_plan_free(&a->plan);
	act_check(a);
}

/* The job's own comment read (step 0 of a comment), on the loop. */
static void job_told(void *arg, long rc, const char *err)
{
	struct act_job *a = arg;
	if (rc < 0) {
		/* Without the user's comment ours would replace it: not now. */
		snprintf(a->msg, sizeof a->msg, "cannot read the job's own comment to append to it: %.400s", err);
		act_check(a);
		return;
	}
	a->got_job = 1;
	act_compose(a);
	act_start(a);
}

/* Start a's try on the loop; its end comes to act_check. */
static void act_start(struct act_job *a)
{
	struct collector *c = a->c;
	const char *dn[64];
	char err[512] = "";
	int plan = -1;

	switch (a->x.kind) {
	case COL_DO_DRAIN:
		break;
	case COL_DO_COMMENT:
		if (a->step == 0) {
			if (!mw_uvslurm_job(c->loop, NULL, a->job, &a->j, job_told, a, err, sizeof err))
				job_told(a, -1, err);
			return;
		}
		if (!a->restd[0])
			plan = mw_slurm_plan_init(&a->plan, MW_PLAN_COMMENT, a->job, a->text, NULL, 0);
		break;
	case COL_DO_CANCEL:
		plan = mw_slurm_plan_init(&a->plan, MW_PLAN_CANCEL, a->job, NULL, NULL, 0);
		break;
	case COL_DO_REQUEUE:
		for (size_t i = 0; i < a->ndead; i++)
			dn[i] = a->dead[i];
		plan = mw_slurm_plan_init(&a->plan, MW_PLAN_REQUEUE, a->job, NULL, dn, a->ndead);
		break;
	}
	if (plan == 0) {
		if (mw_uvslurm_plan(c->loop, NULL, &a->plan, plan_told, a, err, sizeof err))
			return;
		mw_slurm_plan_free(&a->plan);
		snprintf(a->msg, sizeof a->msg, "%s", err);
	} else if (plan < 0 && (a->x.kind == COL_DO_DRAIN || a->x.kind == COL_DO_COMMENT)) {
		/* the drain request (nodehealthd's socket), a comment through
		 * slurmrestd (HTTP): on the pool */
		if (uv_queue_work(c->loop, &a->w, act_work, act_done) == 0)
			return;
		snprintf(a->msg, sizeof a->msg, "cannot start it: no worker");
	} else {
		snprintf(a->msg, sizeof a->msg, "%s", strerror(ENOMEM));
	}
	act_check(a);
}

/* Start the next queued action on the loop, one at a time and in order
 * (the drains, the comment, then the cancel or requeue). */
static void kick(struct collector *c)
{
	while (!c->act_busy && c->ntodo) {
		struct col_retry x = c->todo[0];
		struct act_job *a;
		memmove(c->todo, c->todo + 1, (c->ntodo - 1) * sizeof *c->todo);
		c->ntodo--;
		a = act_prepare(c, &x);
		if (a) {
			c->act_busy = 1;
			act_start(a); /* may end at once (act_end: the next one) */
			return;
		}
		col_state_action(&c->s, act_names[x.kind], x.kind == COL_DO_DRAIN ? c->s.nodes[x.node].name : c->s.job,
				 0, "cannot start it: out of memory");
	}
}

/* Whether Slurm answers about the job (env.slurm_answers, else squeue). */
static int slurm_answers(struct collector *c)
{
	if (c->env.slurm_answers)
		return c->env.slurm_answers(c->env.arg, c->s.job);
	return mw_slurm_job_active(NULL, c->s.job) >= 0;
}

/* After a try of x (tries counted): if it failed while Slurm does not
 * answer, queue a retry with backoff. */
static void after_try(struct collector *c, struct col_retry *x, int ok, int answers)
{
	struct col_retry *v;
	if (x->last && !ok)
		col_state_event(&c->s, "note", "%s not done: Slurm did not answer in %d tries", act_names[x->kind],
				x->tries);
	if (ok || x->tries >= COL_RETRY_MAX || answers || x->last)
		return; /* refused while Slurm answers: a final answer */
	v = realloc(c->retry, (c->nretry + 1) * sizeof *v);
	if (!v)
		return;
	c->retry = v;
	x->backoff = x->backoff > 0 ? x->backoff * 2 : COL_RETRY_FIRST_S;
	if (x->backoff > COL_RETRY_CAP_S)
		x->backoff = COL_RETRY_CAP_S;
	x->at = col_now(c) + x->backoff;
	v[c->nretry++] = *x;
	col_state_event(&c->s, "note", "%s of %s failed and Slurm does not answer: retry %d in %.0f s",
			act_names[x->kind], x->kind == COL_DO_DRAIN ? c->s.nodes[x->node].name : c->s.job,
			x->tries + 1, x->backoff);
}

/* Do an action: on the loop's pool when the collector runs a loop (in
 * order, one at a time), else in line; if it fails while Slurm does not
 * answer, a retry is queued. */
static void do_or_retry(struct collector *c, struct col_retry *x)
{
	int ok;
	x->tries++;
	if (c->loop && !c->env.action) {
		struct col_retry *v = realloc(c->todo, (c->ntodo + 1) * sizeof *v);
		if (v) {
			c->todo = v;
			v[c->ntodo++] = *x;
			kick(c);
			return;
		}
	}
	ok = do_action(c, x->kind, x->node);
	after_try(c, x, ok, ok || x->tries >= COL_RETRY_MAX || slurm_answers(c));
}

void col_act_retry_due(struct collector *c)
{
	double now = col_now(c);
	for (size_t i = 0; i < c->nretry;) {
		struct col_retry x = c->retry[i];
		if (x.at > now) {
			i++;
			continue;
		}
		c->retry[i] = c->retry[--c->nretry];
		do_or_retry(c, &x);
		col_reports_write(c);
	}
}

void col_act_verdict(struct collector *c)
{
	struct col_state *s = &c->s;
	const struct col_result *r = &s->res;
	struct col_retry x = {0};

	if (r->verdict == COL_V_HARDWARE && r->partition) {
		col_state_event(s, "note", "network partition suspected (%zu of %zu nodes silent at once): "
					   "no node drained, the job is not cancelled or requeued",
				r->ndead, s->nnodes);
	} else if (r->verdict == COL_V_HARDWARE && mw_setting_int(MW_SET_DRAIN)) {
		for (size_t i = 0; i < r->ndead; i++) {
			x = (struct col_retry){.kind = COL_DO_DRAIN, .node = r->dead_nodes[i]};
			do_or_retry(c, &x);
		}
	}
	if (mw_setting_int(MW_SET_POST)) {
		x = (struct col_retry){.kind = COL_DO_COMMENT};
		do_or_retry(c, &x);
	}
	if (r->verdict == COL_V_HARDWARE && r->partition)
		return; /* nothing more: we cannot tell which side is cut off */
	if (col_action(c) == MW_JC_CANCEL || col_action(c) == MW_JC_REQUEUE) {
		x = (struct col_retry){.kind = col_action(c) == MW_JC_CANCEL ? COL_DO_CANCEL : COL_DO_REQUEUE};
		do_or_retry(c, &x);
	}
}


double col_act_next(const struct collector *c)
{
	double at = -1;
	for (size_t i = 0; i < c->nretry; i++)
		if (at < 0 || c->retry[i].at < at)
			at = c->retry[i].at;
	return at;
}

void col_act_last_tries(struct collector *c)
{
	while (c->loop && (c->act_busy || c->ntodo))
		uv_run(c->loop, UV_RUN_ONCE); /* the actions under way end first */
	if (c->loop && !c->env.action) {
		/* On the loop, in order, as the others: each retry queued once
		 * more as the last (after_try tells the ones not done), the loop
		 * run until they are over; signals and links are served meanwhile,
		 * and no squeue asks whether Slurm answers. */
		for (size_t i = 0; i < c->nretry; i++) {
			struct col_retry x = c->retry[i];
			struct col_retry *v = realloc(c->todo, (c->ntodo + 1) * sizeof *v);
			if (!v) {
				col_state_event(&c->s, "note", "%s not done: out of memory", act_names[x.kind]);
				continue;
			}
			x.tries++;
			x.last = 1;
			c->todo = v;
			v[c->ntodo++] = x;
		}
		c->nretry = 0;
		kick(c);
		while (c->act_busy || c->ntodo)
			uv_run(c->loop, UV_RUN_ONCE);
		return;
	}
	for (size_t i = 0; i < c->nretry; i++)
		if (!do_action(c, c->retry[i].kind, c->retry[i].node))
			col_state_event(&c->s, "note", "%s not done: Slurm did not answer in %d tries",
					act_names[c->retry[i].kind], c->retry[i].tries + 1);
	c->nretry = 0;
}
