/* core.c - the job collector's loop (core.h; design in doc/collector.md).
 *
 * One libuv loop: signal handles (SIGTERM, SIGINT stop; SIGHUP writes the
 * report), a poll handle on the listening socket and one per agent's link
 * (collinks.c), the credential checks on libuv's pool (authq), our probe
 * rounds (colprobe.c), the Slurm commands as children (uvslurm) and one
 * wake timer set to the next time the evaluation (coleval.c) or a retry
 * (colact.c) asks for.  Heartbeats update the per-rank state; when the
 * number of suspicious ranks crosses the threshold, or an agent's
 * connection is lost without a goodbye, the evaluation waits a short
 * settle time, probes, classifies and acts (colact.c); the reports are
 * colreports.c's.  Nothing on it blocks but the node calibration's probe
 * at the job's end, which turns the loop itself until it is over (1 s).
 */
#include "core.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "colap.h"
#include "authq.h"
#include "colact.h"
#include "colctx.h"
#include "coleval.h"
#include "collinks.h"
#include "colprobe.h"
#include "colreports.h"
#include "colsummary.h"
#include "coltree.h"
#include "fsutil.h"
#include "hostlist.h"
#include "jobconf.h"
#include "log.h"
#include "mw_link.h"
#include "ready.h"
#include "settings.h"
#include "slurm.h"
#include "uvslurm.h"

/* How long a collector told to stop (the job's epilog) waits for its agents'
 * last heartbeats: the epilogs of all the job's nodes run at once, and a
 * rank that died in the job's teardown on another node is told by that
 * node's agent as it stops (its goodbye ends the wait). */
#define COL_STOP_DRAIN_S 2.0

void col_opts_default(struct col_opts *o)
{
	memset(o, 0, sizeof *o);
	o->auth = 1;
}

/* The port the collector listens on first: the job's (port), else
 * port_base. */
static uint16_t first_port(void)
{
	long p = mw_setting_long(MW_SET_PORT);
	return (uint16_t)(p ? p : mw_setting_long(MW_SET_PORT_BASE));
}

/* ------------------------------------------------------------------ loop */

/* The loop's handles: the collector owns the listening socket (c->lfd) and
 * the links (collinks.c), the loop watches them. */
struct col_loop {
	uv_loop_t loop;
	struct collector *c;
	uv_poll_t listen;          /* the listening socket */
	uv_signal_t sig[3];        /* SIGTERM, SIGINT: stop; SIGHUP: write the report */
	uv_timer_t wake;           /* the next time due (evaluation, retry, stop, 1 s at most) */
	uv_prepare_t prep;         /* before each wait: the links' watches, the wake timer */
	uv_check_t check;          /* after each wait: what is due */
	double next_job_check;
	struct mw_uvslurm *job_check; /* is the job still running? squeue by uvslurm.h (uv_spawn) */
	int job_checking;          /* ... under way */
	int quiet;                 /* the loop is over: late answers are ignored */
	char job[32];
	int nhandles;              /* initialised, to close at the end */
};

/* A link's socket watch (its client's watch): found back by the client's id,
 * as clients move in c->c. */
struct col_watch {
	uv_poll_t h;
	struct collector *c;
	uint64_t id;
	int events; /* the UV_* events watched; -1 to be started again */
};

static void free_handle(uv_handle_t *h)
{
	free(h); /* a struct col_watch: its handle comes first */
}

static void on_link(uv_poll_t *h, int status, int events)
{
	struct col_watch *w = (struct col_watch *)h;
	struct collector *c = w->c;
	short revents = (short)((events & UV_READABLE ? POLLIN : 0) | (events & UV_WRITABLE ? POLLOUT : 0) |
				(events & UV_DISCONNECT ? POLLHUP : 0) | (status < 0 ? POLLERR : 0));
	size_t k;
	for (k = 0; k < c->nc && c->c[k].id != w->id; k++)
		;
	if (status < 0)
		w->events = -1; /* libuv stopped the watch */
	if (k < c->nc)
		col_links_serve(c, k, revents);
}

