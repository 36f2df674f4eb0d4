/* mwt_cp.c - the communication process role (mwt_cp.h, doc/tree.md). */
#include "mwt_cp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "auth.h"
#include "log.h"
#include "mw_link.h"
#include "mwt_agg.h"
#include "mwt_probe.h"
#include "probe.h"

#define CP_MAX_CHILDREN 4096
#define CP_HELLO_TIMEOUT MW_LINK_HELLO_DEADLINE_S /* as the collector's */
#define CP_WINDOW_LEVELS 16 /* the gathering window counts at most this many levels below */

static struct mw_ratelimit cp_rl = MW_RATELIMIT_INIT(1, 10);

struct child {
	struct mw_link *l;
	char node[MW_HB_STR_MAX + 1];
	char nonce[MW_HB_NONCE_LEN + 1];
	char src[64];       /* the peer's address, without the port */
	int verified;       /* its VERIFY answered with our challenge */
	int hello;
	double t_conn;
	char (*desc)[MW_HB_STR_MAX + 1]; /* nodes below it, from the CHILD frames it sent up */
	size_t ndesc;
	unsigned char *ddep; /* each desc's depth below it (1: a child of its own) */
	unsigned levels;     /* CP levels at and below it: its deepest desc's depth (0: a BE) */
	int is_cp;          /* it has children of its own (a CHILD naming it, an AGG from it) */
	uint32_t asked;     /* the probe round it was asked to probe (0 none) */
	int delivered;      /* ... and its summary came */
};

/* A child lost without a goodbye: the prime suspect, probed in the next
 * rounds too (until it attaches here again). */
struct lostrec {
	char node[MW_HB_STR_MAX + 1];
	char host[64];
};

struct rankrec {
	struct mw_hb_rank r;
};

struct mwt_cp {
	struct mwt_cp_opts o;
	char job[32], node[MW_HB_STR_MAX + 1], munge[512], token[128];
	mwt_cp_up_fn up;
	void *arg;
	int lfd;
	struct child *c;
	size_t nc;
	struct mwt_agg *pending; /* not sent up yet */
	struct mwt_agg *all;     /* everything counted: sent again after a re-attachment */
	struct mwt_seq *seen;    /* events counted into pending/all */
	struct mwt_seq *allseen; /* events merged into all */
	double flush_at;         /* 0: nothing pending */
	struct rankrec *ranks;   /* RANK frames of the children, to send again */
	size_t nranks, capranks;
	unsigned long aggs, events;
	struct mwt_psum *psum;   /* the probe round under way, NULL none */
	struct lostrec *lost;    /* children lost without a goodbye */
	size_t nlost;
	double probe_due;        /* when its summary goes up at the latest */
	unsigned long probe_rounds, probed;
	/* Our own probe of the child nodes, under way in the agent's loop
	 * (mw_probe_round_*): NULL none.  Its nodes, addresses and results
	 * live until it is over (probe_round_poll). */
	struct mw_probe_round *pround;
	const char **pnames, **paddrs;
	char (*phosts)[64];
	char (*pnodes)[MW_HB_STR_MAX + 1]; /* the names pnames point to (children may come and go) */
	struct mw_probe_result *pout;
	size_t pn;
	double pdue;             /* probe_due once our own results are in */
	/* Auxiliary output from the children that could not go up (no parent
	 * link: ours was lost and we are attaching again), sent after the
	 * re-attachment (mwt_cp_uplink); CP_APOUT_KEEP at most. */
	struct mw_hb_msg *apq;
	size_t napq;
};

#define CP_APOUT_KEEP 64

static void probe_check_done(struct mwt_cp *cp);
static void peer_host(const char *peer, char *buf, size_t len);

/* Keep an APOUT that could not go up (a copy: its output is the caller's). */
static void apout_keep(struct mwt_cp *cp, const struct mw_hb_msg *m)
{
	struct mw_hb_msg *q;
	char *out = NULL;
	if (cp->napq >= CP_APOUT_KEEP || !(q = realloc(cp->apq, (cp->napq + 1) * sizeof *q)) ||
	    (m->u.apout.output && !(out = strdup(m->u.apout.output)))) {
		mw_log_limited(&cp_rl, LOG_WARNING, "tree: auxiliary output of %s while no parent link: "
			       "more than %d kept, dropped", m->u.apout.node, CP_APOUT_KEEP);
		return;
	}
	cp->apq = q;
	q[cp->napq] = *m;
	q[cp->napq++].u.apout.output = out;
}

/* Send the kept APOUTs up, in order; those that still cannot go stay. */
static void apout_flush(struct mwt_cp *cp)
{
	size_t sent = 0;
	if (!cp->napq)
		return;
	while (sent < cp->napq && cp->up(cp->arg, &cp->apq[sent]) == 0)
		free(cp->apq[sent++].u.apout.output);
	memmove(cp->apq, cp->apq + sent, (cp->napq - sent) * sizeof *cp->apq);
	cp->napq -= sent;
}

