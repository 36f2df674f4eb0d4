/* core.c - the job collector's loop (core.h; design in doc/collector.md).
 *
 * One single-threaded poll loop over a signalfd, the listening socket, the
 * agents' links (collinks.c), the credential thread's queue and our probe
 * round (colprobe.c); it sleeps until the next time the evaluation
 * (coleval.c) or a retry (colact.c) asks for.  Heartbeats update the
 * per-rank state; when the number of suspicious ranks crosses the
 * threshold, or an agent's connection is lost without a goodbye, the
 * evaluation waits a short settle time, probes, classifies and acts
 * (colact.c); the reports are colreports.c's.  The drain requests and the
 * Slurm commands block the loop for their (bounded) duration; agents'
 * frames wait in the socket buffers.
 */
#include "core.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "ap.h"
#include "authq.h"
#include "colact.h"
#include "colctx.h"
#include "coleval.h"
#include "collinks.h"
#include "colprobe.h"
#include "colreports.h"
#include "coltree.h"
#include "fsutil.h"
#include "hostlist.h"
#include "jobconf.h"
#include "log.h"
#include "mw_link.h"
#include "ready.h"
#include "sigfd.h"
#include "slurm.h"

/* How long a collector told to stop (the job's epilog) waits for its agents'
 * last heartbeats: the epilogs of all the job's nodes run at once, and a
 * rank that died in the job's teardown on another node is told by that
 * node's agent as it stops (its goodbye ends the wait). */
#define COL_STOP_DRAIN_S 2.0

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

double col_now(const struct collector *c)
{
	return c->env.now ? c->env.now(c->env.arg) : mw_now();
}

int col_ctx_init(struct collector *c, struct col_opts *o, const struct col_env *env)
{
	memset(c, 0, sizeof *c);
	c->o = o;
	c->lfd = c->sfd = -1;
	if (env)
		c->env = *env;
	if (o->settle_s < 0) {
		o->settle_s = o->timeout_s / 4;
		if (o->settle_s < 1)
			o->settle_s = 1;
		if (o->settle_s > 3)
			o->settle_s = 3;
	}
	if (col_state_init(&c->s, o->job) < 0) {
		mw_err("out of memory");
		return -1;
	}
	c->s.ap = col_ap_create(o->ap_conf, 0);
	c->s.timeout_s = o->timeout_s;
	c->s.hang_limit_s = mw_jobconf_hang_limit(o->hang_limit_s, o->timeout_s);
	c->s.thr = o->thr;
	c->s.expected_ranks = o->ranks;
	snprintf(c->s.threshold_spec, sizeof c->s.threshold_spec, "%s", o->threshold);
	if (o->nodes[0]) {
		struct mw_hostlist hl = {0};
		if (mw_hostlist_expand(o->nodes, 65536, &hl) < 0) {
			mw_err("--nodes %s: not a valid hostlist", o->nodes);
			return -1;
		}
		for (size_t i = 0; i < hl.n; i++)
			col_state_node(&c->s, hl.host[i]);
		mw_hostlist_free(&hl);
		/* Above the threshold: the tree overlay (doc/tree.md). */
		{
			struct mwt_factors *f = col_probe_fuzzy_factors(c);
			c->tree = col_tree_plan(&c->s, o->tree_threshold, o->tree_fanout, o->tree_cps, f,
						o->tree_weights_set ? o->tree_weights : NULL);
			free(f);
		}
		c->s.tree = c->tree;
	}
	if (o->ranks > 0 && col_state_grow(&c->s, (size_t)o->ranks) < 0) {
		mw_err("--ranks %ld: %s", o->ranks, strerror(errno));
		return -1;
	}
	return 0;
}

void col_ctx_free(struct collector *c)
{
	col_probe_free(&c->pr);
	col_authq_destroy(c->aq);
	c->aq = NULL;
	for (size_t k = 0; k < c->nc; k++) {
		mw_link_close(c->c[k].l);
		free(c->c[k].hello_wait);
	}
	free(c->c);
	c->c = NULL;
	c->nc = 0;
	free(c->retry);
	c->retry = NULL;
	c->nretry = 0;
	c->s.tree = NULL;
	col_tree_free(c->tree);
	c->tree = NULL;
	if (c->lfd >= 0)
		close(c->lfd);
	if (c->sfd >= 0)
		close(c->sfd);
	c->lfd = c->sfd = -1;
	col_ap_destroy(c->s.ap);
	c->s.ap = NULL;
	col_state_free(&c->s);
}

