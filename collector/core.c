/* core.c - the job collector (core.h; design in doc/collector.md).
 *
 * One single-threaded poll loop over a signalfd, the listening socket and
 * the agents' links.  Heartbeats update the per-rank state; when the number
 * of suspicious ranks (stuck in MPI, exited, vanished) crosses the
 * threshold, or an agent's connection is lost without a goodbye, the
 * collector waits a short settle time for the other heartbeats and dumps,
 * then probes every node through nodehealthd's UDP protocol (in parallel,
 * with retries and a time budget), classifies, and acts: drain request for
 * dead nodes, the verdict as the job's comment, cancel or requeue.  The
 * probe round, the drain requests and the Slurm commands block the loop for
 * their (bounded) duration; agents' frames wait in the socket buffers.
 */
#include "core.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ap.h"
#include "mwt_plan.h"
#include "auth.h"
#include "authq.h"
#include "colstate.h"
#include "coltree.h"
#include "answer.h"
#include "dl.h"
#include "drainreq.h"
#include "fsutil.h"
#include "hostlist.h"
#include "joblog.h"
#include "jobconf.h"
#include "imb.h"
#include "imb_phases.h"
#include "mw_link.h"
#include "mwt_cp.h"
#include "log.h"
#include "ready.h"
#include "sigfd.h"
#include "restd.h"
#include "slurm.h"

#define COL_MAX_CLIENTS 4096
/* Before its HELLO is welcomed a connection holds little (frames of at
 * most MW_HB_PREAUTH_MAX bytes), has MW_LINK_HELLO_DEADLINE_S seconds, and
 * is one of a few from its address (mw_link_preauth_victim). */
#define COL_HELLO_TIMEOUT MW_LINK_HELLO_DEADLINE_S

/* Where a connection is in the handshake (doc/protocol.md "Handshake"). */
enum col_au {
	AU_VERIFY,   /* waiting for the agent's nonce */
	AU_PROVING,  /* our proof is being made (authq) */
	AU_HELLO,    /* challenge sent, waiting for the HELLO */
	AU_CHECKING, /* the HELLO's credential is being checked (authq) */
	AU_DONE,     /* welcomed, or refused and closing */
};

static struct mw_ratelimit report_rl = MW_RATELIMIT_INIT(0.1, 2);
static struct mw_ratelimit peer_rl = MW_RATELIMIT_INIT(1, 10);

struct client {
	struct mw_link *l;
	int node;      /* index into the node table, -1 before hello */
	int hello;     /* welcomed */
	int closing;   /* close once flushed */
	double t_conn;
	char nonce[MW_HB_NONCE_LEN + 1]; /* this connection's challenge */
	uint64_t id;               /* its authq jobs name it */
	enum col_au au;
	char src[64];              /* the peer's address, without the port */
	struct mw_hb_hello *hello_wait; /* the HELLO under check (AU_CHECKING) */
};

struct col_retry;

/* Our own probe round of the nodes the CPs did not report on, under way
 * while the event loop goes on (agents attach, heartbeats count): begun by
 * an evaluation, which resumes when it is over (own_probe_ready). */
struct own_probe {
	int active;
	struct mw_probe_round *round; /* NULL: nothing to probe, or it could not start */
	int start_errno;
	size_t nn, nown, ncp;
	const char **names, **addrs;
	char (*nodes)[64], (*hosts)[64]; /* what names and addrs point to: the node
					   table may grow while the round goes on */
	struct mw_probe_result *out, *own;
	char *covered;
	char (*by)[MW_HB_STR_MAX + 1];
	size_t *idx;
};

struct collector {
	struct col_opts *o;
	struct col_state s;
	int lfd, sfd;
	uint16_t port;
	struct client *c;
	size_t nc;
	int stop;
	double stopping_until; /* told to stop: until then, wait for the agents' last words (0 = not told) */
	int pending;          /* an evaluation is scheduled */
	double eval_at;       /* when (monotonic) */
	unsigned long gen;    /* bumps with every suspicious change */
	unsigned long eval_gen;
	int computing_noted;
	int slow_notes; /* "slow, not stuck" notes written (at most 16) */
	int after_notes;
	int status_dirty;     /* agents or ranks changed: refresh report.json (mpiwatch status --job) */
	struct col_tree *tree;   /* the tree overlay (coltree.c), NULL in the flat star */
	int dumpreq_due;         /* tree: ranks got stuck after the threshold: ask for their dumps */
	struct col_retry *retry; /* actions to retry (Slurm did not answer) */
	size_t nretry;
	double status_at;     /* when it was last refreshed for that */
	double mpierr_grace_until; /* waiting (once) for the MPI library's line, 0 = not yet */
	double settle_until;  /* waiting (once) for the other ranks' ends, 0 = not yet */
	uint32_t tprobe_round;  /* tree: the probe round asked of the CPs, 0 none */
	uint32_t tprobe_seq;    /* the last round's number */
	double tprobe_until;    /* ... the collector waits for their summaries until then */
	int final_eval;         /* the last evaluation at shutdown: no waiting for CPs */
	char joblog[4200];    /* the batch job's output file (joblog.h), "" not known */
	int joblog_asked;     /* Slurm was asked for it */
	struct own_probe pr;  /* our probe round, when one is under way */
	struct col_authq *aq; /* MUNGE work off the loop */
	uint64_t next_id;
};

/* A report left by an earlier collector of the same job (the job was
 * requeued and runs again) is kept as report-runN.{json,txt}. */
static void keep_old_reports(const char *dir)
{
	char from[4200], to[4200];
	int n;
	snprintf(from, sizeof from, "%s/report.json", dir);
	if (access(from, F_OK) != 0)
		return;
	for (n = 1; n < 1000; n++) {
		snprintf(to, sizeof to, "%s/report-run%d.json", dir, n);
		if (access(to, F_OK) != 0)
			break;
	}
	if (rename(from, to) == 0)
		mw_info("kept the previous run's report as %s", to);
	snprintf(from, sizeof from, "%s/report.txt", dir);
	snprintf(to, sizeof to, "%s/report-run%d.txt", dir, n);
	rename(from, to);
}

/* Copy s into a fixed-size field; -1 if it does not fit. */
static int set_field(char *dst, size_t len, const char *s)
{
	if (!s)
		s = "";
	if (strlen(s) >= len)
		return -1;
	memcpy(dst, s, strlen(s) + 1);
	return 0;
}