/* Our own probe round given up (or over) and its buffers freed. */
static void probe_round_free(struct mwt_cp *cp)
{
	if (cp->pround)
		mw_probe_round_finish(cp->pround);
	cp->pround = NULL;
	free(cp->pnames);
	free(cp->paddrs);
	free(cp->phosts);
	free(cp->pnodes);
	free(cp->pout);
	cp->pnames = cp->paddrs = NULL;
	cp->phosts = NULL;
	cp->pnodes = NULL;
	cp->pout = NULL;
	cp->pn = 0;
}

/* Step our own probe round; when it is over, its results go into the
 * round's summary, which may then go up (probe_check_done). */
static void probe_round_poll(struct mwt_cp *cp)
{
	int rc;
	if (!cp->pround || (rc = mw_probe_round_step(cp->pround)) == 0)
		return;
	if (mw_probe_round_finish(cp->pround) < 0)
		mw_warn("tree: probe round %u: %s", cp->psum ? mwt_psum_round(cp->psum) : 0, strerror(errno));
	cp->pround = NULL;
	for (size_t i = 0; cp->psum && i < cp->pn; i++)
		if (mwt_psum_add(cp->psum, cp->pnames[i], cp->node, &cp->pout[i]) < 0)
			mw_warn("tree: probe round %u: result of %s: %s", mwt_psum_round(cp->psum), cp->pnames[i],
				strerror(errno));
	cp->probed += cp->pn;
	probe_round_free(cp);
	cp->probe_due = cp->pdue;
	probe_check_done(cp);
}

static void lost_forget(struct mwt_cp *cp, const char *node)
{
	for (size_t i = cp->nlost; i-- > 0;)
		if (strcmp(cp->lost[i].node, node) == 0)
			cp->lost[i] = cp->lost[--cp->nlost];
}

static void lost_keep(struct mwt_cp *cp, const struct child *ch)
{
	struct lostrec *p;
	lost_forget(cp, ch->node);
	if (cp->nlost >= CP_MAX_CHILDREN || !(p = realloc(cp->lost, (cp->nlost + 1) * sizeof *p)))
		return;
	cp->lost = p;
	p = &cp->lost[cp->nlost++];
	snprintf(p->node, sizeof p->node, "%s", ch->node);
	peer_host(mw_link_peer(ch->l), p->host, sizeof p->host);
}

static void child_close(struct mwt_cp *cp, size_t k, int bye, const char *why)
{
	struct child *ch = &cp->c[k];
	if (ch->hello) {
		struct mw_hb_msg m = {0};
		m.type = MW_HB_CHILD;
		snprintf(m.u.child.node, sizeof m.u.child.node, "%s", ch->node);
		snprintf(m.u.child.parent, sizeof m.u.child.parent, "%s", cp->node);
		m.u.child.up = 0;
		m.u.child.bye = bye;
		if (!bye) {
			mw_warn("tree: lost child %s (%s)", ch->node, why);
			lost_keep(cp, ch);
		}
		else
			mw_info("tree: child %s left (%s)", ch->node, why);
		cp->up(cp->arg, &m);
	}
	if (cp->psum && ch->asked == mwt_psum_round(cp->psum) && !ch->delivered) {
		mwt_psum_missing(cp->psum, ch->node);
		ch->asked = 0;
	}
	mw_link_close(ch->l);
	free(ch->desc);
	free(ch->ddep);
	cp->c[k] = cp->c[--cp->nc];
	probe_check_done(cp);
}

struct mwt_cp *mwt_cp_create(const struct mwt_cp_opts *o, mwt_cp_up_fn up, void *arg, uint16_t *port)
{
	struct mwt_cp *cp = calloc(1, sizeof *cp);
	struct sockaddr_in sa;
	socklen_t sl = sizeof sa;
	uint16_t dummy;
	if (!cp)
		return NULL;
	cp->lfd = -1;
	snprintf(cp->job, sizeof cp->job, "%s", o->job);
	snprintf(cp->node, sizeof cp->node, "%s", o->node);
	snprintf(cp->munge, sizeof cp->munge, "%s", o->munge_socket ? o->munge_socket : "");
	snprintf(cp->token, sizeof cp->token, "%s", o->auth_token ? o->auth_token : "");
	cp->o = *o;
	cp->o.job = cp->job;
	cp->o.node = cp->node;
	if (cp->o.flush_s <= 0)
		cp->o.flush_s = 0.05;
	cp->up = up;
	cp->arg = arg;
	cp->pending = mwt_agg_create(cp->node);
	cp->all = mwt_agg_create(cp->node);
	cp->seen = mwt_seq_create();
	cp->allseen = mwt_seq_create();
	if (!cp->pending || !cp->all || !cp->seen || !cp->allseen)
		goto fail;
	/* An ephemeral port: the collector learns it (LISTEN) and tells the children. */
	cp->lfd = mw_link_listen(0, 1, &dummy);
	if (cp->lfd < 0 || getsockname(cp->lfd, (struct sockaddr *)&sa, &sl) < 0) {
		mw_err("tree: cannot listen for children: %s", strerror(errno));
		goto fail;
	}
	*port = ntohs(sa.sin_port);
	mw_info("tree: communication process on %s listening on port %u", cp->node, *port);
	return cp;
fail:
	mwt_cp_destroy(cp);
	return NULL;
}

