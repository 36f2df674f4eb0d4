/* agent.c - the node agent (agent.h).
 *
 * One poll loop: a signalfd, the link to the collector, and a tick that scans
 * the slot directory.  Per rank it judges the slot by the one stall rule
 * (shared/stall.h), on its own monotonic clock so that the monitor's coarse
 * timestamps do not matter:
 *   - stuck in a blocking call, or polling without a completion: one
 *     "in_mpi" heartbeat;
 *   - the same, but the rank's transfer moves (the watcher's motion probe):
 *     one "slow" heartbeat;
 *   - outside MPI and no MPI call for the timeout: one "computing" heartbeat
 *     (cause A: the collector notes it and does not alarm on it);
 *   - exit recorded in the slot without MPI_Finalize (or with a failure
 *     status), or the process gone without a record: "exited"/"vanished";
 *   - progress after a heartbeat: one "resumed" message.
 * A dump file named in the slot is forwarded once (DUMP).  Nothing is sent
 * for a healthy rank.  If the collector cannot be reached the agent retries
 * with exponential backoff; the ranks never wait for it (it only reads their
 * slots).
 */
#include "jobconf.h"
#include "ready.h"
#include "agent.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ap.h"
#include "auth.h"
#include "fsutil.h"
#include "mw_link.h"
#include "log.h"
#include "sigfd.h"
#include "mw_slot.h"
#include "slurm.h"
#include "stall.h"
#include "agtree.h"

#define AG_DUMP_MAX (MW_HB_MAX_PAYLOAD - 4096)

/* How long after reporting a rank vanished an exit record that comes late
 * (mpiwatch run reads it from the launcher's message) is still sent. */
#define AG_LATE_EXIT_S 30.0

/* Failed connection rounds before a link error is told (log + report). */
#define AG_LINK_ERROR_TRIES 3

static struct mw_ratelimit dump_rl = MW_RATELIMIT_INIT(0.2, 3);
static struct mw_ratelimit auth_rl = MW_RATELIMIT_INIT(0.1, 2);

struct ag_rank {
	int rank;
	char path[1100];
	struct mw_slot *slot;
	int writable;
	int32_t pid;
	uint64_t start_ns;
	int size;
	struct mw_stall rule; /* the one stall rule's memory (shared/stall.h) */
	int gone_ticks;      /* ticks the pid was seen dead without an exit record */
	int32_t dumps_sent;  /* slot dumps count forwarded */
	/* what we told the collector */
	int announced;
	int beat_state;      /* state of the last heartbeat (0 = none: healthy) */
	int done;            /* finalized or exited: nothing more to watch */
	double t_vanished;   /* when reported vanished (0: not), for a late exit record */
	struct mw_hb_beat beat; /* the last heartbeat (resent after a reconnect) */
	int beat_unsent;
	char *dump_json;     /* last dump (resent after a reconnect) */
	int dump_unsent;
	int dump_wanted;     /* tree: the collector asked for it (dumps go up on demand) */
};

struct agent {
	const struct ag_opts *o;
	struct ag_rank **r;
	size_t nr;
	struct mw_link *link;
	double next_connect, backoff;
	int sfd;
	int stop;
	int rundir_seen;
	int last_look; /* stopping: a rank found gone is told at once */
	double started;
	double beat_tol; /* the beats' clocks may disagree by this (tick/100) */
	unsigned long beats_sent, connects, connect_failures;
	struct ag_ap *ap; /* auxiliary processes (ap.h) */
	uint32_t seq;          /* the last heartbeat's sequence number (per origin: this node) */
	struct ag_tree *tree;  /* the tree overlay's part (agtree.c), NULL in the flat star */
	int move;              /* leave the collector for the parent CP the ROLE named */
	int fresh;             /* a new link: frames may wait in its buffer already (read them) */
	char target[256];      /* where the collector is tried: --collector's host, or Slurm's
				* NodeAddr for it when that name does not resolve here */
	int addr_tried;        /* Slurm was asked for that NodeAddr */
	char last_error[400];  /* the last link error told (told again only when it changes) */
};

static int send_msg(struct agent *a, const struct mw_hb_msg *m);

/* Up the tree (mwt_cp_up_fn): to the parent link, whichever it is. */
static int send_up(void *arg, const struct mw_hb_msg *m)
{
	return send_msg(arg, m);
}

