/* nhd_drainop.c - a confirmed drain on the daemon's loop: the job and its
 * owner (squeue), the nodes (sinfo), our own re-probe (the target, with
 * the partition guard's nodes in the same round), the partition and storm
 * guards, the drain (scontrol), then the admin hooks.  Each Slurm
 * command is a child on the loop (uvslurm.h), each probe round a socket
 * watched by the loop (uvprobe.h): nothing here blocks. */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "drainreason.h"
#include "hostlist.h"
#include "log.h"
#include "nhd_drain.h"
#include "probe.h"
#include "uvcmd.h"
#include "uvprobe.h"
#include "uvslurm.h"

#define NHD_PARTITION_MIN 2 /* nodes the partition guard probes, when it can */

struct nhd_drain_op {
	uv_loop_t *loop;
	uv_timer_t kick;          /* starts the procedure on the loop */
	struct nhd_drain_ctx *ctx;
	uid_t uid;
	const struct mw_drainreq *req;
	struct mw_slurm slurm;
	struct mw_slurm_job job;
	struct mw_slurm_node *nodes, *x;
	long nn;
	size_t drained;           /* nodes drained now with our reason */
	struct mw_probe_result pr; /* the target's re-probe (res[0]) */
	/* the re-probe's round: [0] the target, [1..pn] the partition guard's
	 * nodes (extra of them from outside the job) */
	struct mw_hostlist hl;
	const char **names, **addrs;
	struct mw_probe_result *res;
	size_t pn, extra;
	char reason[256];
	char msg[1024];
	struct mw_uvslurm *call;  /* the Slurm command under way */
	struct mw_uvprobe *probe; /* the probe round under way */
	int cancelled, over;
	nhd_drain_done_fn done;
	void *arg;
};

static int state_has(const char *state, const char *flag)
{
	return strstr(state, flag) != NULL;
}

/* Is node k one that Slurm says is up and usable (not down, not drained)? */
static int slurm_up(const struct mw_slurm_node *x)
{
	return !mw_slurm_node_down(x) && !state_has(x->state, "DRAIN") && !state_has(x->state, "NOT_RESPONDING");
}

static void on_kick_closed(uv_handle_t *h)
{
	free(h->data);
}

static void finish(struct nhd_drain_op *op, int rv, char *verdict)
{
	if (op->over)
		return;
	op->over = 1;
	op->done(op->arg, rv, op->msg, verdict);
	free(op->names);
	free(op->addrs);
	free(op->res);
	mw_hostlist_free(&op->hl);
	free(op->nodes);
	mw_slurm_job_free(&op->job);
	uv_close((uv_handle_t *)&op->kick, on_kick_closed);
}

static void refuse(struct nhd_drain_op *op)
{
	finish(op, -1, NULL);
}

/* A callback after nhd_drain_cancel: the procedure ends here. */
static int stopped(struct nhd_drain_op *op)
{
	if (!op->cancelled)
		return 0;
	snprintf(op->msg, sizeof(op->msg), "nodehealthd is stopping");
	refuse(op);
	return 1;
}

static char *make_verdict(struct nhd_drain_op *op)
{
	const struct mw_drainreq *req = op->req;
	struct json_object *o = json_object_new_object(), *ev = NULL;
	char ts[64];
	time_t now = time(NULL);
	struct tm tm;
	char *s;

	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (req->evidence)
		ev = json_tokener_parse(req->evidence);
	json_object_object_add(o, "node", json_object_new_string(req->node));
	json_object_object_add(o, "job", json_object_new_string(req->job));
	json_object_object_add(o, "uid", json_object_new_int64((int64_t)op->uid));
	json_object_object_add(o, "user", json_object_new_string(op->job.user));
	json_object_object_add(o, "time", json_object_new_string(ts));
	json_object_object_add(o, "drained_by", json_object_new_string(op->ctx->self));
	json_object_object_add(o, "reason", json_object_new_string(op->reason));
	json_object_object_add(o, "reprobe", json_object_new_string(op->pr.summary));
	json_object_object_add(o, "evidence", ev);
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return s;
}