void mwt_cp_destroy(struct mwt_cp *cp)
{
	if (!cp)
		return;
	for (size_t k = 0; k < cp->nc; k++) {
		mw_link_close(cp->c[k].l);
		free(cp->c[k].desc);
		free(cp->c[k].ddep);
	}
	free(cp->c);
	if (cp->lfd >= 0)
		close(cp->lfd);
	mwt_agg_destroy(cp->pending);
	mwt_agg_destroy(cp->all);
	mwt_seq_destroy(cp->seen);
	mwt_seq_destroy(cp->allseen);
	mwt_psum_destroy(cp->psum);
	probe_round_free(cp);
	for (size_t i = 0; i < cp->napq; i++)
		free(cp->apq[i].u.apout.output);
	free(cp->apq);
	free(cp->lost);
	free(cp->ranks);
	free(cp);
}

size_t mwt_cp_pollfds(struct mwt_cp *cp, struct pollfd *p, size_t max)
{
	size_t n = 0;
	if (max < 1)
		return 0;
	p[n].fd = cp->lfd;
	p[n].events = POLLIN;
	p[n++].revents = 0;
	for (size_t k = 0; k < cp->nc && n < max; k++) {
		p[n].fd = mw_link_fd(cp->c[k].l);
		p[n].events = POLLIN | (mw_link_pending(cp->c[k].l) ? POLLOUT : 0);
		p[n++].revents = 0;
	}
	/* Our probe round's sockets last: mwt_cp_serve steps it. */
	if (cp->pround && n + 2 <= max)
		n += (size_t)mw_probe_round_fds(cp->pround, p + n, 2);
	return n;
}

static void child_conn(void *arg, size_t k, const char **src, int *authed, int *stage, double *t_conn)
{
	const struct child *x = &((const struct mwt_cp *)arg)->c[k];
	*src = x->src;
	*authed = x->hello != 0;
	*stage = x->verified;
	*t_conn = x->t_conn;
}

static void accept_children(struct mwt_cp *cp, double now)
{
	for (;;) {
		struct mw_link *l = mw_link_accept(cp->lfd);
		struct child *p;
		char src[64];
		if (!l)
			return;
		/* Room for it among the children not yet authenticated, as the
		 * collector makes it (mw_link_preauth_victim). */
		snprintf(src, sizeof src, "%.*s", (int)strcspn(mw_link_peer(l), ":"), mw_link_peer(l));
		for (int pass = 0; pass < 2; pass++) {
			long v = mw_link_preauth_victim(cp->nc, src, pass, child_conn, cp);
			if (v >= 0) {
				mw_log_limited(&cp_rl, LOG_WARNING, "tree: too many connections without a HELLO: closing %s",
					       mw_link_peer(cp->c[v].l));
				child_close(cp, (size_t)v, 0, "too many connections without a hello");
			}
		}
		if (cp->nc >= CP_MAX_CHILDREN || !(p = realloc(cp->c, (cp->nc + 1) * sizeof *p))) {
			mw_link_close(l);
			continue;
		}
		cp->c = p;
		p = &cp->c[cp->nc];
		memset(p, 0, sizeof *p);
		p->l = l;
		/* The agent's own links' liveness: a child node that dies is
		 * told up (CHILD, lost) within it. */
		if (mw_link_set_liveness(l, cp->o.liveness_s) < 0)
			mw_log_limited(&cp_rl, LOG_WARNING, "tree: link liveness %g s: %s", cp->o.liveness_s,
				       strerror(errno));
		p->t_conn = now;
		snprintf(p->src, sizeof p->src, "%s", src);
		/* The child speaks first (VERIFY), as to the collector. */
		mw_link_set_max_payload(l, MW_HB_PREAUTH_MAX);
		cp->nc++;
	}
}

/* A child's VERIFY: prove this CP to it exactly as the collector does
 * (auth.h), with a challenge of our own.  Return 0, or -1 (close it). */