/* collector's link_closing: the watch goes before the socket. */
static void link_closing(struct collector *c, struct col_client *cl)
{
	struct col_watch *w = cl->watch;
	(void)c;
	if (!w)
		return;
	cl->watch = NULL;
	uv_poll_stop(&w->h);
	uv_close((uv_handle_t *)&w->h, free_handle);
}

/* Each link watched for what it waits for: not read while closing or while
 * authq works on it, written while frames are pending; a hang-up always. */
static void watch_links(struct col_loop *L)
{
	struct collector *c = L->c;
	for (size_t k = 0; k < c->nc; k++) {
		struct col_client *x = &c->c[k];
		struct col_watch *w = x->watch;
		/* Nor read, nor its hang-up taken, while the evaluation waits for
		 * the job's output (col_reports_job_output_ready): it classifies
		 * the ranks as they were when it began, as when that read blocked
		 * the loop. */
		int frozen = c->joblog_busy;
		int want = (x->closing || x->au == AU_PROVING || x->au == AU_CHECKING || frozen ? 0 : UV_READABLE) |
			   (mw_link_pending(x->l) ? UV_WRITABLE : 0) | (frozen ? 0 : UV_DISCONNECT);
		if (!w) {
			w = calloc(1, sizeof *w);
			if (!w || uv_poll_init_socket(&L->loop, &w->h, mw_link_fd(x->l)) < 0) {
				free(w);
				col_links_close(c, k--, "cannot watch its socket");
				continue;
			}
			w->h.data = w;
			w->c = c;
			w->id = x->id;
			w->events = -1;
			x->watch = w;
		}
		if (want != w->events) {
			uv_poll_start(&w->h, want, on_link);
			w->events = want;
		}
	}
}

static void on_wake(uv_timer_t *t)
{
	(void)t; /* on_check does what is due */
}

static void on_prepare(uv_prepare_t *h)
{
	struct col_loop *L = h->data;
	struct collector *c = L->c;
	double now = col_now(c), wake = now + 1.0, due = col_eval_next(c);

	if (c->stop) {
		uv_stop(&L->loop);
		return;
	}
	watch_links(L);
	if (due >= 0 && due < wake)
		wake = due;
	if (c->stopping_until && c->stopping_until < wake)
		wake = c->stopping_until;
	uv_timer_start(&L->wake, on_wake, wake > now ? (uint64_t)((wake - now) * 1000) + 1 : 0, 0);
}

static void job_check_done(void *arg, long rc, const char *err)
{
	struct col_loop *L = arg;
	struct collector *c = L->c;
	(void)err;
	L->job_checking = 0;
	L->job_check = NULL;
	if (L->quiet)
		return;
	L->next_job_check = col_now(c) + mw_setting_double(MW_SET_JOB_CHECK);
	if (rc == 0 && !c->stopping_until) {
		col_state_event(&c->s, "note", "job %s is over", c->o->job);
		c->stop = 1;
		uv_stop(&L->loop);
	}
}

static void on_check(uv_check_t *h)
{
	struct col_loop *L = h->data;
	struct collector *c = L->c;
	double now;

	if (c->dumpreq_due) {
		c->dumpreq_due = 0;
		col_links_dumpreq(c);
	}
	col_links_expire(c);
	now = col_now(c);
	if (c->stop || (c->stopping_until && (now >= c->stopping_until || !col_links_linked(c)))) {
		uv_stop(&L->loop);
		return;
	}
	if (c->stopping_until)
		return; /* the final evaluation sees all they sent */
	col_eval_tick(c);
	/* A running job's report shows its agents and ranks as they come (at
	 * most once a second): what mpiwatch status --job reads. */
	if (c->status_dirty && now - c->status_at >= 1.0) {
		c->status_dirty = 0;
		c->status_at = now;
		col_reports_write(c);
	}
	if (now >= L->next_job_check && !L->job_checking) {
		char err[300];
		/* squeue may take seconds while slurmctld is down: never on the loop */
		if ((L->job_check = mw_uvslurm_job_active(&L->loop, NULL, L->job, job_check_done, L, err, sizeof err)))
			L->job_checking = 1;
		else
			L->next_job_check = now + mw_setting_double(MW_SET_JOB_CHECK);
	}
	if (c->stop)
		uv_stop(&L->loop);
}

