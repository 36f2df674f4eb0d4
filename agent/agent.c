/* agent.c - the node agent (agent.h): its one libuv loop and its messages.
 *
 * The loop (doc/architecture.md, "The agent's loop") owns:
 *   - uv_signal: SIGTERM and SIGINT stop the agent, SIGHUP is ignored
 *     (SIGPIPE is ignored: a broken link is an error on the write);
 *   - uv_timer t_look: the next look at the ranks' slots (agwatch.c), on a
 *     beat common to every agent of the job;
 *   - uv_timer t_connect: the next try to attach (agconnect.c, backoff);
 *     a try's handshake owns its own uv_getaddrinfo, uv_poll, uv_timer
 *     and uv_queue_work (aghs.c), one candidate at a time;
 *   - uv_timer t_job: the next "is the job still active?" (squeue through
 *     uvslurm.h, never blocking the loop);
 *   - uv_poll lpoll: the parent link's socket (mw_link.h), readable, and
 *     writable while frames are queued; a link being left (a goodbye) keeps
 *     its own uv_poll and a 1 s timer until it is flushed;
 *   - the auxiliary processes (agap.h): each command a uv_process with its
 *     output pipe and time-bound timer (uvcmd.h), one at a time;
 *   - the CP role, when its node runs one, owns its own handles on the same
 *     loop (tree/mwt_cp.h: its listening socket, its children's sockets, a
 *     timer, its probe rounds, the thread pool for its children's hellos);
 *   - uv_prepare prep: before each wait, what waits is sent (heartbeats,
 *     dumps, auxiliary output), a move into the tree is made, and the
 *     watchers are armed for what the link has queued.
 * The ranks never wait for the agent (it only reads their slots).  If the
 * collector cannot be reached the agent retries with exponential backoff.
 */
#include "jobconf.h"
#include "ready.h"
#include "agstate.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agap.h"
#include "agtree.h"
#include "log.h"
#include "uvslurm.h"
#include "settings.h"

static double mono(void)
{
	return mw_now();
}

static void free_handle(uv_handle_t *h)
{
	free(h);
}

/* Start timer t to fire at monotonic time at (now if past). */
static void arm_at(struct agent *a, uv_timer_t *t, uv_timer_cb cb, double at)
{
	double d = at - mono();
	uv_update_time(a->loop);
	uv_timer_start(t, cb, d > 0 ? (uint64_t)(d * 1000) + 1 : 0, 0);
}

/* The parent link's watcher closed (before the link's socket is). */
static void lpoll_close(struct agent *a)
{
	if (a->lpoll)
		uv_close((uv_handle_t *)a->lpoll, free_handle);
	a->lpoll = NULL;
}

static int send_msg(struct agent *a, const struct mw_hb_msg *m);

/* Up the tree (mwt_cp_up_fn): to the parent link, whichever it is. */
static int send_up(void *arg, const struct mw_hb_msg *m)
{
	return send_msg(arg, m);
}

/* The next look, on a beat common to every agent of the job: the next
 * multiple of tick_s on the wall clock (which NTP keeps within
 * milliseconds across a cluster's nodes), returned on the monotonic clock.
 * Ranks that get stuck together are then seen stuck by every agent at the
 * same look, so a CP of the tree gathers one stall into one aggregate
 * instead of one per agent phase (doc/tree.md). */
static double next_beat(double now, double tick_s)
{
	struct timespec ts;
	double rt, next;
	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return now + tick_s;
	rt = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	next = (double)((long long)(rt / tick_s) + 1) * tick_s;
	if (next - rt < tick_s / 10) /* too close: the one after */
		next += tick_s;
	return now + (next - rt);
}

/* ------------------------------------------------------------- messages */

static void link_drop(struct agent *a, const char *why)
{
	/* While moving into the tree the link is still the collector's: the
	 * move goes on (and, if no CP answers, the collector is tried again). */
	int moving = ag_connect_moving(a);
	if (!a->link)
		return;
	mw_warn("lost the %s %s (%s%s); reconnecting", moving ? "collector" : ag_tree_parent_name(a->tree),
		mw_link_peer(a->link), why,
		errno == ETIMEDOUT && mw_setting_double(MW_SET_LIVENESS) > 0 ? ": it stopped answering (liveness)" : "");
	lpoll_close(a); /* before its socket closes */
	mw_link_close(a->link);
	a->link = NULL;
	a->backoff = 0.5;
	a->next_connect = mono() + a->backoff;
	if (!moving && ag_tree_lost_parent(a->tree)) /* a CP: on to its parent at once */
		a->next_connect = mono();
	ag_retell(a);
}

