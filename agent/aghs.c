/* aghs.c - the node agent's handshake with one parent on its loop
 * (aghs.h): resolve (uv_getaddrinfo), connect (uv_poll writable), our
 * VERIFY, the parent's CHALLENGE (uv_poll readable), its proof checked and
 * our HELLO's made (uv_queue_work), our HELLO, the WELCOME.  One uv_timer
 * bounds the step under way: connect_s for the connect, handshake_s for
 * each answer.  Nothing else is sent to a peer that did not prove itself. */
#include "aghs.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth.h"
#include "log.h"

static struct mw_ratelimit auth_rl = MW_RATELIMIT_INIT(0.1, 2);

enum { ST_RESOLVE, ST_CONNECT, ST_CHALLENGE, ST_CRED, ST_WELCOME, ST_OVER };

struct ag_hs {
	uv_loop_t *loop;
	uv_getaddrinfo_t gai;
	uv_work_t work;
	uv_poll_t poll;
	uv_timer_t timer;
	int state;
	int polling;   /* poll initialized on fd and not closed yet */
	int open;      /* handles initialized and not closed yet */
	int reqs;      /* a resolution or credential in the pool */
	int stopped;   /* the owner let go: free once all is back */
	ag_hs_fn done;
	void *arg;
	/* the parameters, copied */
	char job[sizeof ((struct mw_hb_hello *)0)->job], node[sizeof ((struct mw_hb_hello *)0)->node];
	char munge[512], token[128];
	int32_t ranks;
	double connect_s, handshake_s, liveness_s;
	char host[256];
	uint16_t port;
	struct sockaddr_in sa;
	int fd;             /* the socket while connecting (then the link's) */
	struct mw_link *l;  /* once connected */
	char nonce[MW_HB_NONCE_LEN + 1]; /* our VERIFY's */
	/* the credential step (in the pool): the parent's proof checked over
	 * proof[], then our HELLO's made over hello[] */
	char their_cred[MW_HB_CRED_MAX + 1];
	char proof[400], hello[400];
	char cred[MW_HB_CRED_MAX + 1];
	int bad;            /* the parent's proof failed */
	int unsigned_;      /* ours could not be made (sent without) */
	char err[256];
};

static void closed(uv_handle_t *hd)
{
	struct ag_hs *h = hd->data;
	if (--h->open == 0 && h->reqs == 0)
		free(h);
}

/* Release everything but h itself, which goes when its handles are closed
 * and its requests back. */
static void release(struct ag_hs *h)
{
	h->state = ST_OVER;
	if (h->polling)
		uv_close((uv_handle_t *)&h->poll, closed); /* before its socket closes */
	h->polling = 0;
	uv_close((uv_handle_t *)&h->timer, closed);
	if (h->l)
		mw_link_close(h->l);
	else if (h->fd >= 0)
		close(h->fd);
	h->l = NULL;
	h->fd = -1;
}

/* The end: the owner told (l handed over when welcomed), h released. */
static void finish(struct ag_hs *h, int stage, int err, const char *why)
{
	ag_hs_fn done = h->done;
	void *arg = h->arg;
	struct mw_link *l = NULL;
	h->done = NULL;
	if (stage == AG_HS_OK) {
		l = h->l;
		h->l = NULL;
		h->fd = -1;
	}
	release(h);
	if (done)
		done(arg, l, stage, err, why ? why : "");
}

static void fail_connect(struct ag_hs *h, int err)
{
	mw_debug("connect %s:%u: %s", h->host, h->port, strerror(err));
	finish(h, AG_HS_CONNECT, err, "");
}

static void on_sock(uv_poll_t *p, int status, int events);

/* Watch the socket for ev (0: not at all). */
static void watch(struct ag_hs *h, int ev)
{
	if (ev)
		uv_poll_start(&h->poll, ev, on_sock);
	else
		uv_poll_stop(&h->poll);
}

static void on_timeout(uv_timer_t *t);

/* The step under way is bounded by s seconds. */
static void bound(struct ag_hs *h, double s)
{
	uv_update_time(h->loop);
	uv_timer_start(&h->timer, on_timeout, s > 0 ? (uint64_t)(s * 1000) : 0, 0);
}

