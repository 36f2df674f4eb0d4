/* collinks.c - the collector's links (collinks.h): the agents' (and CPs')
 * TCP connections, accepted, authenticated (doc/protocol.md "Handshake":
 * the MUNGE work off the loop in authq), read frame by frame into the
 * evaluation (coleval.h) and the tree (coltree.h), and what is sent down
 * them: dump requests, auxiliary-process requests, the tree's frames.
 */
#include "collinks.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colap.h"
#include "auth.h"
#include "authq.h"
#include "coleval.h"
#include "coltree.h"
#include "log.h"
#include "mw_link.h"
#include "settings.h"

#define COL_MAX_CLIENTS 4096
/* Before its HELLO is welcomed a connection holds little (frames of at
 * most MW_HB_PREAUTH_MAX bytes), has MW_LINK_HELLO_DEADLINE_S seconds, and
 * is one of a few from its address (mw_link_preauth_victim). */
#define COL_HELLO_TIMEOUT MW_LINK_HELLO_DEADLINE_S

static struct mw_ratelimit peer_rl = MW_RATELIMIT_INIT(1, 10);

void col_links_dumpreq(struct collector *c)
{
	for (size_t k = 0; k < c->nc; k++) {
		struct col_client *cl = &c->c[k];
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

/* Auxiliary processes (colap.h): at a suspicious event, ask the agents of
 * every node of the job (or of the suspicious ranks' nodes only, as the
 * site says) to run the site's commands.  In the tree, one APREQ per
 * direct link: a CP sends it on down the subtrees that hold the nodes it
 * names (all of them when it names none: every node).  Nothing waits for
 * them. */
void col_links_apreq(struct collector *c, const char *reason)
{
	struct col_state *s = &c->s;
	uint32_t round = col_ap_round_begin(s->ap, reason, col_now(c));
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

int col_links_linked(const struct collector *c)
{
	for (size_t k = 0; k < c->nc; k++)
		if (c->c[k].hello && !c->c[k].closing)
			return 1;
	return 0;
}

void col_links_close(struct collector *c, size_t k, const char *why)
{
	struct col_client *cl = &c->c[k];
	if (cl->hello && cl->node >= 0) {
		if (c->tprobe_round && col_tree_probe_lost(c->tree, cl->node))
			col_eval_schedule(c, 0); /* the last CP asked: its subtree is ours to probe */
		if (col_tree_in_tree(c->tree, cl->node))
			c->status_dirty = 1; /* moved into the tree: served by a CP now */
		else
			col_eval_agent_lost(c, cl->node, why);
	}
	if (c->link_closing)
		c->link_closing(c, cl);
	mw_link_close(cl->l);
	free(cl->hello_wait);
	c->c[k] = c->c[--c->nc];
}

int col_links_send_to_node(void *arg, int node, const struct mw_hb_msg *m)
{
	struct collector *c = arg;
	for (size_t k = 0; k < c->nc; k++)
		if (c->c[k].hello && !c->c[k].closing && c->c[k].node == node)
			return mw_link_send(c->c[k].l, m) < 0 ? -1 : 0;
	return -1;
}

static void tree_roles(struct collector *c)
{
	col_tree_roles(c->tree, &c->s, col_links_send_to_node, c);
}

/* A HELLO whose credential was checked: auth_error is NULL or "" if it
 * passed (or the check is off), else why not. */
static void on_hello(struct collector *c, struct col_client *cl, const struct mw_hb_hello *h,
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

/* col_tree_beat_fn: a heartbeat out of an aggregate. */
static void agg_beat(void *arg, int node, const struct mw_hb_beat *b)
{
	col_eval_beat(arg, node, b);
}

/* Queue an authq job for cl.  Return 0, or -1 (out of memory, no worker). */
static int authq_job(struct collector *c, struct col_client *cl, enum col_authq_kind kind, const char *payload,
		     const char *cred)
{
	struct col_authq_job *j = calloc(1, sizeof *j);
	if (!j)
		return -1;
	j->kind = kind;
	j->id = cl->id;
	snprintf(j->payload, sizeof j->payload, "%s", payload);
	snprintf(j->cred, sizeof j->cred, "%s", cred ? cred : "");
	if (col_authq_submit(c->aq, j) < 0) {
		free(j);
		return -1;
	}
	return 0;
}

/* A frame before the welcome: VERIFY, then HELLO, nothing else (doc/protocol.md
 * "Handshake").  Return -1 to close the client. */
static int on_handshake(struct collector *c, struct col_client *cl, struct mw_hb_msg *m)
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

/* The authq's finished jobs: send the challenge, or welcome or refuse the
 * HELLO, then read what the client sent meanwhile. */
void col_links_authq_finished(struct collector *c)
{
	struct col_authq_job *j;
	while ((j = col_authq_done(c->aq))) {
		size_t k;
		struct col_client *cl;
		for (k = 0; k < c->nc && c->c[k].id != j->id; k++)
			;
		if (k == c->nc) { /* gone meanwhile */
			free(j);
			continue;
		}
		cl = &c->c[k];
		if (j->kind == COL_AQ_PROVE && cl->au == AU_PROVING) {
			struct mw_hb_msg ch;
			if (j->rc < 0) {
				mw_log_limited(&peer_rl, LOG_ERR, "cannot prove this collector to %s: %s",
					       mw_link_peer(cl->l), j->err);
				free(j);
				col_links_close(c, k, "no proof");
				continue;
			}
			mw_hb_challenge_make(&ch, cl->nonce, c->s.job, j->cred);
			cl->au = AU_HELLO;
			mw_link_send(cl->l, &ch);
		} else if (j->kind == COL_AQ_CHECK && cl->au == AU_CHECKING && cl->hello_wait) {
			struct mw_hb_hello *h = cl->hello_wait;
			cl->hello_wait = NULL;
			on_hello(c, cl, h, j->rc < 0 ? j->err : NULL);
			free(h);
		}
		free(j);
		col_links_serve(c, k, POLLIN); /* frames already buffered (or it was refused: closing) */
	}
}

/* Handle one frame.  Return -1 to close the client. */
static int on_frame(struct collector *c, struct col_client *cl, struct mw_hb_msg *m)
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
		if (col_eval_rank_info(c, node, m->u.rank.rank, m->u.rank.size) == 0 && m->u.rank.pid > 0)
			c->s.ranks[m->u.rank.rank].pid = m->u.rank.pid;
		return 0;
	}
	case MW_HB_HEARTBEAT:
		if (col_tree_direct_beat(c->tree, &c->s, cl->node, &m->u.beat))
			col_eval_beat(c, cl->node, &m->u.beat);
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
			col_eval_agent_lost(c, lost, why);
		}
		tree_roles(c);
		return 0;
	}
	case MW_HB_PROBESUM:
		/* Counted only from a CP asked, on its direct authenticated
		 * link, about its own subtree (col_tree_probesum). */
		c->s.st.probe_summaries++;
		if (c->tprobe_round && col_tree_probesum(c->tree, &c->s, cl->node, m->u.probesum.json) == 1)
			col_eval_schedule(c, 0);
		return 0;
	case MW_HB_DUMP:
		col_eval_dump(c, m);
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

void col_links_serve(struct collector *c, size_t k, short revents)
{
	struct col_client *cl = &c->c[k];
	if (revents & POLLOUT) {
		if (mw_link_flush(cl->l) < 0) {
			col_links_close(c, k, strerror(errno));
			return;
		}
	}
	if ((revents & (POLLHUP | POLLERR)) && (cl->au == AU_PROVING || cl->au == AU_CHECKING)) {
		col_links_close(c, k, "closed during the handshake");
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
				col_links_close(c, k, errno ? strerror(errno) : "closed");
				return;
			}
			if (rc == -2) {
				c->s.st.malformed++;
				mw_log_limited(&peer_rl, LOG_WARNING,
					       "malformed frame from %s: %s", mw_link_peer(cl->l),
					       mw_hb_err_name(e));
				col_links_close(c, k, mw_hb_err_name(e));
				return;
			}
			rc = on_frame(c, cl, &m);
			mw_hb_msg_free(&m);
			if (rc < 0) {
				col_links_close(c, k, "bye");
				return;
			}
			/* Refused (closing): nothing after it is read or decoded.
			 * Waiting for authq: the rest stays buffered until then. */
			if (cl->closing || cl->au == AU_PROVING || cl->au == AU_CHECKING)
				break;
		}
	}
	if (cl->closing && !mw_link_pending(cl->l)) {
		col_links_close(c, k, "closing");
	}
}