static double mono(void)
{
	return mw_now();
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

static struct ag_rank *find_rank(struct agent *a, int rank)
{
	for (size_t i = 0; i < a->nr; i++)
		if (a->r[i]->rank == rank)
			return a->r[i];
	return NULL;
}

static void rank_reset(struct ag_rank *x)
{
	x->announced = 0;
	x->beat_state = 0;
	x->done = 0;
	x->beat_unsent = 0;
	x->dump_unsent = 0;
	x->dump_wanted = 0;
	x->dumps_sent = 0;
	x->gone_ticks = 0;
	x->t_vanished = 0;
	free(x->dump_json);
	x->dump_json = NULL;
	memset(&x->rule, 0, sizeof x->rule); /* starts afresh at the next look */
}

static int scan_cb(const char *path, int rank, void *arg)
{
	struct agent *a = arg;
	struct ag_rank *x = find_rank(a, rank), **p;
	if (x && x->slot)
		return 0;
	if (!x) {
		x = calloc(1, sizeof *x);
		if (!x)
			return 0;
		p = realloc(a->r, (a->nr + 1) * sizeof *p);
		if (!p) {
			free(x);
			return 0;
		}
		a->r = p;
		a->r[a->nr++] = x;
		x->rank = rank;
		rank_reset(x);
	}
	snprintf(x->path, sizeof x->path, "%s", path);
	x->writable = 1;
	x->slot = mw_slot_map(path, 1);
	if (!x->slot) {
		x->writable = 0;
		x->slot = mw_slot_map(path, 0);
	}
	if (!x->slot && errno != EAGAIN)
		mw_debug("slot %s: %s", path, strerror(errno));
	return 0;
}

/* ------------------------------------------------------------- messages */

/* Everything the next link must hear again: the ranks, the open episodes'
 * heartbeats (same numbers), the dumps wanted. */
static void retell(struct agent *a)
{
	for (size_t i = 0; i < a->nr; i++) {
		struct ag_rank *x = a->r[i];
		x->announced = 0;
		if (x->beat_state)
			x->beat_unsent = 1;
		if (x->dump_json && (!a->tree || x->dump_wanted))
			x->dump_unsent = 1;
	}
}

static void link_drop(struct agent *a, const char *why)
{
	if (!a->link)
		return;
	mw_warn("lost the %s %s (%s%s); reconnecting", ag_tree_parent_name(a->tree), mw_link_peer(a->link), why,
		errno == ETIMEDOUT && a->o->liveness_s > 0 ? ": it stopped answering (liveness)" : "");
	mw_link_close(a->link);
	a->link = NULL;
	a->backoff = 0.5;
	a->next_connect = mono() + a->backoff;
	if (ag_tree_lost_parent(a->tree)) /* a CP: on to its parent at once */
		a->next_connect = mono();
	retell(a);
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

/* A link error, told clearly: in the agent's log (an error, the first
 * time and when it changes) and in OUTDIR/logs/link-error-NODE.txt, which
 * the collector puts in the report (mw_link_error_path). */
static void link_error(struct agent *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void link_error(struct agent *a, const char *fmt, ...)
{
	char msg[sizeof a->last_error], path[4200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!strcmp(msg, a->last_error))
		return;
	snprintf(a->last_error, sizeof a->last_error, "%s", msg);
	mw_err("%s", msg);
	if (a->o->outdir[0] && mw_link_error_path(path, sizeof path, a->o->outdir, a->o->node) == 0) {
		size_t n = strlen(msg);
		msg[n < sizeof msg - 1 ? n : n - 1] = '\n';
		msg[n < sizeof msg - 1 ? n + 1 : n] = 0;
		if (mw_write_atomic(path, msg, strlen(msg), 0644, (uid_t)-1, (gid_t)-1) < 0)
			mw_debug("cannot write %s: %s", path, strerror(errno));
	}
}

/* The collector's host name does not resolve here: Slurm's NodeAddr for
 * it, once, if it differs (a NodeName that is not a host name). */
static void try_node_addr(struct agent *a)
{
	struct mw_slurm_node sn;
	char err[256];
	if (a->addr_tried)
		return;
	a->addr_tried = 1;
	if (mw_slurm_node(NULL, a->o->host, &sn, err, sizeof err) < 0) {
		link_error(a, "the collector's host %s does not resolve on node %s, and Slurm gives no "
			      "address for it (%s): check /etc/hosts or DNS (short name vs FQDN vs NodeAddr)",
			   a->o->host, a->o->node, err);
		return;
	}
	if (!sn.addr[0] || !strcmp(sn.addr, a->o->host)) {
		link_error(a, "the collector's host %s does not resolve on node %s, and Slurm's NodeAddr "
			      "for it is the same name: check /etc/hosts or DNS (short name vs FQDN)",
			   a->o->host, a->o->node);
		return;
	}
	link_error(a, "the collector's host %s does not resolve on node %s (short name vs FQDN vs "
		      "NodeAddr): using Slurm's NodeAddr %s", a->o->host, a->o->node, sn.addr);
	snprintf(a->target, sizeof a->target, "%s", sn.addr);
}

/* How a handshake failed (handshake's *stage). */
enum { HS_CONNECT, HS_NO_CHALLENGE, HS_IMPOSTOR, HS_REFUSED, HS_NO_WELCOME, HS_SEND };

/* Connect to host:port and authenticate both ways (doc/protocol.md
 * "Handshake"): our nonce (VERIFY); the peer's CHALLENGE, whose proof must
 * name our job, the endpoint we connected to and both nonces, made by our
 * own uid (or root), or with our token; only then our HELLO, with our own
 * proof; then the welcome.  Nothing else is sent to a peer that did not
 * prove itself.  Within connect_s for the TCP connect and the
 * handshake_timeout setting for each step; the link gets the liveness
 * setting (every link: to the collector and to a CP).  Return the link, or
 * NULL with *stage telling where it failed: HS_CONNECT with errno set
 * (why[] untouched), else why[] in words (HS_IMPOSTOR: the peer is not our
 * collector, and was told nothing). */
static struct mw_link *handshake(struct agent *a, const char *host, uint16_t port, double connect_s, int *stage,
				 char *why, size_t whylen)
{
	const struct ag_opts *o = a->o;
	const struct mw_auth au = {o->munge_socket, o->auth_token};
	struct mw_link *l = mw_link_connect(host, port, connect_s);
	struct mw_hb_msg m = {0}, r;
	enum mw_hb_err e = MW_HB_OK;
	char payload[400], err[256] = "job, node or endpoint too long";
	int rc, impostor = 0;
	if (!l) {
		int err_ = errno;
		*stage = HS_CONNECT; /* why[] untouched: the caller keeps an earlier port's reason */
		mw_debug("connect %s:%u: %s", host, port, strerror(err_));
		errno = err_;
		return NULL;
	}
	/* Nothing is trusted before the peer proves itself: small frames only. */
	mw_link_set_max_payload(l, MW_HB_PREAUTH_MAX);
	m.type = MW_HB_VERIFY;
	if (mw_auth_nonce(m.u.verify.nonce, sizeof m.u.verify.nonce) < 0 || mw_link_send(l, &m) < 0) {
		*stage = HS_SEND;
		snprintf(why, whylen, "port %u: cannot send our nonce: %s", port, strerror(errno));
		mw_link_close(l);
		return NULL;
	}
	rc = mw_link_recv_wait(l, &r, &e, o->handshake_timeout_s);
	if (rc != 1 || r.type != MW_HB_CHALLENGE) {
		if (rc == -2) /* something answered, and not with a challenge we can read */
			mw_warn("refusing the peer on port %u of %.64s: not a collector's challenge (%s); nothing "
				"sent to it", port, host, mw_hb_err_name(e));
		else
			mw_debug("no challenge from %s:%u (rc %d, %s)", host, port, rc, mw_hb_err_name(e));
		*stage = HS_NO_CHALLENGE;
		snprintf(why, whylen, "port %u answers, but no valid challenge came within handshake_timeout %g s "
			 "(another service on the port?)", port, o->handshake_timeout_s);
		if (rc == 1)
			mw_hb_msg_free(&r);
		mw_link_close(l);
		return NULL;
	}
	/* The peer's proof: our job, the endpoint we reached, both nonces. */
	if (strcmp(r.u.challenge.job, o->job) != 0) {
		impostor = 1;
		snprintf(why, whylen, "port %u of %.64s: it serves job %s, not %s", port, host, r.u.challenge.job,
			 o->job);
	} else if (mw_hb_proof_payload(o->job, mw_link_peer(l), m.u.verify.nonce, r.u.challenge.nonce, payload,
				       sizeof payload) < 0 ||
		   mw_auth_verify(&au, r.u.challenge.cred, payload, err, sizeof err) < 0) {
		impostor = 1;
		snprintf(why, whylen, "port %u of %.64s: not the collector of job %s: %.150s", port, host, o->job,
			 err);
	}
	if (impostor) {
		*stage = HS_IMPOSTOR;
		mw_hb_msg_free(&r);
		mw_warn("refusing %s (nothing sent to it); trying the next port", why);
		mw_link_close(l);
		return NULL;
	}
	memset(&m, 0, sizeof m);
	m.type = MW_HB_HELLO;
	snprintf(m.u.hello.job, sizeof m.u.hello.job, "%s", o->job);
	snprintf(m.u.hello.node, sizeof m.u.hello.node, "%s", o->node);
	m.u.hello.pid = (int32_t)getpid();
	m.u.hello.ranks = (int32_t)a->nr;
	if (mw_hb_auth_payload(o->job, o->node, mw_link_peer(l), r.u.challenge.nonce, payload, sizeof payload) < 0 ||
	    mw_auth_sign(&au, payload, m.u.hello.cred, sizeof m.u.hello.cred, err, sizeof err) < 0) {
		/* Sent without: the collector says so. */
		m.u.hello.cred[0] = 0;
		mw_log_limited(&auth_rl, LOG_WARNING, "no credential for the collector: %s", err);
	}
	mw_hb_msg_free(&r);
	if (mw_link_send(l, &m) < 0) {
		*stage = HS_SEND;
		snprintf(why, whylen, "port %u: cannot send the hello: %s", port, strerror(errno));
		mw_link_close(l);
		return NULL;
	}
	rc = mw_link_recv_wait(l, &r, &e, o->handshake_timeout_s);
	if (rc == 1 && r.type == MW_HB_WELCOME && r.u.welcome.ok) {
		mw_hb_msg_free(&r);
		mw_link_set_max_payload(l, 0);
		if (mw_link_set_liveness(l, o->liveness_s) < 0)
			mw_warn("link liveness %g s: %s", o->liveness_s, strerror(errno));
		return l;
	}
	if (rc == 1 && r.type == MW_HB_WELCOME) {
		/* Refused: a node name the collector does not know (the host
		 * name is not Slurm's NodeName?), a bad credential... */
		*stage = HS_REFUSED;
		snprintf(why, whylen, "%.250s", r.u.welcome.error);
	} else {
		mw_debug("no welcome from %s:%u (rc %d, %s)", host, port, rc, mw_hb_err_name(e));
		*stage = HS_NO_WELCOME;
		snprintf(why, whylen, "port %u: no welcome within handshake_timeout %g s", port,
			 o->handshake_timeout_s);
	}
	if (rc == 1)
		mw_hb_msg_free(&r);
	mw_link_close(l);
	return NULL;
}

/* A new link up (to the collector or a CP): everything is told again. */
static void link_up(struct agent *a, struct mw_link *l)
{
	a->link = l;
	a->connects++;
	a->backoff = 0;
	a->fresh = 1;
	retell(a);
	ag_tree_uplink(a->tree);
}

static void try_connect(struct agent *a)
{
	const struct ag_opts *o = a->o;
	char host[256], why[300] = "";
	uint16_t tport;
	int last = 0, stage;
	/* In the tree: the parent, else the next ancestor, at once. */
	while (!a->stop && ag_tree_target(a->tree, host, sizeof host, &tport)) {
		struct mw_link *l = handshake(a, host, tport, 1.0, &stage, why, sizeof why);
		if (l) {
			mw_info("attached to %s at %s:%u (liveness %g s)", ag_tree_parent_name(a->tree), host, tport,
				o->liveness_s);
			link_up(a, l);
			return;
		}
		mw_warn("cannot attach to %s at %s:%u (%s): trying the next one up", ag_tree_parent_name(a->tree),
			host, tport, stage == HS_CONNECT ? mw_link_connect_hint(errno) : why);
		ag_tree_lost_parent(a->tree);
	}
	why[0] = 0;
	if (!a->target[0])
		snprintf(a->target, sizeof a->target, "%s", o->host);
	for (int i = 0; i < o->nports && !a->stop; i++) {
		uint16_t port = (uint16_t)(o->port + i);
		struct mw_link *l = handshake(a, a->target, port, o->connect_timeout_s, &stage, why, sizeof why);
		if (!l && stage == HS_CONNECT && errno == ENOENT && !a->addr_tried) {
			try_node_addr(a);
			if (strcmp(a->target, o->host))
				l = handshake(a, a->target, port, o->connect_timeout_s, &stage, why, sizeof why);
			else
				errno = ENOENT;
		}
		if (l) {
			if (a->last_error[0]) {
				mw_info("connected to the collector at %s:%u after %lu failed tries (liveness %g s)",
					a->target, port, a->connect_failures, o->liveness_s);
				link_error(a, "%.250s; then connected after %lu failed tries", a->last_error,
					   a->connect_failures);
				a->last_error[0] = 0;
			} else
				mw_info("connected to the collector at %s:%u (liveness %g s)", a->target, port,
					o->liveness_s);
			link_up(a, l);
			return;
		}
		if (stage == HS_CONNECT) {
			last = errno;
			if (last == ENOENT || last == ETIMEDOUT || last == EHOSTUNREACH || last == ENETUNREACH)
				break; /* the host, not the port: the other ports fare no better */
		} else if (stage == HS_REFUSED) {
			link_error(a, "the collector at %s:%u refused the agent of node %s: %s", a->target, port,
				   o->node, why);
			char tmp[300];
			snprintf(tmp, sizeof tmp, "refused: %.250s", why);
			snprintf(why, sizeof why, "%s", tmp);
		}
	}
	a->connect_failures++;
	a->backoff = a->backoff <= 0 ? 0.5 : a->backoff * 2;
	if (a->backoff > o->backoff_max_s)
		a->backoff = o->backoff_max_s;
	/* Jitter: +-20 %, so that many agents do not retry in lockstep. */
	a->next_connect = mono() + a->backoff * (0.8 + 0.4 * ((double)(rand() % 1000) / 1000.0));
	if (!why[0] && last)
		snprintf(why, sizeof why, "%s", mw_link_connect_hint(last));
	if (a->stop)
		return;
	/* The collector may simply not listen yet (the job starts on every
	 * node at once): an error only when it lasts (3 tries, 3.5 s of
	 * backoff), or at once for a name that does not resolve. */
	if (a->connect_failures < AG_LINK_ERROR_TRIES && last != ENOENT) {
		mw_info("the collector at %s:%u-%u does not answer yet (%s); retrying in %.1f s", a->target,
			o->port, o->port + o->nports - 1, why[0] ? why : "?", a->backoff);
		return;
	}
	link_error(a, "cannot reach the collector of job %s at %s:%u-%u from node %s: %s", o->job,
		   a->target, o->port, o->port + o->nports - 1, o->node, why[0] ? why : "?");
	if (a->connect_failures % 10 == 0) /* the first one: link_error above */
		mw_warn("cannot reach the collector at %s:%u-%u (%lu tries): %s; retrying in %.1f s", a->target,
			o->port, o->port + o->nports - 1, a->connect_failures, why[0] ? why : "?", a->backoff);
}

/* The ROLE named a parent CP: attach to it (or, failing that, to the next
 * ancestor), then leave the collector with a goodbye so that it does not
 * take the move for a lost agent.  If none answers, stay. */
static void tree_move(struct agent *a)
{
	char host[256], why[300];
	uint16_t port;
	int stage;
	while (ag_tree_target(a->tree, host, sizeof host, &port)) {
		struct mw_link *l = handshake(a, host, port, 1.0, &stage, why, sizeof why);
		if (l) {
			struct mw_link *old = a->link;
			if (old) {
				struct mw_hb_msg m = {0};
				double end = mono() + 1.0;
				m.type = MW_HB_BYE;
				snprintf(m.u.bye.reason, sizeof m.u.bye.reason, "moved into the tree: %s",
					 ag_tree_parent_name(a->tree));
				if (mw_link_send(old, &m) == 0)
					while (mw_link_pending(old) && mono() < end) {
						struct pollfd pf = {mw_link_fd(old), POLLOUT, 0};
						poll(&pf, 1, 50);
						if (mw_link_flush(old) < 0)
							break;
					}
				mw_link_close(old);
				a->link = NULL;
			}
			mw_info("attached to %s at %s:%u", ag_tree_parent_name(a->tree), host, port);
			link_up(a, l);
			return;
		}
		mw_warn("cannot attach to %s at %s:%u (%s): trying the next one up", ag_tree_parent_name(a->tree),
			host, port, stage == HS_CONNECT ? mw_link_connect_hint(errno) : why);
		ag_tree_lost_parent(a->tree);
	}
	mw_warn("tree: no CP answered: staying on the collector");
}

/* --------------------------------------------------------- slot watching */

static int read_dump(const char *path, char **out)
{
	FILE *f;
	struct stat st;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 || st.st_size > AG_DUMP_MAX) {
		close(fd);
		errno = EFBIG;
		return -1;
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -1;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf || fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		free(buf);
		fclose(f);
		errno = EIO;
		return -1;
	}
	buf[st.st_size] = 0;
	fclose(f);
	*out = buf;
	return 0;
}

static void set_beat(struct agent *a, struct ag_rank *x, const struct mw_slot_snap *sn, int state,
		     double idle)
{
	const struct mw_slot *s = &sn->s;
	struct mw_hb_beat *b = &x->beat;
	memset(b, 0, sizeof *b);
	b->rank = x->rank;
	b->size = x->size > x->rank ? x->size : x->rank + 1;
	b->pid = x->pid;
	b->state = state;
	b->peer_world = -1;
	b->root_world = -1;
	b->tag = -1;
	b->exit_code = -1;
	if (state == MW_HB_S_SLOW)
		mw_motion_names(s->motion_src, b->moving, sizeof b->moving);
	if (state == MW_HB_S_IN_MPI || state == MW_HB_S_SLOW || state == MW_HB_S_EXITED ||
	    state == MW_HB_S_VANISHED) {
		if (s->state == MW_STATE_IN_MPI || state == MW_HB_S_IN_MPI || state == MW_HB_S_SLOW) {
			snprintf(b->call, sizeof b->call, "%.31s", s->call.name);
			for (char *c = b->call; *c; c++)
				if (*c < 0x20 || *c > 0x7e)
					*c = '?';
			snprintf(b->kind, sizeof b->kind, "%s", mw_slot_kind_name(s->call.kind));
			if (strcmp(b->kind, "nonblocking") == 0 || strcmp(b->kind, "unknown") == 0)
				snprintf(b->kind, sizeof b->kind, "other");
			if (sn->resolved_ok && s->resolved_calls == s->calls) {
				snprintf(b->comm, sizeof b->comm, "%.63s", s->comm_gid);
				for (char *c = b->comm; *c; c++)
					if (*c < 0x20 || *c > 0x7e)
						*c = '?';
				if (s->peer_world >= -2 && s->peer_world <= MW_HB_MAX_RANK)
					b->peer_world = s->peer_world;
				if (s->root_world >= -1 && s->root_world <= MW_HB_MAX_RANK)
					b->root_world = s->root_world;
			}
			if (s->call.tag >= 0)
				b->tag = s->call.tag;
			mw_slot_site(s, s->call.site, b->site, sizeof b->site);
		}
	}
	if (s->exit_flags & MW_SLOT_EXIT_VALID) {
		if (s->exit_flags & MW_SLOT_EXIT_SIGNALED)
			b->exit_signal = s->exit_status > 0 && s->exit_status <= 128 ? s->exit_status : 0;
		else
			b->exit_code = s->exit_status >= 0 && s->exit_status <= 255 ? s->exit_status : -1;
	}
	b->a = s->a;
	b->b = s->b;
	b->completions = s->completions;
	b->calls = s->calls;
	b->idle_s = idle < 0 ? 0 : idle;
	b->seq = ++a->seq; /* per origin: a re-sent beat is counted once (tree overlay) */
	x->beat_state = state;
	x->beat_unsent = 1;
}

/* Whether pid is a running process.  A zombie (dead, not yet reaped: a busy
 * launcher may leave its ended ranks so for seconds) is not. */
static int pid_alive(int32_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;
	if (pid <= 0)
		return 0;
	if (kill(pid, 0) < 0 && errno != EPERM)
		return 0;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno != ENOENT;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = 0;
	/* "pid (comm) S ...": comm may hold spaces and ')', so the last ')' */
	p = strrchr(buf, ')');
	return !(p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'));
}

static void watch_rank(struct agent *a, struct ag_rank *x, double now)
{
	struct mw_slot_snap sn;
	const struct mw_slot *s;
	double T = a->o->timeout_s, idle_c, idle_k;
	int finalized, exited;
	enum mw_stall_class cls;

	if (!x->slot)
		return;
	if (mw_slot_snapshot(x->slot, &sn) < 0 && !sn.live_ok)
		return; /* being written: next tick */
	s = &sn.s;
	if (s->pid != x->pid || s->start_ns != x->start_ns) { /* a new step reused the slot */
		if (x->pid)
			mw_info("rank %d: new process %d (was %d)", x->rank, s->pid, x->pid);
		rank_reset(x);
		x->pid = s->pid;
		x->start_ns = s->start_ns;
		/* Both read the job's settings file: say if they do not agree. */
		if (s->timeout_s != T)
			mw_warn("rank %d: process %d: its monitor's timeout is %g s, the agent's %g s",
				x->rank, s->pid, s->timeout_s, T);
		else
			mw_info("rank %d: process %d, monitor timeout %g s", x->rank, s->pid, s->timeout_s);
		x->size = s->world_size;
		x->dumps_sent = s->dumps; /* dumps of an earlier life are not news */
	}
	if (x->size <= 0 || x->size <= x->rank)
		x->size = s->world_size;
	if (x->done) {
		/* Reported vanished: the exit record may still come (the
		 * launcher's message is read after the process is gone). */
		if (x->t_vanished > 0 && (s->exit_flags & MW_SLOT_EXIT_VALID)) {
			x->t_vanished = 0;
			set_beat(a, x, &sn, MW_HB_S_EXITED, x->beat.idle_s);
		} else if (x->t_vanished > 0 && now - x->t_vanished > AG_LATE_EXIT_S) {
			x->t_vanished = 0;
		}
		return;
	}
	/* The one stall rule (shared/stall.c); it also keeps when the
	 * completions and the calls last moved, for the idle times told. */
	cls = mw_stall_rule(&x->rule, s, now, T - a->beat_tol);
	idle_c = now - x->rule.t_completion;
	idle_k = now - mw_stall_t_outside(&x->rule);
	finalized = s->state == MW_STATE_FINALIZED || strcmp(s->call.name, "MPI_Finalize") == 0;
	exited = (s->exit_flags & MW_SLOT_EXIT_VALID) != 0;

	if (exited || s->state == MW_STATE_EXITED) {
		int bad = !finalized || (exited && ((s->exit_flags & MW_SLOT_EXIT_SIGNALED) ||
						    s->exit_status != 0));
		x->done = 1;
		if (bad) {
			set_beat(a, x, &sn, MW_HB_S_EXITED, idle_c);
		} else if (x->beat_state) {
			set_beat(a, x, &sn, MW_HB_S_FINALIZED, 0);
		}
		return;
	}
	if (!pid_alive(s->pid)) {
		/* Gone without an exit record: give the plugin's task_exit a
		 * moment to record the status. */
		if (++x->gone_ticks < 3 && !a->last_look)
			return;
		x->done = 1;
		if (!finalized) {
			set_beat(a, x, &sn, MW_HB_S_VANISHED, idle_c);
			x->t_vanished = now;
		}
		else if (x->beat_state)
			set_beat(a, x, &sn, MW_HB_S_FINALIZED, 0);
		return;
	}
	x->gone_ticks = 0;
	if (s->state == MW_STATE_FINALIZED) {
		if (x->beat_state && x->beat_state != MW_HB_S_FINALIZED)
			set_beat(a, x, &sn, MW_HB_S_FINALIZED, 0);
		return;
	}
	if (s->state == MW_STATE_INIT)
		return;
	/* A rank the MPI library aborts inside a call (an argument error
	 * under MPI_ERRORS_ARE_FATAL) is gone long before it has been in that
	 * call for T: it is seen ending in it, not stuck in it. */
	if (cls == MW_STALL_STUCK || cls == MW_STALL_POLLING) {
		if (x->beat_state != MW_HB_S_IN_MPI)
			set_beat(a, x, &sn, MW_HB_S_IN_MPI, idle_c);
	} else if (cls == MW_STALL_SLOW) {
		if (x->beat_state != MW_HB_S_SLOW)
			set_beat(a, x, &sn, MW_HB_S_SLOW, idle_c);
	} else if (cls == MW_STALL_COMPUTING) {
		if (x->beat_state != MW_HB_S_COMPUTING)
			set_beat(a, x, &sn, MW_HB_S_COMPUTING, idle_k);
	} else if (x->beat_state == MW_HB_S_IN_MPI || x->beat_state == MW_HB_S_SLOW ||
		   x->beat_state == MW_HB_S_COMPUTING) {
		/* Progress again after a heartbeat; a dump written during this
		 * episode is not forwarded for the next one. */
		set_beat(a, x, &sn, MW_HB_S_RESUMED, 0);
		x->beat_state = 0;
		x->dumps_sent = s->dumps;
	}
	/* Forward a new dump while the rank is reported stuck. */
	if (x->beat_state == MW_HB_S_IN_MPI && s->dumps > x->dumps_sent && sn.resolved_ok &&
	    s->dump_path[0]) {
		char path[sizeof s->dump_path + 1], *json = NULL;
		snprintf(path, sizeof path, "%.*s", (int)sizeof s->dump_path, s->dump_path);
		if (read_dump(path, &json) == 0) {
			free(x->dump_json);
			x->dump_json = json;
			x->dump_unsent = !a->tree || x->dump_wanted; /* the tree: on demand */
			x->dumps_sent = s->dumps;
		} else {
			mw_log_limited(&dump_rl, LOG_WARNING,
				       "cannot read dump %s: %s", path, strerror(errno));
			x->dumps_sent = s->dumps; /* do not retry forever */
		}
	}
}

static void on_message(struct agent *a, struct mw_hb_msg *m)
{
	if (m->type == MW_HB_DUMPREQ) {
		for (size_t i = 0; i < m->u.dumpreq.n; i++) {
			struct ag_rank *x = find_rank(a, m->u.dumpreq.ranks[i]);
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
		ag_tree_role(&a->tree, a->o, &m->u.role, send_up, a);
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

static void tick(struct agent *a, double now)
{
	struct stat st;
	if (stat(a->o->rundir, &st) == 0 && S_ISDIR(st.st_mode)) {
		a->rundir_seen = 1;
		mw_slot_scan_dir(a->o->rundir, scan_cb, a);
	} else if (a->rundir_seen) {
		mw_info("run directory %s is gone: the job is over", a->o->rundir);
		a->stop = 1;
		return;
	} else if (now - a->started > a->o->rundir_wait_s) {
		mw_warn("run directory %s never appeared; leaving", a->o->rundir);
		a->stop = 1;
		return;
	}
	for (size_t i = 0; i < a->nr; i++)
		watch_rank(a, a->r[i], now);
}

void ag_opts_default(struct ag_opts *o)
{
	memset(o, 0, sizeof *o);
	o->nports = 5;
	{
		struct mw_jobconf jc; /* the table's default */
		if (mw_jobconf_init(&jc) == 0) {
			o->timeout_s = jc.timeout;
			o->liveness_s = jc.liveness;
			o->connect_timeout_s = jc.connect_timeout;
			o->handshake_timeout_s = jc.handshake_timeout;
			mw_jobconf_free(&jc);
		}
	}
	o->job_check_s = 60;
	o->backoff_max_s = 30;
	o->rundir_wait_s = 600;
}

int ag_run(const struct ag_opts *o)
{
	struct agent a = {0};
	double next_tick, next_job_check;
	int rv = -1;

	a.o = o;
	a.started = mono();
	/* Sequence numbers go on from the clock, so that an agent started
	 * again never reuses its predecessor's (4 a second until 2042). */
	a.seq = (uint32_t)((time(NULL) > 1700000000 ? time(NULL) - 1700000000 : 0) * 4);
	if ((a.sfd = mw_sigfd_open()) < 0) {
		mw_err("signalfd: %s", strerror(errno));
		return -1;
	}
	srand((unsigned)getpid() ^ (unsigned)time(NULL));
	a.ap = ag_ap_create(o->ap_conf, 0, o->node);
	double tick_s = o->tick_s > 0 ? o->tick_s : o->timeout_s / 4;
	if (tick_s < 0.1)
		tick_s = 0.1;
	if (tick_s > 0.5)
		tick_s = 0.5;
	/* Two beats T apart are T apart on the wall clock; on the monotonic
	 * clock that the rule uses they may differ by NTP's slew and the
	 * rounding of the two readings: a stall of T seen at the beat T after
	 * it is stuck, not one beat later. */
	a.beat_tol = tick_s / 100;
	mw_info("agent for job %s on %s: rundir %s, collector %s:%u, timeout %g s", o->job, o->node,
		o->rundir, o->host, o->port, o->timeout_s);
	mw_ready_notify(); /* started: whoever launched us may stop waiting */
	next_tick = mono();
	next_job_check = mono() + (o->job_check_s > 0 ? o->job_check_s : 1e18);
	while (!a.stop) {
		struct pollfd p[3 + 4097];
		int np = 1, tmo, apx = -1, lx = -1;
		size_t ncp = 0;
		double now = mono(), wake, cp_wake;

		if (!a.link && now >= a.next_connect)
			try_connect(&a);
		if (a.move) {
			a.move = 0;
			tree_move(&a);
		}
		if (now >= next_tick) {
			/* Judged at the beat, not at the moment this loop woke
			 * up: a late wake-up does not push a stall to the
			 * next beat. */
			tick(&a, now - next_tick < tick_s ? next_tick : now);
			next_tick = next_beat(mono(), tick_s);
		}
		if (a.link)
			for (size_t i = 0; i < a.nr && a.link; i++)
				flush_rank(&a, a.r[i]);
		if (a.link)
			ag_ap_flush(a.ap, send_ap, &a);
		if (now >= next_job_check) {
			if (mw_slurm_job_active(NULL, o->job) == 0) {
				mw_info("job %s is over; leaving", o->job);
				break;
			}
			next_job_check = now + o->job_check_s;
		}
		p[0].fd = a.sfd;
		p[0].events = POLLIN;
		if (a.link) {
			lx = np++;
			p[lx].fd = mw_link_fd(a.link);
			p[lx].events = POLLIN | (mw_link_pending(a.link) ? POLLOUT : 0);
		}
		if (ag_ap_fd(a.ap) >= 0) {
			apx = np++;
			p[apx].fd = ag_ap_fd(a.ap);
			p[apx].events = POLLIN;
		}
		wake = next_tick;
		if (!a.link && a.next_connect < wake)
			wake = a.next_connect;
		cp_wake = ag_tree_tick(a.tree, mono());
		if (cp_wake < wake)
			wake = cp_wake;
		/* A CP's listening socket and children after the link. */
		{
			int base = np;
			ncp = ag_tree_pollfds(a.tree, p + base, sizeof p / sizeof p[0] - (size_t)base);
			np += (int)ncp;
		}
		now = mono();
		tmo = wake > now ? (int)((wake - now) * 1000) + 1 : 0;
		if (poll(p, (nfds_t)np, tmo) < 0 && errno != EINTR) {
			mw_err("poll: %s", strerror(errno));
			break;
		}
		if (p[0].revents & POLLIN) {
			struct signalfd_siginfo si;
			while (read(a.sfd, &si, sizeof si) == sizeof si) {
				if (si.ssi_signo == SIGHUP)
					continue;
				mw_info("signal %u: stopping", si.ssi_signo);
				a.stop = 1;
			}
		}
		if (apx >= 0 && (p[apx].revents & (POLLIN | POLLHUP | POLLERR)))
			ag_ap_read(a.ap);
		if (ncp)
			ag_tree_serve(a.tree, p + (np - (int)ncp), ncp, mono());
		if (lx >= 0 && a.link && ((p[lx].revents & (POLLIN | POLLHUP | POLLERR)) || a.fresh)) {
			a.fresh = 0;
			for (;;) {
				struct mw_hb_msg m;
				enum mw_hb_err e = MW_HB_OK;
				int rc = mw_link_recv(a.link, &m, &e);
				if (rc == 1) {
					on_message(&a, &m);
					mw_hb_msg_free(&m);
					continue;
				}
				if (rc == -1)
					link_drop(&a, errno ? strerror(errno) : "closed");
				else if (rc == -2)
					link_drop(&a, mw_hb_err_name(e));
				break;
			}
		}
		if (lx >= 0 && a.link && (p[lx].revents & POLLOUT) && mw_link_flush(a.link) < 0)
			link_drop(&a, strerror(errno));
	}
	/* A last look at the slots (ranks that just ended), then say goodbye
	 * so the collector does not take our leaving for a failure. */
	a.last_look = 1;
	if (a.rundir_seen)
		tick(&a, mono());
	if (a.link) {
		struct mw_hb_msg m = {0};
		double end = mono() + 1.0;
		for (size_t i = 0; i < a.nr; i++)
			flush_rank(&a, a.r[i]);
		if (a.link)
			ag_ap_flush(a.ap, send_ap, &a);
		m.type = MW_HB_BYE;
		snprintf(m.u.bye.reason, sizeof m.u.bye.reason, "agent stopping");
		if (a.link && mw_link_send(a.link, &m) == 0)
			while (a.link && mw_link_pending(a.link) && mono() < end) {
				struct pollfd pf = {mw_link_fd(a.link), POLLOUT, 0};
				poll(&pf, 1, 100);
				if (mw_link_flush(a.link) < 0)
					break;
			}
	}
	mw_info("agent stopping: %lu heartbeats sent, %lu connections, %lu failed connection attempts",
		a.beats_sent, a.connects, a.connect_failures);
	ag_tree_free(a.tree);
	rv = 0;
	mw_link_close(a.link);
	ag_ap_destroy(a.ap);
	for (size_t i = 0; i < a.nr; i++) {
		if (a.r[i]->slot)
			mw_slot_unmap(a.r[i]->slot);
		free(a.r[i]->dump_json);
		free(a.r[i]);
	}
	free(a.r);
	close(a.sfd);
	return rv;
}
