/* mwt_cp.c - the communication process role (mwt_cp.h, doc/tree.md): its
 * children's links on the agent's libuv loop, their handshake, the
 * aggregates.  Probing down the tree is mwt_cpprobe.c's.
 *
 * The CP owns on the loop: a uv_poll for its listening socket, one per
 * child's socket (readable, and writable while frames are queued; not
 * read while the child's HELLO is being checked), a uv_timer for the next
 * flush, probe summary or hello deadline, and a uv_prepare that, before
 * each wait, makes the watchers follow the queues and the timer the
 * deadlines.  The credentials are made (our CHALLENGE's, munge_encode) and
 * checked (a HELLO's, munge_decode) in the thread pool (uv_queue_work),
 * never on the loop. */
#include "mwt_cpstate.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "auth.h"
#define CP_HELLO_TIMEOUT MW_LINK_HELLO_DEADLINE_S /* as the collector's */
#define CP_WINDOW_LEVELS 16 /* the gathering window counts at most this many levels below */

struct mw_ratelimit mwt_cp_rl = MW_RATELIMIT_INIT(1, 10);

#define CP_APOUT_KEEP 64

/* A child's socket watched on the loop: the child found again by id. */
struct cp_watch {
	uv_poll_t h;
	struct mwt_cp *cp;
	uint64_t id;
	int ev; /* the events watched now */
};


static void free_handle(uv_handle_t *h)
{
	free(h);
}

long mwt_cp_child_find(const struct mwt_cp *cp, uint64_t id)
{
	for (size_t k = 0; k < cp->nc; k++)
		if (cp->c[k].id == id)
			return (long)k;
	return -1;
}

void mwt_cp_peer_host(const char *peer, char *buf, size_t len)
{
	const char *colon = strrchr(peer, ':');
	size_t n = colon ? (size_t)(colon - peer) : strlen(peer);
	snprintf(buf, len, "%.*s", (int)n, peer);
}

/* Keep an APOUT that could not go up (a copy: its output is the caller's). */
static void apout_keep(struct mwt_cp *cp, const struct mw_hb_msg *m)
{
	struct mw_hb_msg *q;
	char *out = NULL;
	if (cp->napq >= CP_APOUT_KEEP || !(q = realloc(cp->apq, (cp->napq + 1) * sizeof *q)) ||
	    (m->u.apout.output && !(out = strdup(m->u.apout.output)))) {
		mw_log_limited(&mwt_cp_rl, LOG_WARNING, "tree: auxiliary output of %s while no parent link: "
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

void mwt_cp_child_close(struct mwt_cp *cp, size_t k, int bye, const char *why)
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
			mwt_cpp_lost_keep(cp, ch);
		}
		else
			mw_info("tree: child %s left (%s)", ch->node, why);
		cp->up(cp->arg, &m);
	}
	mwt_cpp_child_gone(cp, ch);
	if (ch->w) /* before its socket closes */
		uv_close((uv_handle_t *)&ch->w->h, free_handle);
	mw_link_close(ch->l);
	free(ch->desc);
	free(ch->ddep);
	cp->c[k] = cp->c[--cp->nc];
	mwt_cpp_check_done(cp);
}

static void accept_children(struct mwt_cp *cp, double now);

static void on_listen(uv_poll_t *h, int status, int events)
{
	(void)status, (void)events;
	accept_children(h->data, mw_now());
}

static void on_child(uv_poll_t *h, int status, int events)
{
	struct cp_watch *w = (struct cp_watch *)h;
	long k = mwt_cp_child_find(w->cp, w->id);
	if (k < 0)
		return;
	if (status < 0) /* the socket's error: the read says which */
		events = UV_READABLE;
	mwt_cp_child_serve(w->cp, (size_t)k, events, mw_now());
	mwt_cp_sweep(w->cp);
}

/* Only a change reaches libuv (each uv_poll_start is a stop and an
 * epoll_ctl). */
void mwt_cp_watch(struct cp_watch *w, int ev)
{
	if (w && w->ev != ev) {
		uv_poll_start(&w->h, ev, on_child);
		w->ev = ev;
	}
}

static void on_timer(uv_timer_t *t)
{
	mwt_cp_tick(t->data, mw_now());
}

/* Before each wait: each child's watcher follows its queue, the timer the
 * next deadline. */
