/* mwt_cphello.c - the CP role's side of its children's handshake
 * (mwt_cpstate.h, doc/protocol.md "Handshake"): a child's VERIFY gets our
 * CHALLENGE, a child's HELLO the WELCOME or a refusal, exactly as the
 * collector answers them.  Both credentials, ours (munge_encode) and the
 * child's (munge_decode), are made and checked in libuv's thread pool
 * (uv_queue_work): the loop never waits on munged; the child is not read
 * meanwhile. */
#include "mwt_cpstate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"

/* A credential made (our CHALLENGE's proof: munge_encode) or checked (a
 * HELLO's: munge_decode) in the thread pool. */
struct cp_work {
	uv_work_t req;
	struct mwt_cp *cp; /* NULL: the CP is gone */
	uint64_t id;
	int sign;          /* 1: make the proof of payload; 0: check h's */
	struct mw_hb_hello h;
	char payload[400], munge[512], token[128];
	char cred[MW_HB_CRED_MAX + 1];
	int bad;
	char why[200];
};

static int queue_work(struct mwt_cp *cp, struct child *ch, struct cp_work *x);

int mwt_cph_verify(struct mwt_cp *cp, struct child *ch, const struct mw_hb_verify *v)
{
	struct cp_work *x = calloc(1, sizeof *x);
	const char *why = "out of memory";
	if (x) {
		why = "endpoint too long";
		x->sign = 1;
		if (mw_auth_nonce(ch->nonce, sizeof ch->nonce) == 0 &&
		    mw_hb_proof_payload(cp->job, mw_link_local(ch->l), v->nonce, ch->nonce, x->payload,
					sizeof x->payload) == 0)
			return queue_work(cp, ch, x);
		free(x);
	}
	mw_log_limited(&mwt_cp_rl, LOG_WARNING, "tree: cannot prove this CP to %s: %s", mw_link_peer(ch->l), why);
	return -1;
}

/* Our proof made (x->cred, or x->why): the CHALLENGE goes to the child.
 * Return 0, or -1 (close it). */
static int verify_end(struct mwt_cp *cp, struct child *ch, const struct cp_work *x)
{
	struct mw_hb_msg m;
	if (x->bad) {
		mw_log_limited(&mwt_cp_rl, LOG_WARNING, "tree: cannot prove this CP to %s: %s", mw_link_peer(ch->l),
			       x->why);
		return -1;
	}
	mw_hb_challenge_make(&m, ch->nonce, cp->job, x->cred);
	ch->verified = 1;
	return mw_link_send(ch->l, &m) < 0 ? -1 : 0;
}

/* The end of a child's HELLO (h), its credential checked (why: NULL, or
 * why it is refused).  Return 0 if welcomed, -1 if refused (close it). */
static int hello_end(struct mwt_cp *cp, struct child *ch, const struct mw_hb_hello *h, const char *why)
{
	struct mw_hb_msg w = {0};
	w.type = MW_HB_WELCOME;
	if (why)
		snprintf(w.u.welcome.error, sizeof w.u.welcome.error, "not authenticated: %.100s", why);
	if (!w.u.welcome.error[0] && strcmp(h->job, cp->job) != 0)
		snprintf(w.u.welcome.error, sizeof w.u.welcome.error, "this CP serves job %s, not %s", cp->job,
			 h->job);
	if (w.u.welcome.error[0]) {
		mw_log_limited(&mwt_cp_rl, LOG_WARNING, "tree: refusing child %s (%s): %s", mw_link_peer(ch->l),
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
	mwt_cpp_lost_forget(cp, ch->node);
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

/* In the thread pool: the credential (munge_encode, munge_decode may wait
 * on munged). */
static void cred_work(uv_work_t *req)
{
	struct cp_work *x = req->data;
	const struct mw_auth au = {x->munge, x->token};
	if (x->sign)
		x->bad = mw_auth_sign(&au, x->payload, x->cred, sizeof x->cred, x->why, sizeof x->why) < 0;
	else
		x->bad = mw_auth_verify(&au, x->h.cred, x->payload, x->why, sizeof x->why) < 0;
}

/* Back on the loop: the child (if still there) challenged, or welcomed or
 * refused; then what it sent meanwhile is read. */
static void cred_done(uv_work_t *req, int status)
{
	struct cp_work *x = req->data;
	struct mwt_cp *cp = x->cp;
	long k;
	if (cp) {
		for (size_t i = 0; i < cp->nworks; i++)
			if (cp->works[i] == x) {
				cp->works[i] = cp->works[--cp->nworks];
				break;
			}
		if ((k = mwt_cp_child_find(cp, x->id)) >= 0) {
			struct child *ch = &cp->c[k];
			ch->verifying = 0;
			if (status < 0)
				snprintf(x->why, sizeof x->why, "cannot check: %s", uv_strerror(status)), x->bad = 1;
			if ((x->sign ? verify_end(cp, ch, x) : hello_end(cp, ch, &x->h, x->bad ? x->why : NULL)) < 0)
				mwt_cp_child_close(cp, (size_t)k, 0, "refused");
			else
				mwt_cp_child_serve(cp, (size_t)k, UV_READABLE, mw_now());
			mwt_cp_sweep(cp);
		}
	}
	free(x);
}

/* Start x (for child ch) in the thread pool; the child is not read
 * meanwhile.  Return 2 (under way), or -1 (x freed; close the child). */
static int queue_work(struct mwt_cp *cp, struct child *ch, struct cp_work *x)
{
	struct cp_work **p = realloc(cp->works, (cp->nworks + 1) * sizeof *p);
	if (p)
		cp->works = p;
	x->cp = cp;
	x->id = ch->id;
	x->req.data = x;
	snprintf(x->munge, sizeof x->munge, "%s", cp->munge);
	snprintf(x->token, sizeof x->token, "%s", cp->token);
	/* Everything set before: the pool may run it at once. */
	if (!p || uv_queue_work(cp->loop, &x->req, cred_work, cred_done) < 0) {
		free(x);
		return -1;
	}
	cp->works[cp->nworks++] = x;
	ch->verifying = 1;
	mwt_cp_watch(ch->w, 0);
	return 2;
}

int mwt_cph_hello(struct mwt_cp *cp, struct child *ch, const struct mw_hb_hello *h)
{
	struct cp_work *x = calloc(1, sizeof *x);
	if (!x)
		return hello_end(cp, ch, h, "out of memory");
	x->h = *h;
	if (mw_hb_auth_payload(h->job, h->node, mw_link_local(ch->l), ch->nonce, x->payload, sizeof x->payload) < 0) {
		free(x);
		return hello_end(cp, ch, h, "job, node or endpoint too long");
	}
	if (queue_work(cp, ch, x) < 0)
		return hello_end(cp, ch, h, "cannot check the credential now");
	return 2;
}

void mwt_cph_orphan(struct mwt_cp *cp)
{
	for (size_t i = 0; i < cp->nworks; i++)
		cp->works[i]->cp = NULL; /* freed when its work is over */
	free(cp->works);
	cp->works = NULL;
	cp->nworks = 0;
}