/* 6. drain: scontrol's answer. */
static void drained(void *arg, long rc, const char *err)
{
	struct nhd_drain_op *op = arg;
	op->call = NULL;
	if (stopped(op))
		return;
	if (rc < 0) {
		snprintf(op->msg, sizeof(op->msg), "drain of %s failed: %s", op->x->name, err);
		refuse(op);
		return;
	}
	nhd_storm_add(op->ctx->storm, mw_now());
	snprintf(op->msg, sizeof(op->msg), "node %s drained (%s; %s)", op->x->name, op->reason, op->pr.summary);
	finish(op, 0, make_verdict(op));
}

/* 5b. the storm guard, then 6. drain. */
static void storm_then_drain(struct nhd_drain_op *op)
{
	const struct nhd_conf *c = op->ctx->conf;
	char why[512];
	if (!nhd_storm_allow(c, nhd_storm_recent(op->ctx->storm, mw_now(), c->storm_window), op->drained,
			     (size_t)op->nn, why, sizeof(why))) {
		snprintf(op->msg, sizeof(op->msg), "%s", why);
		refuse(op);
		return;
	}
	mw_drain_reason_format(op->reason, sizeof(op->reason), op->req->job, op->req->summary);
	op->call = mw_uvslurm_drain(op->loop, &op->slurm, op->x->name, op->reason, drained, op, why, sizeof(why));
	if (!op->call) {
		snprintf(op->msg, sizeof(op->msg), "drain of %s failed: %s", op->x->name, why);
		refuse(op);
	}
}

/* 5a. the partition guard, from the other nodes' results of the re-probe's
 * round (res[1..pn]): when at least two were probed, too many of them
 * silent too: refused (this node may be cut off); else 5b. */
static void partition_check(struct nhd_drain_op *op)
{
	const struct nhd_conf *c = op->ctx->conf;
	size_t dead = 0;
	if (op->pn >= 2) {
		for (size_t i = 1; i <= op->pn; i++)
			if (op->res[i].state == MW_PROBE_DEAD || op->res[i].state == MW_PROBE_ERROR)
				dead++;
		if ((double)dead / (double)op->pn > c->partition_max_dead_fraction) {
			snprintf(op->msg, sizeof(op->msg),
				 "partition guard: %zu of the %s%zu other nodes do not answer us either; "
				 "this node may be cut off (partition_max_dead_fraction = %g)",
				 dead, op->extra ? "job's and cluster's " : "job's ", op->pn, c->partition_max_dead_fraction);
			refuse(op);
			return;
		}
	}
	storm_then_drain(op);
}

/* The re-probe's round: names[0] the target, then the partition guard's
 * nodes: every other node of the job (not target, not us; at most 64);
 * when the job has fewer than NHD_PARTITION_MIN such nodes (a 2-node job
 * has none), other nodes of the cluster that Slurm lists as up, to make
 * NHD_PARTITION_MIN.  Return the number of other nodes (op->pn); 0 when
 * they cannot be listed (the target alone). */
static size_t pick_others(struct nhd_drain_op *op)
{
	const char *target = op->x->name, *self = op->ctx->self;
	size_t n = 0;

	if (mw_hostlist_expand(op->job.nodelist, 65536, &op->hl) < 0)
		return 0;
	for (size_t i = 0; i < op->hl.n && n < 64; i++) {
		if (!strcmp(op->hl.host[i], target) || !strcmp(op->hl.host[i], self))
			continue;
		op->names[1 + n] = op->hl.host[i];
		op->addrs[1 + n] = NULL;
		for (long k = 0; k < op->nn; k++)
			if (!strcmp(op->nodes[k].name, op->hl.host[i]))
				op->addrs[1 + n] = op->nodes[k].addr;
		n++;
	}
	if (n < NHD_PARTITION_MIN) {
		for (long k = 0; k < op->nn && n < NHD_PARTITION_MIN; k++) {
			int have = !strcmp(op->nodes[k].name, target) || !strcmp(op->nodes[k].name, self);
			for (size_t i = 0; i < n && !have; i++)
				have = !strcmp(op->names[1 + i], op->nodes[k].name);
			if (have || !slurm_up(&op->nodes[k]))
				continue;
			op->names[1 + n] = op->nodes[k].name;
			op->addrs[1 + n] = op->nodes[k].addr;
			n++;
			op->extra++;
		}
	}
	return n;
}

