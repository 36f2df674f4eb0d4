/* coltree.c - the collector's side of the tree overlay (coltree.h). */
#include "coltree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "mwt_agg.h"
#include "mwt_plan.h"
#include "mwt_probe.h"

#define COL_TREE_MOVES_MAX 256

static double wallclock(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct mw_ratelimit tree_rl = MW_RATELIMIT_INIT(1, 10);

struct tnode {
	int cp;          /* CP index of the plan on this node, -1 none */
	int up;          /* planned parent: node of the parent CP (CPs) or of the IBE (BEs); -1 the collector */
	int has_children;
	uint16_t port;   /* the CP's LISTEN port, 0 unknown */
	int sent;        /* ROLE: 1 listen told, 2 chain told */
	int moved;       /* left its direct link for the tree */
	int reattached;  /* times it attached to another parent than the first */
	uint32_t asked;  /* probe round it was asked to probe (direct link) */
	int delivered;   /* ... its summary came (1) or it is lost (2) */
	char via[MW_HB_STR_MAX + 1]; /* the CP serving it now ("" = the collector or none) */
	char first[MW_HB_STR_MAX + 1]; /* the first CP that served it */
	char last[MW_HB_STR_MAX + 1];  /* the last CP that served it (kept after it left) */
};

struct tmove {
	double t_unix;
	char node[MW_HB_STR_MAX + 1], from[MW_HB_STR_MAX + 1], to[MW_HB_STR_MAX + 1];
};

struct col_tree {
	long threshold;
	int fanout;
	size_t ncp, nnodes;
	int depth;
	struct tnode *n;
	struct mwt_seq *seen;
	uint32_t *rank_seq; /* per rank: the number of the heartbeat in use */
	size_t nrank_seq;
	struct tmove mv[COL_TREE_MOVES_MAX];
	size_t nmv;
	unsigned long agg_frames, agg_events, agg_dups, direct_dups, child_frames;
	struct mwt_psum *psum; /* the probe round under way (NULL none) */
	unsigned long probe_requests, probe_summaries, probe_refused, probed_by_cps;
};

void col_tree_factors(const struct mw_probe_result *r, struct mwt_factors *f)
{
	f->load = f->mem_free_mb = f->rtt_ms = -1;
	f->cores = 0;
	if (r->state != MW_PROBE_ALIVE && r->state != MW_PROBE_DEGRADED) {
		f->health = MWT_HEALTH_DOWN; /* no answer: the worst membership (mwt_fuzzy_rank) */
		return;
	}
	f->health = r->state == MW_PROBE_ALIVE ? MWT_HEALTH_OK : MWT_HEALTH_DEGRADED;
	f->rtt_ms = r->rtt_ms > 0 ? r->rtt_ms : -1;
	if (r->has_factors) {
		f->load = r->f.load;
		f->mem_free_mb = r->f.mem_free_mb;
		f->cores = r->f.cores;
	}
}

struct col_tree *col_tree_plan(const struct col_state *s, long threshold, long fanout, long cps,
			       const struct mwt_factors *factors, const double *weights)
{
	struct mwt_host *hosts = NULL;
	struct mwt_plan p = {0};
	struct mwt_plan_opts po = {factors ? MWT_FUZZY : MWT_AVERAGE, (int)fanout, -1, weights};
	struct col_tree *t = NULL;
	char err[300];
	int *be_host = NULL, *ibe_host = NULL, *ibe_cp = NULL, *out = NULL;
	size_t nbe = 0, nibe = 0;

	if (s->nnodes <= (size_t)threshold || s->nnodes < 2)
		return NULL;
	hosts = calloc(s->nnodes, sizeof *hosts);
	if (!hosts)
		goto fail;
	for (size_t i = 0; i < s->nnodes; i++) {
		snprintf(hosts[i].name, sizeof hosts[i].name, "%s", s->nodes[i].name);
		hosts[i].be = 1;
		if (factors)
			hosts[i].f = factors[i];
	}
	if (cps > 0)
		po.ncp = (int)(cps < (long)s->nnodes ? cps : (long)s->nnodes); /* one agent per node: one CP each at most */
	else if (mwt_default_cps(s->nnodes, (int)fanout) > s->nnodes)
		po.ncp = (int)s->nnodes;
	if (mwt_plan_build(hosts, s->nnodes, &po, &p, err, sizeof err) < 0) {
		mw_warn("tree: no plan (%s): the flat star", err);
		goto fail;
	}
	if (p.ncp == 0) {
		mw_info("tree: %zu node(s) need no CP under fanout %ld: the flat star", s->nnodes, fanout);
		goto fail;
	}
	t = calloc(1, sizeof *t);
	if (!t || !(t->n = calloc(s->nnodes, sizeof *t->n)) || !(t->seen = mwt_seq_create()))
		goto fail;
	t->threshold = threshold;
	t->fanout = (int)fanout;
	t->ncp = p.ncp;
	t->nnodes = s->nnodes;
	t->depth = p.depth;
	for (size_t i = 0; i < s->nnodes; i++)
		t->n[i].cp = t->n[i].up = -1;
	for (size_t c = 0; c < p.ncp; c++) {
		int h = p.cp_host[c];
		if (t->n[h].cp >= 0) {
			mw_warn("tree: two CPs on %s: the flat star", s->nodes[h].name);
			goto fail;
		}
		t->n[h].cp = (int)c;
	}
	for (size_t c = 0; c < p.ncp; c++) {
		int h = p.cp_host[c];
		t->n[h].up = p.cp_parent[c] < 0 ? -1 : p.cp_host[p.cp_parent[c]];
		if (p.cp_parent[c] >= 0)
			t->n[p.cp_host[p.cp_parent[c]]].has_children = 1;
	}
	/* A node with a CP counts its own heartbeats; the other BEs attach to
	 * the IBEs by the attach plan (same host first, then by room). */
	be_host = calloc(s->nnodes, sizeof *be_host);
	ibe_host = calloc(p.ncp, sizeof *ibe_host);
	ibe_cp = calloc(p.ncp, sizeof *ibe_cp);
	out = calloc(s->nnodes, sizeof *out);
	if (!be_host || !ibe_host || !ibe_cp || !out)
		goto fail;
	for (size_t c = 0; c < p.ncp; c++)
		if (!t->n[p.cp_host[c]].has_children) {
			ibe_cp[nibe] = (int)c;
			ibe_host[nibe++] = p.cp_host[c];
		}
	for (size_t i = 0; i < s->nnodes; i++)
		if (t->n[i].cp < 0)
			be_host[nbe++] = (int)i;
	if (nbe && mwt_attach(be_host, nbe, ibe_host, nibe, s->nnodes, out) < 0) {
		mw_warn("tree: no attach plan: %s: the flat star", strerror(errno));
		goto fail;
	}
	for (size_t b = 0; b < nbe; b++) {
		t->n[be_host[b]].up = ibe_host[out[b]];
		t->n[ibe_host[out[b]]].has_children = 1;
	}
	mw_info("tree: %zu node(s) > threshold %ld: %zu CP(s), fanout %ld, depth %d, %s placement", s->nnodes,
		threshold, p.ncp, fanout, p.depth, factors ? "fuzzy" : "average");
	for (size_t k = 0; factors && p.rank && p.eval && k < s->nnodes; k++) {
		const struct mwt_eval *e = &p.eval[p.rank[k]];
		const struct mwt_factors *x = &factors[p.rank[k]];
		if (x->health == MWT_HEALTH_DOWN)
			mw_info("tree: fuzzy rank %zu: %s, %s (B = good %.3f, fair %.3f, poor %.3f): its nodehealthd "
				"did not answer", k + 1, s->nodes[p.rank[k]].name, mwt_judgement_name(e->judgement),
				e->b[MWT_J_GOOD], e->b[MWT_J_FAIR], e->b[MWT_J_POOR]);
		else
			mw_info("tree: fuzzy rank %zu: %s, %s (B = good %.3f, fair %.3f, poor %.3f): load %.2f, "
				"%.0f MiB free, %d core(s), %s, round-trip %.2f ms", k + 1, s->nodes[p.rank[k]].name,
				mwt_judgement_name(e->judgement), e->b[MWT_J_GOOD], e->b[MWT_J_FAIR], e->b[MWT_J_POOR],
				x->load, x->mem_free_mb, x->cores, mwt_health_name(x->health), x->rtt_ms);
	}
	goto out;
fail:
	col_tree_free(t);
	t = NULL;
out:
	free(hosts);
	free(be_host);
	free(ibe_host);
	free(ibe_cp);
	free(out);
	mwt_plan_free(&p);
	return t;
}

void col_tree_free(struct col_tree *t)
{
	if (!t)
		return;
	free(t->n);
	mwt_psum_destroy(t->psum);
	mwt_seq_destroy(t->seen);
	free(t->rank_seq);
	free(t);
}

/* The chain of ancestors of node (nearest first) into r.  Return 1 when
 * every one listens and has an address, else 0. */
static int chain(const struct col_tree *t, const struct col_state *s, int node, struct mw_hb_role *r)
{
	r->nup = 0;
	for (int x = t->n[node].up; x >= 0; x = t->n[x].up) {
		struct mw_hb_up *u;
		if (r->nup >= MW_HB_UP_MAX || !t->n[x].port || !s->agents[x].addr[0])
			return 0;
		u = &r->up[r->nup++];
		snprintf(u->node, sizeof u->node, "%s", s->nodes[x].name);
		snprintf(u->host, sizeof u->host, "%s", s->agents[x].addr);
		u->port = t->n[x].port;
	}
	return 1;
}

void col_tree_roles(struct col_tree *t, const struct col_state *s, col_tree_send_fn send, void *arg)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nnodes; i++) {
		struct tnode *n = &t->n[i];
		struct mw_hb_msg m = {0};
		if (!s->agents[i].hello || n->moved || n->sent >= 2)
			continue;
		m.type = MW_HB_ROLE;
		m.u.role.cp = n->cp >= 0;
		if (n->cp >= 0 && n->sent < 1) {
			if (send(arg, (int)i, &m) < 0)
				continue;
			n->sent = n->up < 0 ? 2 : 1; /* under the collector: nothing more to tell */
			if (n->sent == 2)
				continue;
		}
		if (n->up < 0 || !chain(t, s, (int)i, &m.u.role))
			continue;
		if (send(arg, (int)i, &m) == 0)
			n->sent = 2;
	}
}