/* The link liveness, the answering end (mw_link.h): the parent's keepalive
 * probes, answers and data all count as segments received; none for the
 * liveness time means the parent's node stopped answering (issue 34: the
 * watching end probes, this end only listens). */
static void link_check_live(struct agent *a, double now)
{
	long long n;
	if (!a->link || mw_setting_double(MW_SET_LIVENESS) <= 0 || (n = mw_link_segs_in(a->link)) < 0)
		return;
	if (n != a->live_segs) {
		a->live_segs = n;
		a->live_at = now;
	} else if (now - a->live_at >= mw_link_silence_limit(mw_setting_double(MW_SET_LIVENESS))) {
		errno = ETIMEDOUT;
		link_drop(a, strerror(ETIMEDOUT));
	}
}

static int send_msg(struct agent *a, const struct mw_hb_msg *m)
{
	if (!a->link)
		return -1;
	if (mw_link_send(a->link, m) < 0) {
		if (errno == EINVAL) {
			mw_warn("dropping an invalid %s message", mw_hb_type_name(m->type));
			return 0;
		}
		link_drop(a, strerror(errno));
		return -1;
	}
	return 0;
}

static int send_ap(const struct mw_hb_msg *m, void *arg)
{
	return send_msg(arg, m);
}

static void flush_rank(struct agent *a, struct ag_rank *x)
{
	struct mw_hb_msg m;
	if (!a->link || !x->slot)
		return;
	if (!x->announced && x->size > 0) {
		memset(&m, 0, sizeof m);
		m.type = MW_HB_RANK;
		m.u.rank.rank = x->rank;
		m.u.rank.size = x->size;
		m.u.rank.pid = x->pid;
		snprintf(m.u.rank.host, sizeof m.u.rank.host, "%s", a->o->node);
		if (send_msg(a, &m))
			return;
		x->announced = 1;
	}
	if (x->beat_unsent) {
		memset(&m, 0, sizeof m);
		m.type = MW_HB_HEARTBEAT;
		m.u.beat = x->beat;
		/* A CP counts its own node's heartbeats into its aggregate. */
		if (ag_tree_own_beat(a->tree, &m.u.beat) < 0 && send_msg(a, &m))
			return;
		x->beat_unsent = 0;
		a->beats_sent++;
		/* --verbose: the send time, on the machine's monotonic clock
		 * (bench/tree-agents pairs it with the collector's). */
		mw_debug("heartbeat: rank %d seq %u sent at %.6f", x->rank, m.u.beat.seq, mw_now());
		mw_info("heartbeat: rank %d %s%s%s (idle %.1f s)", x->rank,
			mw_hb_state_name(x->beat.state), x->beat.call[0] ? " in " : "", x->beat.call,
			x->beat.idle_s);
	}
	if (x->dump_unsent && x->dump_json) {
		memset(&m, 0, sizeof m);
		m.type = MW_HB_DUMP;
		m.u.dump.rank = x->rank;
		m.u.dump.json = x->dump_json;
		if (send_msg(a, &m))
			return;
		x->dump_unsent = 0;
		x->dump_wanted = 0;
		mw_info("forwarded the dump of rank %d", x->rank);
	}
}

static void on_message(struct agent *a, struct mw_hb_msg *m)
{
	if (m->type == MW_HB_DUMPREQ) {
		for (size_t i = 0; i < m->u.dumpreq.n; i++) {
			struct ag_rank *x = ag_rank_find(a, m->u.dumpreq.ranks[i]);
			if (x && x->dump_json && a->tree && x->beat_state == MW_HB_S_IN_MPI) {
				x->dump_unsent = 1; /* held: it goes up now */
				mw_info("collector asked for the dump of rank %d: sending it", x->rank);
			} else if (x && x->slot && x->writable && !x->done) {
				x->dump_wanted = 1;
				mw_slot_request_dump(x->slot);
				mw_info("collector asked for a dump of rank %d", x->rank);
			}
		}
		ag_tree_dumpreq(a->tree, m);
	} else if (m->type == MW_HB_ROLE) {
		ag_tree_role(&a->tree, a->loop, a->o, &m->u.role, send_up, a);
		if (ag_tree_wants_move(a->tree))
			a->move = 1; /* the main loop moves us into the tree */
	} else if (m->type == MW_HB_APREQ) {
		ag_ap_request(a->ap, &m->u.apreq);
		ag_tree_apreq(a->tree, m);
	} else if (m->type == MW_HB_PROBEREQ) {
		ag_tree_probereq(a->tree, &m->u.probereq);
	} else {
		mw_debug("ignoring a %s message from the collector", mw_hb_type_name(m->type));
	}
}


