/* nhd_drain.c - confirmed drains: every check a drain request must pass. */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hostlist.h"
#include "log.h"
#include "nhd_drain.h"
#include "probe.h"
#include "runcmd.h"

#define NHD_PARTITION_MIN 2 /* nodes the partition guard probes, when it can */

size_t nhd_storm_recent(struct nhd_storm *s, double now, double window)
{
	size_t j = 0;
	for (size_t i = 0; i < s->n; i++)
		if (now - s->t[i] < window)
			s->t[j++] = s->t[i];
	s->n = j;
	return j;
}

void nhd_storm_add(struct nhd_storm *s, double now)
{
	if (s->n == NHD_STORM_MAX) {
		memmove(s->t, s->t + 1, (NHD_STORM_MAX - 1) * sizeof(s->t[0]));
		s->n--;
	}
	s->t[s->n++] = now;
}

int nhd_storm_allow(const struct nhd_conf *c, size_t local_recent, size_t cluster_drained,
		    size_t cluster_total, char *why, size_t whylen)
{
	size_t frac_max = (size_t)(c->storm_max_fraction * (double)cluster_total);
	if (frac_max < 1)
		frac_max = 1;
	if (local_recent + 1 > (size_t)c->storm_max_per_window) {
		snprintf(why, whylen,
			 "storm guard: this daemon already drained %zu node(s) in the last %.0f s "
			 "(storm_max_per_window = %ld)",
			 local_recent, c->storm_window, c->storm_max_per_window);
		return 0;
	}
	if (cluster_drained + 1 > (size_t)c->storm_max_drained) {
		snprintf(why, whylen,
			 "storm guard: %zu node(s) are already drained by mpiwatch "
			 "(storm_max_drained = %ld)",
			 cluster_drained, c->storm_max_drained);
		return 0;
	}
	if (cluster_drained + 1 > frac_max) {
		snprintf(why, whylen,
			 "storm guard: %zu of %zu nodes are already drained by mpiwatch; one more "
			 "exceeds storm_max_fraction = %g",
			 cluster_drained, cluster_total, c->storm_max_fraction);
		return 0;
	}
	return 1;
}

static int state_in(const char *state, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(state, *list))
			return 1;
	return 0;
}

int nhd_job_eligible(const struct mw_slurm_job *j, time_t now, long grace, char *why, size_t whylen)
{
	static const char *const running[] = {"RUNNING", "COMPLETING", "SUSPENDED", "CONFIGURING", NULL};
	static const char *const ended[] = {"FAILED",        "NODE_FAIL", "TIMEOUT",   "CANCELLED",
					    "COMPLETED",     "DEADLINE",  "BOOT_FAIL", "OUT_OF_MEMORY",
					    NULL};
	if (state_in(j->state, running))
		return 1;
	if (state_in(j->state, ended)) {
		if (j->end_time > 0 && now - j->end_time <= grace)
			return 1;
		snprintf(why, whylen, "job ended (%s) more than job_grace = %ld s ago", j->state, grace);
		return 0;
	}
	snprintf(why, whylen, "job is %s, neither running nor just ended", j->state[0] ? j->state : "in an unknown state");
	return 0;
}

int nhd_nodelist_has(const char *nodelist, const char *node)
{
	struct mw_hostlist hl = {0};
	int found = 0;
	if (mw_hostlist_expand(nodelist, 65536, &hl) < 0)
		return -1;
	for (size_t i = 0; i < hl.n && !found; i++)
		found = !strcmp(hl.host[i], node);
	mw_hostlist_free(&hl);
	return found;
}

int nhd_reason_ours(const char *reason)
{
	return !strncmp(reason, MW_DRAIN_REASON_PREFIX, strlen(MW_DRAIN_REASON_PREFIX));
}

static int state_has(const char *state, const char *flag)
{
	return strstr(state, flag) != NULL;
}