void col_tree_listen(struct col_tree *t, struct col_state *s, int node, uint16_t port)
{
	if (!t || node < 0 || (size_t)node >= t->nnodes || t->n[node].cp < 0) {
		mw_log_limited(&tree_rl, LOG_WARNING, "tree: LISTEN from node %s, which runs no CP",
			       node >= 0 && (size_t)node < s->nnodes ? s->nodes[node].name : "?");
		return;
	}
	t->n[node].port = port;
	mw_info("tree: the CP on %s listens on port %u", s->nodes[node].name, port);
}

int col_tree_is_cp(const struct col_tree *t, int node)
{
	return t && node >= 0 && (size_t)node < t->nnodes && t->n[node].cp >= 0;
}

int col_tree_in_tree(const struct col_tree *t, int node)
{
	return t && node >= 0 && (size_t)node < t->nnodes && (t->n[node].moved || t->n[node].via[0]);
}

void col_tree_bye(struct col_tree *t, struct col_state *s, int node, const char *reason)
{
	if (!t || node < 0 || (size_t)node >= t->nnodes)
		return;
	if (strncmp(reason, "moved into the tree", 19) == 0) {
		t->n[node].moved = 1;
		s->agents[node].bye = 0; /* not gone: served by a CP */
	}
}

static void note_move(struct col_tree *t, struct col_state *s, int node, const char *to)
{
	struct tnode *n = &t->n[node];
	const char *from = n->via[0] ? n->via : "collector";
	if (t->nmv < COL_TREE_MOVES_MAX) {
		struct tmove *m = &t->mv[t->nmv++];
		m->t_unix = wallclock();
		snprintf(m->node, sizeof m->node, "%s", s->nodes[node].name);
		snprintf(m->from, sizeof m->from, "%s", from);
		snprintf(m->to, sizeof m->to, "%s", to);
	}
	n->reattached++;
	col_state_event(s, "note", "tree: %s re-attached to %s%s (was %s%s)", s->nodes[node].name,
			strcmp(to, "collector") ? "the CP on " : "the ", to, strcmp(from, "collector") ? "the CP on " : "the ",
			from);
}