static void on_prepare(uv_prepare_t *p)
{
	struct mwt_cp *cp = p->data;
	double d;
	for (size_t k = 0; k < cp->nc; k++) {
		struct child *ch = &cp->c[k];
		mwt_cp_watch(ch->w, ch->verifying ? 0 : UV_READABLE | (mw_link_pending(ch->l) ? UV_WRITABLE : 0));
	}
	d = mwt_cp_tick(cp, mw_now()) - mw_now();
	uv_update_time(cp->loop);
	uv_timer_start(cp->timer, on_timer, d > 0 ? (uint64_t)(d * 1000) + 1 : 0, 0);
}

struct mwt_cp *mwt_cp_create(uv_loop_t *loop, const struct mwt_cp_opts *o, mwt_cp_up_fn up, void *arg,
			     uint16_t *port)
{
	struct mwt_cp *cp = calloc(1, sizeof *cp);
	struct sockaddr_in sa;
	socklen_t sl = sizeof sa;
	uint16_t dummy;
	if (!cp)
		return NULL;
	cp->lfd = -1;
	cp->loop = loop;
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
	cp->lpoll = malloc(sizeof *cp->lpoll);
	cp->timer = malloc(sizeof *cp->timer);
	cp->prep = malloc(sizeof *cp->prep);
	if (!cp->lpoll || !cp->timer || !cp->prep || uv_poll_init(loop, cp->lpoll, cp->lfd) < 0) {
		free(cp->lpoll), free(cp->timer), free(cp->prep);
		cp->lpoll = NULL, cp->timer = NULL, cp->prep = NULL;
		mw_err("tree: cannot watch the port for children: %s", strerror(errno ? errno : ENOMEM));
		goto fail;
	}
	uv_timer_init(loop, cp->timer);
	uv_prepare_init(loop, cp->prep);
	cp->lpoll->data = cp->timer->data = cp->prep->data = cp;
	uv_poll_start(cp->lpoll, UV_READABLE, on_listen);
	uv_prepare_start(cp->prep, on_prepare);
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
		if (cp->c[k].w)
			uv_close((uv_handle_t *)&cp->c[k].w->h, free_handle);
		mw_link_close(cp->c[k].l);
		free(cp->c[k].desc);
		free(cp->c[k].ddep);
	}
	free(cp->c);
	mwt_cph_orphan(cp);
	if (cp->lpoll)
		uv_close((uv_handle_t *)cp->lpoll, free_handle);
	if (cp->timer)
		uv_close((uv_handle_t *)cp->timer, free_handle);
	if (cp->prep)
		uv_close((uv_handle_t *)cp->prep, free_handle);
	if (cp->lfd >= 0)
		close(cp->lfd);
	mwt_agg_destroy(cp->pending);
	mwt_agg_destroy(cp->all);
	mwt_seq_destroy(cp->seen);
	mwt_seq_destroy(cp->allseen);
	mwt_cpp_free(cp);
	for (size_t i = 0; i < cp->napq; i++)
		free(cp->apq[i].u.apout.output);
	free(cp->apq);
	free(cp->ranks);
	free(cp);
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
				mw_log_limited(&mwt_cp_rl, LOG_WARNING, "tree: too many connections without a HELLO: closing %s",
					       mw_link_peer(cp->c[v].l));
				mwt_cp_child_close(cp, (size_t)v, 0, "too many connections without a hello");
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
		p->id = ++cp->next_id;
		if (!(p->w = malloc(sizeof *p->w)) || uv_poll_init(cp->loop, &p->w->h, mw_link_fd(l)) < 0) {
			mw_log_limited(&mwt_cp_rl, LOG_WARNING, "tree: cannot watch a child's socket");
			free(p->w);
			mw_link_close(l);
			continue;
		}
		p->w->cp = cp;
		p->w->id = p->id;
		p->w->ev = 0;
		mwt_cp_watch(p->w, UV_READABLE);
		/* The agent's own links' liveness: a child node that dies is
		 * told up (CHILD, lost) within it. */
		if (mw_link_set_liveness_watch(l, cp->o.liveness_s) < 0)
			mw_log_limited(&mwt_cp_rl, LOG_WARNING, "tree: link liveness %g s: %s", cp->o.liveness_s,
				       strerror(errno));
		p->t_conn = now;
		snprintf(p->src, sizeof p->src, "%s", src);
		/* The child speaks first (VERIFY), as to the collector. */
		mw_link_set_max_payload(l, MW_HB_PREAUTH_MAX);
		cp->nc++;
	}
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
			mw_log_limited(&mwt_cp_rl, LOG_WARNING, "tree: bad heartbeat from %s: %s", ch->node,
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
			mw_log_limited(&mwt_cp_rl, LOG_WARNING, "tree: bad aggregate from %s: %s", ch->node, err);
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
			mw_log_limited(&mwt_cp_rl, LOG_WARNING, "tree: auxiliary output of %s from %s, "
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
		mwt_cpp_sum(cp, ch, m->u.probesum.json);
		return 0;
	case MW_HB_BYE:
		return 1;
	case MW_HB_LISTEN:
		return 0; /* for the collector on a direct link only */
	default:
		mw_log_limited(&mwt_cp_rl, LOG_WARNING, "tree: unexpected %s frame from %s", mw_hb_type_name(m->type),
			       ch->node);
		return -1;
	}
}