/* Is node k one that Slurm says is up and usable (not down, not drained)? */
static int slurm_up(const struct mw_slurm_node *x)
{
	return !mw_slurm_node_down(x) && !state_has(x->state, "DRAIN") && !state_has(x->state, "NOT_RESPONDING");
}

/* Probe every other node of the job (not target, not us); when the job has
 * fewer than NHD_PARTITION_MIN such nodes (a 2-node job has none), other
 * nodes of the cluster that Slurm lists as up, to make NHD_PARTITION_MIN.
 * Return 0 if the view looks sane (or the cluster is too small to tell); -1
 * (why set) if too many are dead to trust our own probes. */
static int partition_check(struct nhd_drain_ctx *ctx, const char *nodelist, const char *target,
			   const struct mw_slurm_node *nodes, long nn, char *why, size_t whylen)
{
	const struct nhd_conf *c = ctx->conf;
	struct mw_hostlist hl = {0};
	const char **names = NULL, **addrs = NULL;
	struct mw_probe_result *res = NULL;
	size_t n = 0, dead = 0, extra = 0;
	int rv = 0;

	if (mw_hostlist_expand(nodelist, 65536, &hl) < 0)
		return 0;
	names = calloc(hl.n + 1, sizeof(*names));
	addrs = calloc(hl.n + 1, sizeof(*addrs));
	res = calloc(hl.n + 1, sizeof(*res));
	if (!names || !addrs || !res)
		goto out;
	for (size_t i = 0; i < hl.n && n < 64; i++) {
		if (!strcmp(hl.host[i], target) || !strcmp(hl.host[i], ctx->self))
			continue;
		names[n] = hl.host[i];
		addrs[n] = NULL;
		for (long k = 0; k < nn; k++)
			if (!strcmp(nodes[k].name, hl.host[i]))
				addrs[n] = nodes[k].addr;
		n++;
	}
	if (n < NHD_PARTITION_MIN) {
		const char **nn_names = realloc(names, (n + NHD_PARTITION_MIN + 1) * sizeof(*names));
		const char **nn_addrs = nn_names ? realloc(addrs, (n + NHD_PARTITION_MIN + 1) * sizeof(*addrs)) : NULL;
		struct mw_probe_result *nres = nn_addrs ? realloc(res, (n + NHD_PARTITION_MIN + 1) * sizeof(*res)) : NULL;
		if (nn_names)
			names = nn_names;
		if (nn_addrs)
			addrs = nn_addrs;
		if (nres)
			res = nres;
		if (!nres)
			goto out;
		for (long k = 0; k < nn && n < NHD_PARTITION_MIN; k++) {
			int have = !strcmp(nodes[k].name, target) || !strcmp(nodes[k].name, ctx->self);
			for (size_t i = 0; i < n && !have; i++)
				have = !strcmp(names[i], nodes[k].name);
			if (have || !slurm_up(&nodes[k]))
				continue;
			names[n] = nodes[k].name;
			addrs[n] = nodes[k].addr;
			n++;
			extra++;
		}
	}
	if (n < 2)
		goto out; /* too few to tell a partition from a real failure */
	if (mw_probe_nodes_ex(names, addrs, n, (uint16_t)c->port, c->reprobe_timeout, (int)c->reprobe_tries,
			      MW_PROBE_F_PRIVSRC, res) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (res[i].state == MW_PROBE_DEAD || res[i].state == MW_PROBE_ERROR)
			dead++;
	if ((double)dead / (double)n > c->partition_max_dead_fraction) {
		snprintf(why, whylen,
			 "partition guard: %zu of the %s%zu other nodes do not answer us either; "
			 "this node may be cut off (partition_max_dead_fraction = %g)",
			 dead, extra ? "job's and cluster's " : "job's ", n, c->partition_max_dead_fraction);
		rv = -1;
	}
out:
	free(names);
	free(addrs);
	free(res);
	mw_hostlist_free(&hl);
	return rv;
}

static char *make_verdict(struct nhd_drain_ctx *ctx, uid_t uid, const struct mw_slurm_job *j,
			  const struct mw_drainreq *req, const char *reason, const struct mw_probe_result *pr)
{
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
	json_object_object_add(o, "uid", json_object_new_int64((int64_t)uid));
	json_object_object_add(o, "user", json_object_new_string(j->user));
	json_object_object_add(o, "time", json_object_new_string(ts));
	json_object_object_add(o, "drained_by", json_object_new_string(ctx->self));
	json_object_object_add(o, "reason", json_object_new_string(reason));
	json_object_object_add(o, "reprobe", json_object_new_string(pr->summary));
	json_object_object_add(o, "evidence", ev);
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return s;
}

int nhd_drain_handle(struct nhd_drain_ctx *ctx, uid_t uid, const struct mw_drainreq *req, char *msg,
		     size_t msglen, char **verdict)
{
	const struct nhd_conf *c = ctx->conf;
	const struct mw_slurm slurm = {c->scontrol, NHD_SLURM_TIMEOUT};
	struct mw_slurm_job job = {0};
	struct mw_slurm_node *nodes = NULL, *x = NULL;
	struct mw_probe_result pr;
	char why[512], reason[256];
	long nn;
	size_t drained = 0;
	int rv = -1, r;

	*verdict = NULL;
	if (!c->drain) {
		snprintf(msg, msglen, "drains are disabled on this node (drain = no)");
		goto out;
	}
	/* 1. the job and its owner */
	if (mw_slurm_job(&slurm, req->job, &job, why, sizeof(why)) < 0) {
		snprintf(msg, msglen, "cannot verify job %s: %s", req->job, why);
		goto out;
	}
	if (uid != 0 && (long)uid != job.uid) {
		snprintf(msg, msglen, "uid %u does not own job %s (owner %s, uid %ld)", (unsigned)uid, req->job,
			 job.user, job.uid);
		goto out;
	}
	if (!nhd_job_eligible(&job, time(NULL), c->job_grace, why, sizeof(why))) {
		snprintf(msg, msglen, "job %s: %s", req->job, why);
		goto out;
	}
	/* 2. the node belongs to the job */
	r = nhd_nodelist_has(job.nodelist, req->node);
	if (r <= 0) {
		snprintf(msg, msglen, "node %s is not part of job %s (nodes: %s)", req->node, req->job,
			 job.nodelist[0] ? job.nodelist : "none");
		goto out;
	}
	if (!strcmp(req->node, ctx->self)) {
		snprintf(msg, msglen, "node %s is this node, which is alive", req->node);
		goto out;
	}
	/* 3. the node's current state and reason in Slurm */
	nn = mw_slurm_nodes(&slurm, &nodes, why, sizeof(why));
	if (nn < 0) {
		snprintf(msg, msglen, "cannot read node states: %s", why);
		goto out;
	}
	for (long i = 0; i < nn; i++) {
		if (!strcmp(nodes[i].name, req->node))
			x = &nodes[i];
		if (nhd_reason_ours(nodes[i].reason) && state_has(nodes[i].state, "DRAIN"))
			drained++;
	}
	if (!x) {
		snprintf(msg, msglen, "node %s is unknown to Slurm", req->node);
		goto out;
	}
	if (x->reason[0] && !nhd_reason_ours(x->reason)) {
		snprintf(msg, msglen, "node %s (%s) already has a reason set by someone else, not overwriting: %s",
			 x->name, x->state, x->reason);
		goto out;
	}
	if (x->reason[0] && state_has(x->state, "DRAIN")) {
		snprintf(msg, msglen, "node %s is already drained by mpiwatch: %s", x->name, x->reason);
		rv = 0;
		goto out;
	}
	/* 4. our own re-probes */
	{
		const char *names[1] = {x->name}, *addrs[1] = {x->addr};
		/* From a privileged source port: the target answers it from
		 * buckets no user's flood can empty (doc/security.md). */
		if (mw_probe_nodes_ex(names, addrs, 1, (uint16_t)c->port, c->reprobe_timeout, (int)c->reprobe_tries,
				      MW_PROBE_F_PRIVSRC, &pr) < 0) {
			snprintf(msg, msglen, "cannot probe node %s: %s", x->name, strerror(errno));
			goto out;
		}
		if (pr.state == MW_PROBE_ALIVE || pr.state == MW_PROBE_DEGRADED) {
			snprintf(msg, msglen, "node %s answered our probe (%s, %.1f ms): it is not dead, not draining",
				 x->name, mw_probe_state_name(pr.state), pr.rtt_ms);
			goto out;
		}
		if (pr.state == MW_PROBE_NODAEMON && !mw_slurm_node_down(x)) {
			snprintf(msg, msglen, "node %s is up (%s) and Slurm does not say it is down (%s): not draining",
				 x->name, pr.summary, x->state);
			goto out;
		}
		if (pr.state == MW_PROBE_ERROR) {
			snprintf(msg, msglen, "cannot probe node %s: %s", x->name, pr.summary);
			goto out;
		}
	}
	/* 5. guards against partitions and storms */
	if (c->partition_check && partition_check(ctx, job.nodelist, x->name, nodes, nn, why, sizeof(why)) < 0) {
		snprintf(msg, msglen, "%s", why);
		goto out;
	}
	if (!nhd_storm_allow(c, nhd_storm_recent(ctx->storm, mw_now(), c->storm_window), drained, (size_t)nn,
			     why, sizeof(why))) {
		snprintf(msg, msglen, "%s", why);
		goto out;
	}
	/* 6. drain */
	snprintf(reason, sizeof(reason), "%s job %s: %s", MW_DRAIN_REASON_PREFIX, req->job, req->summary);
	if (mw_slurm_drain(&slurm, x->name, reason, why, sizeof(why)) < 0) {
		snprintf(msg, msglen, "drain of %s failed: %s", x->name, why);
		goto out;
	}
	nhd_storm_add(ctx->storm, mw_now());
	snprintf(msg, msglen, "node %s drained (%s; %s)", x->name, reason, pr.summary);
	*verdict = make_verdict(ctx, uid, &job, req, reason, &pr);
	rv = 0;
out:
	free(nodes);
	mw_slurm_job_free(&job);
	return rv;
}

void nhd_drain_run_hooks(const struct nhd_conf *c, const char *verdict)
{
	/* A clean environment: nothing of the daemon's (nor of whoever
	 * started it) reaches a program that runs as root; the verdict,
	 * with the user's evidence, is data on stdin only. */
	static char *const clean_env[] = {NHD_HOOK_PATH, "LC_ALL=C", NULL};
	struct mw_runcmd_opts o = {.timeout_s = c->hook_timeout, .max_output = 64 * 1024, .envp = clean_env};

	for (size_t i = 0; i < c->hook.n; i++) {
		char *argv[2] = {c->hook.v[i], NULL}, *line, *save = NULL;
		struct mw_runcmd_result r;
		char *input;
		if (asprintf(&input, "%s\n", verdict) < 0)
			return;
		if (mw_run_command_ex(argv, input, &o, &r) < 0) {
			mw_warn("hook %s: %s", c->hook.v[i], strerror(errno));
			free(input);
			continue;
		}
		free(input);
		if (r.exec_errno)
			mw_warn("hook %s: %s", c->hook.v[i], strerror(r.exec_errno));
		else if (r.timed_out)
			mw_warn("hook %s: killed after hook_timeout", c->hook.v[i]);
		else if (r.signal)
			mw_warn("hook %s killed by signal %d", c->hook.v[i], r.signal);
		else if (r.status != 0)
			mw_warn("hook %s exited with status %d", c->hook.v[i], r.status);
		else
			mw_info("hook %s ran", c->hook.v[i]);
		if (r.output) {
			int lines = 0;
			for (line = strtok_r(r.output, "\n", &save); line && lines < 20;
			     line = strtok_r(NULL, "\n", &save))
				mw_info("hook %s: %.300s", c->hook.v[i], line), lines++;
		}
		free(r.output);
	}
}