/* 4. our own re-probe of the target is over. */
static void target_probed(void *arg, int rc)
{
	struct nhd_drain_op *op = arg;
	struct mw_probe_result *pr = &op->pr;
	struct mw_slurm_node *x = op->x;
	op->probe = NULL;
	if (stopped(op))
		return;
	*pr = op->res[0];
	if (rc < 0) {
		snprintf(op->msg, sizeof(op->msg), "cannot probe node %s: %s", x->name, strerror(errno));
	} else if (pr->state == MW_PROBE_ALIVE || pr->state == MW_PROBE_DEGRADED) {
		snprintf(op->msg, sizeof(op->msg), "node %s answered our probe (%s, %.1f ms): it is not dead, not draining",
			 x->name, mw_probe_state_name(pr->state), pr->rtt_ms);
	} else if (pr->state == MW_PROBE_NODAEMON && !mw_slurm_node_down(x)) {
		snprintf(op->msg, sizeof(op->msg), "node %s is up (%s) and Slurm does not say it is down (%s): not draining",
			 x->name, pr->summary, x->state);
	} else if (pr->state == MW_PROBE_ERROR) {
		snprintf(op->msg, sizeof(op->msg), "cannot probe node %s: %s", x->name, pr->summary);
	} else {
		/* 5. guards against partitions and storms */
		if (op->ctx->conf->partition_check)
			partition_check(op);
		else
			storm_then_drain(op);
		return;
	}
	refuse(op);
}

/* 3. the node's current state and reason in Slurm; then 4. re-probe it. */
static void got_nodes(void *arg, long nn, const char *err)
{
	struct nhd_drain_op *op = arg;
	const struct nhd_conf *c = op->ctx->conf;
	struct mw_slurm_node *x = NULL;
	size_t cap;
	op->call = NULL;
	if (stopped(op))
		return;
	if (nn < 0) {
		snprintf(op->msg, sizeof(op->msg), "cannot read node states: %s", err);
		refuse(op);
		return;
	}
	op->nn = nn;
	for (long i = 0; i < nn; i++) {
		if (!strcmp(op->nodes[i].name, op->req->node))
			x = &op->nodes[i];
		if (nhd_reason_ours(op->nodes[i].reason) && state_has(op->nodes[i].state, "DRAIN"))
			op->drained++;
	}
	op->x = x;
	if (!x) {
		snprintf(op->msg, sizeof(op->msg), "node %s is unknown to Slurm", op->req->node);
		refuse(op);
		return;
	}
	if (x->reason[0] && !nhd_reason_ours(x->reason)) {
		snprintf(op->msg, sizeof(op->msg),
			 "node %s (%s) already has a reason set by someone else, not overwriting: %s", x->name, x->state,
			 x->reason);
		refuse(op);
		return;
	}
	if (x->reason[0] && state_has(x->state, "DRAIN")) {
		snprintf(op->msg, sizeof(op->msg), "node %s is already drained by mpiwatch: %s", x->name, x->reason);
		finish(op, 0, NULL);
		return;
	}
	/* 4. The target and, in the same round, the partition guard's nodes
	 * (5a): their answers' round trip spaces the target's tries
	 * (mw_probe_spacing: 10 x the slowest, at least 1 s for them all, at
	 * most the budget), so a dead target among live nodes is judged after
	 * its tries at that pace rather than at the end of the whole budget;
	 * its answer ends the round at once (MW_PROBE_F_FIRST).  From a
	 * privileged source port: the nodes answer it from buckets no user's
	 * flood can empty (doc/security.md). */
	cap = 1 + 64 + NHD_PARTITION_MIN;
	op->names = calloc(cap, sizeof(*op->names));
	op->addrs = calloc(cap, sizeof(*op->addrs));
	op->res = calloc(cap, sizeof(*op->res));
	if (!op->names || !op->addrs || !op->res) {
		snprintf(op->msg, sizeof(op->msg), "cannot probe node %s: out of memory", x->name);
		refuse(op);
		return;
	}
	op->names[0] = x->name;
	op->addrs[0] = x->addr;
	op->pn = pick_others(op);
	op->probe = mw_uvprobe_start(op->loop, op->names, op->addrs, 1 + op->pn, (uint16_t)c->port,
				     c->reprobe_timeout, (int)c->reprobe_tries, MW_PROBE_F_PRIVSRC | MW_PROBE_F_FIRST,
				     op->res, target_probed, op);
	if (!op->probe) {
		snprintf(op->msg, sizeof(op->msg), "cannot probe node %s: %s", x->name, strerror(errno));
		refuse(op);
	}
}

