/* coltree.h - the collector's side of the tree overlay (doc/tree.md, "The
 * tree in use"): the plan made at start-up for a job above the tree
 * threshold, the ROLE handed to each agent, the aggregates (AGG) received
 * from the CPs turned back into the heartbeats the verdict reads (each
 * event counted once), the CHILD notices (who serves whom, re-attachments,
 * lost CPs), and the tree in the report. */
#ifndef COL_COLTREE_H
#define COL_COLTREE_H

#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "colstate.h"
#include "heartbeat.h"
#include "mwt_place.h"
#include "probe.h"

struct col_tree;

/* Plan the tree over the job's nodes (s->nodes, one agent each) when there
 * are more than threshold of them: this fanout, cps CPs (0: as many as the
 * fanout needs; at most one per node), placed by the average strategy, or
 * by the fuzzy one when factors (s->nnodes entries, col_tree_factors) is
 * given, with weights (MWT_NF values, the site's tree_weights; NULL: the
 * planner's default).  Return the tree, or NULL for the flat star (at or below the
 * threshold, a plan without CP, or an error: logged). */
struct col_tree *col_tree_plan(const struct col_state *s, long threshold, long fanout, long cps,
			       const struct mwt_factors *factors, const double *weights);

/* One node's factor set for the fuzzy placement from its nodehealthd's
 * probe reply: health (alive ok, degraded), round-trip, and the load, free
 * memory and cores the reply carries (unknown without them).  A node that
 * did not answer (dead, error, no daemon) is down: the worst membership. */
void col_tree_factors(const struct mw_probe_result *r, struct mwt_factors *f);

void col_tree_free(struct col_tree *t);

/* Send m to the agent of node (its direct link).  Return 0, or -1 when it
 * has none. */
typedef int (*col_tree_send_fn)(void *arg, int node, const struct mw_hb_msg *m);

/* Send the ROLE frames that are due: a CP first learns to listen; an agent
 * learns its chain of ancestors once each of them listens. */
void col_tree_roles(struct col_tree *t, const struct col_state *s, col_tree_send_fn send, void *arg);

/* The CP of node listens on port (its LISTEN frame). */
void col_tree_listen(struct col_tree *t, struct col_state *s, int node, uint16_t port);

/* Whether node runs a CP with children (DUMPREQ goes down its subtree). */
int col_tree_is_cp(const struct col_tree *t, int node);

/* Whether node's agent is attached in the tree (not on a direct link). */
int col_tree_in_tree(const struct col_tree *t, int node);

/* Whether the direct link of link_node may speak for node: it is node's
 * own, or node is attached below it (link_node is on the chain of CPs that
 * serve node now, as their CHILD frames said).  t NULL (the star): only
 * its own.  The one rule for what comes up the tree on a node's behalf
 * (APOUT). */
int col_tree_speaks_for(const struct col_tree *t, const struct col_state *s, int link_node, int node);

/* The node whose direct link reaches node now: node itself when it is not
 * attached below a CP (t NULL: always), else the top CP of its chain. */
int col_tree_top(const struct col_tree *t, const struct col_state *s, int node);

/* The agent of node said hello on a direct link (again: after its CPs
 * were lost, a re-attachment to the collector). */
void col_tree_hello(struct col_tree *t, struct col_state *s, int node);

/* The agent of node left its direct link with a goodbye (reason). */
void col_tree_bye(struct col_tree *t, struct col_state *s, int node, const char *reason);

/* A CHILD frame.  Return the node a CP lost without a goodbye (the caller
 * treats it as a lost agent: its node is probed), else -1. */
int col_tree_child(struct col_tree *t, struct col_state *s, const struct mw_hb_child *c);

/* One heartbeat rebuilt from an aggregate, for the verdict code. */
typedef void (*col_tree_beat_fn)(void *arg, int node, const struct mw_hb_beat *b);

/* An AGG frame's payload: decoded (mwt_agg_from_json), and each event not
 * counted before given to fn in the order of its origin's numbers.  Return
 * the events given, or -1 for a bad aggregate (logged). */
long col_tree_agg(struct col_tree *t, struct col_state *s, const char *json, col_tree_beat_fn fn, void *arg);

/* A heartbeat on a direct link from node: 1 if it is to be used, 0 if it
 * was counted already (or is older than one used for its rank).  t NULL
 * (the flat star): always 1. */
int col_tree_direct_beat(struct col_tree *t, const struct col_state *s, int node, const struct mw_hb_beat *b);

/* ---- probing down the tree (doc/tree.md, "Probing down the tree") ---- */

/* Start probe round r->round: send r (a PROBEREQ) on its direct link to
 * every CP that serves children now.  Return the CPs asked (0: none, the
 * collector probes every node itself). */
int col_tree_probe_begin(struct col_tree *t, const struct col_state *s, const struct mw_hb_probereq *r,
			 col_tree_send_fn send, void *arg);

/* A PROBESUM frame's payload from the agent of node from (its direct,
 * authenticated link).  Only a CP asked in this round counts, and of its
 * results only those on nodes of its own subtree (as planned, or as
 * attached now), the CP's own node excepted (its parent probes it); the
 * rest is refused (logged, counted).  Return 1 when every CP asked has
 * delivered (or is lost), 0 while some have not, -1 for a summary not
 * used. */
int col_tree_probesum(struct col_tree *t, struct col_state *s, int from, const char *json);

/* The agent of node, asked in the round under way, is lost: it will not
 * deliver (its subtree is probed by the collector).  Return 1 when every
 * CP asked has now delivered or is lost, else 0. */
int col_tree_probe_lost(struct col_tree *t, int node);

/* Whether every CP asked in the round under way has delivered (or is
 * lost); 1 when there is no round. */
int col_tree_probe_done(const struct col_tree *t);

/* End the round under way: for each node a CP reported on, out[i] its
 * result, covered[i] 1 and by[i] the node of the CP that probed it; the
 * other nodes are left alone (covered[i] 0: the caller probes them).  The
 * CPs that did not deliver go into the timeline.  Return the nodes
 * covered. */
size_t col_tree_probe_take(struct col_tree *t, struct col_state *s, struct mw_probe_result *out, char *covered,
			   char (*by)[MW_HB_STR_MAX + 1]);

/* The CP levels of the tree (its depth). */
int col_tree_depth(const struct col_tree *t);

/* The tree for report.json ("tree", doc/schemas/report.schema.json); a
 * new reference. */
json_object *col_tree_json(const struct col_tree *t, const struct col_state *s);

/* The tree for report.txt (a few lines). */
void col_tree_text(const struct col_tree *t, const struct col_state *s, FILE *f);

#endif
