/* agtree.c - the node agent's part in the tree overlay (agtree.h). */
#include "agtree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

/* The CP's sockets on the agent's loop: one uv_poll per entry of
 * mwt_cp_pollfds, made before each wait and closed after mwt_cp_serve (in
 * the same turn of the loop, so that a socket the CP closes is never
 * watched when its number comes back). */
#define AG_TREE_MAX_FDS 4100

struct cp_watch {
	uv_poll_t h;
	struct ag_tree *t;
	size_t i;
};

struct ag_tree {
	struct mw_hb_role role; /* role.up: the chain of ancestors, nearest first */
	size_t target;          /* index into role.up; role.nup: the collector */
	int move;
	struct mwt_cp *cp;
	uint16_t port;
	char node[MW_HB_STR_MAX + 1];
	char name[MW_HB_STR_MAX + 16];
	struct pollfd p[AG_TREE_MAX_FDS];
	struct cp_watch *w[AG_TREE_MAX_FDS];
	size_t np;
	int hit;            /* a watched socket reported since the last serve */
	uv_check_t *check;  /* after the loop's wait: mwt_cp_serve */
};

int ag_tree_role(struct ag_tree **tp, const struct ag_opts *o, const struct mw_hb_role *r, mwt_cp_up_fn up,
		 void *arg)
{
	struct ag_tree *t = *tp;
	if (!t) {
		t = calloc(1, sizeof *t);
		if (!t)
			return -1;
		snprintf(t->node, sizeof t->node, "%s", o->node);
		*tp = t;
		mw_info("tree: this job runs through the tree overlay; dumps go up on demand");
	}
	if (r->cp && !t->cp) {
		struct mwt_cp_opts co = {o->job, o->node, o->munge_socket, o->auth_token, 0.05, o->liveness_s};
		struct mw_hb_msg m = {0};
		t->cp = mwt_cp_create(&co, up, arg, &t->port);
		if (!t->cp)
			return -1;
		m.type = MW_HB_LISTEN;
		m.u.listen.port = t->port;
		up(arg, &m);
	}
	if (r->nup > 0 && t->target >= t->role.nup) {
		/* Still on the collector: attach to the parent named. */
		t->role.nup = r->nup;
		memcpy(t->role.up, r->up, r->nup * sizeof r->up[0]);
		t->target = 0;
		t->move = 1;
		mw_info("tree: %s, attaching to the CP on %s (%zu ancestor(s) to fall back on, then the collector)",
			t->cp ? "communication process" : "back end", r->up[0].node, r->nup - 1);
	}
	return 0;
}

int ag_tree_wants_move(struct ag_tree *t)
{
	int m = t && t->move;
	if (t)
		t->move = 0;
	return m;
}

int ag_tree_target(const struct ag_tree *t, char *host, size_t len, uint16_t *port)
{
	if (!t || t->target >= t->role.nup)
		return 0;
	snprintf(host, len, "%s", t->role.up[t->target].host);
	*port = t->role.up[t->target].port;
	return 1;
}

int ag_tree_lost_parent(struct ag_tree *t)
{
	if (!t || t->target >= t->role.nup)
		return 0;
	t->target++;
	return 1;
}

const char *ag_tree_parent_name(struct ag_tree *t)
{
	if (!t || t->target >= t->role.nup)
		return "collector";
	snprintf(t->name, sizeof t->name, "CP on %s", t->role.up[t->target].node);
	return t->name;
}

int ag_tree_own_beat(struct ag_tree *t, const struct mw_hb_beat *b)
{
	if (!t || !t->cp)
		return -1;
	if (mwt_cp_beat(t->cp, t->node, b, mw_now()) < 0) {
		mw_warn("tree: own heartbeat refused: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void ag_tree_uplink(struct ag_tree *t)
{
	if (t && t->cp)
		mwt_cp_uplink(t->cp);
}

void ag_tree_dumpreq(struct ag_tree *t, const struct mw_hb_msg *m)
{
	if (t && t->cp)
		mwt_cp_dumpreq(t->cp, m);
}

/* Auxiliary processes through the tree: an APREQ goes on down (the
 * agent's own round is ag_ap_request's), an APOUT of a child up
 * (mwt_cp.c). */
void ag_tree_apreq(struct ag_tree *t, const struct mw_hb_msg *m)
{
	if (t && t->cp)
		mwt_cp_apreq(t->cp, m);
}

void ag_tree_probereq(struct ag_tree *t, const struct mw_hb_probereq *r)
{
	if (t && t->cp)
		mwt_cp_probereq(t->cp, r, mw_now());
	else
		mw_warn("tree: a probe request for round %u, but this agent runs no CP: ignored", r->round);
}

static void free_handle(uv_handle_t *h)
{
	free(h);
}

static void unwatch(struct ag_tree *t)
{
	for (size_t i = 0; i < t->np; i++)
		if (t->w[i])
			uv_close((uv_handle_t *)&t->w[i]->h, free_handle);
	t->np = 0;
}

static void on_fd(uv_poll_t *h, int status, int events)
{
	struct cp_watch *w = (struct cp_watch *)h;
	struct pollfd *p = &w->t->p[w->i];
	if (status < 0)
		p->revents |= POLLERR;
	if (events & UV_READABLE)
		p->revents |= POLLIN;
	if (events & UV_WRITABLE)
		p->revents |= POLLOUT;
	if (events & UV_DISCONNECT)
		p->revents |= POLLHUP;
	w->t->hit = 1;
}

static void on_check(uv_check_t *c)
{
	struct ag_tree *t = c->data;
	if (!t->hit)
		return;
	t->hit = 0;
	mwt_cp_serve(t->cp, t->p, t->np, mw_now());
	unwatch(t);
}

void ag_tree_watch(struct ag_tree *t, uv_loop_t *loop)
{
	if (!t || !t->cp)
		return;
	if (!t->check) {
		if (!(t->check = malloc(sizeof *t->check)))
			return;
		uv_check_init(loop, t->check);
		t->check->data = t;
		uv_check_start(t->check, on_check);
	}
	unwatch(t);
	t->hit = 0;
	t->np = mwt_cp_pollfds(t->cp, t->p, AG_TREE_MAX_FDS);
	for (size_t i = 0; i < t->np; i++) {
		struct cp_watch *w = malloc(sizeof *w);
		int ev = ((t->p[i].events & POLLIN) ? UV_READABLE : 0) | ((t->p[i].events & POLLOUT) ? UV_WRITABLE : 0);
		t->w[i] = NULL;
		if (!w || uv_poll_init(loop, &w->h, t->p[i].fd) < 0) {
			free(w);
			continue;
		}
		w->t = t;
		w->i = i;
		t->w[i] = w;
		uv_poll_start(&w->h, ev, on_fd);
	}
}

double ag_tree_tick(struct ag_tree *t, double now)
{
	return t && t->cp ? mwt_cp_tick(t->cp, now) : now + 3600;
}

void ag_tree_free(struct ag_tree *t)
{
	if (!t)
		return;
	if (t->cp) {
		size_t ch;
		unsigned long aggs, ev;
		unsigned long rounds, probed;
		mwt_cp_stats(t->cp, &ch, &aggs, &ev);
		mwt_cp_probe_stats(t->cp, &rounds, &probed);
		mw_info("tree: communication process stopping: %zu child(ren) attached, %lu aggregate(s) sent for %lu event(s), "
			"%lu probe round(s) over %lu node(s)",
			ch, aggs, ev, rounds, probed);
		unwatch(t);
		mwt_cp_destroy(t->cp);
	}
	if (t->check)
		uv_close((uv_handle_t *)t->check, free_handle);
	free(t);
}