static int on_verify(struct mwt_cp *cp, struct child *ch, const struct mw_hb_verify *v)
{
	const struct mw_auth au = {cp->munge, cp->token};
	struct mw_hb_msg m = {0};
	char payload[400], why[200] = "endpoint too long";
	if (mw_auth_nonce(ch->nonce, sizeof ch->nonce) < 0 ||
	    mw_hb_proof_payload(cp->job, mw_link_local(ch->l), v->nonce, ch->nonce, payload, sizeof payload) < 0 ||
	    mw_auth_sign(&au, payload, m.u.challenge.cred, sizeof m.u.challenge.cred, why, sizeof why) < 0) {
		mw_log_limited(&cp_rl, LOG_WARNING, "tree: cannot prove this CP to %s: %s", mw_link_peer(ch->l), why);
		return -1;
	}
	m.type = MW_HB_CHALLENGE;
	memcpy(m.u.challenge.nonce, ch->nonce, sizeof m.u.challenge.nonce);
	snprintf(m.u.challenge.job, sizeof m.u.challenge.job, "%s", cp->job);
	ch->verified = 1;
	return mw_link_send(ch->l, &m) < 0 ? -1 : 0;
}

/* A child's HELLO.  Return 0 if welcomed, -1 if refused (close it). */
static int on_hello(struct mwt_cp *cp, struct child *ch, const struct mw_hb_hello *h)
{
	const struct mw_auth au = {cp->munge, cp->token};
	struct mw_hb_msg w = {0};
	char why[200] = "job, node or endpoint too long", expect[400];
	w.type = MW_HB_WELCOME;
	if (mw_hb_auth_payload(h->job, h->node, mw_link_local(ch->l), ch->nonce, expect, sizeof expect) < 0 ||
	    mw_auth_verify(&au, h->cred, expect, why, sizeof why) < 0)
		snprintf(w.u.welcome.error, sizeof w.u.welcome.error, "not authenticated: %.100s", why);
	if (!w.u.welcome.error[0] && strcmp(h->job, cp->job) != 0)
		snprintf(w.u.welcome.error, sizeof w.u.welcome.error, "this CP serves job %s, not %s", cp->job,
			 h->job);
	if (w.u.welcome.error[0]) {
		mw_log_limited(&cp_rl, LOG_WARNING, "tree: refusing child %s (%s): %s", mw_link_peer(ch->l),
			       h->node, w.u.welcome.error);
		mw_link_send(ch->l, &w);
		mw_link_flush(ch->l);
		return -1;
	}
	/* The same node again (a reconnection before the old link broke):
	 * the old link is stale. */
	for (size_t k = 0; k < cp->nc; k++)
		if (&cp->c[k] != ch && cp->c[k].hello && strcmp(cp->c[k].node, h->node) == 0)
			cp->c[k].hello = -1; /* closed by the caller's sweep */
	w.u.welcome.ok = 1;
	ch->hello = 1;
	mw_link_set_max_payload(ch->l, 0); /* trusted now */
	snprintf(ch->node, sizeof ch->node, "%s", h->node);
	lost_forget(cp, ch->node);
	mw_info("tree: child %s attached from %s", ch->node, mw_link_peer(ch->l));
	if (mw_link_send(ch->l, &w) < 0)
		return -1;
	{
		struct mw_hb_msg m = {0};
		m.type = MW_HB_CHILD;
		snprintf(m.u.child.node, sizeof m.u.child.node, "%s", ch->node);
		snprintf(m.u.child.parent, sizeof m.u.child.parent, "%s", cp->node);
		m.u.child.up = 1;
		cp->up(cp->arg, &m);
	}
	return 0;
}

static void keep_rank(struct mwt_cp *cp, const struct mw_hb_rank *r)
{
	for (size_t i = 0; i < cp->nranks; i++)
		if (cp->ranks[i].r.rank == r->rank) {
			cp->ranks[i].r = *r;
			return;
		}
	if (cp->nranks == cp->capranks) {
		size_t n = cp->capranks ? cp->capranks * 2 : 16;
		struct rankrec *p = realloc(cp->ranks, n * sizeof *p);
		if (!p)
			return;
		cp->ranks = p;
		cp->capranks = n;
	}
	cp->ranks[cp->nranks++].r = *r;
}

/* The index of node among the nodes below ch (per the CHILD frames ch
 * sent), or -1. */
static long desc_find(const struct child *ch, const char *node)
{
	for (size_t i = 0; i < ch->ndesc; i++)
		if (strcmp(ch->desc[i], node) == 0)
			return (long)i;
	return -1;
}

/* Whether node is ch's own or below it. */
static int child_holds(const struct child *ch, const char *node)
{
	return strcmp(ch->node, node) == 0 || desc_find(ch, node) >= 0;
}

/* ch told of node attached below it to parent (kept for APREQ routing and
 * the gathering window; a node that moved away stays listed: a request
 * sent there too is ignored). */