int col_run(struct col_opts *o)
{
	struct collector c = {0};
	double next_job_check;
	int rv = -1;

	if (col_ctx_init(&c, o, NULL) < 0)
		goto out;
	if (o->dir[0] && mw_mkdir_p(o->dir, 0755) < 0) {
		mw_err("cannot create %s: %s", o->dir, strerror(errno));
		goto out;
	}
	col_reports_keep_old(o->dir);
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
	next_job_check = col_now(&c) + (o->job_check_s > 0 ? o->job_check_s : 1e18);

	while (!c.stop) {
		struct pollfd *p = calloc(c.nc + 5, sizeof *p);
		size_t np = 2, nc = c.nc, pp = 0, pq;
		int npr = 0;
		double now = col_now(&c), wake = now + 1.0;
		if (!p) {
			mw_err("out of memory");
			break;
		}
		p[0].fd = c.sfd;
		p[0].events = POLLIN;
		p[1].fd = c.lfd;
		p[1].events = POLLIN;
		for (size_t k = 0; k < nc; k++) {
			const struct col_client *x = &c.c[k];
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
		{
			double due = col_eval_next(&c); /* the evaluation's and the retries' times */
			if (due >= 0 && due < wake)
				wake = due;
		}
		if (c.stopping_until && c.stopping_until < wake)
			wake = c.stopping_until;
		if (poll(p, np, wake > now ? (int)((wake - now) * 1000) + 1 : 0) < 0 && errno != EINTR) {
			mw_err("poll: %s", strerror(errno));
			free(p);
			break;
		}
		if (p[0].revents & POLLIN) {
			struct signalfd_siginfo si;
			while (read(c.sfd, &si, sizeof si) == sizeof si) {
				if (si.ssi_signo == SIGHUP) {
					col_reports_write(&c);
					continue;
				}
				if (!c.stopping_until) {
					mw_info("signal %u: waiting up to %.0f s for the agents' last "
						"heartbeats, then writing the final report",
						si.ssi_signo, COL_STOP_DRAIN_S);
					c.stopping_until = col_now(&c) + COL_STOP_DRAIN_S;
				} else {
					c.stop = 1; /* told twice: now */
				}
			}
		}
		/* Clients in reverse order: col_links_close() moves the last one. */
		for (size_t k = nc; k-- > 0;)
			if (p[2 + k].revents && k < c.nc)
				col_links_serve(&c, k, p[2 + k].revents);
		if (p[pq].revents & POLLIN)
			col_links_authq_finished(&c);
		if (p[1].revents & POLLIN)
			col_links_accept(&c);
		if (c.pr.round && (npr == 0 || (p[pp].revents | (npr > 1 ? p[pp + 1].revents : 0)) ||
				   mw_probe_round_timeout_ms(c.pr.round) == 0) &&
		    mw_probe_round_step(c.pr.round) != 0)
			col_eval_schedule(&c, 0); /* over: the evaluation goes on */
		free(p);
		if (c.dumpreq_due) {
			c.dumpreq_due = 0;
			col_links_dumpreq(&c);
		}
		now = col_now(&c);
		col_links_expire(&c);
		if (c.stop || (c.stopping_until && (now >= c.stopping_until || !col_links_linked(&c))))
			break;
		if (c.stopping_until)
			continue; /* the final evaluation below sees all they sent */
		col_eval_tick(&c);
		/* A running job's report shows its agents and ranks as they come
		 * (at most once a second): what mpiwatch status --job reads. */
		if (c.status_dirty && now - c.status_at >= 1.0) {
			c.status_dirty = 0;
			c.status_at = now;
			col_reports_write(&c);
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
		col_links_serve(&c, k, POLLIN);
	col_eval_final(&c);
	col_act_last_tries(&c); /* one last try each */
	col_reports_imbalance(&c);
	col_reports_read_mpi_errors(&c); /* what the launcher printed last */
	col_reports_read_job_output(&c);
	col_ap_finish(c.s.ap);
	col_reports_read_link_errors(&c);
	col_state_event(&c.s, "shutdown", "collector stopping; verdict %s",
			col_verdict_name(c.s.have_res ? c.s.res.verdict : COL_V_NONE));
	col_reports_write(&c);
	rv = 0;
out:
	col_ctx_free(&c);
	return rv;
}
