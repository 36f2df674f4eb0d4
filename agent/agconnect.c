/* agconnect.c - the node agent attaching to its parent (agstate.h): the
 * collector's ports (with backoff and a clear link error when it lasts), or
 * in the tree its parent CP and then the next ancestors, each through the
 * two-way handshake of doc/protocol.md.  A try is a cursor over those
 * candidates (a->try_*), one handshake at a time on the loop (aghs.h): the
 * loop never waits for a connect, an answer or a credential.
 */
#include "agstate.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aghs.h"
#include "agtree.h"
#include "fsutil.h"
#include "log.h"
#include "slurm.h"
#include "uvslurm.h"
#include "settings.h"

/* Failed connection rounds before a link error is told (log + report). */
#define AG_LINK_ERROR_TRIES 3

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
	const char *outdir = mw_setting_str(MW_SET_DIR); /* the report folder ("" = none) */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!strcmp(msg, a->last_error))
		return;
	snprintf(a->last_error, sizeof a->last_error, "%s", msg);
	mw_err("%s", msg);
	if (outdir[0] && mw_link_error_path(path, sizeof path, outdir, a->o->node) == 0) {
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

/* What a try goes through (a->try_phase). */
enum { AG_TRY_NONE, AG_TRY_TREE, AG_TRY_PORTS, AG_TRY_MOVE };

static void go_on(struct agent *a);

int ag_connect_busy(const struct agent *a)
{
	return a->try_phase != AG_TRY_NONE;
}

int ag_connect_moving(const struct agent *a)
{
	return a->try_phase == AG_TRY_MOVE;
}

void ag_connect_stop(struct agent *a)
{
	ag_hs_stop(a->hs);
	a->hs = NULL;
	a->try_phase = AG_TRY_NONE;
}

/* The round failed on every port: the backoff, and the error told when
 * it lasts. */
static void round_failed(struct agent *a)
{
	const struct ag_opts *o = a->o;
	unsigned nports = (unsigned)mw_setting_long(MW_SET_PORTS);
	int last = a->try_last;
	char *why = a->try_why;
	a->try_phase = AG_TRY_NONE;
	a->connect_failures++;
	a->backoff = a->backoff <= 0 ? 0.5 : a->backoff * 2;
	if (a->backoff > o->backoff_max_s)
		a->backoff = o->backoff_max_s;
	/* Jitter: +-20 %, so that many agents do not retry in lockstep. */
	a->next_connect = mono() + a->backoff * (0.8 + 0.4 * ((double)(rand() % 1000) / 1000.0));
	if (!why[0] && last)
		snprintf(why, sizeof a->try_why, "%s", mw_link_connect_hint(last));
	if (a->stop)
		return;
	/* The collector may simply not listen yet (the job starts on every
	 * node at once): an error only when it lasts (3 tries, 3.5 s of
	 * backoff), or at once for a name that does not resolve. */
	if (a->connect_failures < AG_LINK_ERROR_TRIES && last != ENOENT) {
		mw_info("the collector at %s:%u-%u does not answer yet (%s); retrying in %.1f s", a->target,
			o->port, o->port + nports - 1, why[0] ? why : "?", a->backoff);
		return;
	}
	link_error(a, "cannot reach the collector of job %s at %s:%u-%u from node %s: %s", o->job,
		   a->target, o->port, o->port + nports - 1, o->node, why[0] ? why : "?");
	if (a->connect_failures % 10 == 0) /* the first one: link_error above */
		mw_warn("cannot reach the collector at %s:%u-%u (%lu tries): %s; retrying in %.1f s", a->target,
			o->port, o->port + nports - 1, a->connect_failures, why[0] ? why : "?", a->backoff);
}

/* A CP candidate's end (the tree or a move): attached, or on to the next
 * ancestor.  Return 1 if the try is over. */
static int cp_end(struct agent *a, struct mw_link *l, int stage, int err, const char *why)
{
	if (l) {
		if (a->try_phase == AG_TRY_MOVE) {
			char reason[128]; /* a BYE's reason */
			snprintf(reason, sizeof reason, "moved into the tree: %s", ag_tree_parent_name(a->tree));
			/* Leaving the collector with a goodbye so that it does not
			 * take the move for a lost agent. */
			ag_link_leave(a, reason);
			mw_info("attached to %s at %s:%u", ag_tree_parent_name(a->tree), a->try_host, a->try_tport);
		} else
			mw_info("attached to %s at %s:%u (liveness %g s)", ag_tree_parent_name(a->tree), a->try_host,
				a->try_tport, mw_setting_double(MW_SET_LIVENESS));
		a->try_phase = AG_TRY_NONE;
		ag_link_up(a, l);
		return 1;
	}
	mw_warn("cannot attach to %s at %s:%u (%s): trying the next one up", ag_tree_parent_name(a->tree),
		a->try_host, a->try_tport, stage == AG_HS_CONNECT ? mw_link_connect_hint(err) : why);
	ag_tree_lost_parent(a->tree);
	return 0;
}

/* A port of the collector tried: attached, or the next port, or the round
 * over.  Return 1 if the try is over (or waits for Slurm's NodeAddr). */
static int port_end(struct agent *a, struct mw_link *l, int stage, int err, const char *why)
{
	const struct ag_opts *o = a->o;
	uint16_t port = a->try_tport;
	if (l) {
		a->try_phase = AG_TRY_NONE;
		if (a->last_error[0]) {
			mw_info("connected to the collector at %s:%u after %lu failed tries (liveness %g s)", a->target,
				port, a->connect_failures, mw_setting_double(MW_SET_LIVENESS));
			link_error(a, "%.250s; then connected after %lu failed tries", a->last_error,
				   a->connect_failures);
			a->last_error[0] = 0;
		} else
			mw_info("connected to the collector at %s:%u (liveness %g s)", a->target, port,
				mw_setting_double(MW_SET_LIVENESS));
		ag_link_up(a, l);
		return 1;
	}
	a->try_port++;
	if (stage == AG_HS_CONNECT) {
		if (err == ENOENT && !a->addr_tried) {
			a->try_phase = AG_TRY_NONE;
			if (ask_node_addr(a))
				return 1; /* tried again with Slurm's answer (addr_answer) */
			a->try_phase = AG_TRY_PORTS;
		}
		a->try_last = err;
		if (err == ENOENT || err == ETIMEDOUT || err == EHOSTUNREACH || err == ENETUNREACH) {
			round_failed(a); /* the host, not the port: the other ports fare no better */
			return 1;
		}
	} else if (stage == AG_HS_REFUSED) {
		link_error(a, "the collector at %s:%u refused the agent of node %s: %s", a->target, port, o->node,
			   why);
		snprintf(a->try_why, sizeof a->try_why, "refused: %.250s", why);
	} else
		snprintf(a->try_why, sizeof a->try_why, "%s", why);
	return 0;
}

/* The candidate's end (a handshake's, or one that could not begin). */
static int candidate_end(struct agent *a, struct mw_link *l, int stage, int err, const char *why)
{
	if (a->try_phase == AG_TRY_PORTS)
		return port_end(a, l, stage, err, why);
	return cp_end(a, l, stage, err, why);
}

static void hs_done(void *arg, struct mw_link *l, int stage, int err, const char *why)
{
	struct agent *a = arg;
	a->hs = NULL;
	if (!candidate_end(a, l, stage, err, why))
		go_on(a);
}

/* The next candidate of the try under way into a->try_host/try_tport
 * with its connect bound: 1, or 0 when there is none left (the try's end
 * done: staying on the collector, or the round failed). */
static int next_candidate(struct agent *a, double *connect_s)
{
	const struct ag_opts *o = a->o;
	if (a->try_phase == AG_TRY_TREE || a->try_phase == AG_TRY_MOVE) {
		/* In the tree: the parent, else the next ancestor, at once. */
		if (ag_tree_target(a->tree, a->try_host, sizeof a->try_host, &a->try_tport)) {
			*connect_s = 1.0;
			return 1;
		}
		if (a->try_phase == AG_TRY_MOVE) {
			a->try_phase = AG_TRY_NONE;
			mw_warn("tree: no CP answered: staying on the collector");
			return 0;
		}
		/* Then the collector's ports. */
		a->try_phase = AG_TRY_PORTS;
		a->try_port = 0;
		a->try_last = 0;
		a->try_why[0] = 0;
		if (!a->target[0])
			snprintf(a->target, sizeof a->target, "%s", o->host);
	}
	if (a->try_port < mw_setting_long(MW_SET_PORTS)) {
		snprintf(a->try_host, sizeof a->try_host, "%s", a->target);
		a->try_tport = (uint16_t)(o->port + a->try_port);
		*connect_s = mw_setting_double(MW_SET_CONNECT_TIMEOUT);
		return 1;
	}
	round_failed(a);
	return 0;
}

/* Begin the next candidate's handshake; those that cannot begin are
 * taken as failed at once, until one is under way or the try is over. */
static void go_on(struct agent *a)
{
	const struct ag_opts *o = a->o;
	double connect_s;
	while (a->try_phase != AG_TRY_NONE) {
		struct ag_hs_params p = {o->job, o->node, mw_setting_str(MW_SET_MUNGE_SOCKET), o->auth_token,
					 (int32_t)a->nr, 0, mw_setting_double(MW_SET_HANDSHAKE_TIMEOUT),
					 mw_setting_double(MW_SET_LIVENESS)};
		if (a->stop || a->closing) {
			a->try_phase = AG_TRY_NONE;
			return;
		}
		if (!next_candidate(a, &connect_s))
			return;
		p.connect_s = connect_s;
		a->hs = ag_hs_start(a->loop, &p, a->try_host, a->try_tport, hs_done, a);
		if (a->hs)
			return;
		if (candidate_end(a, NULL, AG_HS_CONNECT, errno, ""))
			return;
	}
}

void ag_connect_try(struct agent *a)
{
	if (ag_connect_busy(a) || a->stop)
		return;
	a->try_phase = AG_TRY_TREE;
	go_on(a);
}

void ag_connect_move(struct agent *a)
{
	if (ag_connect_busy(a) || a->stop)
		return;
	a->try_phase = AG_TRY_MOVE;
	go_on(a);
}