static void note_desc(struct child *ch, const char *node, const char *parent)
{
	char(*d)[MW_HB_STR_MAX + 1];
	unsigned char *dd;
	long i = desc_find(ch, parent);
	unsigned depth = (i >= 0 ? ch->ddep[i] : 0) + 1; /* ch itself or not known: 0 */
	if (depth > 255)
		depth = 255;
	if (depth > ch->levels)
		ch->levels = depth;
	if ((i = desc_find(ch, node)) >= 0) {
		ch->ddep[i] = (unsigned char)depth;
		return;
	}
	if (strcmp(ch->node, node) == 0 || ch->ndesc >= CP_MAX_CHILDREN * 16)
		return;
	d = realloc(ch->desc, (ch->ndesc + 1) * sizeof *d);
	if (!d)
		return;
	ch->desc = d;
	dd = realloc(ch->ddep, ch->ndesc + 1);
	if (!dd)
		return;
	ch->ddep = dd;
	dd[ch->ndesc] = (unsigned char)depth;
	snprintf(d[ch->ndesc++], sizeof *d, "%s", node);
}

/* The first new event opens the gathering window: flush_s for each level
 * of CPs at and below this one (the CHILD frames tell how deep the
 * subtree is), so that the aggregates of the child CPs, which gather for
 * a level less, come in before it closes: one stall, seen by every agent
 * at the same beat, goes up as one aggregate per CP. */
static void schedule_flush(struct mwt_cp *cp, double now)
{
	unsigned levels = 0;
	if (cp->flush_at > 0)
		return;
	for (size_t k = 0; k < cp->nc; k++)
		if (cp->c[k].levels > levels)
			levels = cp->c[k].levels;
	if (levels > CP_WINDOW_LEVELS) /* a child telling of a deeper tree cannot hold us longer */
		levels = CP_WINDOW_LEVELS;
	cp->flush_at = now + cp->o.flush_s * (1 + levels);
}

static void probe_send(struct mwt_cp *cp)
{
	struct mw_hb_msg m = {0};
	m.type = MW_HB_PROBESUM;
	for (size_t k = 0; k < cp->nc; k++)
		if (cp->c[k].asked == mwt_psum_round(cp->psum) && !cp->c[k].delivered) {
			mwt_psum_missing(cp->psum, cp->c[k].node);
			mw_warn("tree: probe round %u: the CP on %s did not deliver its summary in time",
				mwt_psum_round(cp->psum), cp->c[k].node);
		}
	m.u.probesum.json = mwt_psum_to_json(cp->psum);
	if (!m.u.probesum.json)
		mw_warn("tree: cannot encode the probe summary: %s", strerror(errno));
	else if (cp->up(cp->arg, &m) < 0)
		mw_warn("tree: probe round %u: no parent link for the summary", mwt_psum_round(cp->psum));
	else
		mw_info("tree: probe round %u: summary of %zu node(s) sent up (%zu CP(s) missing)",
			mwt_psum_round(cp->psum), mwt_psum_n(cp->psum), mwt_psum_nmissing(cp->psum));
	free(m.u.probesum.json);
	for (size_t k = 0; k < cp->nc; k++)
		cp->c[k].asked = 0, cp->c[k].delivered = 0;
	mwt_psum_destroy(cp->psum);
	cp->psum = NULL;
}

/* Every child CP asked has answered: the summary goes up now. */
static void probe_check_done(struct mwt_cp *cp)
{
	if (!cp->psum || cp->probe_due <= 0)
		return; /* not asked yet, or still probing */
	for (size_t k = 0; k < cp->nc; k++)
		if (cp->c[k].asked && !cp->c[k].delivered)
			return;
	probe_send(cp);
}

static void on_probesum(struct mwt_cp *cp, struct child *ch, const char *json)
{
	char err[200];
	struct mwt_psum *x = mwt_psum_from_json(json, strlen(json), err, sizeof err);
	if (!x) {
		mw_log_limited(&cp_rl, LOG_WARNING, "tree: bad probe summary from %s: %s", ch->node, err);
		return;
	}
	if (!cp->psum || !ch->asked || mwt_psum_round(x) != mwt_psum_round(cp->psum) || ch->delivered ||
	    strcmp(mwt_psum_from(x), ch->node) != 0) {
		mw_log_limited(&cp_rl, LOG_WARNING, "tree: probe summary of round %u from %s not asked for: dropped",
			       mwt_psum_round(x), ch->node);
		mwt_psum_destroy(x);
		return;
	}
	if (mwt_psum_merge(cp->psum, x) < 0)
		mw_warn("tree: cannot merge the probe summary of %s: %s", ch->node, strerror(errno));
	ch->delivered = 1;
	mwt_psum_destroy(x);
	probe_check_done(cp);
}

/* The host part of a peer "ADDR:PORT" into buf. */
static void peer_host(const char *peer, char *buf, size_t len)
{
	const char *colon = strrchr(peer, ':');
	size_t n = colon ? (size_t)(colon - peer) : strlen(peer);
	snprintf(buf, len, "%.*s", (int)n, peer);
}