/* ------------------------------------------------------------ the links */

static void on_link(uv_poll_t *h, int status, int events);

void ag_link_up(struct agent *a, struct mw_link *l)
{
	uv_poll_t *h = malloc(sizeof *h);
	int e = h ? uv_poll_init(a->loop, h, mw_link_fd(l)) : UV_ENOMEM;
	if (e < 0) {
		mw_err("cannot watch the link to %s: %s", mw_link_peer(l), uv_strerror(e));
		free(h);
		mw_link_close(l);
		a->next_connect = mono() + 1;
		return;
	}
	h->data = a;
	a->lpoll = h;
	a->lpoll_ev = UV_READABLE;
	uv_poll_start(h, UV_READABLE, on_link);
	a->link = l;
	a->live_segs = -1;
	a->live_at = mono();
	a->connects++;
	a->backoff = 0;
	a->fresh = 1;
	ag_retell(a);
	ag_tree_uplink(a->tree);
}

/* A link being left: flushed until empty or its second is up. */
struct leaving {
	uv_poll_t p;
	uv_timer_t t;
	struct mw_link *l;
	int open; /* handles not closed yet */
};

static void leaving_closed(uv_handle_t *h)
{
	struct leaving *lv = h->data;
	if (--lv->open == 0)
		free(lv);
}

static void leaving_end(struct leaving *lv)
{
	if (!lv->l)
		return;
	uv_close((uv_handle_t *)&lv->p, leaving_closed);
	uv_close((uv_handle_t *)&lv->t, leaving_closed);
	mw_link_close(lv->l);
	lv->l = NULL;
}

static void leaving_writable(uv_poll_t *h, int status, int events)
{
	struct leaving *lv = h->data;
	(void)events;
	if (status < 0 || mw_link_flush(lv->l) <= 0)
		leaving_end(lv);
}

static void leaving_timeout(uv_timer_t *t)
{
	leaving_end(t->data);
}

void ag_link_leave(struct agent *a, const char *reason)
{
	struct mw_hb_msg m = {0};
	struct mw_link *l = a->link;
	struct leaving *lv;
	if (!l)
		return;
	m.type = MW_HB_BYE;
	snprintf(m.u.bye.reason, sizeof m.u.bye.reason, "%s", reason);
	lpoll_close(a);
	a->link = NULL;
	if (mw_link_send(l, &m) < 0 || !mw_link_pending(l) || !(lv = calloc(1, sizeof *lv))) {
		mw_link_close(l);
		return;
	}
	lv->l = l;
	if (uv_poll_init(a->loop, &lv->p, mw_link_fd(l)) < 0) {
		mw_link_close(l);
		free(lv);
		return;
	}
	uv_timer_init(a->loop, &lv->t);
	lv->open = 2;
	lv->p.data = lv->t.data = lv;
	uv_poll_start(&lv->p, UV_WRITABLE, leaving_writable);
	uv_timer_start(&lv->t, leaving_timeout, 1000, 0);
}

/* Every frame the parent link holds now. */
static void read_link(struct agent *a)
{
	a->fresh = 0;
	while (a->link) {
		struct mw_hb_msg m;
		enum mw_hb_err e = MW_HB_OK;
		int rc = mw_link_recv(a->link, &m, &e);
		if (rc == 1) {
			on_message(a, &m);
			mw_hb_msg_free(&m);
			continue;
		}
		if (rc == -1)
			link_drop(a, errno ? strerror(errno) : "closed");
		else if (rc == -2)
			link_drop(a, mw_hb_err_name(e));
		break;
	}
}