/* Waiting for an answer: readable, and writable while ours is queued. */
static void await_answer(struct ag_hs *h, int state)
{
	h->state = state;
	watch(h, UV_READABLE | (mw_link_pending(h->l) ? UV_WRITABLE : 0));
	bound(h, h->handshake_s);
}

/* The parent did not answer as it should before a WELCOME (rc as
 * mw_link_recv's, 0: the bound passed; m read when rc is 1). */
static void no_challenge(struct ag_hs *h, int rc, enum mw_hb_err e)
{
	char why[300];
	if (rc == -2) /* something answered, and not with a challenge we can read */
		mw_warn("refusing the peer on port %u of %.64s: not a collector's challenge (%s); nothing "
			"sent to it", h->port, h->host, mw_hb_err_name(e));
	else
		mw_debug("no challenge from %s:%u (rc %d, %s)", h->host, h->port, rc, mw_hb_err_name(e));
	snprintf(why, sizeof why, "port %u answers, but no valid challenge came within handshake_timeout %g s "
		 "(another service on the port?)", h->port, h->handshake_s);
	finish(h, AG_HS_NO_CHALLENGE, 0, why);
}

static void no_welcome(struct ag_hs *h, int rc, enum mw_hb_err e)
{
	char why[300];
	mw_debug("no welcome from %s:%u (rc %d, %s)", h->host, h->port, rc, mw_hb_err_name(e));
	snprintf(why, sizeof why, "port %u: no welcome within handshake_timeout %g s", h->port, h->handshake_s);
	finish(h, AG_HS_NO_WELCOME, 0, why);
}

static void on_timeout(uv_timer_t *t)
{
	struct ag_hs *h = t->data;
	if (h->state == ST_CONNECT)
		fail_connect(h, ETIMEDOUT);
	else if (h->state == ST_CHALLENGE)
		no_challenge(h, 0, MW_HB_OK);
	else if (h->state == ST_WELCOME)
		no_welcome(h, 0, MW_HB_OK);
}

/* In the pool: the parent's proof checked, then ours made (munge_decode
 * and munge_encode may wait on munged). */
static void cred_work(uv_work_t *req)
{
	struct ag_hs *h = req->data;
	const struct mw_auth au = {h->munge, h->token};
	h->bad = mw_auth_verify(&au, h->their_cred, h->proof, h->err, sizeof h->err) < 0;
	if (h->bad)
		return;
	if (!h->hello[0]) {
		h->unsigned_ = 1;
		snprintf(h->err, sizeof h->err, "job, node or endpoint too long");
	} else if (mw_auth_sign(&au, h->hello, h->cred, sizeof h->cred, h->err, sizeof h->err) < 0)
		h->unsigned_ = 1;
}

/* Back on the loop: an impostor is refused (told nothing), else our HELLO
 * goes out and the WELCOME is awaited. */
static void cred_done(uv_work_t *req, int status)
{
	struct ag_hs *h = req->data;
	struct mw_hb_msg m = {0};
	char why[300];
	h->reqs--;
	if (h->stopped || h->state != ST_CRED) {
		if (h->open == 0 && h->reqs == 0)
			free(h);
		return;
	}
	if (status < 0) {
		h->bad = 1;
		snprintf(h->err, sizeof h->err, "cannot check: %s", uv_strerror(status));
	}
	if (h->bad) {
		snprintf(why, sizeof why, "port %u of %.64s: not the collector of job %s: %.150s", h->port, h->host,
			 h->job, h->err);
		mw_warn("refusing %s (nothing sent to it); trying the next port", why);
		finish(h, AG_HS_IMPOSTOR, 0, why);
		return;
	}
	m.type = MW_HB_HELLO;
	snprintf(m.u.hello.job, sizeof m.u.hello.job, "%s", h->job);
	snprintf(m.u.hello.node, sizeof m.u.hello.node, "%s", h->node);
	m.u.hello.pid = (int32_t)getpid();
	m.u.hello.ranks = h->ranks;
	if (h->unsigned_) /* sent without: the collector says so */
		mw_log_limited(&auth_rl, LOG_WARNING, "no credential for the collector: %s", h->err);
	else
		snprintf(m.u.hello.cred, sizeof m.u.hello.cred, "%s", h->cred);
	if (mw_link_send(h->l, &m) < 0) {
		snprintf(why, sizeof why, "port %u: cannot send the hello: %s", h->port, strerror(errno));
		finish(h, AG_HS_SEND, 0, why);
		return;
	}
	await_answer(h, ST_WELCOME);
}