static void on_signal(uv_signal_t *h, int signo)
{
	struct col_loop *L = h->data;
	struct collector *c = L->c;
	if (signo == SIGHUP) {
		col_reports_write(c);
		return;
	}
	if (!c->stopping_until) {
		mw_info("signal %d: waiting up to %.0f s for the agents' last heartbeats, then writing the final report",
			signo, COL_STOP_DRAIN_S);
		c->stopping_until = col_now(c) + COL_STOP_DRAIN_S;
	} else {
		c->stop = 1; /* told twice: now */
		uv_stop(&L->loop);
	}
}

static void on_listen(uv_poll_t *h, int status, int events)
{
	struct col_loop *L = h->data;
	(void)status;
	(void)events;
	col_links_accept(L->c);
}

/* The credential queue's ready: a job came back from the pool. */
static void on_authq(void *arg)
{
	struct col_loop *L = arg;
	if (!L->quiet)
		col_links_authq_finished(L->c);
}

/* The tree is planned (col_probe_fuzzy_start): the agents are let in. */
static void on_planned(void *arg)
{
	struct col_loop *L = arg;
	if (!L->quiet)
		uv_poll_start(&L->listen, UV_READABLE, on_listen);
}

/* Set up the loop's handles (the listener is started by on_planned).
 * Return 0, or -1 (logged). */
static int loop_open(struct col_loop *L, struct collector *c)
{
	static const int sigs[3] = {SIGTERM, SIGINT, SIGHUP};
	int rc;

	L->c = c;
	if ((rc = uv_loop_init(&L->loop)) < 0) {
		mw_err("cannot make the event loop: %s", uv_strerror(rc));
		return -1;
	}
	c->loop = &L->loop;
	c->link_closing = link_closing;
	L->listen.data = L->wake.data = L->prep.data = L->check.data = L;
	snprintf(L->job, sizeof L->job, "%s", c->o->job);
	uv_timer_init(&L->loop, &L->wake);
	uv_prepare_init(&L->loop, &L->prep);
	uv_check_init(&L->loop, &L->check);
	L->nhandles = 3;
	for (int i = 0; i < 3; i++) {
		uv_signal_init(&L->loop, &L->sig[i]);
		L->sig[i].data = L;
		L->nhandles++;
		if ((rc = uv_signal_start(&L->sig[i], on_signal, sigs[i])) < 0) {
			mw_err("cannot watch signal %d: %s", sigs[i], uv_strerror(rc));
			return -1;
		}
	}
	if ((rc = uv_poll_init_socket(&L->loop, &L->listen, c->lfd)) < 0) {
		mw_err("cannot watch the collector's socket: %s", uv_strerror(rc));
		return -1;
	}
	L->nhandles++;
	{
		struct mw_auth au = {mw_setting_str(MW_SET_MUNGE_SOCKET), c->o->auth == 2 ? c->o->auth_token : ""};
		c->aq = col_authq_create(&L->loop, &au, on_authq, L);
		if (!c->aq) {
			mw_err("cannot make the credential queue: %s", strerror(errno));
			return -1;
		}
	}
	uv_prepare_start(&L->prep, on_prepare);
	uv_check_start(&L->check, on_check);
	return 0;
}

/* Stop watching the links and the listener (the final reading is direct). */
static void loop_quiet(struct col_loop *L)
{
	struct collector *c = L->c;
	if (!c->loop)
		return;
	L->quiet = 1;
	if (L->job_check)
		mw_uvslurm_kill(L->job_check); /* its answer, ignored, comes on the loop */
	for (size_t k = 0; k < c->nc; k++)
		link_closing(c, &c->c[k]);
	if (L->nhandles > 6)
		uv_poll_stop(&L->listen);
	uv_prepare_stop(&L->prep);
	uv_check_stop(&L->check);
	uv_timer_stop(&L->wake);
}