static void client_conn(void *arg, size_t k, const char **src, int *authed, int *stage, double *t_conn)
{
	const struct col_client *x = &((const struct collector *)arg)->c[k];
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
		col_links_close(c, (size_t)v, "too many connections without a hello");
	}
}

void col_links_accept(struct collector *c)
{
	for (;;) {
		struct mw_link *l = mw_link_accept(c->lfd);
		struct col_client *p;
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
		if (mw_link_set_liveness_watch(l, mw_setting_double(MW_SET_LIVENESS)) < 0)
			mw_log_limited(&peer_rl, LOG_WARNING, "link liveness %g s: %s",
				       mw_setting_double(MW_SET_LIVENESS), strerror(errno));
		memset(&p[c->nc], 0, sizeof p[c->nc]);
		p[c->nc].l = l;
		p[c->nc].node = -1;
		p[c->nc].t_conn = col_now(c);
		p[c->nc].id = ++c->next_id;
		p[c->nc].au = AU_VERIFY; /* the agent speaks first: its nonce */
		snprintf(p[c->nc].src, sizeof p[c->nc].src, "%s", src);
		mw_link_set_max_payload(l, MW_HB_PREAUTH_MAX);
		c->nc++;
		c->s.st.connections++;
	}
}


void col_links_expire(struct collector *c)
{
	double now = col_now(c);
	for (size_t k = c->nc; k-- > 0;)
		if (!c->c[k].hello && now - c->c[k].t_conn > COL_HELLO_TIMEOUT)
			col_links_close(c, k, "no hello");
}
