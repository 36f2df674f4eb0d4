/* mwt_cpprobe.c - the CP role's probing down the tree (mwt_cp.h,
 * mwt_cpstate.h; doc/tree.md "Probing down the tree"): a PROBEREQ goes on to
 * the child CPs, the CP probes its children's nodes itself on the loop
 * (shared/uvprobe.h), and one PROBESUM goes up when every child CP asked
 * has answered, or when the time is up. */
#include "mwt_cpstate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uvprobe.h"

static void probe_send(struct mwt_cp *cp);

/* Our own round's buffers freed. */
static void round_free(struct mwt_cp *cp)
{
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

/* Our own round is over: its results go into the round's summary, which
 * may then go up. */
static void round_done(void *arg, int rc)
{
	struct mwt_cp *cp = arg;
	cp->pround = NULL;
	if (cp->pdiscard) {
		round_free(cp);
		return;
	}
	if (rc < 0)
		mw_warn("tree: probe round %u: %s", cp->psum ? mwt_psum_round(cp->psum) : 0, strerror(errno));
	for (size_t i = 0; cp->psum && i < cp->pn; i++)
		if (mwt_psum_add(cp->psum, cp->pnames[i], cp->node, &cp->pout[i]) < 0)
			mw_warn("tree: probe round %u: result of %s: %s", mwt_psum_round(cp->psum), cp->pnames[i],
				strerror(errno));
	cp->probed += cp->pn;
	round_free(cp);
	cp->probe_due = cp->pdue;
	mwt_cpp_check_done(cp);
}

/* Our own round given up (its results dropped) and its buffers freed. */
static void round_stop(struct mwt_cp *cp)
{
	if (cp->pround) {
		cp->pdiscard = 1;
		mw_uvprobe_stop(cp->pround); /* round_done, now */
		cp->pdiscard = 0;
	}
	cp->pround = NULL;
	round_free(cp);
}

void mwt_cpp_free(struct mwt_cp *cp)
{
	round_stop(cp);
	mwt_psum_destroy(cp->psum);
	cp->psum = NULL;
	free(cp->lost);
	cp->lost = NULL;
	cp->nlost = 0;
}

void mwt_cpp_child_gone(struct mwt_cp *cp, struct child *ch)
{
	if (cp->psum && ch->asked == mwt_psum_round(cp->psum) && !ch->delivered) {
		mwt_psum_missing(cp->psum, ch->node);
		ch->asked = 0;
	}
}

double mwt_cpp_tick(struct mwt_cp *cp, double now, double next)
{
	if (cp->psum && cp->probe_due > 0 && now >= cp->probe_due)
		probe_send(cp);
	if (cp->psum && cp->probe_due > 0 && cp->probe_due < next)
		next = cp->probe_due;
	return next;
}

void mwt_cpp_lost_forget(struct mwt_cp *cp, const char *node)
{
	for (size_t i = cp->nlost; i-- > 0;)
		if (strcmp(cp->lost[i].node, node) == 0)
			cp->lost[i] = cp->lost[--cp->nlost];
}

void mwt_cpp_lost_keep(struct mwt_cp *cp, const struct child *ch)
{
	struct lostrec *p;
	mwt_cpp_lost_forget(cp, ch->node);
	if (cp->nlost >= CP_MAX_CHILDREN || !(p = realloc(cp->lost, (cp->nlost + 1) * sizeof *p)))
		return;
	cp->lost = p;
	p = &cp->lost[cp->nlost++];
	snprintf(p->node, sizeof p->node, "%s", ch->node);
	mwt_cp_peer_host(mw_link_peer(ch->l), p->host, sizeof p->host);
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

void mwt_cpp_check_done(struct mwt_cp *cp)
{
	if (!cp->psum || cp->probe_due <= 0)
		return; /* not asked yet, or still probing */
	for (size_t k = 0; k < cp->nc; k++)
		if (cp->c[k].asked && !cp->c[k].delivered)
			return;
	probe_send(cp);
}

void mwt_cpp_sum(struct mwt_cp *cp, struct child *ch, const char *json)
{
	char err[200];
	struct mwt_psum *x = mwt_psum_from_json(json, strlen(json), err, sizeof err);
	if (!x) {
		mw_log_limited(&mwt_cp_rl, LOG_WARNING, "tree: bad probe summary from %s: %s", ch->node, err);
		return;
	}
	if (!cp->psum || !ch->asked || mwt_psum_round(x) != mwt_psum_round(cp->psum) || ch->delivered ||
	    strcmp(mwt_psum_from(x), ch->node) != 0) {
		mw_log_limited(&mwt_cp_rl, LOG_WARNING, "tree: probe summary of round %u from %s not asked for: dropped",
			       mwt_psum_round(x), ch->node);
		mwt_psum_destroy(x);
		return;
	}
	if (mwt_psum_merge(cp->psum, x) < 0)
		mw_warn("tree: cannot merge the probe summary of %s: %s", ch->node, strerror(errno));
	ch->delivered = 1;
	mwt_psum_destroy(x);
	mwt_cpp_check_done(cp);
}

void mwt_cp_probereq(struct mwt_cp *cp, const struct mw_hb_probereq *r, double now)
{
	struct mw_hb_msg fw = {0};
	const char **names = NULL, **addrs = NULL;
	char (*hosts)[64] = NULL;
	char (*nodes)[MW_HB_STR_MAX + 1] = NULL;
	struct mw_probe_result *out = NULL;
	size_t n = 0, asked = 0;

	round_stop(cp); /* a round of ours still under way: the new one replaces it */
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
		mwt_cp_peer_host(mw_link_peer(cp->c[k].l), hosts[n], sizeof hosts[n]);
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
	/* Our own round runs on the loop (mw_uvprobe): children keep
	 * attaching and sending meanwhile. */
	cp->pnames = names, cp->paddrs = addrs, cp->phosts = hosts, cp->pnodes = nodes, cp->pout = out;
	cp->pn = n;
	names = addrs = NULL, hosts = NULL, nodes = NULL, out = NULL;
	cp->pdue = now + r->wait_s;
	if (n && !(cp->pround = mw_uvprobe_start(cp->loop, cp->pnames, cp->paddrs, n, r->port, r->budget_s,
						  r->tries, 0, cp->pout, round_done, cp)))
		mw_warn("tree: probe round %u: %s", r->round, strerror(errno));
	if (cp->pround)
		return;
	for (size_t i = 0; i < n; i++) { /* could not start: every node an error */
		cp->pout[i].state = MW_PROBE_ERROR;
		snprintf(cp->pout[i].summary, sizeof cp->pout[i].summary, "local error: %s", strerror(errno));
		if (mwt_psum_add(cp->psum, cp->pnames[i], cp->node, &cp->pout[i]) < 0)
			mw_warn("tree: probe round %u: result of %s: %s", r->round, cp->pnames[i], strerror(errno));
	}
	round_free(cp);
out:
	free(names);
	free(addrs);
	free(hosts);
	free(nodes);
	free(out);
	cp->probe_due = now + r->wait_s;
	mwt_cpp_check_done(cp);
}

void mwt_cp_probe_stats(const struct mwt_cp *cp, unsigned long *rounds, unsigned long *probed)
{
	*rounds = cp->probe_rounds;
	*probed = cp->probed;
}
