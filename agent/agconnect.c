/* agconnect.c - the node agent attaching to its parent (agstate.h): the
 * collector's ports (with backoff and a clear link error when it lasts), or
 * in the tree its parent CP and then the next ancestors, each through the
 * two-way handshake of doc/protocol.md.
 */
#include "agstate.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agtree.h"
#include "auth.h"
#include "fsutil.h"
#include "log.h"
#include "slurm.h"
#include "uvslurm.h"

/* Failed connection rounds before a link error is told (log + report). */
#define AG_LINK_ERROR_TRIES 3

static struct mw_ratelimit auth_rl = MW_RATELIMIT_INIT(0.1, 2);

static double mono(void)
{
	return mw_now();
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

/* Slurm's answer about the collector's host (rc 0: *sn, else err): the
 * link error, and Slurm's NodeAddr as the target when it differs. */
static void addr_told(struct agent *a, int rc, const struct mw_slurm_node *sn, const char *err)
{
	if (rc < 0) {
		link_error(a, "the collector's host %s does not resolve on node %s, and Slurm gives no "
			      "address for it (%s): check /etc/hosts or DNS (short name vs FQDN vs NodeAddr)",
			   a->o->host, a->o->node, err);
		return;
	}
	if (!sn->addr[0] || !strcmp(sn->addr, a->o->host)) {
		link_error(a, "the collector's host %s does not resolve on node %s, and Slurm's NodeAddr "
			      "for it is the same name: check /etc/hosts or DNS (short name vs FQDN)",
			   a->o->host, a->o->node);
		return;
	}
	link_error(a, "the collector's host %s does not resolve on node %s (short name vs FQDN vs "
		      "NodeAddr): using Slurm's NodeAddr %s", a->o->host, a->o->node, sn->addr);
	snprintf(a->target, sizeof a->target, "%s", sn->addr);
}

/* sinfo's answer (on the loop): told, then the connection try again at
 * once, with Slurm's NodeAddr if it gave one. */
static void addr_answer(void *arg, long rc, const char *err)
{
	struct agent *a = arg;
	a->addrcall = NULL;
	if (a->closing || a->stop)
		return;
	addr_told(a, (int)rc, &a->addr_node, err);
	if (!a->link)
		ag_connect_try(a);
}

/* The collector's host name does not resolve here: Slurm's NodeAddr for
 * it, once, if it differs (a NodeName that is not a host name), asked
 * through uvslurm.h (sinfo never blocks the loop).  Return 1 if asked
 * (the try goes on in addr_answer), 0 if sinfo could not be started
 * (told). */
static int ask_node_addr(struct agent *a)
{
	char err[256];
	a->addr_tried = 1;
	a->addrcall = mw_uvslurm_node(a->loop, NULL, a->o->host, &a->addr_node, addr_answer, a, err, sizeof err);
	if (a->addrcall)
		return 1;
	addr_told(a, -1, NULL, err);
	return 0;
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

void ag_connect_try(struct agent *a)
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
			ag_link_up(a, l);
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
			if (ask_node_addr(a))
				return; /* tried again with Slurm's answer (addr_answer) */
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
			ag_link_up(a, l);
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

/* Leaving the collector with a goodbye so that it does not take the move
 * for a lost agent. */
void ag_connect_move(struct agent *a)
{
	char host[256], why[300];
	uint16_t port;
	int stage;
	while (ag_tree_target(a->tree, host, sizeof host, &port)) {
		struct mw_link *l = handshake(a, host, port, 1.0, &stage, why, sizeof why);
		if (l) {
			char reason[128]; /* a BYE's reason */
			snprintf(reason, sizeof reason, "moved into the tree: %s", ag_tree_parent_name(a->tree));
			ag_link_leave(a, reason);
			mw_info("attached to %s at %s:%u", ag_tree_parent_name(a->tree), host, port);
			ag_link_up(a, l);
			return;
		}
		mw_warn("cannot attach to %s at %s:%u (%s): trying the next one up", ag_tree_parent_name(a->tree),
			host, port, stage == HS_CONNECT ? mw_link_connect_hint(errno) : why);
		ag_tree_lost_parent(a->tree);
	}
	mw_warn("tree: no CP answered: staying on the collector");
}