void mwt_cp_probereq(struct mwt_cp *cp, const struct mw_hb_probereq *r, double now)
{
	struct mw_hb_msg fw = {0};
	const char **names = NULL, **addrs = NULL;
	char (*hosts)[64] = NULL;
	char (*nodes)[MW_HB_STR_MAX + 1] = NULL;
	struct mw_probe_result *out = NULL;
	size_t n = 0, asked = 0;

	probe_round_free(cp); /* a round of ours still under way: the new one replaces it */
	if (cp->psum) {
		mw_warn("tree: probe round %u replaces round %u, not finished", r->round, mwt_psum_round(cp->psum));
		mwt_psum_destroy(cp->psum);
		cp->psum = NULL;
	}
	for (size_t k = 0; k < cp->nc; k++)
		cp->c[k].asked = 0, cp->c[k].delivered = 0;
	cp->psum = mwt_psum_create(r->round, cp->node);
	if (!cp->psum) {
		mw_warn("tree: probe round %u: %s", r->round, strerror(errno));
		return;
	}
	cp->probe_rounds++;
	cp->probe_due = 0; /* not before our own probes are in */
	/* Down first, so that the child CPs probe while we do. */
	fw.type = MW_HB_PROBEREQ;
	fw.u.probereq = *r;
	fw.u.probereq.wait_s = r->wait_s - MWT_PROBE_LEVEL_S;
	for (size_t k = 0; k < cp->nc; k++) {
		struct child *ch = &cp->c[k];
		if (ch->hello <= 0 || !ch->is_cp || fw.u.probereq.wait_s < fw.u.probereq.budget_s)
			continue;
		if (mw_link_send(ch->l, &fw) == 0) {
			ch->asked = r->round;
			asked++;
		}
	}
	names = calloc(cp->nc + cp->nlost + 1, sizeof *names);
	addrs = calloc(cp->nc + cp->nlost + 1, sizeof *addrs);
	hosts = calloc(cp->nc + cp->nlost + 1, sizeof *hosts);
	nodes = calloc(cp->nc + cp->nlost + 1, sizeof *nodes);
	out = calloc(cp->nc + cp->nlost + 1, sizeof *out);
	if (!names || !addrs || !hosts || !nodes || !out) {
		mw_warn("tree: probe round %u: out of memory", r->round);
		goto out;
	}
	for (size_t k = 0; k < cp->nc; k++) {
		if (cp->c[k].hello <= 0)
			continue;
		peer_host(mw_link_peer(cp->c[k].l), hosts[n], sizeof hosts[n]);
		snprintf(nodes[n], sizeof nodes[n], "%s", cp->c[k].node);
		names[n] = nodes[n];
		addrs[n] = hosts[n][0] ? hosts[n] : NULL;
		n++;
	}
	for (size_t i = 0; i < cp->nlost; i++) {
		snprintf(hosts[n], sizeof hosts[n], "%s", cp->lost[i].host);
		snprintf(nodes[n], sizeof nodes[n], "%s", cp->lost[i].node);
		names[n] = nodes[n];
		addrs[n] = hosts[n][0] ? hosts[n] : NULL;
		n++;
	}
	mw_info("tree: probe round %u: probing %zu child node(s) (%zu of them lost), %zu child CP(s) asked", r->round,
		n, cp->nlost, asked);
	/* Our own round runs in the agent's loop (mwt_cp_serve, mwt_cp_tick
	 * step it): children keep attaching and sending meanwhile. */
	cp->pnames = names, cp->paddrs = addrs, cp->phosts = hosts, cp->pnodes = nodes, cp->pout = out;
	cp->pn = n;
	names = addrs = NULL, hosts = NULL, nodes = NULL, out = NULL;
	cp->pdue = now + r->wait_s;
	if (n && !(cp->pround = mw_probe_round_start(cp->pnames, cp->paddrs, n, r->port, r->budget_s, r->tries,
						      cp->pout)))
		mw_warn("tree: probe round %u: %s", r->round, strerror(errno));
	if (cp->pround) {
		probe_round_poll(cp);
		return;
	}
	for (size_t i = 0; i < n; i++) { /* could not start: every node an error */
		cp->pout[i].state = MW_PROBE_ERROR;
		snprintf(cp->pout[i].summary, sizeof cp->pout[i].summary, "local error: %s", strerror(errno));
		if (mwt_psum_add(cp->psum, cp->pnames[i], cp->node, &cp->pout[i]) < 0)
			mw_warn("tree: probe round %u: result of %s: %s", r->round, cp->pnames[i], strerror(errno));
	}
	probe_round_free(cp);
out:
	free(names);
	free(addrs);
	free(hosts);
	free(nodes);
	free(out);
	cp->probe_due = now + r->wait_s;
	probe_check_done(cp);
}