int col_opts_set_job(struct col_opts *o, const struct mw_jobconf *jc)
{
	o->timeout_s = jc->timeout;
	o->hang_limit_s = jc->hang_limit;
	if (set_field(o->threshold, sizeof o->threshold, jc->threshold) < 0 ||
	    col_threshold_parse(o->threshold, &o->thr) < 0 ||
	    (jc->dir && jc->dir[0] && set_field(o->dir, sizeof o->dir, jc->dir) < 0) ||
	    set_field(o->restd, sizeof o->restd, jc->restd) < 0 ||
	    set_field(o->nhd_socket, sizeof o->nhd_socket, jc->nhd_socket) < 0 ||
	    set_field(o->munge_socket, sizeof o->munge_socket, jc->munge_socket) < 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	o->action = jc->action == MW_JC_CANCEL ? COL_ACT_CANCEL
		    : jc->action == MW_JC_REQUEUE ? COL_ACT_REQUEUE : COL_ACT_REPORT;
	o->drain = jc->drain;
	o->post = jc->post;
	o->probe_port = (uint16_t)jc->probe_port;
	o->tree_threshold = jc->tree_threshold;
	o->tree_fanout = jc->tree_fanout;
	o->tree_cps = jc->tree_cps;
	o->tree_strategy = jc->tree_strategy;
	o->tree_weights_set = jc->tree_weights && jc->tree_weights[0] &&
			      mw_jobconf_weights(jc->tree_weights, o->tree_weights, MW_JOBCONF_NWEIGHTS) == 0;
	o->port = (uint16_t)(jc->port ? jc->port : jc->port_base);
	o->liveness_s = jc->liveness;
	return 0;
}

void col_opts_default(struct col_opts *o)
{
	struct mw_jobconf jc;

	memset(o, 0, sizeof *o);
	if (mw_jobconf_init(&jc) == 0) { /* the table's defaults */
		col_opts_set_job(o, &jc);
		mw_jobconf_free(&jc);
	}
	o->hang_limit_s = 0; /* MW_HANG_LIMIT_FACTOR x the timeout given */
	o->nports = 5;
	o->settle_s = -1; /* derived from the timeout */
	o->probe_budget_s = 3.0;
	o->probe_tries = 3;
	o->job_check_s = 30;
	o->auth = 1;
}

static void read_link_errors(struct collector *c);

/* The plugin's mark that a watched task ended badly (MW_PENDING_FILE): srun
 * waits for it to go before it prints the answer.  Removed once the report
 * tells what happened (a verdict, or nothing is suspicious). */
static void pending_clear(const struct collector *c)
{
	char path[4200];
	if (!c->o->dir[0])
		return;
	snprintf(path, sizeof path, "%s/%s", c->o->dir, MW_PENDING_FILE);
	unlink(path);
}

static long suspicious_count(const struct col_state *s);

static void write_reports(struct collector *c)
{
	static double read_at;
	if (c->stop || mw_now() - read_at >= 5.0) { /* the agents' link errors, now and then */
		read_at = mw_now();
		read_link_errors(c);
	}
	if (col_report_write(&c->s, c->o->dir, c->o->report) < 0)
		mw_log_limited(&report_rl, LOG_ERR, "cannot write the report in %s: %s",
			       c->o->report[0] ? c->o->report : c->o->dir, strerror(errno));
	else if (c->s.decided || c->stop || !suspicious_count(&c->s))
		pending_clear(c);
}

/* ------------------------------------------------------------ evaluation */

static long suspicious_count(const struct col_state *s)
{
	long n = 0;
	for (size_t i = 0; i < s->size; i++)
		n += col_state_suspicious(s->ranks[i].state);
	return n;
}

static long job_ranks(const struct collector *c)
{
	return c->s.expected_ranks > 0 ? c->s.expected_ranks : (long)c->s.size;
}

static void schedule(struct collector *c, double delay)
{
	double at = mw_now() + delay;
	if (c->s.decided)
		return;
	if (!c->pending || at < c->eval_at)
		c->eval_at = at;
	c->pending = 1;
}

static void send_dumpreq(struct collector *c)
{
	for (size_t k = 0; k < c->nc; k++) {
		struct client *cl = &c->c[k];
		struct mw_hb_msg m = {0};
		int32_t want[256];
		size_t n = 0;
		if (!cl->hello || cl->closing)
			continue;
		/* A CP passes it down its subtree: every rank wanted. */
		for (size_t r = 0; r < c->s.size && n < 256; r++)
			if ((c->s.ranks[r].node == cl->node || col_tree_is_cp(c->tree, cl->node)) &&
			    c->s.ranks[r].state == MW_HB_S_IN_MPI && !c->s.ranks[r].has_dump)
				want[n++] = (int32_t)r;
		if (!n)
			continue;
		m.type = MW_HB_DUMPREQ;
		m.u.dumpreq.ranks = want;
		m.u.dumpreq.n = n;
		if (mw_link_send(cl->l, &m) < 0)
			cl->closing = 1;
	}
}

/* Auxiliary processes (ap.h): at a suspicious event, ask the agents of
 * every node of the job (or of the suspicious ranks' nodes only, as the
 * site says) to run the site's commands.  In the tree, one APREQ per
 * direct link: a CP sends it on down the subtrees that hold the nodes it
 * names (all of them when it names none: every node).  Nothing waits for
 * them. */
static void send_apreq(struct collector *c, const char *reason)
{
	struct col_state *s = &c->s;
	uint32_t round = col_ap_round_begin(s->ap, reason, mw_now());
	int *cl_of = NULL, *top = NULL;
	char *susp = NULL, *want = NULL, *sent_ok = NULL;
	char(*names)[MW_HB_STR_MAX + 1] = NULL;
	size_t asked = 0, sent = 0;
	int every = !col_ap_suspicious_only(s->ap);

	if (!round)
		return;
	cl_of = malloc((s->nnodes + 1) * sizeof *cl_of);
	top = malloc((s->nnodes + 1) * sizeof *top);
	susp = calloc(s->nnodes + 1, 1);
	want = calloc(s->nnodes + 1, 1);
	sent_ok = calloc(s->nnodes + 1, 1);
	names = calloc(s->nnodes + 1, sizeof *names);
	if (!cl_of || !top || !susp || !want || !sent_ok || !names)
		goto out;
	for (size_t i = 0; i < s->nnodes; i++)
		cl_of[i] = -1;
	for (size_t k = 0; k < c->nc; k++)
		if (c->c[k].hello && !c->c[k].closing && c->c[k].node >= 0)
			cl_of[c->c[k].node] = (int)k;
	for (size_t r = 0; r < s->size; r++)
		if (s->ranks[r].node >= 0 && (size_t)s->ranks[r].node < s->nnodes &&
		    col_state_suspicious(s->ranks[r].state))
			susp[s->ranks[r].node] = 1;
	for (size_t i = 0; i < s->nnodes; i++) {
		want[i] = every || susp[i] || s->agents[i].vanished;
		top[i] = col_tree_top(c->tree, s, (int)i);
	}
	/* One APREQ per direct link that reaches a wanted node. */
	for (size_t l = 0; l < s->nnodes; l++) {
		struct mw_hb_msg m = {0};
		size_t n = 0;
		if (cl_of[l] < 0)
			continue;
		for (size_t i = 0; i < s->nnodes; i++)
			if (want[i] && top[i] == (int)l)
				snprintf(names[n++], sizeof names[0], "%s", s->nodes[i].name);
		if (!n)
			continue;
		m.type = MW_HB_APREQ;
		m.u.apreq.round = round;
		m.u.apreq.nodes = every ? NULL : names;
		m.u.apreq.n = every ? 0 : n;
		sent_ok[l] = mw_link_send(c->c[cl_of[l]].l, &m) == 0;
		if (!sent_ok[l])
			c->c[cl_of[l]].closing = 1;
	}
	for (size_t i = 0; i < s->nnodes; i++) {
		int ok;
		if (!want[i])
			continue;
		ok = top[i] >= 0 && (size_t)top[i] < s->nnodes && sent_ok[top[i]];
		col_ap_round_node(s->ap, round, s->nodes[i].name, ok);
		asked++;
		sent += (size_t)ok;
	}
	col_state_event(s, "note", "auxiliary processes: round %u (%zu command(s)) asked of %zu node(s), "
				   "%zu reached", round, col_ap_ncommands(s->ap), asked, sent);
out:
	free(cl_of);
	free(top);
	free(susp);
	free(want);
	free(sent_ok);
	free(names);
}

static void check_threshold(struct collector *c)
{
	long n = suspicious_count(&c->s), need = col_threshold_need(&c->o->thr, job_ranks(c));
	if (c->s.decided || n < need || c->gen == c->eval_gen)
		return;
	if (!c->pending) {
		if (c->s.threshold_mono <= 0)
			c->s.threshold_mono = mw_now();
		col_state_event(&c->s, "threshold", "%ld suspicious rank(s) >= threshold %s (%ld needed)",
				n, c->o->threshold, need);
		send_dumpreq(c);
		send_apreq(c, "threshold crossed");
	}
	{
		/* Only exits so far: their peers need the timeout to be seen
		 * stuck, so wait for that (C instead of nothing). */
		int stuck = 0;
		for (size_t i = 0; i < c->s.size; i++)
			stuck |= c->s.ranks[i].state == MW_HB_S_IN_MPI;
		schedule(c, stuck ? c->o->settle_s : c->o->timeout_s + 1.0);
	}
}

/* A node that is up without nodehealthd is not dead, unless Slurm agrees
 * that it is down (mw_slurm_node_down, the rule nodehealthd's drain check
 * applies too).  Slurm is asked only when such a node exists. */
static void nodaemon_rule(struct mw_probe_result *out, size_t n, const char **names)
{
	struct mw_slurm_node *v = NULL;
	long nv = -1;
	char err[256];

	for (size_t i = 0; i < n; i++) {
		if (out[i].state != MW_PROBE_NODAEMON)
			continue;
		if (nv < 0 && (nv = mw_slurm_nodes(NULL, &v, err, sizeof err)) < 0) {
			mw_warn("cannot ask Slurm about node %s, up without nodehealthd: %s", names[i], err);
			return;
		}
		for (long k = 0; k < nv; k++)
			if (!strcmp(v[k].name, names[i]) && mw_slurm_node_down(&v[k])) {
				out[i].state = MW_PROBE_DEAD;
				snprintf(out[i].summary, sizeof out[i].summary,
					 "no nodehealthd, and Slurm says the node is %.100s", v[k].state);
			}
	}
	free(v);
}

/* col_tree_send_fn: to the agent of node on its direct link. */
static int send_to_node(void *arg, int node, const struct mw_hb_msg *m);

/* Probing down the tree (doc/tree.md): in a tree job the collector first
 * asks the CPs it serves to probe their subtrees (PROBEREQ) and waits for
 * their summaries, up to the budget and a margin per level.  Return 1 when
 * the results are in (or the job runs no tree), 0 while waiting (the
 * evaluation is scheduled again). */
static int tree_probe_ready(struct collector *c)
{
	double now = mw_now();
	if (!c->tree || c->final_eval)
		return 1; /* a round under way: what came in is used, the rest probed by us */
	if (!c->tprobe_round) {
		struct mw_hb_probereq r = {0};
		int asked;
		r.round = ++c->tprobe_seq;
		r.port = c->o->probe_port;
		r.tries = c->o->probe_tries;
		r.budget_s = c->o->probe_budget_s;
		r.wait_s = r.budget_s + 0.2 + MWT_PROBE_LEVEL_S * col_tree_depth(c->tree);
		asked = col_tree_probe_begin(c->tree, &c->s, &r, send_to_node, c);
		if (asked <= 0)
			return 1;
		c->s.st.probe_requests += (unsigned long)asked;
		c->tprobe_round = r.round;
		c->tprobe_until = now + r.wait_s + 0.5;
		col_state_event(&c->s, "probe_start", "probe round %u down the tree: %d CP(s) asked to probe their "
				"subtrees (%d tries, %.1f s budget, summaries due within %.1f s)",
				r.round, asked, r.tries, r.budget_s, r.wait_s);
		schedule(c, c->tprobe_until - now);
		return 0;
	}
	if (!col_tree_probe_done(c->tree) && now < c->tprobe_until) {
		schedule(c, c->tprobe_until - now);
		return 0;
	}
	return 1;
}

static void probe_free(struct own_probe *pr)
{
	if (pr->round)
		mw_probe_round_finish(pr->round);
	free(pr->names);
	free(pr->addrs);
	free(pr->nodes);
	free(pr->hosts);
	free(pr->out);
	free(pr->own);
	free(pr->covered);
	free(pr->by);
	free(pr->idx);
	memset(pr, 0, sizeof *pr);
}

/* Begin probing the job's nodes: the CPs' summaries first, our own round
 * for the rest.  Return 0, or -1 (no memory: nothing probed). */
static int probe_begin(struct collector *c)
{
	struct col_state *s = &c->s;
	struct own_probe *pr = &c->pr;
	size_t nn = s->nnodes ? s->nnodes : 1;

	memset(pr, 0, sizeof *pr);
	pr->nn = s->nnodes;
	pr->names = calloc(nn, sizeof *pr->names);
	pr->addrs = calloc(nn, sizeof *pr->addrs);
	pr->nodes = calloc(nn, sizeof *pr->nodes);
	pr->hosts = calloc(nn, sizeof *pr->hosts);
	pr->out = calloc(nn, sizeof *pr->out);
	pr->own = calloc(nn, sizeof *pr->own);
	pr->covered = calloc(nn, 1);
	pr->by = calloc(nn, sizeof *pr->by);
	pr->idx = calloc(nn, sizeof *pr->idx);
	if (!pr->names || !pr->addrs || !pr->nodes || !pr->hosts || !pr->out || !pr->own || !pr->covered ||
	    !pr->by || !pr->idx) {
		probe_free(pr);
		return -1;
	}
	pr->active = 1;
	s->st.probe_rounds++;
	/* The CPs' summaries first: the same results as our own probes. */
	if (c->tprobe_round) {
		pr->ncp = col_tree_probe_take(c->tree, s, pr->out, pr->covered, pr->by);
		c->tprobe_round = 0;
	}
	for (size_t i = 0; i < pr->nn; i++) {
		if (pr->covered[i])
			continue;
		pr->idx[pr->nown] = i;
		snprintf(pr->nodes[pr->nown], sizeof pr->nodes[pr->nown], "%s", s->nodes[i].name);
		snprintf(pr->hosts[pr->nown], sizeof pr->hosts[pr->nown], "%s", s->agents[i].addr);
		pr->names[pr->nown] = pr->nodes[pr->nown];
		pr->addrs[pr->nown] = pr->hosts[pr->nown][0] ? pr->hosts[pr->nown] : NULL;
		pr->nown++;
	}
	col_state_event(s, "probe_start", "probing %zu node(s) on udp port %u (%d tries, %.1f s budget)%s",
			pr->nown, c->o->probe_port, c->o->probe_tries, c->o->probe_budget_s,
			pr->ncp ? ": those the CPs did not report on" : "");
	if (pr->nown) {
		pr->round = mw_probe_round_start(pr->names, pr->addrs, pr->nown, c->o->probe_port,
						 c->o->probe_budget_s, c->o->probe_tries, pr->own);
		if (!pr->round)
			pr->start_errno = errno;
	}
	return 0;
}

/* The round is over: the nodes' states from the CPs' summaries and our own
 * results, the report's probe events; free the round. */
static void probe_end(struct collector *c)
{
	struct col_state *s = &c->s;
	struct own_probe *pr = &c->pr;
	size_t nn = pr->nn < s->nnodes ? pr->nn : s->nnodes; /* nodes that joined since: not probed */
	int alive = 0, dead = 0, degraded = 0, nodaemon = 0, own_alive = 0;
	struct mw_probe_result *out = pr->out;

	if (pr->round) {
		own_alive = mw_probe_round_finish(pr->round);
		pr->round = NULL;
	} else if (pr->nown) {
		own_alive = -1;
		errno = pr->start_errno;
		for (size_t k = 0; k < pr->nown; k++) {
			pr->own[k].state = MW_PROBE_ERROR;
			snprintf(pr->own[k].summary, sizeof pr->own[k].summary, "local error: %s",
				 strerror(pr->start_errno));
		}
	}
	int saved = errno;
	for (size_t k = 0; k < pr->nown; k++) {
		out[pr->idx[k]] = pr->own[k];
		s->st.probes_sent += (unsigned long)(pr->own[k].tries > 0 ? pr->own[k].tries : 0);
		s->st.probe_answers += pr->own[k].state == MW_PROBE_ALIVE || pr->own[k].state == MW_PROBE_DEGRADED ||
				       pr->own[k].state == MW_PROBE_NODAEMON;
	}
	for (size_t i = 0; i < nn; i++)
		pr->names[i] = s->nodes[i].name;
	nodaemon_rule(out, nn, pr->names);
	for (size_t i = 0; i < nn; i++) {
		struct col_node *n = &s->nodes[i];
		n->probed = 1;
		n->state = out[i].state;
		n->rtt_ms = out[i].rtt_ms;
		snprintf(n->summary, sizeof n->summary, "%s", out[i].summary);
		snprintf(n->probed_by, sizeof n->probed_by, "%s", pr->covered[i] ? pr->by[i] : "");
		if (out[i].addr[0])
			snprintf(n->addr, sizeof n->addr, "%s", out[i].addr);
		alive += n->state == MW_PROBE_ALIVE || n->state == MW_PROBE_DEGRADED;
		dead += n->state == MW_PROBE_DEAD;
		degraded += n->state == MW_PROBE_DEGRADED;
		nodaemon += n->state == MW_PROBE_NODAEMON;
		if (pr->covered[i] && n->state != MW_PROBE_ALIVE)
			col_state_event(s, "probe", "node %s: %s, probed by CP on %s (%d tries%s%s)", n->name,
					mw_probe_state_name(n->state), pr->by[i], out[i].tries, n->summary[0] ? ": " : "",
					n->summary);
	}
	if (own_alive < 0)
		alive = -1;
	if (alive == 0 && dead > 0) {
		/* Not even our own node answered: the probe itself is broken
		 * (no nodehealthd, wrong port, firewall).  Judging every node
		 * dead would drain the job's nodes for nothing. */
		for (size_t i = 0; i < nn; i++) {
			if (s->nodes[i].state != MW_PROBE_DEAD)
				continue;
			s->nodes[i].state = MW_PROBE_ERROR;
			snprintf(s->nodes[i].summary, sizeof s->nodes[i].summary,
				 "no node answered any probe: is mpiwatch-nodehealthd running on port %u?",
				 c->o->probe_port);
		}
		col_state_event(s, "probe_end",
				"no node answered (%d probe(s) lost): liveness unknown, no node judged dead",
				dead);
	} else if (alive < 0)
		col_state_event(s, "probe_end", "probe failed locally: %s (no node judged dead)",
				strerror(saved));
	else
		col_state_event(s, "probe_end", "%d alive, %d degraded, %d dead, %d up without nodehealthd, "
				"%zu unprobeable; %zu node(s) probed by CPs, %zu by the collector",
				alive - degraded, degraded, dead, nodaemon,
				nn - (size_t)alive - (size_t)dead - (size_t)nodaemon, pr->ncp, pr->nown);
	probe_free(pr);
}

/* Our own probe round for the evaluation: begun on the first call, over on
 * a later one (the event loop steps it meanwhile: agents attach and
 * heartbeats count while it waits for replies).  At the last evaluation
 * (shutdown) it runs to its end here.  Return 1 when the nodes' states are
 * in, 0 while it goes on (the evaluation is scheduled again). */
static int own_probe_ready(struct collector *c)
{
	struct own_probe *pr = &c->pr;
	if (!pr->active && probe_begin(c) < 0)
		return 1; /* no memory: judged without probing */
	if (pr->round && c->final_eval) {
		while (mw_probe_round_step(pr->round) == 0) {
			struct pollfd pfd[2];
			int np = mw_probe_round_fds(pr->round, pfd, 2);
			if (poll(pfd, (nfds_t)np, mw_probe_round_timeout_ms(pr->round)) < 0 && errno != EINTR)
				break;
		}
	} else if (pr->round && mw_probe_round_step(pr->round) == 0) {
		schedule(c, mw_probe_round_timeout_ms(pr->round) / 1e3);
		return 0;
	}
	probe_end(c);
	return 1;
}

/* An action on Slurm that failed while Slurm did not answer (slurmctld
 * down or restarting): retried with backoff, so the drain, the comment and
 * the cancel or requeue are not lost; the report is on disk already. */
enum col_act_kind { COL_DO_DRAIN, COL_DO_COMMENT, COL_DO_CANCEL, COL_DO_REQUEUE };
#define COL_RETRY_MAX 40       /* tries per action (10 minutes at the cap) */
#define COL_RETRY_FIRST_S 2.0  /* first backoff, doubled up to ... */
#define COL_RETRY_CAP_S 15.0

struct col_retry {
	enum col_act_kind kind;
	int node; /* COL_DO_DRAIN: index into the node table */
	int tries;
	double backoff, at;
};

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

/* Do one action once; record it.  Return 1 if done. */
static int do_action(struct collector *c, enum col_act_kind kind, int node)
{
	struct col_state *s = &c->s;
	const struct col_result *r = &s->res;
	char msg[512] = "", via[32], text[1000];
	const char *target = s->job;
	int ok = 0;

	switch (kind) {
	case COL_DO_DRAIN:
		target = s->nodes[node].name;
		ok = drain_one(c, node, msg, sizeof msg);
		break;
	case COL_DO_COMMENT: {
		/* Appended to the user's own --comment, never replacing it. */
		struct mw_slurm_job j = {0};
		char err[256], rpath[4200] = "";
		if (mw_slurm_job(NULL, s->job, &j, err, sizeof err) < 0) {
			/* Without the user's comment ours would replace it: not now. */
			snprintf(msg, sizeof msg, "cannot read the job's own comment to append to it: %.400s", err);
			break;
		}
		if (c->o->dir[0])
			snprintf(rpath, sizeof rpath, "%s/report.txt", c->o->dir);
		col_report_comment(s, j.comment, rpath, text, sizeof text);
		mw_slurm_job_free(&j);
		ok = col_post_comment(c->o->restd, s->job, text, via, sizeof via, msg, sizeof msg) == 0;
		if (ok)
			s->st.comments++;
		break;
	}
	case COL_DO_CANCEL:
		ok = mw_slurm_cancel(NULL, s->job, msg, sizeof msg) == 0;
		break;
	case COL_DO_REQUEUE: {
		const char *dn[64];
		size_t n = 0;
		for (size_t i = 0; i < r->ndead && n < 64; i++)
			dn[n++] = s->nodes[r->dead_nodes[i]].name;
		ok = mw_slurm_requeue(NULL, s->job, dn, n, msg, sizeof msg) == 0;
		break;
	}
	}
	col_state_action(s, act_names[kind], target, ok, msg);
	return ok;
}

/* Do an action; if it fails while Slurm does not answer, queue a retry. */
static void do_or_retry(struct collector *c, struct col_retry *x)
{
	x->tries++;
	if (do_action(c, x->kind, x->node))
		return;
	if (x->tries >= COL_RETRY_MAX || mw_slurm_job_active(NULL, c->s.job) >= 0)
		return; /* refused while Slurm answers: a final answer */
	{
		struct col_retry *v = realloc(c->retry, (c->nretry + 1) * sizeof *v);
		if (!v)
			return;
		c->retry = v;
		x->backoff = x->backoff > 0 ? x->backoff * 2 : COL_RETRY_FIRST_S;
		if (x->backoff > COL_RETRY_CAP_S)
			x->backoff = COL_RETRY_CAP_S;
		x->at = mw_now() + x->backoff;
		v[c->nretry++] = *x;
		col_state_event(&c->s, "note", "%s of %s failed and Slurm does not answer: retry %d in %.0f s",
				act_names[x->kind],
				x->kind == COL_DO_DRAIN ? c->s.nodes[x->node].name : c->s.job, x->tries + 1,
				x->backoff);
	}
}

/* The retries that are due (the main loop calls this). */
static void retry_due(struct collector *c)
{
	double now = mw_now();
	for (size_t i = 0; i < c->nretry;) {
		struct col_retry x = c->retry[i];
		if (x.at > now) {
			i++;
			continue;
		}
		c->retry[i] = c->retry[--c->nretry];
		do_or_retry(c, &x);
		write_reports(c);
	}
}

static void act(struct collector *c)
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

/* Run the deadlock analysis (analyze/) over the dumps received so far: its
 * answer, found or not, is the report's deadlock answer (s->dl). */
static int has_profiles(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	if (!d)
		return 0;
	while (!n && (e = readdir(d)))
		n = strncmp(e->d_name, "profile.", 8) == 0 || strncmp(e->d_name, "MULTI__", 7) == 0;
	closedir(d);
	return n;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One analysis written to OUTDIR/imbalance<suffix>.*, told in the timeline. */
static void imbalance_one(struct collector *c, const char *prof, const char *label, const char *suffix)
{
	char err[1024];
	struct imb_fluct_result fl;
	if (imb_write_reports(prof, c->o->dir, suffix, &fl, err, sizeof err) == 0) {
		mw_info("load imbalance of %s in %s/imbalance%s.txt", label, c->o->dir, suffix);
		col_state_event(&c->s, "note", "load imbalance of %s: imbalance%s.txt, imbalance%s.html",
				label, suffix, suffix);
		/* The compute-phase fluctuation flags (issue 14), one note each. */
		for (size_t i = 0; i < fl.nnode; i++)
			col_state_event(&c->s, "note", "%s: %s", label, fl.node_message[i]);
		for (size_t i = 0; i < fl.n; i++)
			col_state_event(&c->s, "note", "%s: %s", label, fl.f[i].message);
		imb_fluct_free(&fl);
	} else {
		mw_warn("no load-imbalance analysis of %s: %s", label, err);
		col_state_event(&c->s, "note", "no load-imbalance analysis of %s: %.300s", label, err);
	}
}

/* --profile DIR at the end of the job: the imbalance analysis of the profiles
 * in DIR, or of each step's folder in it (imbalance.STEP.* when there are
 * several), beside the report. */
static void imbalance_at_end(struct collector *c)
{
	const char *prof = c->o->profile;
	char *names[256], sub[8300], suffix[300];
	size_t n = 0;
	DIR *d;
	struct dirent *e;


	if (!prof[0] || !c->o->dir[0])
		return;
	if (has_profiles(prof)) {
		imbalance_one(c, prof, "the job", "");
		return;
	}
	d = opendir(prof);
	if (!d)
		return; /* nothing profiled */
	while ((e = readdir(d)) && n < sizeof names / sizeof names[0]) {
		if (e->d_name[0] == '.' || strlen(e->d_name) > 200)
			continue;
		snprintf(sub, sizeof sub, "%s/%s", prof, e->d_name);
		if (has_profiles(sub) && (names[n] = strdup(e->d_name)))
			n++;
	}
	closedir(d);
	qsort(names, n, sizeof names[0], name_cmp);
	for (size_t i = 0; i < n; i++) {
		char label[256];
		snprintf(sub, sizeof sub, "%s/%s", prof, names[i]);
		snprintf(label, sizeof label, "%s", names[i]);
		snprintf(suffix, sizeof suffix, n == 1 ? "%s" : ".%s", n == 1 ? "" : names[i]);
		imbalance_one(c, sub, label, suffix);
		free(names[i]);
	}
}

/* The integer array o[key] as a new array (*n entries; NULL and 0 when it
 * is missing or memory runs out). */
static int *int_list(json_object *o, const char *key, size_t *n)
{
	json_object *a = NULL;
	int *v;
	*n = 0;
	if (!json_object_object_get_ex(o, key, &a) || !json_object_is_type(a, json_type_array))
		return NULL;
	size_t len = json_object_array_length(a);
	v = malloc((len ? len : 1) * sizeof *v);
	if (!v)
		return NULL;
	for (size_t i = 0; i < len; i++)
		v[i] = json_object_get_int(json_object_array_get_idx(a, i));
	*n = len;
	return v;
}

static void analyse_dumps(struct collector *c)
{
	struct col_state *s = &c->s;
	struct dl_options opt;
	struct dl_result *dr = NULL;
	char dir[4200];
	const char **names = NULL;
	char **bufs = NULL, (*nb)[32] = NULL;
	size_t *lens = NULL;
	int ndumps = 0, rc;
	FILE *f;

	for (size_t i = 0; i < s->size; i++)
		ndumps += s->dumps[i] != NULL;
	if (!ndumps || !s->have_res)
		return;
	/* From memory, not from DIR/dumps: a full or lost report folder must
	 * not lose the analysis. */
	names = calloc((size_t)ndumps, sizeof *names);
	bufs = calloc((size_t)ndumps, sizeof *bufs);
	lens = calloc((size_t)ndumps, sizeof *lens);
	nb = calloc((size_t)ndumps, sizeof *nb);
	if (!names || !bufs || !lens || !nb) {
		mw_warn("deadlock analysis: out of memory");
		goto out;
	}
	ndumps = 0;
	for (size_t i = 0; i < s->size; i++) {
		if (!s->dumps[i])
			continue;
		snprintf(nb[ndumps], sizeof nb[ndumps], "rank-%zu.json", i);
		names[ndumps] = nb[ndumps];
		bufs[ndumps] = s->dumps[i];
		lens[ndumps] = strlen(s->dumps[i]);
		ndumps++;
	}
	dl_options_init(&opt);
	opt.expect_size = (int)s->size;
	opt.progress = -1;
	rc = dl_analyze_buffers(ndumps, names, bufs, lens, &opt, &dr);
	if (rc < 0) {
		mw_warn("deadlock analysis of %d dump(s): %s", ndumps, strerror(errno));
		goto out;
	}
	if (s->analysis)
		json_object_put(s->analysis);
	s->analysis = json_object_get(dl_result_json(dr));
	if (c->o->dir[0]) {
		snprintf(dir, sizeof dir, "%s/deadlock.txt", c->o->dir);
		f = fopen(dir, "we");
		if (f) {
			dl_write_text(f, dr);
			if (fclose(f) != 0)
				mw_warn("cannot write %s: %s", dir, strerror(errno));
		}
	}
	{
		struct col_deadlock *d = &s->dl;
		json_object *reason = NULL;
		free(d->ranks);
		free(d->waiting);
		memset(d, 0, sizeof *d);
		s->dl_dumps = ndumps;
		d->found = dl_result_found(dr);
		if (d->found) {
			json_object *cause = NULL;
			const char *cs = json_object_object_get_ex(s->analysis, "cause", &cause)
						 ? json_object_get_string(cause)
						 : NULL;
			snprintf(d->kind, sizeof d->kind, "%s", dl_result_kind(dr));
			/* "wrong_tag" -> "wrong tag": the cause when there is one */
			snprintf(d->what, sizeof d->what, "%s", cs && *cs ? cs : d->kind);
			for (char *p = d->what; *p; p++)
				if (*p == '_')
					*p = ' ';
		}
		if (d->found) {
			d->ranks = int_list(s->analysis, "ranks", &d->n);
			d->waiting = int_list(s->analysis, "waiting_ranks", &d->nwaiting);
		}
		if (json_object_object_get_ex(s->analysis, "reason", &reason) && json_object_get_string(reason))
			snprintf(d->detail, sizeof d->detail, "%s", json_object_get_string(reason));
		else
			snprintf(d->detail, sizeof d->detail, "see deadlock.txt");
	}
	dl_result_free(dr);
out:
	free(names);
	free(bufs);
	free(lens);
	free(nb);
}

/* Whether the software verdict just reached may be acted on, and why
 * (s->confirmed_by).  A hardware verdict is confirmed by the probes. */
static int confirm(struct collector *c)
{
	struct col_state *s = &c->s;
	const char *why = NULL;
	char buf[128];

	/* A rank that ended of its own fault (B) first, then any that ended. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; !why && i < s->size; i++)
			if ((s->ranks[i].state == MW_HB_S_EXITED || s->ranks[i].state == MW_HB_S_VANISHED) &&
			    (pass || (i < s->res.size && s->res.rank_cause[i] == 'B'))) {
				snprintf(buf, sizeof buf, "rank %zu ended before MPI_Finalize", i);
				why = buf;
			}
	if (!why && col_deadlock_certain(s)) {
		snprintf(buf, sizeof buf, "the analysis of the dumps finds a deadlock (%s)", s->dl.kind);
		why = buf;
	}
	if (!why && s->stuck_since_mono > 0 && mw_now() - s->stuck_since_mono >= s->hang_limit_s) {
		snprintf(buf, sizeof buf, "ranks stuck for %.0f s, the hang limit",
			 mw_now() - s->stuck_since_mono);
		why = buf;
	}
	if (!why)
		return 0;
	s->confirmed = 1;
	snprintf(s->confirmed_by, sizeof s->confirmed_by, "%s", why);
	return 1;
}

/* OUTDIR/NAME (at most 64 KiB) into *text, replacing it, if it exists. */
static void read_side_file(struct collector *c, const char *name, char **text)
{
	char path[4200];
	FILE *f;
	size_t n;
	if (!c->o->dir[0])
		return;
	snprintf(path, sizeof path, "%s/%s", c->o->dir, name);
	if (!(f = fopen(path, "re")))
		return;
	free(*text);
	*text = malloc(65536);
	if (*text) {
		n = fread(*text, 1, 65535, f);
		(*text)[n] = 0;
	}
	fclose(f);
}

/* What "mpiwatch run" read from the launcher's output and wrote beside the
 * report (none under Slurm): the MPI library's error lines and where
 * crashed ranks died. */
static void read_mpi_errors(struct collector *c)
{
	read_side_file(c, "mpi-errors.txt", &c->s.mpi_errors);
	read_side_file(c, "crash-stacks.txt", &c->s.crash_stacks);
}

/* Under Slurm, where a crashed rank died: the MPI library's crash report in
 * the batch job's output file (joblog.h), read when a rank ended and has no
 * stack yet; the MPI library's own error line for a rank it ended too.  Not under "mpiwatch run" (it reads the launcher's output
 * itself: OUTDIR/mpi-errors.txt exists) nor without Slurm (--job-check 0). */
static void read_job_output(struct collector *c)
{
	struct col_state *s = &c->s;
	char path[4200], have[8];
	int need = 0, n, nerr = 0;
	if (c->o->job_check_s <= 0)
		return;
	if (c->o->dir[0]) {
		snprintf(path, sizeof path, "%s/mpi-errors.txt", c->o->dir);
		if (access(path, F_OK) == 0)
			return;
	}
	for (size_t i = 0; i < s->size && !need; i++)
		need = (s->ranks[i].state == MW_HB_S_EXITED || s->ranks[i].state == MW_HB_S_VANISHED) &&
		       !col_rank_line(s->crash_stacks, (int)i, have, sizeof have);
	if (!need)
		return;
	if (!c->joblog_asked) {
		struct mw_slurm_job j = {0};
		char err[256];
		c->joblog_asked = 1;
		if (mw_slurm_job(NULL, s->job, &j, err, sizeof err) < 0)
			col_state_event(s, "note", "where crashed ranks died: cannot ask Slurm for the job's "
						   "output file: %.300s", err);
		else if (col_joblog_path(&j, s->job, c->joblog, sizeof c->joblog) < 0)
			col_state_event(s, "note", "where crashed ranks died: %s",
					j.batch ? "the job's output file name has a pattern mpiwatch does not expand"
						: "not a batch job: its ranks' output goes to srun's terminal, "
						  "which mpiwatch does not read");
		mw_slurm_job_free(&j);
	}
	if (!c->joblog[0])
		return;
	n = col_joblog_scan(s, c->joblog, &nerr);
	if (n > 0)
		col_state_event(s, "note", "where %d crashed rank(s) died: read from the MPI library's "
					   "crash report in %.300s", n, c->joblog);
	if (nerr > 0)
		col_state_event(s, "note", "the MPI library's own error line for %d rank(s) it ended: read "
					   "from %.300s", nerr, c->joblog);
}

/* Whether the verdict waits a moment for the other ranks' ends: a rank was
 * killed from outside (SIGKILL, SIGTERM) while other ranks have not been
 * seen ending.  The launcher kills the survivors as soon as one rank fails,
 * and their ends may reach us before the first failure does (its node's
 * agent sees the end a few ticks later): deciding then would blame the
 * killed ranks and leave out the one that failed.  The wait is once and
 * bounded (SETTLE_S: the agent's three ticks, at most 0.5 s each, and the
 * way here). */
#define SETTLE_S 2.0
static int wait_for_settle(struct collector *c)
{
	struct col_state *s = &c->s;
	double now = mw_now();
	long killed = -1, open = -1;
	if (c->settle_until > 0)
		return now < c->settle_until;
	for (size_t i = 0; i < s->size; i++) {
		const struct col_rank *x = &s->ranks[i];
		int ended = x->state == MW_HB_S_EXITED || x->state == MW_HB_S_VANISHED;
		if (killed < 0 && col_killed_from_outside(x)) /* ended, from outside */
			killed = (long)i;
		if (!ended && x->state != MW_HB_S_FINALIZED && open < 0)
			open = (long)i;
	}
	if (killed < 0 || open < 0)
		return 0;
	c->settle_until = now + SETTLE_S;
	col_state_event(s, "note", "rank %ld was killed by signal %d (%s), most often sent to the rest of "
				   "a job after one rank failed: waiting up to %.0f s for the other ranks' ends",
			killed, s->ranks[killed].exit_signal, s->ranks[killed].exit_signal == SIGKILL ? "SIGKILL" : "SIGTERM", SETTLE_S);
	return 1;
}

/* Whether the verdict waits a moment for the MPI library's own error line:
 * the launcher's output is read beside the report (OUTDIR/mpi-errors.txt
 * exists: "mpiwatch run") or the job's output file is (under Slurm), a rank
 * ended inside an MPI call without a signal (so the library may have ended
 * it) and no line of it was read yet.  Under Slurm, a rank killed by a
 * signal without a stack yet waits the same for its crash report.  The
 * line and the rank's end race each other through different paths; the wait
 * is once and bounded (MPIERR_GRACE_S). */
#define MPIERR_GRACE_S 1.0
static int wait_for_mpi_error(struct collector *c)
{
	struct col_state *s = &c->s;
	char path[4200], line[8];
	double now = mw_now();
	if (c->mpierr_grace_until > 0)
		return now < c->mpierr_grace_until;
	if (c->joblog[0]) {
		/* Under Slurm: the crash report in the job's output file. */
		for (size_t i = 0; i < s->size; i++)
			if (s->ranks[i].exit_signal > 0 && !col_rank_line(s->crash_stacks, (int)i, line, sizeof line)) {
				c->mpierr_grace_until = now + MPIERR_GRACE_S;
				col_state_event(s, "note", "rank %zu killed by signal %d: waiting up to %.0f s for "
							   "the MPI library's crash report in the job's output",
						i, s->ranks[i].exit_signal, MPIERR_GRACE_S);
				return 1;
			}
	} else {
		if (!c->o->dir[0])
			return 0;
		snprintf(path, sizeof path, "%s/mpi-errors.txt", c->o->dir);
		if (access(path, F_OK) != 0)
			return 0;
	}
	long first = -1;
	for (size_t i = 0; i < s->size; i++)
		if (s->ranks[i].exit_signal > 0 && !col_killed_from_outside(&s->ranks[i]))
			return 0; /* a rank killed by its own signal: a crash, not the library */
	for (size_t i = 0; i < s->size; i++) {
		const struct col_rank *x = &s->ranks[i];
		if ((x->state == MW_HB_S_EXITED || x->state == MW_HB_S_VANISHED) && x->call[0] &&
		    (x->exit_signal <= 0 || col_killed_from_outside(x))) {
			if (col_mpi_error(s, (int)i, line, sizeof line))
				return 0; /* one line tells it */
			if (first < 0)
				first = (long)i;
		}
	}
	if (first < 0)
		return 0;
	c->mpierr_grace_until = now + MPIERR_GRACE_S;
	col_state_event(s, "note", "rank %ld ended inside %s: waiting up to %.0f s for the MPI library's own "
				   "message%s", first, s->ranks[first].call, MPIERR_GRACE_S,
			c->joblog[0] ? " in the job's output" : "");
	return 1;
}

/* The agents' link errors (OUTDIR/logs/link-error-NODE.txt, written by an
 * agent that could not reach us or was refused) into the report. */
static void read_link_errors(struct collector *c)
{
	char dir[4200];
	DIR *d;
	struct dirent *e;
	if (!c->o->dir[0])
		return;
	snprintf(dir, sizeof dir, "%s/logs", c->o->dir);
	if (!(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		char node[64], line[400];
		/* shared/mw_link.h: the name's node, the file's first line */
		if (mw_link_error_read(dir, e->d_name, node, sizeof node, line, sizeof line) == 0)
			col_state_link_error(&c->s, node, "agent", line);
	}
	closedir(d);
}

static void evaluate(struct collector *c)
{
	struct col_state *s = &c->s;
	struct col_result res;

	c->pending = 0;
	if (!c->pr.active && !tree_probe_ready(c))
		return; /* the CPs probe: back here when their summaries are in */
	if (!own_probe_ready(c))
		return; /* our own round: back here when it is over */
	c->eval_gen = c->gen;
	s->st.evaluations++;
	read_mpi_errors(c);
	read_job_output(c);
	for (size_t i = 0; i < s->size; i++) {
		char line[8];
		s->ranks[i].lib_error = col_mpi_error(s, (int)i, line, sizeof line);
	}
	if (col_classify(s->ranks, s->size, s->nodes, s->nnodes, &res) < 0) {
		mw_err("classification failed: %s", strerror(errno));
		return;
	}
	col_result_free(&s->res);
	s->res = res;
	s->have_res = 1;
	if (res.verdict == COL_V_SOFTWARE) {
		analyse_dumps(c);
		/* One classification: the deadlock the analysis found feeds the
		 * causes (its ranks are B, deadlocked; those waiting on them C). */
		if (s->dl.found && col_deadlock_ended_rank(s) < 0) {
			struct col_dl_input in = {.ranks = s->dl.ranks, .n = s->dl.n, .waiting = s->dl.waiting, .nwaiting = s->dl.nwaiting, .what = s->dl.what};
			if (col_classify_dl(s->ranks, s->size, s->nodes, s->nnodes, &in, &res) == 0) {
				col_result_free(&s->res);
				s->res = res;
			}
		}
	}
	if (res.verdict == COL_V_NONE && s->stuck_since_mono > 0) {
		col_state_event(s, "note", "the suspected hang is over after %.0f s: the ranks moved on "
					   "(slow, not stuck)", mw_now() - s->stuck_since_mono);
		s->stuck_since_mono = 0;
	}
	if (res.verdict == COL_V_SOFTWARE && wait_for_settle(c)) {
		schedule(c, c->settle_until - mw_now() + 0.05);
		return;
	}
	if ((res.verdict == COL_V_SOFTWARE || res.launcher_killed) && wait_for_mpi_error(c)) {
		schedule(c, c->mpierr_grace_until - mw_now() + 0.05);
		return;
	}
	if (res.verdict == COL_V_SOFTWARE && !confirm(c)) {
		double now = mw_now();
		if (s->stuck_since_mono <= 0) {
			s->stuck_since_mono = s->threshold_mono > 0 ? s->threshold_mono : now;
			char none[1024];
			col_state_event(s, "note",
					"suspected hang, not confirmed: %s; the program runs on, and is "
					"acted on only if still stuck after the hang limit (%.0f s)",
					s->dl_dumps ? col_dl_none(s, 1, none, sizeof none) : "no dump to analyse yet",
					s->hang_limit_s);
		}
		schedule(c, s->stuck_since_mono + s->hang_limit_s - now + 0.1);
		write_reports(c);
		return;
	}
	if (res.verdict == COL_V_NONE && res.launcher_killed) {
		col_state_event(s, "note", "the launcher was killed: every rank ended at once with no exit "
					   "status; not a failure of the program or of a node");
		write_reports(c);
		return;
	}
	if (res.verdict == COL_V_NONE) {
		int a = 0;
		for (size_t i = 0; i < res.ncauses; i++)
			a += res.causes[i].cause == 'A' ? (int)res.causes[i].n : 0;
		col_state_event(s, "note", "no failure: %d rank(s) in a long computation or a slow transfer (cause A), all nodes answer",
				a);
		write_reports(c);
		return;
	}
	if (res.verdict == COL_V_HARDWARE && !res.partition) {
		s->confirmed = 1;
		snprintf(s->confirmed_by, sizeof s->confirmed_by, "a node does not answer the probes");
	}
	s->decided = 1;
	s->verdict_mono = mw_now();
	{
		struct col_answer *ans = malloc(sizeof *ans);
		if (ans) {
			col_answer(s, ans);
			col_state_event(s, "verdict", "%s", ans->line[0]);
			free(ans);
		}
	}
	write_reports(c);
	act(c);
	write_reports(c);
	if (c->o->exit_on_verdict)
		c->stop = 1;
}

/* -------------------------------------------------------------- clients */

/* How long a collector told to stop (the job's epilog) waits for its agents'
 * last heartbeats: the epilogs of all the job's nodes run at once, and a
 * rank that died in the job's teardown on another node is told by that
 * node's agent as it stops (its goodbye ends the wait). */
#define COL_STOP_DRAIN_S 2.0

/* Whether an agent (or a CP for its subtree) is still linked to us. */
static int agents_linked(const struct collector *c)
{
	for (size_t k = 0; k < c->nc; k++)
		if (c->c[k].hello && !c->c[k].closing)
			return 1;
	return 0;
}

/* The agent of node is lost without a goodbye (its link, or its CP says
 * so): its node is a suspect, probed with the others. */
static void agent_lost(struct collector *c, int node, const char *why)
{
	struct col_agent *g = &c->s.agents[node];
	g->connected = 0;
	if (!g->bye && !c->stop && !c->stopping_until) {
		g->vanished = 1;
		c->s.st.agents_vanished++;
		/* A link the liveness setting broke (ETIMEDOUT): the node
		 * stopped answering; the evaluation below probes it now, not
		 * after the stall timeout. */
		col_state_event(&c->s, "agent_lost", "agent of node %s: connection lost (%s)%s",
				c->s.nodes[node].name, why,
				!strcmp(why, strerror(ETIMEDOUT)) && c->o->liveness_s > 0
					? ": no answer within the link liveness time, probing the node now"
					: ": probing the node now");
		c->gen++;
		schedule(c, 0.5);
	}
	c->status_dirty = 1;
}

static void client_close(struct collector *c, size_t k, const char *why)
{
	struct client *cl = &c->c[k];
	if (cl->hello && cl->node >= 0) {
		if (c->tprobe_round && col_tree_probe_lost(c->tree, cl->node))
			schedule(c, 0); /* the last CP asked: its subtree is ours to probe */
		if (col_tree_in_tree(c->tree, cl->node))
			c->status_dirty = 1; /* moved into the tree: served by a CP now */
		else
			agent_lost(c, cl->node, why);
	}
	mw_link_close(cl->l);
	free(cl->hello_wait);
	c->c[k] = c->c[--c->nc];
}

static int send_to_node(void *arg, int node, const struct mw_hb_msg *m)
{
	struct collector *c = arg;
	for (size_t k = 0; k < c->nc; k++)
		if (c->c[k].hello && !c->c[k].closing && c->c[k].node == node)
			return mw_link_send(c->c[k].l, m) < 0 ? -1 : 0;
	return -1;
}

static void tree_roles(struct collector *c)
{
	col_tree_roles(c->tree, &c->s, send_to_node, c);
}

/* A HELLO whose credential was checked: auth_error is NULL or "" if it
 * passed (or the check is off), else why not. */
static void on_hello(struct collector *c, struct client *cl, const struct mw_hb_hello *h,
		     const char *auth_error)
{
	struct mw_hb_msg w = {0};
	int node = -1;

	w.type = MW_HB_WELCOME;
	cl->au = AU_DONE; /* welcomed, or refused below: nothing more is read before */
	if (auth_error && auth_error[0]) {
		c->s.st.hellos_unauthenticated++;
		snprintf(w.u.welcome.error, sizeof w.u.welcome.error, "not authenticated: %.100s", auth_error);
	} else if (strcmp(h->job, c->s.job) != 0) {
		snprintf(w.u.welcome.error, sizeof w.u.welcome.error,
			 "this collector serves job %s, not %s", c->s.job, h->job);
	} else if (c->o->nodes[0]) {
		for (size_t i = 0; i < c->s.nnodes; i++)
			if (strcmp(c->s.nodes[i].name, h->node) == 0)
				node = (int)i;
		if (node < 0)
			snprintf(w.u.welcome.error, sizeof w.u.welcome.error,
				 "node %s is not in job %s", h->node, c->s.job);
	} else {
		node = col_state_node(&c->s, h->node);
		if (node < 0)
			snprintf(w.u.welcome.error, sizeof w.u.welcome.error, "cannot add node %s", h->node);
	}
	if (node < 0) {
		c->s.st.hellos_rejected++;
		mw_log_limited(&peer_rl, LOG_WARNING,
			       "refusing agent %s: %s", mw_link_peer(cl->l), w.u.welcome.error);
		{
			char e[400];
			snprintf(e, sizeof e, "the collector refused the agent from %s: %s%s", mw_link_peer(cl->l),
				 w.u.welcome.error,
				 c->o->nodes[0] && strstr(w.u.welcome.error, "is not in job")
					 ? " (the agent's host name is not Slurm's NodeName: short name vs FQDN?)"
					 : "");
			col_state_link_error(&c->s, h->node[0] ? h->node : "?", "collector", e);
			c->status_dirty = 1;
		}
		mw_link_send(cl->l, &w);
		cl->closing = 1;
		return;
	}
	w.u.welcome.ok = 1;
	cl->node = node;
	cl->hello = 1;
	mw_link_set_max_payload(cl->l, 0); /* trusted now: dumps, aggregates */
	c->status_dirty = 1;
	{
		struct col_agent *g = &c->s.agents[node];
		const char *peer = mw_link_peer(cl->l);
		size_t n = strcspn(peer, ":");
		g->hello = g->connected = 1;
		g->bye = 0;
		if (g->vanished)
			col_state_event(&c->s, "note", "agent of node %s reconnected", h->node);
		g->vanished = 0;
		snprintf(g->addr, sizeof g->addr, "%.*s", (int)n, peer);
	}
	mw_info("agent of %s connected from %s (pid %d)", h->node, mw_link_peer(cl->l), h->pid);
	if (mw_link_send(cl->l, &w) < 0)
		cl->closing = 1;
	col_tree_hello(c->tree, &c->s, node);
	tree_roles(c);
}

static int on_rank_info(struct collector *c, int node, int rank, int size)
{
	struct col_rank *x;
	if (col_state_grow(&c->s, (size_t)size) < 0 || rank < 0 || (size_t)rank >= c->s.size) {
		mw_log_limited(&peer_rl, LOG_WARNING,
			       "agent of %s: rank %d of %d: %s", c->s.nodes[node].name, rank, size,
			       strerror(errno));
		return -1;
	}
	x = &c->s.ranks[rank];
	x->known = 1;
	x->node = node;
	c->status_dirty = 1;
	return 0;
}

static void on_beat(struct collector *c, int node, const struct mw_hb_beat *b)
{
	struct col_state *s = &c->s;
	struct col_rank *x;
	int was;

	s->st.heartbeats++;
	s->st.beats_by_state[b->state]++;
	/* --verbose: when it counted, on the machine's monotonic clock
	 * (bench/tree-agents: leaf-to-collector latency). */
	mw_debug("heartbeat: rank %d seq %u counted at %.6f", b->rank, b->seq, mw_now());
	if (s->decided && b->rank < (int32_t)s->size && s->ranks[b->rank].state == 0 &&
	    (b->state == MW_HB_S_IN_MPI || b->state == MW_HB_S_COMPUTING)) {
		/* A rank not seen before that got stuck too (a crash's peers
		 * reach their timeout after the verdict): fold it in. */
		struct col_result res;
		x = &s->ranks[b->rank];
		x->known = 1;
		x->node = node;
		x->state = b->state;
		snprintf(x->call, sizeof x->call, "%s", b->call);
		snprintf(x->kind, sizeof x->kind, "%s", b->kind);
		snprintf(x->comm, sizeof x->comm, "%s", b->comm);
		x->peer_world = b->peer_world;
		x->root_world = b->root_world;
		x->tag = b->tag;
		x->idle_s = b->idle_s;
		if (col_classify(s->ranks, s->size, s->nodes, s->nnodes, &res) == 0) {
			col_result_free(&s->res);
			s->res = res;
		}
		if (s->res.verdict == COL_V_SOFTWARE)
			analyse_dumps(c);
		write_reports(c);
		return;
	}
	if (s->decided && b->state == MW_HB_S_EXITED && b->rank < (int32_t)s->size &&
	    s->ranks[b->rank].state == MW_HB_S_VANISHED) {
		/* How a rank that vanished ended, learnt late (mpiwatch run
		 * reads it from the launcher's message): the same failure,
		 * better told. */
		struct col_result res;
		x = &s->ranks[b->rank];
		x->state = b->state;
		x->exit_code = b->exit_code;
		x->exit_signal = b->exit_signal;
		col_state_event(s, "note", "rank %d: its exit status is now known", b->rank);
		if (col_classify(s->ranks, s->size, s->nodes, s->nnodes, &res) == 0) {
			if (res.verdict == s->res.verdict) {
				col_result_free(&s->res);
				s->res = res;
			} else {
				col_result_free(&res);
			}
		}
		write_reports(c);
		return;
	}
	if (s->decided) {
		/* The verdict describes the failure as it was found; state
		 * changes after it (the launcher killing the stuck ranks...)
		 * are only noted.  Their tasks' marks are answered by it. */
		pending_clear(c);
		if (c->after_notes++ < 32) {
			char how[48] = "";
			if (b->exit_signal > 0)
				snprintf(how, sizeof how, " (signal %d)", b->exit_signal);
			else if (b->exit_code >= 0 && b->state == MW_HB_S_EXITED)
				snprintf(how, sizeof how, " (status %d)", b->exit_code);
			col_state_event(s, "note", "after the verdict: rank %d %s%s", b->rank,
					mw_hb_state_name(b->state), how);
		}
		return;
	}
	if (on_rank_info(c, node, b->rank, b->size))
		return;
	x = &s->ranks[b->rank];
	if (b->pid > 0)
		x->pid = b->pid;
	was = col_state_suspicious(x->state);
	x->state = b->state;
	if (b->state == MW_HB_S_IN_MPI)
		x->stuck_seen = 1;
	else if (b->state == MW_HB_S_RESUMED || b->state == MW_HB_S_FINALIZED)
		x->stuck_seen = 0;
	snprintf(x->call, sizeof x->call, "%s", b->call);
	col_rank_set_site(x, b->site);
	snprintf(x->kind, sizeof x->kind, "%s", b->kind);
	snprintf(x->comm, sizeof x->comm, "%s", b->comm);
	x->peer_world = b->peer_world;
	x->root_world = b->root_world;
	x->tag = b->tag;
	x->exit_code = b->exit_code;
	x->exit_signal = b->exit_signal;
	x->idle_s = b->idle_s;
	snprintf(x->moving, sizeof x->moving, "%s", b->moving);
	/* A slow transfer tells more than the computation after it. */
	if (b->state == MW_HB_S_SLOW || (b->state == MW_HB_S_COMPUTING && x->was_state != MW_HB_S_SLOW)) {
		x->was_state = b->state;
		snprintf(x->was_call, sizeof x->was_call, "%s", b->call);
		snprintf(x->was_moving, sizeof x->was_moving, "%s", b->moving);
	}
	if (b->state == MW_HB_S_RESUMED || b->state == MW_HB_S_FINALIZED) {
		/* A later dump would describe a new stall. */
		x->has_dump = 0;
		x->waits_known = 0;
	}
	if (s->st.heartbeats == 1 || s->first_beat_mono <= 0) {
		s->first_beat_mono = mw_now();
		col_state_event(s, "first_heartbeat", "rank %d on %s: %s%s%s", b->rank,
				s->nodes[node].name, mw_hb_state_name(b->state), b->call[0] ? " in " : "",
				b->call);
	}
	if (b->state == MW_HB_S_SLOW && c->slow_notes < 16) {
		c->slow_notes++;
		col_state_event(s, "note", "rank %d slow, not stuck: in %s for %.1f s without a completion, "
					   "but its transfer moves (%s)", b->rank, b->call[0] ? b->call : "MPI",
				b->idle_s, b->moving[0] ? b->moving : "?");
	}
	if (b->state == MW_HB_S_COMPUTING && !c->computing_noted) {
		c->computing_noted = 1;
		col_state_event(s, "note", "rank %d computing outside MPI for %.1f s (cause A: not an alarm)",
				b->rank, b->idle_s);
	}
	/* In the tree dumps come on demand only: a rank seen stuck after the
	 * threshold's request is asked for its dump too. */
	if (c->tree && b->state == MW_HB_S_IN_MPI && s->threshold_mono > 0)
		c->dumpreq_due = 1;
	if (col_state_suspicious(b->state) || was) {
		c->gen++;
		check_threshold(c);
		/* A rank of a suspected hang moved on: look again (the hang may
		 * be over: a slow transfer that completed). */
		if (was && !col_state_suspicious(b->state) && s->stuck_since_mono > 0)
			schedule(c, c->o->settle_s);
	}
}

static void on_dump(struct collector *c, struct mw_hb_msg *m)
{
	struct col_state *s = &c->s;
	char path[4200];
	FILE *f;
	int rank = m->u.dump.rank;

	s->st.dumps++;
	if (rank < 0 || (size_t)rank >= s->size)
		col_state_grow(s, (size_t)rank + 1);
	if (rank < 0 || (size_t)rank >= s->size)
		return;
	if (c->o->dir[0]) {
		snprintf(path, sizeof path, "%s/dumps", c->o->dir);
		mw_mkdir_p(path, 0755);
		snprintf(path, sizeof path, "%s/dumps/rank-%d.json", c->o->dir, rank);
		f = fopen(path, "we");
		if (f) {
			fprintf(f, "%s\n", m->u.dump.json);
			fclose(f);
		} else {
			mw_warn("cannot write %s: %s", path, strerror(errno));
		}
	}
	col_state_set_dump(s, rank, m->u.dump.json);
	m->u.dump.json = NULL; /* owned by the state now */
	mw_info("dump of rank %d received", rank);
	if (c->s.decided) {
		if (c->s.res.verdict == COL_V_SOFTWARE)
			analyse_dumps(c);
		write_reports(c);
	} else if (c->s.stuck_since_mono > 0) {
		schedule(c, 0.5); /* a suspected hang: the analysis may confirm it now */
	}
}

/* The fuzzy placement's factor set (tree_strategy=fuzzy, a job above the
 * tree threshold): one probe round of every node's nodehealthd at
 * start-up (at most COL_FUZZY_BUDGET s), each reply made factors by
 * col_tree_factors.  Return them (malloc'd, s->nnodes), or NULL for the
 * average placement. */
#define COL_FUZZY_BUDGET 1.0
static struct mwt_factors *fuzzy_factors(struct collector *c)
{
	struct col_state *s = &c->s;
	const char **names;
	struct mw_probe_result *out;
	struct mwt_factors *f = NULL;
	int alive;

	if (c->o->tree_strategy != MWT_FUZZY || s->nnodes <= (size_t)c->o->tree_threshold)
		return NULL;
	names = calloc(s->nnodes, sizeof *names);
	out = calloc(s->nnodes, sizeof *out);
	f = calloc(s->nnodes, sizeof *f);
	if (!names || !out || !f) {
		free(f);
		f = NULL;
		goto out;
	}
	for (size_t i = 0; i < s->nnodes; i++)
		names[i] = s->nodes[i].name;
	alive = mw_probe_nodes(names, NULL, s->nnodes, c->o->probe_port,
			       c->o->probe_budget_s < COL_FUZZY_BUDGET ? c->o->probe_budget_s : COL_FUZZY_BUDGET,
			       c->o->probe_tries, out);
	for (size_t i = 0; i < s->nnodes; i++)
		col_tree_factors(&out[i], &f[i]);
	mw_info("tree: fuzzy placement: %d of %zu node(s) answered the start-up probe", alive < 0 ? 0 : alive,
		s->nnodes);
out:
	free(names);
	free(out);
	return f;
}

/* col_tree_beat_fn: a heartbeat out of an aggregate. */
static void agg_beat(void *arg, int node, const struct mw_hb_beat *b)
{
	on_beat(arg, node, b);
}

/* Queue an authq job for cl.  Return 0, or -1 (out of memory). */
static int authq_job(struct collector *c, struct client *cl, enum col_authq_kind kind, const char *payload,
		     const char *cred)
{
	struct col_authq_job *j = calloc(1, sizeof *j);
	if (!j)
		return -1;
	j->kind = kind;
	j->id = cl->id;
	snprintf(j->payload, sizeof j->payload, "%s", payload);
	snprintf(j->cred, sizeof j->cred, "%s", cred ? cred : "");
	return col_authq_submit(c->aq, j);
}

/* A frame before the welcome: VERIFY, then HELLO, nothing else (doc/protocol.md
 * "Handshake").  Return -1 to close the client. */
static int on_handshake(struct collector *c, struct client *cl, struct mw_hb_msg *m)
{
	char payload[400];
	if (cl->au == AU_VERIFY && m->type == MW_HB_VERIFY) {
		/* Our proof over the agent's nonce and ours, naming our job and
		 * the endpoint it reached: made off the loop (authq_finished). */
		if (mw_auth_nonce(cl->nonce, sizeof cl->nonce) < 0 ||
		    mw_hb_proof_payload(c->s.job, mw_link_local(cl->l), m->u.verify.nonce, cl->nonce, payload,
					sizeof payload) < 0 ||
		    authq_job(c, cl, COL_AQ_PROVE, payload, NULL) < 0)
			return -1;
		cl->au = AU_PROVING;
		return 0;
	}
	if (cl->au == AU_HELLO && m->type == MW_HB_HELLO) {
		if (!c->o->auth) { /* --auth none: tests only */
			on_hello(c, cl, &m->u.hello, NULL);
			return 0;
		}
		cl->hello_wait = malloc(sizeof *cl->hello_wait);
		if (!cl->hello_wait ||
		    mw_hb_auth_payload(m->u.hello.job, m->u.hello.node, mw_link_local(cl->l), cl->nonce, payload,
				       sizeof payload) < 0 ||
		    authq_job(c, cl, COL_AQ_CHECK, payload, m->u.hello.cred) < 0)
			return -1;
		*cl->hello_wait = m->u.hello;
		cl->au = AU_CHECKING;
		return 0;
	}
	c->s.st.malformed++;
	return -1;
}

static void serve_client(struct collector *c, size_t k, short revents);

/* The authq's finished jobs: send the challenge, or welcome or refuse the
 * HELLO, then read what the client sent meanwhile. */
static void authq_finished(struct collector *c)
{
	struct col_authq_job *j;
	while ((j = col_authq_done(c->aq))) {
		size_t k;
		struct client *cl;
		for (k = 0; k < c->nc && c->c[k].id != j->id; k++)
			;
		if (k == c->nc) { /* gone meanwhile */
			free(j);
			continue;
		}
		cl = &c->c[k];
		if (j->kind == COL_AQ_PROVE && cl->au == AU_PROVING) {
			struct mw_hb_msg ch = {0};
			if (j->rc < 0) {
				mw_log_limited(&peer_rl, LOG_ERR, "cannot prove this collector to %s: %s",
					       mw_link_peer(cl->l), j->err);
				free(j);
				client_close(c, k, "no proof");
				continue;
			}
			ch.type = MW_HB_CHALLENGE;
			memcpy(ch.u.challenge.nonce, cl->nonce, sizeof ch.u.challenge.nonce);
			snprintf(ch.u.challenge.job, sizeof ch.u.challenge.job, "%s", c->s.job);
			memcpy(ch.u.challenge.cred, j->cred, sizeof ch.u.challenge.cred);
			cl->au = AU_HELLO;
			mw_link_send(cl->l, &ch);
		} else if (j->kind == COL_AQ_CHECK && cl->au == AU_CHECKING && cl->hello_wait) {
			struct mw_hb_hello *h = cl->hello_wait;
			cl->hello_wait = NULL;
			on_hello(c, cl, h, j->rc < 0 ? j->err : NULL);
			free(h);
		}
		free(j);
		serve_client(c, k, POLLIN); /* frames already buffered (or it was refused: closing) */
	}
}

/* Handle one frame.  Return -1 to close the client. */
static int on_frame(struct collector *c, struct client *cl, struct mw_hb_msg *m)
{
	if (!cl->hello)
		return on_handshake(c, cl, m);
	if (!c->tree && (m->type == MW_HB_AGG || m->type == MW_HB_LISTEN || m->type == MW_HB_CHILD ||
			 m->type == MW_HB_PROBESUM)) {
		c->s.st.malformed++; /* tree frames, and this job runs no tree */
		return -1;
	}
	switch (m->type) {
	case MW_HB_RANK: {
		/* Through a CP: the rank's own node is its host. */
		int node = cl->node;
		for (size_t i = 0; c->tree && i < c->s.nnodes; i++)
			if (strcmp(c->s.nodes[i].name, m->u.rank.host) == 0)
				node = (int)i;
		c->s.st.rank_announcements++;
		if (on_rank_info(c, node, m->u.rank.rank, m->u.rank.size) == 0 && m->u.rank.pid > 0)
			c->s.ranks[m->u.rank.rank].pid = m->u.rank.pid;
		return 0;
	}
	case MW_HB_HEARTBEAT:
		if (col_tree_direct_beat(c->tree, &c->s, cl->node, &m->u.beat))
			on_beat(c, cl->node, &m->u.beat);
		return 0;
	case MW_HB_AGG:
		return col_tree_agg(c->tree, &c->s, m->u.agg.json, agg_beat, c) < 0 ? -1 : 0;
	case MW_HB_LISTEN:
		col_tree_listen(c->tree, &c->s, cl->node, m->u.listen.port);
		tree_roles(c);
		return 0;
	case MW_HB_CHILD: {
		int lost = col_tree_child(c->tree, &c->s, &m->u.child);
		char why[160];
		c->status_dirty = 1;
		if (lost >= 0) {
			snprintf(why, sizeof why, "its CP on %s lost it", m->u.child.parent);
			agent_lost(c, lost, why);
		}
		tree_roles(c);
		return 0;
	}
	case MW_HB_PROBESUM:
		/* Counted only from a CP asked, on its direct authenticated
		 * link, about its own subtree (col_tree_probesum). */
		c->s.st.probe_summaries++;
		if (c->tprobe_round && col_tree_probesum(c->tree, &c->s, cl->node, m->u.probesum.json) == 1)
			schedule(c, 0);
		return 0;
	case MW_HB_DUMP:
		on_dump(c, m);
		return 0;
	case MW_HB_APOUT: {
		/* Its own node's, or (the tree) one attached below this link's CP. */
		int node = -1;
		const char *from = c->s.nodes[cl->node].name;
		for (size_t i = 0; i < c->s.nnodes && node < 0; i++)
			if (strcmp(c->s.nodes[i].name, m->u.apout.node) == 0)
				node = (int)i;
		if (col_tree_speaks_for(c->tree, &c->s, cl->node, node))
			from = m->u.apout.node;
		col_ap_output(c->s.ap, from, &m->u.apout, c->s.decided);
		c->status_dirty = 1; /* into the report within a second, verdict or not */
		return 0;
	}
	case MW_HB_BYE:
		c->s.agents[cl->node].bye = 1;
		col_tree_bye(c->tree, &c->s, cl->node, m->u.bye.reason);
		mw_info("agent of %s left: %s", c->s.nodes[cl->node].name, m->u.bye.reason);
		return -1;
	default:
		c->s.st.malformed++;
		return -1;
	}
}

static void serve_client(struct collector *c, size_t k, short revents)
{
	struct client *cl = &c->c[k];
	if (revents & POLLOUT) {
		if (mw_link_flush(cl->l) < 0) {
			client_close(c, k, strerror(errno));
			return;
		}
	}
	if ((revents & (POLLHUP | POLLERR)) && (cl->au == AU_PROVING || cl->au == AU_CHECKING)) {
		client_close(c, k, "closed during the handshake");
		return;
	}
	if ((revents & (POLLIN | POLLHUP | POLLERR)) && !cl->closing && cl->au != AU_PROVING &&
	    cl->au != AU_CHECKING) {
		for (int budget = 0; budget < 256; budget++) {
			struct mw_hb_msg m;
			enum mw_hb_err e = MW_HB_OK;
			int rc = mw_link_recv(cl->l, &m, &e);
			if (rc == 0)
				break;
			if (rc == -1) {
				client_close(c, k, errno ? strerror(errno) : "closed");
				return;
			}
			if (rc == -2) {
				c->s.st.malformed++;
				mw_log_limited(&peer_rl, LOG_WARNING,
					       "malformed frame from %s: %s", mw_link_peer(cl->l),
					       mw_hb_err_name(e));
				client_close(c, k, mw_hb_err_name(e));
				return;
			}
			rc = on_frame(c, cl, &m);
			mw_hb_msg_free(&m);
			if (rc < 0) {
				client_close(c, k, "bye");
				return;
			}
			/* Refused (closing): nothing after it is read or decoded.
			 * Waiting for authq: the rest stays buffered until then. */
			if (cl->closing || cl->au == AU_PROVING || cl->au == AU_CHECKING)
				break;
		}
	}
	if (cl->closing && !mw_link_pending(cl->l)) {
		client_close(c, k, "closing");
	}
}

static void client_conn(void *arg, size_t k, const char **src, int *authed, int *stage, double *t_conn)
{
	const struct client *x = &((const struct collector *)arg)->c[k];
	*src = x->src;
	*authed = x->hello;
	*stage = (int)x->au;
	*t_conn = x->t_conn;
}

/* Make room for one more connection not yet authenticated from src
 * (mw_link_preauth_victim: the least advanced, oldest one goes). */
static void unauth_room(struct collector *c, const char *src)
{
	for (int pass = 0; pass < 2; pass++) {
		long v = mw_link_preauth_victim(c->nc, src, pass, client_conn, c);
		if (v < 0)
			continue;
		c->s.st.unauth_evicted++;
		mw_log_limited(&peer_rl, LOG_WARNING, "too many connections without a HELLO %s%s: closing %s",
			       pass == 0 ? "from " : "in all", pass == 0 ? src : "", mw_link_peer(c->c[v].l));
		client_close(c, (size_t)v, "too many connections without a hello");
	}
}

static void accept_clients(struct collector *c)
{
	for (;;) {
		struct mw_link *l = mw_link_accept(c->lfd);
		struct client *p;
		char src[64];
		if (!l)
			return;
		snprintf(src, sizeof src, "%.*s", (int)strcspn(mw_link_peer(l), ":"), mw_link_peer(l));
		unauth_room(c, src);
		if (c->nc >= COL_MAX_CLIENTS) {
			mw_link_close(l);
			continue;
		}
		p = realloc(c->c, (c->nc + 1) * sizeof *p);
		if (!p) {
			mw_link_close(l);
			return;
		}
		c->c = p;
		if (mw_link_set_liveness(l, c->o->liveness_s) < 0)
			mw_log_limited(&peer_rl, LOG_WARNING, "link liveness %g s: %s", c->o->liveness_s,
				       strerror(errno));
		memset(&p[c->nc], 0, sizeof p[c->nc]);
		p[c->nc].l = l;
		p[c->nc].node = -1;
		p[c->nc].t_conn = mw_now();
		p[c->nc].id = ++c->next_id;
		p[c->nc].au = AU_VERIFY; /* the agent speaks first: its nonce */
		snprintf(p[c->nc].src, sizeof p[c->nc].src, "%s", src);
		mw_link_set_max_payload(l, MW_HB_PREAUTH_MAX);
		c->nc++;
		c->s.st.connections++;
	}
}

/* ------------------------------------------------------------------ run */

int col_run(struct col_opts *o)
{
	struct collector c = {0};
	double next_job_check;
	int rv = -1;

	c.o = o;
	c.lfd = c.sfd = -1;
	if (o->settle_s < 0) {
		o->settle_s = o->timeout_s / 4;
		if (o->settle_s < 1)
			o->settle_s = 1;
		if (o->settle_s > 3)
			o->settle_s = 3;
	}
	col_state_init(&c.s, o->job);
	c.s.ap = col_ap_create(o->ap_conf, 0);
	c.s.timeout_s = o->timeout_s;
	c.s.hang_limit_s = mw_jobconf_hang_limit(o->hang_limit_s, o->timeout_s);
	c.s.thr = o->thr;
	c.s.expected_ranks = o->ranks;
	snprintf(c.s.threshold_spec, sizeof c.s.threshold_spec, "%s", o->threshold);
	if (o->nodes[0]) {
		struct mw_hostlist hl = {0};
		if (mw_hostlist_expand(o->nodes, 65536, &hl) < 0) {
			mw_err("--nodes %s: not a valid hostlist", o->nodes);
			goto out;
		}
		for (size_t i = 0; i < hl.n; i++)
			col_state_node(&c.s, hl.host[i]);
		mw_hostlist_free(&hl);
		/* Above the threshold: the tree overlay (doc/tree.md). */
		{
			struct mwt_factors *f = fuzzy_factors(&c);
			c.tree = col_tree_plan(&c.s, o->tree_threshold, o->tree_fanout, o->tree_cps, f,
					       o->tree_weights_set ? o->tree_weights : NULL);
			free(f);
		}
		c.s.tree = c.tree;
	}
	if (o->ranks > 0 && col_state_grow(&c.s, (size_t)o->ranks) < 0) {
		mw_err("--ranks %ld: %s", o->ranks, strerror(errno));
		goto out;
	}
	if (o->dir[0] && mw_mkdir_p(o->dir, 0755) < 0) {
		mw_err("cannot create %s: %s", o->dir, strerror(errno));
		goto out;
	}
	keep_old_reports(o->dir);
	if ((c.sfd = mw_sigfd_open()) < 0) {
		mw_err("signalfd: %s", strerror(errno));
		goto out;
	}
	{
		struct mw_auth au = {o->munge_socket, o->auth == 2 ? o->auth_token : ""};
		c.aq = col_authq_create(&au);
		if (!c.aq) {
			mw_err("cannot start the credential thread: %s", strerror(errno));
			goto out;
		}
	}
	c.lfd = mw_link_listen(o->port, o->nports, &c.port);
	if (c.lfd < 0) {
		mw_err("cannot listen on tcp ports %u-%u: %s", o->port, o->port + o->nports - 1,
		       strerror(errno));
		goto out;
	}
	mw_info("collector for job %s listening on port %u; %zu node(s), timeout %g s, hang limit %g s, threshold %s, action %s",
		o->job, c.port, c.s.nnodes, o->timeout_s, c.s.hang_limit_s, o->threshold,
		o->action == COL_ACT_CANCEL ? "cancel" : o->action == COL_ACT_REQUEUE ? "requeue" : "report");
	col_state_event(&c.s, "start", "collector listening on port %u", c.port);
	mw_ready_notify(); /* started: whoever launched us may stop waiting */
	c.status_dirty = 1; /* a report from the start: the job is watched */
	next_job_check = mw_now() + (o->job_check_s > 0 ? o->job_check_s : 1e18);

	while (!c.stop) {
		struct pollfd *p = calloc(c.nc + 5, sizeof *p);
		size_t np = 2, nc = c.nc, pp = 0, pq;
		int npr = 0;
		double now = mw_now(), wake = now + 1.0;
		if (!p) {
			mw_err("out of memory");
			break;
		}
		p[0].fd = c.sfd;
		p[0].events = POLLIN;
		p[1].fd = c.lfd;
		p[1].events = POLLIN;
		for (size_t k = 0; k < nc; k++) {
			const struct client *x = &c.c[k];
			p[np].fd = mw_link_fd(x->l);
			/* Not read while closing or while authq works on it. */
			p[np].events = (x->closing || x->au == AU_PROVING || x->au == AU_CHECKING ? 0 : POLLIN) |
				       (mw_link_pending(x->l) ? POLLOUT : 0);
			np++;
		}
		pq = np++;
		p[pq].fd = col_authq_fd(c.aq);
		p[pq].events = POLLIN;
		if (c.pr.round) { /* our probe round: its replies and its next tries */
			pp = np;
			npr = mw_probe_round_fds(c.pr.round, p + np, 2);
			np += (size_t)npr;
			if (now + mw_probe_round_timeout_ms(c.pr.round) / 1e3 < wake)
				wake = now + mw_probe_round_timeout_ms(c.pr.round) / 1e3;
		}
		if (c.pending && c.eval_at < wake)
			wake = c.eval_at;
		if (c.stopping_until && c.stopping_until < wake)
			wake = c.stopping_until;
		for (size_t i = 0; i < c.nretry; i++)
			if (c.retry[i].at < wake)
				wake = c.retry[i].at;
		if (poll(p, np, wake > now ? (int)((wake - now) * 1000) + 1 : 0) < 0 && errno != EINTR) {
			mw_err("poll: %s", strerror(errno));
			free(p);
			break;
		}
		if (p[0].revents & POLLIN) {
			struct signalfd_siginfo si;
			while (read(c.sfd, &si, sizeof si) == sizeof si) {
				if (si.ssi_signo == SIGHUP) {
					write_reports(&c);
					continue;
				}
				if (!c.stopping_until) {
					mw_info("signal %u: waiting up to %.0f s for the agents' last "
						"heartbeats, then writing the final report",
						si.ssi_signo, COL_STOP_DRAIN_S);
					c.stopping_until = mw_now() + COL_STOP_DRAIN_S;
				} else {
					c.stop = 1; /* told twice: now */
				}
			}
		}
		/* Clients in reverse order: client_close() moves the last one. */
		for (size_t k = nc; k-- > 0;)
			if (p[2 + k].revents && k < c.nc)
				serve_client(&c, k, p[2 + k].revents);
		if (p[pq].revents & POLLIN)
			authq_finished(&c);
		if (p[1].revents & POLLIN)
			accept_clients(&c);
		if (c.pr.round && (npr == 0 || (p[pp].revents | (npr > 1 ? p[pp + 1].revents : 0)) ||
				   mw_probe_round_timeout_ms(c.pr.round) == 0) &&
		    mw_probe_round_step(c.pr.round) != 0)
			schedule(&c, 0); /* over: the evaluation goes on */
		free(p);
		if (c.dumpreq_due) {
			c.dumpreq_due = 0;
			send_dumpreq(&c);
		}
		now = mw_now();
		for (size_t k = c.nc; k-- > 0;)
			if (!c.c[k].hello && now - c.c[k].t_conn > COL_HELLO_TIMEOUT)
				client_close(&c, k, "no hello");
		if (c.stop || (c.stopping_until && (now >= c.stopping_until || !agents_linked(&c))))
			break;
		if (c.stopping_until)
			continue; /* the final evaluation below sees all they sent */
		if (c.pending && now >= c.eval_at)
			evaluate(&c);
		if (c.nretry)
			retry_due(&c);
		/* A running job's report shows its agents and ranks as they come
		 * (at most once a second): what mpiwatch status --job reads. */
		if (c.status_dirty && now - c.status_at >= 1.0) {
			c.status_dirty = 0;
			c.status_at = now;
			write_reports(&c);
		}
		if (now >= next_job_check) {
			if (mw_slurm_job_active(NULL, o->job) == 0) {
				col_state_event(&c.s, "note", "job %s is over", o->job);
				break;
			}
			next_job_check = now + o->job_check_s;
		}
	}
	/* Read what the agents already sent, then decide on what is known:
	 * a job that crashed ends before the settle time is over. */
	for (size_t k = c.nc; k-- > 0;)
		serve_client(&c, k, POLLIN);
	if (!c.s.decided && (c.pending || suspicious_count(&c.s) > 0) && c.gen != c.eval_gen) {
		if (o->probe_budget_s > 1.5)
			o->probe_budget_s = 1.5;
		o->action = COL_ACT_REPORT; /* the job is ending anyway */
		col_state_event(&c.s, "note", "stopping with unevaluated heartbeats: evaluating now");
		c.mpierr_grace_until = c.settle_until = 1; /* no more waiting: the job is over */
		c.final_eval = 1;
		read_mpi_errors(&c);
		evaluate(&c);
	} else if (!c.s.have_res && c.s.st.heartbeats > 0) {
		/* Only long computations were seen: put them in the report. */
		struct col_result res;
		if (col_classify(c.s.ranks, c.s.size, c.s.nodes, c.s.nnodes, &res) == 0) {
			c.s.res = res;
			c.s.have_res = 1;
		}
	}
	for (size_t i = 0; i < c.nretry; i++) /* one last try each */
		if (!do_action(&c, c.retry[i].kind, c.retry[i].node))
			col_state_event(&c.s, "note", "%s not done: Slurm did not answer in %d tries",
					act_names[c.retry[i].kind], c.retry[i].tries + 1);
	imbalance_at_end(&c);
	read_mpi_errors(&c); /* what the launcher printed last */
	read_job_output(&c);
	col_ap_finish(c.s.ap);
	read_link_errors(&c);
	col_state_event(&c.s, "shutdown", "collector stopping; verdict %s",
			col_verdict_name(c.s.have_res ? c.s.res.verdict : COL_V_NONE));
	write_reports(&c);
	rv = 0;
out:
	probe_free(&c.pr);
	col_authq_destroy(c.aq);
	for (size_t k = 0; k < c.nc; k++) {
		mw_link_close(c.c[k].l);
		free(c.c[k].hello_wait);
	}
	free(c.c);
	free(c.retry);
	c.s.tree = NULL;
	col_tree_free(c.tree);
	if (c.lfd >= 0)
		close(c.lfd);
	if (c.sfd >= 0)
		close(c.sfd);
	col_ap_destroy(c.s.ap);
	c.s.ap = NULL;
	col_state_free(&c.s);
	return rv;
}