/* The CHALLENGE m: our job's? then its proof and our HELLO's credential
 * in the pool.  m is freed by the caller. */
static void got_challenge(struct ag_hs *h, const struct mw_hb_msg *m)
{
	char why[300];
	int e;
	if (strcmp(m->u.challenge.job, h->job) != 0) {
		snprintf(why, sizeof why, "port %u of %.64s: it serves job %s, not %s", h->port, h->host,
			 m->u.challenge.job, h->job);
		mw_warn("refusing %s (nothing sent to it); trying the next port", why);
		finish(h, AG_HS_IMPOSTOR, 0, why);
		return;
	}
	if (mw_hb_proof_payload(h->job, mw_link_peer(h->l), h->nonce, m->u.challenge.nonce, h->proof,
				sizeof h->proof) < 0) {
		snprintf(why, sizeof why, "port %u of %.64s: not the collector of job %s: %.150s", h->port, h->host,
			 h->job, "job, node or endpoint too long");
		mw_warn("refusing %s (nothing sent to it); trying the next port", why);
		finish(h, AG_HS_IMPOSTOR, 0, why);
		return;
	}
	snprintf(h->their_cred, sizeof h->their_cred, "%s", m->u.challenge.cred);
	if (mw_hb_auth_payload(h->job, h->node, mw_link_peer(h->l), m->u.challenge.nonce, h->hello,
			       sizeof h->hello) < 0)
		h->hello[0] = 0; /* no proof of ours: sent without (the collector says so) */
	h->state = ST_CRED;
	watch(h, 0); /* the parent is not read meanwhile */
	uv_timer_stop(&h->timer);
	h->work.data = h;
	if ((e = uv_queue_work(h->loop, &h->work, cred_work, cred_done)) < 0) {
		snprintf(why, sizeof why, "port %u of %.64s: not the collector of job %s: cannot check: %s", h->port,
			 h->host, h->job, uv_strerror(e));
		finish(h, AG_HS_IMPOSTOR, 0, why);
		return;
	}
	h->reqs++;
}

/* Connected: our nonce goes out (VERIFY), small frames only until the
 * parent proves itself. */
static void connected(struct ag_hs *h)
{
	struct mw_hb_msg m = {0};
	char why[300];
	mw_link_set_max_payload(h->l, MW_HB_PREAUTH_MAX);
	m.type = MW_HB_VERIFY;
	if (mw_auth_nonce(h->nonce, sizeof h->nonce) < 0 ||
	    (memcpy(m.u.verify.nonce, h->nonce, sizeof h->nonce), mw_link_send(h->l, &m) < 0)) {
		snprintf(why, sizeof why, "port %u: cannot send our nonce: %s", h->port, strerror(errno));
		finish(h, AG_HS_SEND, 0, why);
		return;
	}
	await_answer(h, ST_CHALLENGE);
}

static void on_sock(uv_poll_t *p, int status, int events)
{
	struct ag_hs *h = p->data;
	struct mw_hb_msg m;
	enum mw_hb_err e = MW_HB_OK;
	int rc;
	if (h->state == ST_CONNECT) {
		uv_timer_stop(&h->timer);
		h->l = mw_link_connect_end(h->fd, (const struct sockaddr *)&h->sa);
		if (!h->l) {
			fail_connect(h, errno); /* h->fd closed there, after its poll */
			return;
		}
		connected(h);
		return;
	}
	if (status < 0) /* the socket's error: the read says which */
		events = UV_READABLE;
	if ((events & UV_WRITABLE) && mw_link_flush(h->l) < 0)
		rc = -1;
	else if (events & UV_READABLE)
		rc = mw_link_recv(h->l, &m, &e);
	else
		rc = 0;
	if (rc == 0) { /* more to come */
		watch(h, UV_READABLE | (mw_link_pending(h->l) ? UV_WRITABLE : 0));
		return;
	}
	if (h->state == ST_CHALLENGE) {
		if (rc == 1 && m.type == MW_HB_CHALLENGE)
			got_challenge(h, &m);
		else
			no_challenge(h, rc, e);
	} else if (rc == 1 && m.type == MW_HB_WELCOME && m.u.welcome.ok) {
		mw_link_set_max_payload(h->l, 0);
		if (mw_link_set_liveness(h->l, h->liveness_s) < 0)
			mw_warn("link liveness %g s: %s", h->liveness_s, strerror(errno));
		finish(h, AG_HS_OK, 0, "");
	} else if (rc == 1 && m.type == MW_HB_WELCOME) {
		/* Refused: a node name the collector does not know (the host
		 * name is not Slurm's NodeName?), a bad credential... */
		char why[300];
		snprintf(why, sizeof why, "%.250s", m.u.welcome.error);
		finish(h, AG_HS_REFUSED, 0, why);
	} else
		no_welcome(h, rc, e);
	if (rc == 1)
		mw_hb_msg_free(&m);
}