/* 1. the job and its owner, 2. the node belongs to the job; then 3. */
static void got_job(void *arg, long rc, const char *err)
{
	struct nhd_drain_op *op = arg;
	const struct mw_drainreq *req = op->req;
	char why[512];
	int r;
	op->call = NULL;
	if (stopped(op))
		return;
	if (rc < 0) {
		snprintf(op->msg, sizeof(op->msg), "cannot verify job %s: %s", req->job, err);
		refuse(op);
		return;
	}
	if (op->uid != 0 && (long)op->uid != op->job.uid) {
		snprintf(op->msg, sizeof(op->msg), "uid %u does not own job %s (owner %s, uid %ld)", (unsigned)op->uid,
			 req->job, op->job.user, op->job.uid);
		refuse(op);
		return;
	}
	if (!nhd_job_eligible(&op->job, time(NULL), op->ctx->conf->job_grace, why, sizeof(why))) {
		snprintf(op->msg, sizeof(op->msg), "job %s: %s", req->job, why);
		refuse(op);
		return;
	}
	r = nhd_nodelist_has(op->job.nodelist, req->node);
	if (r <= 0) {
		snprintf(op->msg, sizeof(op->msg), "node %s is not part of job %s (nodes: %s)", req->node, req->job,
			 op->job.nodelist[0] ? op->job.nodelist : "none");
		refuse(op);
		return;
	}
	if (!strcmp(req->node, op->ctx->self)) {
		snprintf(op->msg, sizeof(op->msg), "node %s is this node, which is alive", req->node);
		refuse(op);
		return;
	}
	op->call = mw_uvslurm_nodes(op->loop, &op->slurm, &op->nodes, got_nodes, op, why, sizeof(why));
	if (!op->call) {
		snprintf(op->msg, sizeof(op->msg), "cannot read node states: %s", why);
		refuse(op);
	}
}

static void begin(uv_timer_t *t)
{
	struct nhd_drain_op *op = t->data;
	char why[512];
	if (stopped(op))
		return;
	if (!op->ctx->conf->drain) {
		snprintf(op->msg, sizeof(op->msg), "drains are disabled on this node (drain = no)");
		refuse(op);
		return;
	}
	op->call = mw_uvslurm_job(op->loop, &op->slurm, op->req->job, &op->job, got_job, op, why, sizeof(why));
	if (!op->call) {
		snprintf(op->msg, sizeof(op->msg), "cannot verify job %s: %s", op->req->job, why);
		refuse(op);
	}
}

struct nhd_drain_op *nhd_drain_start(uv_loop_t *loop, struct nhd_drain_ctx *ctx, uid_t uid,
				     const struct mw_drainreq *req, nhd_drain_done_fn done, void *arg)
{
	struct nhd_drain_op *op = calloc(1, sizeof(*op));
	if (!op)
		return NULL;
	op->loop = loop;
	op->ctx = ctx;
	op->uid = uid;
	op->req = req;
	op->slurm = (struct mw_slurm){ctx->conf->scontrol, NHD_SLURM_TIMEOUT};
	op->done = done;
	op->arg = arg;
	uv_timer_init(loop, &op->kick);
	op->kick.data = op;
	uv_timer_start(&op->kick, begin, 0, 0);
	return op;
}

void nhd_drain_cancel(struct nhd_drain_op *op)
{
	if (op->over)
		return;
	op->cancelled = 1;
	if (op->call)
		mw_uvslurm_kill(op->call); /* its callback ends the procedure */
	else if (op->probe)
		mw_uvprobe_stop(op->probe);
	/* else: begin() has not run yet; it ends the procedure */
}

/* The blocking form: the procedure on a loop of its own. */
struct handle_wait {
	int over, rv;
	char *msg;
	size_t msglen;
	char **verdict;
};

