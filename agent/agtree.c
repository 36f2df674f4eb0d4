/* agtree.c - the node agent's part in the tree overlay (agtree.h). */
#include "agtree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "settings.h"

struct ag_tree {
	struct mw_hb_role role; /* role.up: the chain of ancestors, nearest first */
	size_t target;          /* index into role.up; role.nup: the collector */
	int move;
	struct mwt_cp *cp;
	uint16_t port;
	char node[MW_HB_STR_MAX + 1];
	char name[MW_HB_STR_MAX + 16];
};

int ag_tree_role(struct ag_tree **tp, uv_loop_t *loop, const struct ag_opts *o, const struct mw_hb_role *r,
		 mwt_cp_up_fn up, void *arg)
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
		struct mwt_cp_opts co = {o->job, o->node, mw_setting_str(MW_SET_MUNGE_SOCKET), o->auth_token, 0.05,
					 mw_setting_double(MW_SET_LIVENESS)};
		struct mw_hb_msg m = {0};
		t->cp = mwt_cp_create(loop, &co, up, arg, &t->port);
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

void ag_tree_leaving(struct ag_tree *t)
{
	if (t && t->cp)
		mwt_cp_flush(t->cp);
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
		mwt_cp_destroy(t->cp);
	}
	free(t);
}