/* One frame from a welcomed child.  Return -1 to close it, 1 for a goodbye. */
static int on_frame(struct mwt_cp *cp, struct child *ch, struct mw_hb_msg *m, double now)
{
	switch (m->type) {
	case MW_HB_RANK:
		keep_rank(cp, &m->u.rank);
		cp->up(cp->arg, m);
		return 0;
	case MW_HB_HEARTBEAT: {
		/* A child speaks for its own node only. */
		int r = mwt_agg_add(cp->pending, cp->seen, ch->node, &m->u.beat, now);
		if (r < 0) {
			mw_log_limited(&cp_rl, LOG_WARNING, "tree: bad heartbeat from %s: %s", ch->node,
				       strerror(errno));
			return 0;
		}
		if (r == 1) {
			cp->events++;
			schedule_flush(cp, now);
		}
		return 0;
	}
	case MW_HB_AGG: {
		char err[200];
		struct mwt_agg *x = mwt_agg_from_json(m->u.agg.json, strlen(m->u.agg.json), err, sizeof err);
		long n;
		ch->is_cp = 1;
		if (!x) {
			mw_log_limited(&cp_rl, LOG_WARNING, "tree: bad aggregate from %s: %s", ch->node, err);
			return -1;
		}
		n = mwt_agg_merge(cp->pending, cp->seen, x);
		mwt_agg_destroy(x);
		if (n > 0) {
			cp->events += (unsigned long)n;
			schedule_flush(cp, now);
		}
		return 0;
	}
	case MW_HB_CHILD:
		if (m->u.child.up)
			note_desc(ch, m->u.child.node, m->u.child.parent);
		if (strcmp(m->u.child.parent, ch->node) == 0)
			ch->is_cp = 1; /* a child of its own: a CP, asked to probe its subtree */
		cp->up(cp->arg, m);
		return 0;
	case MW_HB_APOUT:
		/* Up as it is, if it comes from the subtree that ran it. */
		if (!child_holds(ch, m->u.apout.node)) {
			mw_log_limited(&cp_rl, LOG_WARNING, "tree: auxiliary output of %s from %s, "
				       "whose subtree does not hold it: dropped", m->u.apout.node, ch->node);
			return 0;
		}
		if (cp->up(cp->arg, m) < 0)
			apout_keep(cp, m); /* no parent link now: after the re-attachment */
		return 0;
	case MW_HB_DUMP:
		cp->up(cp->arg, m);
		return 0;
	case MW_HB_PROBESUM:
		on_probesum(cp, ch, m->u.probesum.json);
		return 0;
	case MW_HB_BYE:
		return 1;
	case MW_HB_LISTEN:
		return 0; /* for the collector on a direct link only */
	default:
		mw_log_limited(&cp_rl, LOG_WARNING, "tree: unexpected %s frame from %s", mw_hb_type_name(m->type),
			       ch->node);
		return -1;
	}
}

void mwt_cp_serve(struct mwt_cp *cp, const struct pollfd *p, size_t n, double now)
{
	int accept_now = n > 0 && (p[0].revents & POLLIN);
	probe_round_poll(cp); /* its replies (its sockets are the last entries) */
	/* Children in reverse order of their poll entries: closing one moves
	 * the last child into its place.  p[1 + k] is child k as it was. */
	for (size_t k = n > 1 ? n - 1 : 0; k-- > 0;) {
		struct child *ch;
		short rev = p[1 + k].revents;
		if (k >= cp->nc || !rev || mw_link_fd(cp->c[k].l) != p[1 + k].fd)
			continue;
		ch = &cp->c[k];
		if ((rev & POLLOUT) && mw_link_flush(ch->l) < 0) {
			child_close(cp, k, 0, strerror(errno));
			continue;
		}
		if (!(rev & (POLLIN | POLLHUP | POLLERR)))
			continue;
		for (int budget = 0; budget < 256; budget++) {
			struct mw_hb_msg m;
			enum mw_hb_err e = MW_HB_OK;
			int rc = mw_link_recv(ch->l, &m, &e);
			if (rc == 0)
				break;
			if (rc < 0) {
				child_close(cp, k, 0, rc == -1 ? (errno ? strerror(errno) : "closed") : mw_hb_err_name(e));
				break;
			}
			if (!ch->hello) {
				/* VERIFY, then HELLO (doc/protocol.md "Handshake"); a
				 * refusal closes the link: nothing after it is read. */
				if (!ch->verified)
					rc = m.type == MW_HB_VERIFY ? on_verify(cp, ch, &m.u.verify) : -1;
				else
					rc = m.type == MW_HB_HELLO ? on_hello(cp, ch, &m.u.hello) : -1;
				mw_hb_msg_free(&m);
				if (rc < 0) {
					child_close(cp, k, 0, "refused");
					break;
				}
				continue;
			}
			rc = on_frame(cp, ch, &m, now);
			mw_hb_msg_free(&m);
			if (rc) {
				child_close(cp, k, rc > 0, rc > 0 ? "goodbye" : "bad frame");
				break;
			}
		}
	}
	/* Stale links of a child that came back on a new one. */
	for (size_t k = cp->nc; k-- > 0;)
		if (cp->c[k].hello < 0) {
			cp->c[k].hello = 0; /* no CHILD frame: it is attached on its new link */
			child_close(cp, k, 0, "replaced");
		}
	if (accept_now)
		accept_children(cp, now);
}

