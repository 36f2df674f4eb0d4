/* agtree.h - the node agent's part in the tree overlay (doc/tree.md, "The
 * tree in use"): the ROLE the collector gives it, the chain of ancestors it
 * attaches to (its parent CP first, then the next one up, then the
 * collector), and the CP role (tree/mwt_cp.h) when its node runs one.  In
 * the flat star the agent has no ag_tree (NULL) and every function here
 * does nothing. */
#ifndef AG_AGTREE_H
#define AG_AGTREE_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "agent.h"
#include "heartbeat.h"
#include "mwt_cp.h"

struct ag_tree;

/* A ROLE from the collector: create *t if need be; start the CP role on
 * the agent's loop when r->cp (it owns its handles there; the collector is
 * told its port through up); take the chain of ancestors r->up when the
 * agent is still on the collector.  Return 0, or -1 if the CP role could
 * not start (logged; the agent stays a BE). */
int ag_tree_role(struct ag_tree **t, uv_loop_t *loop, const struct ag_opts *o, const struct mw_hb_role *r,
		 mwt_cp_up_fn up, void *arg);

/* Whether the agent should now leave the collector for its parent CP
 * (after a ROLE naming one); reading it clears it. */
int ag_tree_wants_move(struct ag_tree *t);

/* The place to attach to now: 1 with host and port (a CP), or 0 for the
 * collector (also for t NULL). */
int ag_tree_target(const struct ag_tree *t, char *host, size_t len, uint16_t *port);

/* The link to the current target is lost (or could not be made): move on
 * to the next ancestor.  Return 1 if the target was a CP (reconnect at
 * once), 0 if it was the collector. */
int ag_tree_lost_parent(struct ag_tree *t);

/* "the collector" or "CP on NODE": what the agent is linked to now. */
const char *ag_tree_parent_name(struct ag_tree *t);

/* A CP counts its own node's heartbeat into its aggregate: return 0 when
 * taken so, -1 when the agent must send it itself (not a CP). */
int ag_tree_own_beat(struct ag_tree *t, const struct mw_hb_beat *b);

/* A new link up: a CP sends its subtree's state again. */
void ag_tree_uplink(struct ag_tree *t);

/* The agent is leaving its parent (stopped): a CP sends up at once what
 * it gathered (mwt_cp_flush), before the goodbye; t NULL or no CP:
 * nothing. */
void ag_tree_leaving(struct ag_tree *t);

/* A DUMPREQ from above: a CP passes it down to its children. */
void ag_tree_dumpreq(struct ag_tree *t, const struct mw_hb_msg *m);

/* An APREQ from the parent: a CP sends it on down the subtrees that hold
 * the nodes it names (all when it names none); t NULL or no CP: nothing. */
void ag_tree_apreq(struct ag_tree *t, const struct mw_hb_msg *m);

/* A PROBEREQ from above: a CP probes its children's nodes and passes it
 * to its child CPs (mwt_cp_probereq); an agent without a CP ignores it
 * (logged). */
void ag_tree_probereq(struct ag_tree *t, const struct mw_hb_probereq *r);

/* Log the CP's counters and free everything (NULL fine; the CP's handles
 * close on the loop's next turn). */
void ag_tree_free(struct ag_tree *t);

#endif