/* Close every handle, let the loop finish the closes, close it. */
static void loop_close(struct col_loop *L)
{
	struct collector *c = L->c;
	uv_handle_t *h[] = {(uv_handle_t *)&L->wake, (uv_handle_t *)&L->prep, (uv_handle_t *)&L->check,
			    (uv_handle_t *)&L->sig[0], (uv_handle_t *)&L->sig[1], (uv_handle_t *)&L->sig[2],
			    (uv_handle_t *)&L->listen};
	if (!c || !c->loop)
		return;
	col_probe_free(&c->pr); /* a round still under way: its handles close too */
	col_probe_fuzzy_free(c); /* likewise the start-up probe */
	for (size_t k = 0; k < c->nc; k++)
		link_closing(c, &c->c[k]);
	for (int i = 0; i < L->nhandles && i < 7; i++)
		if (!uv_is_closing(h[i]))
			uv_close(h[i], NULL);
	uv_run(&L->loop, UV_RUN_DEFAULT);
	if (uv_loop_close(&L->loop) < 0)
		mw_warn("the event loop still had handles at its end");
	c->loop = NULL;
	c->link_closing = NULL;
}

int col_run(struct col_opts *o)
{
	struct collector c = {0};
	struct col_loop L;
	const char *dir = mw_setting_str(MW_SET_DIR);
	int nports = (int)mw_setting_long(MW_SET_PORTS);
	double job_check = mw_setting_double(MW_SET_JOB_CHECK);
	int rv = -1;

	memset(&L, 0, sizeof L);
	signal(SIGPIPE, SIG_IGN); /* a link's peer gone: the send says so */
	if (col_ctx_init(&c, o, NULL) < 0)
		goto out;
	if (dir[0] && mw_mkdir_p(dir, 0755) < 0) {
		mw_err("cannot create %s: %s", dir, strerror(errno));
		goto out;
	}
	col_reports_keep_old(dir);
	c.lfd = mw_link_listen(first_port(), nports, &c.port);
	if (c.lfd < 0) {
		mw_err("cannot listen on tcp ports %u-%u: %s", first_port(), first_port() + nports - 1,
		       strerror(errno));
		goto out;
	}
	if (loop_open(&L, &c) < 0)
		goto out;
	mw_info("collector for job %s listening on port %u; %zu node(s), timeout %g s, hang limit %g s, threshold %s, action %s",
		o->job, c.port, c.s.nnodes, mw_setting_double(MW_SET_TIMEOUT), mw_settings_hang_limit(),
		mw_setting_str(MW_SET_THRESHOLD), mw_jobconf_action_name(col_action(&c)));
	col_state_event(&c.s, "start", "collector listening on port %u", c.port);
	mw_ready_notify(); /* started: whoever launched us may stop waiting */
	c.status_dirty = 1; /* a report from the start: the job is watched */
	L.next_job_check = col_now(&c) + (job_check > 0 ? job_check : 1e18);
	/* The fuzzy placement's start-up probe runs on the loop; the agents
	 * wait in the listen queue until the tree is planned (at most 1 s). */
	if (!col_probe_fuzzy_start(&c, on_planned, &L))
		on_planned(&L);

	uv_run(&L.loop, UV_RUN_DEFAULT);

	loop_quiet(&L);
	col_reports_inline(&c); /* the last writes are in order, and over when we exit */
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
	/* Last: the node's nodehealthd counts the verdict (its metrics). */
	col_summary_send_on(c.loop, mw_setting_str(MW_SET_NHD_SOCKET), o->job,
			    c.s.have_res ? c.s.res.verdict : COL_V_NONE, 5.0);
	rv = 0;
out:
	loop_close(&L);
	col_ctx_free(&c);
	return rv;
}