static void on_link(uv_poll_t *h, int status, int events)
{
	struct agent *a = h->data;
	if (status < 0) /* the socket's error: the read says which */
		events = UV_READABLE;
	if ((events & UV_WRITABLE) && mw_link_flush(a->link) < 0) {
		link_drop(a, strerror(errno));
		return;
	}
	if (events & UV_READABLE)
		read_link(a);
}

/* ----------------------------------------------------------- the timers */

static void on_connect(uv_timer_t *t)
{
	struct agent *a = t->data;
	if (!a->link && !a->stop && !a->addrcall)
		ag_connect_try(a); /* begun: its handshakes go on on the loop */
}

static void on_look(uv_timer_t *t)
{
	struct agent *a = t->data;
	double now = mono();
	if (now < a->next_look - 0.0005) { /* early: the rest */
		arm_at(a, &a->t_look, on_look, a->next_look);
		return;
	}
	/* Judged at the beat, not at the moment the loop woke up: a late
	 * wake-up does not push a stall to the next beat. */
	ag_watch_look(a, now - a->next_look < mw_settings_tick() ? a->next_look : now);
	link_check_live(a, now);
	a->next_look = next_beat(mono(), mw_settings_tick());
	arm_at(a, &a->t_look, on_look, a->next_look);
}

static void on_job(uv_timer_t *t);

static void job_answer(void *arg, long rc, const char *err)
{
	struct agent *a = arg;
	a->jobcall = NULL;
	if (rc < 0 && err && err[0])
		mw_debug("is job %s active? %s", a->o->job, err);
	if (a->closing)
		return;
	if (rc == 0) {
		mw_info("job %s is over; leaving", a->o->job);
		a->stop = 1;
		uv_stop(a->loop);
		return;
	}
	arm_at(a, &a->t_job, on_job, mono() + mw_setting_double(MW_SET_JOB_CHECK));
}

static void on_job(uv_timer_t *t)
{
	struct agent *a = t->data;
	char err[300];
	if (a->jobcall)
		return;
	a->jobcall = mw_uvslurm_job_active(a->loop, NULL, a->o->job, job_answer, a, err, sizeof err);
	if (!a->jobcall) {
		mw_debug("is job %s active? %s", a->o->job, err);
		arm_at(a, &a->t_job, on_job, mono() + mw_setting_double(MW_SET_JOB_CHECK));
	}
}

/* Before each wait: what waits goes out, and the watchers follow. */
static void on_prepare(uv_prepare_t *p)
{
	struct agent *a = p->data;
	if (a->stop) {
		uv_stop(a->loop);
		return;
	}
	if (a->link && a->fresh) /* frames that came with the handshake (a ROLE?) */
		read_link(a);
	if (a->move) {
		a->move = 0;
		ag_connect_move(a); /* begun: the collector's link is served meanwhile */
	}
	for (size_t i = 0; i < a->nr && a->link; i++)
		flush_rank(a, a->r[i]);
	if (a->link)
		ag_ap_flush(a->ap, send_ap, a);
	if (a->link) {
		int ev = UV_READABLE | (mw_link_pending(a->link) ? UV_WRITABLE : 0);
		if (ev != a->lpoll_ev) /* each uv_poll_start is a stop and an epoll_ctl */
			uv_poll_start(a->lpoll, ev, on_link);
		a->lpoll_ev = ev;
	} else if (!a->addrcall && !ag_connect_busy(a) && !uv_is_active((uv_handle_t *)&a->t_connect))
		arm_at(a, &a->t_connect, on_connect, a->next_connect); /* not while sinfo or a try runs */
}

static void on_signal(uv_signal_t *h, int signo)
{
	struct agent *a = h->data;
	if (signo == SIGHUP)
		return;
	mw_info("signal %d: stopping", signo);
	a->stop = 1;
	uv_stop(a->loop);
}

/* ------------------------------------------------------------- the run */

void ag_opts_default(struct ag_opts *o)
{
	memset(o, 0, sizeof *o);
	o->backoff_max_s = 30;
	o->rundir_wait_s = 600;
}

