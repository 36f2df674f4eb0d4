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

/* An action on Slurm that failed while Slurm did not answer (slurmctld
 * down or restarting): retried with backoff, so the drain, the comment and
 * the cancel or requeue are not lost; the report is on disk already. */
#define COL_RETRY_MAX 40       /* tries per action (10 minutes at the cap) */
#define COL_RETRY_FIRST_S 2.0  /* first backoff, doubled up to ... */
#define COL_RETRY_CAP_S 15.0

static const char *const act_names[] = {"drain", "comment", "cancel", "requeue"};

static int drain_one(struct collector *c, int node, char *msg, size_t len)
{
	struct col_state *s = &c->s;
	const struct col_node *n = &s->nodes[node];
	json_object *ev = json_object_new_object(), *sr = json_object_new_array();
	int ok;

	for (size_t k = 0; k < s->size; k++)
		if (col_state_suspicious(s->ranks[k].state))
			json_object_array_add(sr, json_object_new_int((int)k));
	json_object_object_add(ev, "verdict", json_object_new_string("hardware"));
	json_object_object_add(ev, "detector", json_object_new_string("mpiwatch-collector"));
	json_object_object_add(ev, "node", json_object_new_string(n->name));
	json_object_object_add(ev, "probe_tries", json_object_new_int(c->o->probe_tries));
	json_object_object_add(ev, "probe_budget_s", json_object_new_double(c->o->probe_budget_s));
	json_object_object_add(ev, "stuck_ranks", sr);
	json_object_object_add(
		ev, "summary",
		json_object_new_string(json_object_array_length(sr)
					       ? "no answer to liveness probes; ranks on live nodes stuck waiting for it"
					       : "no answer to liveness probes after its link to the job's collector was lost"));
	s->st.drain_requests++;
	ok = mw_drain_request(c->o->nhd_socket[0] ? c->o->nhd_socket : NULL, s->job, n->name,
			      json_object_to_json_string(ev), msg, len) == 0;
	json_object_put(ev);
	if (ok)
		s->st.drains_ok++;
	return ok;
}

int col_act_real(void *arg, struct collector *c, enum col_act_kind kind, int node, char *msg, size_t len)
{
	struct col_state *s = &c->s;
	const struct col_result *r = &s->res;
	char via[32], text[1000];
	int ok = 0;

	(void)arg;
	switch (kind) {
	case COL_DO_DRAIN:
		ok = drain_one(c, node, msg, len);
		break;
	case COL_DO_COMMENT: {
		/* Appended to the user's own --comment, never replacing it. */
		struct mw_slurm_job j = {0};
		char err[256], rpath[4200] = "";
		if (mw_slurm_job(NULL, s->job, &j, err, sizeof err) < 0) {
			/* Without the user's comment ours would replace it: not now. */
			snprintf(msg, len, "cannot read the job's own comment to append to it: %.400s", err);
			break;
		}
		if (c->o->dir[0])
			snprintf(rpath, sizeof rpath, "%s/report.txt", c->o->dir);
		col_report_comment(s, j.comment, rpath, text, sizeof text);
		mw_slurm_job_free(&j);
		ok = col_post_comment(c->o->restd, s->job, text, via, sizeof via, msg, len) == 0;
		if (ok)
			s->st.comments++;
		break;
	}
	case COL_DO_CANCEL:
		ok = mw_slurm_cancel(NULL, s->job, msg, len) == 0;
		break;
	case COL_DO_REQUEUE: {
		const char *dn[64];
		size_t n = 0;
		for (size_t i = 0; i < r->ndead && n < 64; i++)
			dn[n++] = s->nodes[r->dead_nodes[i]].name;
		ok = mw_slurm_requeue(NULL, s->job, dn, n, msg, len) == 0;
		break;
	}
	}
	return ok;
}

/* Do one action once, through the environment; record it.  Return 1 if
 * done. */
static int do_action(struct collector *c, enum col_act_kind kind, int node)
{
	char msg[512] = "";
	int ok = c->env.action ? c->env.action(c->env.arg, c, kind, node, msg, sizeof msg)
			       : col_act_real(NULL, c, kind, node, msg, sizeof msg);
	col_state_action(&c->s, act_names[kind], kind == COL_DO_DRAIN ? c->s.nodes[node].name : c->s.job, ok,
			 msg);
	return ok;
}

/* Whether Slurm answers about the job (env.slurm_answers, else squeue). */
static int slurm_answers(struct collector *c)
{
	if (c->env.slurm_answers)
		return c->env.slurm_answers(c->env.arg, c->s.job);
	return mw_slurm_job_active(NULL, c->s.job) >= 0;
}

/* Do an action; if it fails while Slurm does not answer, queue a retry. */
static void do_or_retry(struct collector *c, struct col_retry *x)
{
	x->tries++;
	if (do_action(c, x->kind, x->node))
		return;
	if (x->tries >= COL_RETRY_MAX || slurm_answers(c))
		return; /* refused while Slurm answers: a final answer */
	{
		struct col_retry *v = realloc(c->retry, (c->nretry + 1) * sizeof *v);
		if (!v)
			return;
		c->retry = v;
		x->backoff = x->backoff > 0 ? x->backoff * 2 : COL_RETRY_FIRST_S;
		if (x->backoff > COL_RETRY_CAP_S)
			x->backoff = COL_RETRY_CAP_S;
		x->at = col_now(c) + x->backoff;
		v[c->nretry++] = *x;
		col_state_event(&c->s, "note", "%s of %s failed and Slurm does not answer: retry %d in %.0f s",
				act_names[x->kind],
				x->kind == COL_DO_DRAIN ? c->s.nodes[x->node].name : c->s.job, x->tries + 1,
				x->backoff);
	}
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
	} else if (r->verdict == COL_V_HARDWARE && c->o->drain) {
		for (size_t i = 0; i < r->ndead; i++) {
			x = (struct col_retry){.kind = COL_DO_DRAIN, .node = r->dead_nodes[i]};
			do_or_retry(c, &x);
		}
	}
	if (c->o->post) {
		x = (struct col_retry){.kind = COL_DO_COMMENT};
		do_or_retry(c, &x);
	}
	if (r->verdict == COL_V_HARDWARE && r->partition)
		return; /* nothing more: we cannot tell which side is cut off */
	if (c->o->action == COL_ACT_CANCEL || c->o->action == COL_ACT_REQUEUE) {
		x = (struct col_retry){.kind = c->o->action == COL_ACT_CANCEL ? COL_DO_CANCEL : COL_DO_REQUEUE};
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
	for (size_t i = 0; i < c->nretry; i++)
		if (!do_action(c, c->retry[i].kind, c->retry[i].node))
			col_state_event(&c->s, "note", "%s not done: Slurm did not answer in %d tries",
					act_names[c->retry[i].kind], c->retry[i].tries + 1);
	c->nretry = 0;
}