void col_tree_hello(struct col_tree *t, struct col_state *s, int node)
{
	struct tnode *n;
	if (!t || node < 0 || (size_t)node >= t->nnodes)
		return;
	n = &t->n[node];
	if (n->via[0] || n->moved) /* back on a direct link: its CPs are gone */
		note_move(t, s, node, "collector");
	n->via[0] = 0;
	n->moved = 0;
}

static int find_node(const struct col_state *s, const char *name)
{
	for (size_t i = 0; i < s->nnodes; i++)
		if (strcmp(s->nodes[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* The CP serving node now (its actual parent), -1 for none (the
 * collector's direct link, or not attached). */
static int served_by(const struct col_tree *t, const struct col_state *s, int node)
{
	return t->n[node].via[0] ? find_node(s, t->n[node].via) : -1;
}

int col_tree_speaks_for(const struct col_tree *t, const struct col_state *s, int link_node, int node)
{
	if (link_node < 0 || node < 0 || (size_t)node >= s->nnodes)
		return 0;
	if (link_node == node)
		return 1;
	if (!t || (size_t)node >= t->nnodes)
		return 0;
	/* Up the chain of CPs that serve node now, as their CHILD frames
	 * said (each CP authenticated the child it names). */
	for (size_t hops = 0, x = (size_t)node; hops < t->nnodes; hops++) {
		int up = served_by(t, s, (int)x);
		if (up < 0)
			return 0;
		if (up == link_node)
			return 1;
		x = (size_t)up;
	}
	return 0;
}

int col_tree_top(const struct col_tree *t, const struct col_state *s, int node)
{
	int x = node;
	if (!t || node < 0 || (size_t)node >= t->nnodes)
		return node;
	for (size_t hops = 0; hops < t->nnodes; hops++) {
		int up = served_by(t, s, x);
		if (up < 0)
			return x;
		x = up;
	}
	return node; /* a loop in what the CPs said: its own link, if any */
}

int col_tree_child(struct col_tree *t, struct col_state *s, const struct mw_hb_child *c)
{
	int node = find_node(s, c->node);
	struct tnode *n;
	if (!t || node < 0) {
		mw_log_limited(&tree_rl, LOG_WARNING, "tree: CHILD frame about unknown node %s", c->node);
		return -1;
	}
	t->child_frames++;
	n = &t->n[node];
	if (c->up) {
		if (n->first[0] && strcmp(n->via, c->parent) != 0)
			note_move(t, s, node, c->parent);
		if (!n->first[0])
			snprintf(n->first, sizeof n->first, "%s", c->parent);
		snprintf(n->via, sizeof n->via, "%s", c->parent);
		snprintf(n->last, sizeof n->last, "%s", c->parent);
		n->moved = 1;
		s->agents[node].hello = s->agents[node].connected = 1;
		s->agents[node].bye = 0;
		if (s->agents[node].vanished)
			col_state_event(s, "note", "agent of node %s is back, through the CP on %s", c->node, c->parent);
		s->agents[node].vanished = 0;
		return -1;
	}
	/* Left: counts only if it left the CP that serves it now (a child
	 * that re-attached elsewhere already is not lost). */
	if (strcmp(n->via, c->parent) != 0)
		return -1;
	n->via[0] = 0;
	s->agents[node].connected = 0;
	if (c->bye) {
		s->agents[node].bye = 1;
		return -1;
	}
	return node;
}

struct ev {
	int node;
	uint32_t seq;
	int32_t rank;
	size_t cls;
	const char *origin;
};

static int ev_cmp(const void *x, const void *y)
{
	const struct ev *a = x, *b = y;
	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Whether the heartbeat (rank, seq) is newer than the one in use for its
 * rank (and then it is). */
static int rank_fresh(struct col_tree *t, int32_t rank, uint32_t seq)
{
	if (rank < 0)
		return 0;
	if ((size_t)rank >= t->nrank_seq) {
		size_t n = (size_t)rank + 1 > t->nrank_seq * 2 ? (size_t)rank + 1 : t->nrank_seq * 2;
		uint32_t *p = realloc(t->rank_seq, n * sizeof *p);
		if (!p)
			return 1;
		memset(p + t->nrank_seq, 0, (n - t->nrank_seq) * sizeof *p);
		t->rank_seq = p;
		t->nrank_seq = n;
	}
	if (t->rank_seq[rank] && seq <= t->rank_seq[rank])
		return 0;
	t->rank_seq[rank] = seq;
	return 1;
}

long col_tree_agg(struct col_tree *t, struct col_state *s, const char *json, col_tree_beat_fn fn, void *arg)
{
	char err[300];
	struct mwt_agg *a;
	struct ev *e = NULL;
	size_t n = 0, cap = 0;
	long given = 0;

	if (!t) {
		mw_log_limited(&tree_rl, LOG_WARNING, "an aggregate, but this job runs no tree");
		return -1;
	}
	a = mwt_agg_from_json(json, strlen(json), err, sizeof err);
	if (!a) {
		mw_log_limited(&tree_rl, LOG_WARNING, "tree: %s", err);
		return -1;
	}
	t->agg_frames++;
	for (size_t i = 0; i < mwt_agg_nclasses(a); i++)
		cap += mwt_agg_class_nevents(a, i);
	e = malloc((cap ? cap : 1) * sizeof *e);
	if (!e) {
		mwt_agg_destroy(a);
		return -1;
	}
	for (size_t i = 0; i < mwt_agg_nclasses(a); i++)
		for (size_t j = 0; j < mwt_agg_class_nevents(a, i); j++) {
			struct ev *x = &e[n];
			if (mwt_agg_class_event(a, i, j, &x->origin, &x->seq, &x->rank) < 0)
				continue;
			x->node = find_node(s, x->origin);
			x->cls = i;
			if (x->node < 0) {
				mw_log_limited(&tree_rl, LOG_WARNING, "tree: an event of node %s, not in the job",
					       x->origin);
				continue;
			}
			n++;
		}
	/* In each origin's order: a rank's later state wins. */
	qsort(e, n, sizeof *e, ev_cmp);
	for (size_t k = 0; k < n; k++) {
		struct mw_hb_beat b;
		int r = mwt_seq_accept(t->seen, e[k].origin, e[k].seq);
		if (r != 1) {
			t->agg_dups++;
			continue;
		}
		t->agg_events++;
		if (!rank_fresh(t, e[k].rank, e[k].seq))
			continue;
		mwt_class_beat(mwt_agg_class(a, e[k].cls), e[k].rank, e[k].seq, &b);
		fn(arg, e[k].node, &b);
		given++;
	}
	free(e);
	mwt_agg_destroy(a);
	return given;
}

int col_tree_direct_beat(struct col_tree *t, const struct col_state *s, int node, const struct mw_hb_beat *b)
{
	int r;
	if (!t || !b->seq || node < 0 || (size_t)node >= s->nnodes)
		return 1;
	r = mwt_seq_accept(t->seen, s->nodes[node].name, b->seq);
	if (r == 0) {
		t->direct_dups++;
		return 0;
	}
	return rank_fresh(t, b->rank, b->seq);
}

int col_tree_depth(const struct col_tree *t)
{
	return t ? t->depth : 0;
}

int col_tree_probe_begin(struct col_tree *t, const struct col_state *s, const struct mw_hb_probereq *r,
			 col_tree_send_fn send, void *arg)
{
	struct mw_hb_msg m = {0};
	int asked = 0;
	if (!t)
		return 0;
	mwt_psum_destroy(t->psum);
	t->psum = mwt_psum_create(r->round, "collector");
	if (!t->psum)
		return 0;
	m.type = MW_HB_PROBEREQ;
	m.u.probereq = *r;
	for (size_t i = 0; i < t->nnodes; i++) {
		struct tnode *n = &t->n[i];
		int serves = 0;
		n->asked = 0;
		n->delivered = 0;
		if (n->cp < 0 || n->via[0] || !s->agents[i].connected)
			continue; /* not a CP on a direct link */
		/* Serves children now, or was planned to (it probes the
		 * children it lost too). */
		for (size_t j = 0; j < t->nnodes && !serves; j++)
			serves = t->n[j].up == (int)i || strcmp(t->n[j].via, s->nodes[i].name) == 0;
		if (!serves || send(arg, (int)i, &m) < 0)
			continue;
		n->asked = r->round;
		t->probe_requests++;
		asked++;
	}
	if (!asked) {
		mwt_psum_destroy(t->psum);
		t->psum = NULL;
	}
	return asked;
}

int col_tree_probe_done(const struct col_tree *t)
{
	if (!t || !t->psum)
		return 1;
	for (size_t i = 0; i < t->nnodes; i++)
		if (t->n[i].asked == mwt_psum_round(t->psum) && !t->n[i].delivered)
			return 0;
	return 1;
}

int col_tree_probe_lost(struct col_tree *t, int node)
{
	if (!t || !t->psum || node < 0 || (size_t)node >= t->nnodes)
		return col_tree_probe_done(t);
	if (t->n[node].asked == mwt_psum_round(t->psum) && !t->n[node].delivered)
		t->n[node].delivered = 2;
	return col_tree_probe_done(t);
}

int col_tree_probesum(struct col_tree *t, struct col_state *s, int from, const char *json)
{
	char err[300];
	struct mwt_psum *x;
	int *plan = NULL, *now = NULL;
	size_t refused = 0;
	if (!t || from < 0 || (size_t)from >= t->nnodes) {
		mw_log_limited(&tree_rl, LOG_WARNING, "a probe summary, but this job runs no tree");
		return -1;
	}
	x = mwt_psum_from_json(json, strlen(json), err, sizeof err);
	if (!x) {
		mw_log_limited(&tree_rl, LOG_WARNING, "tree: from %s: %s", s->nodes[from].name, err);
		return -1;
	}
	if (!t->psum || t->n[from].asked != mwt_psum_round(t->psum) || mwt_psum_round(x) != t->n[from].asked ||
	    t->n[from].delivered || strcmp(mwt_psum_from(x), s->nodes[from].name) != 0) {
		mw_log_limited(&tree_rl, LOG_WARNING, "tree: a probe summary of round %u from %s not asked for: dropped",
			       mwt_psum_round(x), s->nodes[from].name);
		t->probe_refused++;
		mwt_psum_destroy(x);
		return -1;
	}
	t->probe_summaries++;
	t->n[from].delivered = 1;
	plan = malloc(t->nnodes * sizeof *plan);
	now = malloc(t->nnodes * sizeof *now);
	if (!plan || !now)
		goto out;
	for (size_t i = 0; i < t->nnodes; i++) {
		plan[i] = t->n[i].up;
		now[i] = t->n[i].via[0] ? find_node(s, t->n[i].via) : -1;
	}
	for (size_t i = 0; i < mwt_psum_n(x); i++) {
		const char *node, *by;
		struct mw_probe_result r;
		int k, b;
		mwt_psum_get(x, i, &node, &by, &r);
		k = find_node(s, node);
		b = find_node(s, by);
		/* A CP speaks for its own subtree only: the node and the CP
		 * that probed it below the sender, not the sender itself. */
		if (k < 0 || b < 0 || k == from || !mwt_in_subtree(plan, now, t->nnodes, from, k) ||
		    !mwt_in_subtree(plan, now, t->nnodes, from, b)) {
			refused++;
			continue;
		}
		mwt_psum_add(t->psum, node, by, &r);
	}
	for (size_t i = 0; i < mwt_psum_nmissing(x); i++) {
		int k = find_node(s, mwt_psum_missing_at(x, i));
		if (k >= 0 && mwt_in_subtree(plan, now, t->nnodes, from, k))
			mwt_psum_missing(t->psum, mwt_psum_missing_at(x, i));
	}
	if (refused) {
		t->probe_refused += refused;
		col_state_event(s, "note", "probe summary of the CP on %s: %zu result(s) on nodes outside its subtree refused",
				s->nodes[from].name, refused);
	}
out:
	free(plan);
	free(now);
	mwt_psum_destroy(x);
	return col_tree_probe_done(t);
}

size_t col_tree_probe_take(struct col_tree *t, struct col_state *s, struct mw_probe_result *out, char *covered,
			   char (*by)[MW_HB_STR_MAX + 1])
{
	size_t n = 0;
	if (!t || !t->psum)
		return 0;
	for (size_t i = 0; i < t->nnodes; i++) {
		struct tnode *x = &t->n[i];
		if (x->asked == mwt_psum_round(t->psum) && x->delivered != 1)
			col_state_event(s, "note", "probe round %u: the CP on %s did not deliver its summary (%s): "
					"the collector probes its subtree itself, and its node",
					mwt_psum_round(t->psum), s->nodes[i].name, x->delivered == 2 ? "lost" : "no answer in time");
		x->asked = 0;
		x->delivered = 0;
	}
	for (size_t i = 0; i < mwt_psum_nmissing(t->psum); i++)
		col_state_event(s, "note", "probe round %u: the CP on %s did not deliver its summary to its parent: "
				"the collector probes its subtree itself, and its node",
				mwt_psum_round(t->psum), mwt_psum_missing_at(t->psum, i));
	for (size_t i = 0; i < mwt_psum_n(t->psum); i++) {
		const char *node, *b;
		struct mw_probe_result r;
		int k;
		mwt_psum_get(t->psum, i, &node, &b, &r);
		k = find_node(s, node);
		if (k < 0 || covered[k])
			continue;
		out[k] = r;
		covered[k] = 1;
		snprintf(by[k], sizeof by[k], "%s", b);
		n++;
	}
	t->probed_by_cps += n;
	mwt_psum_destroy(t->psum);
	t->psum = NULL;
	return n;
}

static const char *name_or(const struct col_state *s, int node, const char *none)
{
	return node >= 0 ? s->nodes[node].name : none;
}

/* Who served node i last: its last CP, "collector" if only the collector
 * did, "" if its agent never said hello. */
static const char *last_server(const struct col_tree *t, const struct col_state *s, size_t i)
{
	return t->n[i].last[0] ? t->n[i].last : s->agents[i].hello ? "collector" : "";
}

json_object *col_tree_json(const struct col_tree *t, const struct col_state *s)
{
	json_object *o = json_object_new_object(), *nodes = json_object_new_array(),
		    *mv = json_object_new_array(), *st = json_object_new_object();
	json_object_object_add(o, "threshold", json_object_new_int64(t->threshold));
	json_object_object_add(o, "fanout", json_object_new_int(t->fanout));
	json_object_object_add(o, "cps", json_object_new_int64((int64_t)t->ncp));
	json_object_object_add(o, "depth", json_object_new_int(t->depth));
	json_object_object_add(o, "strategy", json_object_new_string("average"));
	for (size_t i = 0; i < t->nnodes; i++) {
		const struct tnode *n = &t->n[i];
		json_object *x = json_object_new_object();
		json_object_object_add(x, "node", json_object_new_string(s->nodes[i].name));
		json_object_object_add(x, "role", json_object_new_string(n->cp >= 0 ? "cp" : "be"));
		json_object_object_add(x, "planned_parent", json_object_new_string(name_or(s, n->up, "collector")));
		json_object_object_add(x, "parent",
				       json_object_new_string(n->via[0] ? n->via
							      : s->agents[i].connected ? "collector" : ""));
		json_object_object_add(x, "served_by",
				       json_object_new_string(last_server(t, s, i)));
		json_object_object_add(x, "reattached", json_object_new_int(n->reattached));
		json_object_array_add(nodes, x);
	}
	json_object_object_add(o, "nodes", nodes);
	for (size_t i = 0; i < t->nmv; i++) {
		json_object *x = json_object_new_object();
		json_object_object_add(x, "t", json_object_new_double(t->mv[i].t_unix));
		json_object_object_add(x, "node", json_object_new_string(t->mv[i].node));
		json_object_object_add(x, "from", json_object_new_string(t->mv[i].from));
		json_object_object_add(x, "to", json_object_new_string(t->mv[i].to));
		json_object_array_add(mv, x);
	}
	json_object_object_add(o, "reattachments", mv);
	json_object_object_add(st, "agg_frames", json_object_new_int64((int64_t)t->agg_frames));
	json_object_object_add(st, "agg_events", json_object_new_int64((int64_t)t->agg_events));
	json_object_object_add(st, "duplicates", json_object_new_int64((int64_t)(t->agg_dups + t->direct_dups)));
	json_object_object_add(st, "child_frames", json_object_new_int64((int64_t)t->child_frames));
	json_object_object_add(st, "probe_requests", json_object_new_int64((int64_t)t->probe_requests));
	json_object_object_add(st, "probe_summaries", json_object_new_int64((int64_t)t->probe_summaries));
	json_object_object_add(st, "probe_refused", json_object_new_int64((int64_t)t->probe_refused));
	json_object_object_add(st, "probed_by_cps", json_object_new_int64((int64_t)t->probed_by_cps));
	json_object_object_add(o, "stats", st);
	return o;
}

void col_tree_text(const struct col_tree *t, const struct col_state *s, FILE *f)
{
	fprintf(f, "\nTree overlay: %zu node(s) > threshold %ld: %zu CP(s), fanout %d, depth %d\n", t->nnodes,
		t->threshold, t->ncp, t->fanout, t->depth);
	for (size_t i = 0; i < t->nnodes; i++) {
		const struct tnode *n = &t->n[i];
		const char *now = n->via[0] ? n->via : s->agents[i].connected ? "collector" : "", *until = "";
		if (!now[0]) { /* after the job (or a loss) nobody serves it now: who did */
			now = last_server(t, s, i);
			if (now[0])
				until = " (until it left)";
			else
				now = "(none)";
		}
		fprintf(f, "  %-16s %s, served by %s%s", s->nodes[i].name, n->cp >= 0 ? "CP" : "BE", now, until);
		if (strcmp(now, name_or(s, n->up, "collector")) != 0)
			fprintf(f, " (planned: %s)", name_or(s, n->up, "collector"));
		if (n->reattached)
			fprintf(f, ", re-attached %d time(s)", n->reattached);
		fputc('\n', f);
	}
	for (size_t i = 0; i < t->nmv; i++)
		fprintf(f, "  re-attachment: %s from %s to %s\n", t->mv[i].node, t->mv[i].from, t->mv[i].to);
	fprintf(f, "  %lu aggregate(s) for %lu event(s); %lu duplicate(s) dropped\n", t->agg_frames, t->agg_events,
		t->agg_dups + t->direct_dups);
}