int ag_run(const struct ag_opts *o)
{
	static const int sigs[3] = {SIGTERM, SIGINT, SIGHUP};
	struct agent a = {0};
	uv_loop_t loop;
	int e;

	a.o = o;
	a.started = mono();
	/* Sequence numbers go on from the clock, so that an agent started
	 * again never reuses its predecessor's (4 a second until 2042). */
	a.seq = (uint32_t)((time(NULL) > 1700000000 ? time(NULL) - 1700000000 : 0) * 4);
	if ((e = uv_loop_init(&loop)) < 0) {
		mw_err("event loop: %s", uv_strerror(e));
		return -1;
	}
	a.loop = &loop;
	signal(SIGPIPE, SIG_IGN);
	for (int i = 0; i < 3; i++) {
		uv_signal_init(&loop, &a.sig[i]);
		a.sig[i].data = &a;
		if ((e = uv_signal_start(&a.sig[i], on_signal, sigs[i])) < 0) {
			mw_err("signal %d: %s", sigs[i], uv_strerror(e));
			a.stop = 1;
		}
	}
	uv_timer_init(&loop, &a.t_look);
	uv_timer_init(&loop, &a.t_connect);
	uv_timer_init(&loop, &a.t_job);
	uv_prepare_init(&loop, &a.prep);
	a.t_look.data = a.t_connect.data = a.t_job.data = a.prep.data = &a;
	srand((unsigned)getpid() ^ (unsigned)time(NULL));
	a.ap = ag_ap_create(&loop, o->ap_conf, 0, o->node);
	/* Two beats T apart are T apart on the wall clock; on the monotonic
	 * clock that the rule uses they may differ by NTP's slew and the
	 * rounding of the two readings: a stall of T seen at the beat T after
	 * it is stuck, not one beat later. */
	a.beat_tol = mw_settings_tick() / 100;
	mw_info("agent for job %s on %s: rundir %s, collector %s:%u, timeout %g s", o->job, o->node,
		o->rundir, o->host, o->port, mw_setting_double(MW_SET_TIMEOUT));
	mw_ready_notify(); /* started: whoever launched us may stop waiting */
	a.next_look = mono();
	uv_timer_start(&a.t_look, on_look, 0, 0);
	a.next_connect = mono();
	if (mw_setting_double(MW_SET_JOB_CHECK) > 0)
		arm_at(&a, &a.t_job, on_job, mono() + mw_setting_double(MW_SET_JOB_CHECK));
	uv_prepare_start(&a.prep, on_prepare);
	if (!a.stop)
		uv_run(&loop, UV_RUN_DEFAULT);

	/* A last look at the slots (ranks that just ended), then say goodbye
	 * so the collector does not take our leaving for a failure. */
	a.closing = 1;
	a.last_look = 1;
	if (a.rundir_seen)
		ag_watch_look(&a, mono());
	if (a.link) {
		for (size_t i = 0; i < a.nr; i++)
			flush_rank(&a, a.r[i]);
		if (a.link)
			ag_ap_flush(a.ap, send_ap, &a);
		if (a.link) /* a CP: what it gathers goes up now, not after its window */
			ag_tree_leaving(a.tree);
		ag_link_leave(&a, "agent stopping"); /* flushed below, for 1 s at most */
	}
	ag_connect_stop(&a); /* a try under way: given up */
	mw_info("agent stopping: %lu heartbeats sent, %lu connections, %lu failed connection attempts",
		a.beats_sent, a.connects, a.connect_failures);
	ag_tree_free(a.tree);
	a.tree = NULL;
	ag_ap_destroy(a.ap); /* a command under way: killed, ap freed as it ends on the loop */
	if (a.jobcall)
		mw_uvslurm_kill(a.jobcall); /* its answer comes on the loop */
	if (a.addrcall)
		mw_uvslurm_kill(a.addrcall); /* likewise */
	for (int i = 0; i < 3; i++)
		uv_close((uv_handle_t *)&a.sig[i], NULL);
	uv_close((uv_handle_t *)&a.t_look, NULL);
	uv_close((uv_handle_t *)&a.t_connect, NULL);
	uv_close((uv_handle_t *)&a.t_job, NULL);
	uv_close((uv_handle_t *)&a.prep, NULL);
	uv_run(&loop, UV_RUN_DEFAULT); /* the goodbye flushed, every handle closed */
	if ((e = uv_loop_close(&loop)) < 0)
		mw_warn("event loop: %s", uv_strerror(e));
	ag_watch_free(&a);
	return 0;
}