/* The name resolved (or not): the connect begins. */
static void resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *ai)
{
	struct ag_hs *h = req->data;
	int e;
	h->reqs--;
	if (h->stopped) {
		if (ai)
			uv_freeaddrinfo(ai);
		if (h->open == 0 && h->reqs == 0)
			free(h);
		return;
	}
	if (status < 0 || !ai || ai->ai_family != AF_INET || ai->ai_addrlen > sizeof h->sa) {
		if (ai)
			uv_freeaddrinfo(ai);
		fail_connect(h, ENOENT);
		return;
	}
	memcpy(&h->sa, ai->ai_addr, ai->ai_addrlen);
	uv_freeaddrinfo(ai);
	h->fd = mw_link_connect_start((const struct sockaddr *)&h->sa, sizeof h->sa);
	if (h->fd < 0) {
		fail_connect(h, errno);
		return;
	}
	if ((e = uv_poll_init(h->loop, &h->poll, h->fd)) < 0) {
		fail_connect(h, -e);
		return;
	}
	h->poll.data = h;
	h->polling = 1;
	h->open++;
	h->state = ST_CONNECT;
	watch(h, UV_WRITABLE);
	bound(h, h->connect_s);
}

struct ag_hs *ag_hs_start(uv_loop_t *loop, const struct ag_hs_params *p, const char *host, uint16_t port,
			  ag_hs_fn done, void *arg)
{
	struct addrinfo hints = {0};
	struct ag_hs *h = calloc(1, sizeof *h);
	char ps[8];
	int e;
	if (!h) {
		errno = ENOMEM;
		return NULL;
	}
	h->loop = loop;
	h->done = done;
	h->arg = arg;
	h->fd = -1;
	snprintf(h->job, sizeof h->job, "%s", p->job);
	snprintf(h->node, sizeof h->node, "%s", p->node);
	snprintf(h->munge, sizeof h->munge, "%s", p->munge_socket ? p->munge_socket : "");
	snprintf(h->token, sizeof h->token, "%s", p->token ? p->token : "");
	snprintf(h->host, sizeof h->host, "%s", host);
	h->ranks = p->ranks;
	h->connect_s = p->connect_s;
	h->handshake_s = p->handshake_s;
	h->liveness_s = p->liveness_s;
	h->port = port;
	h->state = ST_RESOLVE;
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(ps, sizeof ps, "%u", port);
	h->gai.data = h;
	if ((e = uv_getaddrinfo(loop, &h->gai, resolved, host, ps, &hints)) < 0) {
		free(h);
		errno = e == UV_ENOMEM ? ENOMEM : ENOENT;
		return NULL;
	}
	h->reqs = 1;
	uv_timer_init(loop, &h->timer);
	h->timer.data = h;
	h->open = 1; /* the timer; the poll once the socket is there */
	return h;
}

void ag_hs_stop(struct ag_hs *h)
{
	if (!h)
		return;
	h->stopped = 1;
	h->done = NULL;
	if (h->state == ST_RESOLVE)
		uv_cancel((uv_req_t *)&h->gai); /* or it ends soon: resolved() frees */
	else if (h->state == ST_CRED)
		uv_cancel((uv_req_t *)&h->work);
	if (h->state != ST_OVER)
		release(h);
}