int mwt_cp_beat(struct mwt_cp *cp, const char *origin, const struct mw_hb_beat *b, double now)
{
	int r = mwt_agg_add(cp->pending, cp->seen, origin, b, now);
	if (r == 1) {
		cp->events++;
		schedule_flush(cp, now);
	}
	return r;
}

void mwt_cp_dumpreq(struct mwt_cp *cp, const struct mw_hb_msg *m)
{
	for (size_t k = 0; k < cp->nc; k++)
		if (cp->c[k].hello > 0)
			mw_link_send(cp->c[k].l, m);
}

void mwt_cp_apreq(struct mwt_cp *cp, const struct mw_hb_msg *m)
{
	const struct mw_hb_apreq *r = &m->u.apreq;
	for (size_t k = 0; k < cp->nc; k++) {
		int want = r->n == 0;
		if (cp->c[k].hello <= 0)
			continue;
		for (size_t i = 0; i < r->n && !want; i++)
			want = child_holds(&cp->c[k], r->nodes[i]);
		if (want)
			mw_link_send(cp->c[k].l, m);
	}
}

static void send_agg(struct mwt_cp *cp, const struct mwt_agg *a)
{
	struct mw_hb_msg m = {0};
	m.type = MW_HB_AGG;
	m.u.agg.json = mwt_agg_to_json(a);
	if (!m.u.agg.json) {
		mw_warn("tree: cannot encode the aggregate: %s", strerror(errno));
		return;
	}
	if (cp->up(cp->arg, &m) == 0)
		cp->aggs++;
	free(m.u.agg.json);
}

double mwt_cp_tick(struct mwt_cp *cp, double now)
{
	for (size_t k = cp->nc; k-- > 0;)
		if (!cp->c[k].hello && now - cp->c[k].t_conn > CP_HELLO_TIMEOUT)
			child_close(cp, k, 0, "no hello");
	probe_round_poll(cp); /* its next tries, or its end */
	if (cp->psum && cp->probe_due > 0 && now >= cp->probe_due)
		probe_send(cp);
	if (cp->flush_at > 0 && now >= cp->flush_at) {
		cp->flush_at = 0;
		/* Kept first: if the parent is gone, it goes up again after
		 * the re-attachment. */
		if (mwt_agg_merge(cp->all, cp->allseen, cp->pending) < 0)
			mw_warn("tree: out of memory keeping the aggregate");
		if (mwt_agg_events(cp->pending))
			send_agg(cp, cp->pending);
		mwt_agg_reset(cp->pending);
	}
	{
		double next = cp->flush_at > 0 ? cp->flush_at : now + 3600;
		if (cp->psum && cp->probe_due > 0 && cp->probe_due < next)
			next = cp->probe_due;
		if (cp->pround && now + mw_probe_round_timeout_ms(cp->pround) / 1e3 < next)
			next = now + mw_probe_round_timeout_ms(cp->pround) / 1e3;
		return next;
	}
}

void mwt_cp_uplink(struct mwt_cp *cp)
{
	struct mw_hb_msg m;
	for (size_t i = 0; i < cp->nranks; i++) {
		memset(&m, 0, sizeof m);
		m.type = MW_HB_RANK;
		m.u.rank = cp->ranks[i].r;
		if (cp->up(cp->arg, &m) < 0)
			return;
	}
	for (size_t k = 0; k < cp->nc; k++) {
		if (cp->c[k].hello <= 0)
			continue;
		memset(&m, 0, sizeof m);
		m.type = MW_HB_CHILD;
		snprintf(m.u.child.node, sizeof m.u.child.node, "%s", cp->c[k].node);
		snprintf(m.u.child.parent, sizeof m.u.child.parent, "%s", cp->node);
		m.u.child.up = 1;
		if (cp->up(cp->arg, &m) < 0)
			return;
	}
	apout_flush(cp);
	if (mwt_agg_merge(cp->all, cp->allseen, cp->pending) < 0)
		mw_warn("tree: out of memory keeping the aggregate");
	mwt_agg_reset(cp->pending);
	cp->flush_at = 0;
	if (mwt_agg_events(cp->all)) {
		mw_info("tree: sending the %llu event(s) counted so far to the new parent",
			(unsigned long long)mwt_agg_events(cp->all));
		send_agg(cp, cp->all);
	}
}

void mwt_cp_probe_stats(const struct mwt_cp *cp, unsigned long *rounds, unsigned long *probed)
{
	*rounds = cp->probe_rounds;
	*probed = cp->probed;
}

void mwt_cp_stats(const struct mwt_cp *cp, size_t *children, unsigned long *aggs, unsigned long *events)
{
	size_t n = 0;
	for (size_t k = 0; k < cp->nc; k++)
		n += cp->c[k].hello > 0;
	*children = n;
	*aggs = cp->aggs;
	*events = cp->events;
}