/* What child k's socket reported (UV_READABLE, UV_WRITABLE): flush,
 * read, authenticate and forward. */
void mwt_cp_child_serve(struct mwt_cp *cp, size_t k, int events, double now)
{
	struct child *ch = &cp->c[k];
	if ((events & UV_WRITABLE) && mw_link_flush(ch->l) < 0) {
		mwt_cp_child_close(cp, k, 0, strerror(errno));
		return;
	}
	if (!(events & UV_READABLE))
		return;
	for (int budget = 0; budget < 256 && !ch->verifying; budget++) {
		struct mw_hb_msg m;
		enum mw_hb_err e = MW_HB_OK;
		int rc = mw_link_recv(ch->l, &m, &e);
		if (rc == 0)
			break;
		if (rc < 0) {
			mwt_cp_child_close(cp, k, 0, rc == -1 ? (errno ? strerror(errno) : "closed") : mw_hb_err_name(e));
			break;
		}
		if (!ch->hello) {
			/* VERIFY, then HELLO (doc/protocol.md "Handshake"); a
			 * refusal closes the link: nothing after it is read. */
			if (!ch->verified)
				rc = m.type == MW_HB_VERIFY ? mwt_cph_verify(cp, ch, &m.u.verify) : -1;
			else
				rc = m.type == MW_HB_HELLO ? mwt_cph_hello(cp, ch, &m.u.hello) : -1;
			mw_hb_msg_free(&m);
			if (rc < 0) {
				mwt_cp_child_close(cp, k, 0, "refused");
				break;
			}
			continue;
		}
		rc = on_frame(cp, ch, &m, now);
		mw_hb_msg_free(&m);
		if (rc) {
			mwt_cp_child_close(cp, k, rc > 0, rc > 0 ? "goodbye" : "bad frame");
			break;
		}
	}
}

/* Stale links of a child that came back on a new one. */
void mwt_cp_sweep(struct mwt_cp *cp)
{
	for (size_t k = cp->nc; k-- > 0;)
		if (cp->c[k].hello < 0) {
			cp->c[k].hello = 0; /* no CHILD frame: it is attached on its new link */
			mwt_cp_child_close(cp, k, 0, "replaced");
		}
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

void mwt_cp_flush(struct mwt_cp *cp)
{
	cp->flush_at = 0;
	/* Kept first: if the parent is gone, it goes up again after the
	 * re-attachment. */
	if (mwt_agg_merge(cp->all, cp->allseen, cp->pending) < 0)
		mw_warn("tree: out of memory keeping the aggregate");
	if (mwt_agg_events(cp->pending))
		send_agg(cp, cp->pending);
	mwt_agg_reset(cp->pending);
}

double mwt_cp_tick(struct mwt_cp *cp, double now)
{
	double next = mwt_cpp_tick(cp, now, now + 3600); /* the summary when due */
	for (size_t k = cp->nc; k-- > 0;)
		if (!cp->c[k].hello && !cp->c[k].verifying && now - cp->c[k].t_conn > CP_HELLO_TIMEOUT)
			mwt_cp_child_close(cp, k, 0, "no hello");
	if (cp->flush_at > 0 && now >= cp->flush_at)
		mwt_cp_flush(cp);
	if (cp->flush_at > 0 && cp->flush_at < next)
		next = cp->flush_at;
	for (size_t k = 0; k < cp->nc; k++) /* the hello deadlines */
		if (!cp->c[k].hello && cp->c[k].t_conn + CP_HELLO_TIMEOUT < next)
			next = cp->c[k].t_conn + CP_HELLO_TIMEOUT;
	return next;
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

void mwt_cp_stats(const struct mwt_cp *cp, size_t *children, unsigned long *aggs, unsigned long *events)
{
	size_t n = 0;
	for (size_t k = 0; k < cp->nc; k++)
		n += cp->c[k].hello > 0;
	*children = n;
	*aggs = cp->aggs;
	*events = cp->events;
}