static void handle_done(void *arg, int rv, const char *msg, char *verdict)
{
	struct handle_wait *w = arg;
	w->over = 1;
	w->rv = rv;
	snprintf(w->msg, w->msglen, "%s", msg);
	*w->verdict = verdict;
}

int nhd_drain_handle(struct nhd_drain_ctx *ctx, uid_t uid, const struct mw_drainreq *req, char *msg,
		     size_t msglen, char **verdict)
{
	struct handle_wait w = {.rv = -1, .msg = msg, .msglen = msglen, .verdict = verdict};
	uv_loop_t loop;

	*verdict = NULL;
	if (uv_loop_init(&loop) < 0) {
		snprintf(msg, msglen, "cannot start an event loop");
		return -1;
	}
	if (!nhd_drain_start(&loop, ctx, uid, req, handle_done, &w))
		snprintf(msg, msglen, "out of memory");
	uv_run(&loop, UV_RUN_DEFAULT);
	uv_loop_close(&loop);
	return w.over ? w.rv : -1;
}

/* The admin hooks, one after the other. */
struct nhd_hooks {
	uv_loop_t *loop;
	const struct nhd_conf *c;
	char *input;              /* the verdict and a newline */
	size_t i;                 /* the hook running */
	struct mw_uvcmd *cmd;
	int cancelled;
	void (*done)(void *arg);
	void *arg;
};

static int hook_next(struct nhd_hooks *h);

static void hook_ended(struct mw_uvcmd *cmd, struct mw_runcmd_result *r, void *arg)
{
	struct nhd_hooks *h = arg;
	const char *name = h->c->hook.v[h->i];
	char *line, *save = NULL;
	(void)cmd;
	h->cmd = NULL;
	if (r->exec_errno)
		mw_warn("hook %s: %s", name, strerror(r->exec_errno));
	else if (r->timed_out)
		mw_warn("hook %s: killed after hook_timeout", name);
	else if (r->signal)
		mw_warn("hook %s killed by signal %d", name, r->signal);
	else if (r->status != 0)
		mw_warn("hook %s exited with status %d", name, r->status);
	else
		mw_info("hook %s ran", name);
	if (r->output) {
		int lines = 0;
		for (line = strtok_r(r->output, "\n", &save); line && lines < 20; line = strtok_r(NULL, "\n", &save))
			mw_info("hook %s: %.300s", name, line), lines++;
	}
	free(r->output);
	h->i++;
	hook_next(h);
}

/* Start the next hook; none left: done, h freed.  Return 1 if one runs. */
static int hook_next(struct nhd_hooks *h)
{
	/* A clean environment: nothing of the daemon's (nor of whoever
	 * started it) reaches a program that runs as root; the verdict,
	 * with the user's evidence, is data on stdin only. */
	static char *const clean_env[] = {NHD_HOOK_PATH, "LC_ALL=C", NULL};
	struct mw_runcmd_opts o = {.timeout_s = h->c->hook_timeout, .max_output = 64 * 1024, .envp = clean_env};

	for (; !h->cancelled && h->i < h->c->hook.n; h->i++) {
		char *argv[2] = {h->c->hook.v[h->i], NULL};
		h->cmd = mw_uvcmd_start(h->loop, argv, h->input, &o, hook_ended, h);
		if (h->cmd)
			return 1;
		mw_warn("hook %s: %s", h->c->hook.v[h->i], strerror(errno));
	}
	if (h->done)
		h->done(h->arg);
	free(h->input);
	free(h);
	return 0;
}

struct nhd_hooks *nhd_hooks_start(uv_loop_t *loop, const struct nhd_conf *c, const char *verdict,
				  void (*done)(void *arg), void *arg)
{
	struct nhd_hooks *h = calloc(1, sizeof(*h));
	if (!h || asprintf(&h->input, "%s\n", verdict) < 0) {
		free(h);
		if (done)
			done(arg);
		return NULL;
	}
	h->loop = loop;
	h->c = c;
	h->done = done;
	h->arg = arg;
	return hook_next(h) ? h : NULL;
}

void nhd_hooks_cancel(struct nhd_hooks *h)
{
	h->cancelled = 1;
	if (h->cmd)
		mw_uvcmd_kill(h->cmd);
}
