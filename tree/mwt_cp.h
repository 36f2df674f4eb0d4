/* mwt_cp.h - the communication process (CP) role of the tree overlay
 * (seed 003, doc/tree.md "The tree in use"), run inside a node agent that
 * the collector's plan names.
 *
 * A CP listens for children (BEs and CPs below it), authenticates each one
 * exactly as the collector does (a CHALLENGE, then a HELLO whose MUNGE
 * credential names the job, the child's node and that nonce; or the
 * token of "mpiwatch run"), and sends its parent:
 *   - the RANK, DUMP and CHILD frames of its children as they are;
 *   - one AGG frame per flush (tree/mwt_agg.h) for all the heartbeats of its
 *     subtree (its own agent's and its children's, and its child CPs'
 *     aggregates merged), each event counted once (per-origin numbers);
 *   - a CHILD frame when a child attaches or leaves.
 * It forwards a DUMPREQ to every child, an APREQ down the subtrees that
 * hold the nodes it names, an APOUT up.  At a PROBEREQ it probes the nodes
 * of its children (shared/probe.h, the collector's probe code), passes the
 * request to its child CPs and sends one PROBESUM up (tree/mwt_probe.h).
 * Its children's links get the liveness setting (mw_link_set_liveness), so
 * that a dead child node is told up (CHILD, lost) within that time.  What it sent is kept so that after
 * its agent re-attaches to another parent everything is sent again (the
 * receiver drops what it has counted already).  Library code: it logs
 * through shared/log.h and never exits.
 */
#ifndef MWT_CP_H
#define MWT_CP_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "heartbeat.h"

struct mwt_cp_opts {
	const char *job;          /* the job id children must name */
	const char *node;         /* this CP's node (the aggregate's sender) */
	const char *munge_socket; /* NULL or "": MUNGE's default */
	const char *auth_token;   /* non-empty: children authenticate with this token, not MUNGE */
	double flush_s;           /* how long a CP gathers before it sends an aggregate up (0.05 s) */
	double liveness_s;        /* the link liveness setting for its children's links (0: off) */
};

/* Send one message to the CP's parent.  Return 0 if sent or queued, -1 if
 * there is no parent link now (the CP keeps what it has and sends it all
 * again after mwt_cp_uplink). */
typedef int (*mwt_cp_up_fn)(void *arg, const struct mw_hb_msg *m);

struct mwt_cp;

/* A CP listening on an ephemeral TCP port (all IPv4 addresses), on loop:
 * it owns its handles there (its sockets' uv_poll, a timer, a prepare
 * handle) and does its work in their callbacks; a child's MUNGE credential
 * is checked in loop's thread pool.  The port in *port.  Return it, or
 * NULL (errno; a message is logged). */
struct mwt_cp *mwt_cp_create(uv_loop_t *loop, const struct mwt_cp_opts *o, mwt_cp_up_fn up, void *arg,
			     uint16_t *port);

/* Close every child and the listening socket, free the CP (NULL fine).
 * Its handles close on the loop's next turn (run the loop to free them). */
void mwt_cp_destroy(struct mwt_cp *cp);

/* The CP's own agent's heartbeat (b->seq set) of origin (its node) into the
 * aggregate.  Return 1 if new, 0 if counted already, -1 on a bad beat. */
int mwt_cp_beat(struct mwt_cp *cp, const char *origin, const struct mw_hb_beat *b, double now);

/* Send a DUMPREQ down to every child. */
void mwt_cp_dumpreq(struct mwt_cp *cp, const struct mw_hb_msg *m);

/* Send an APREQ down: to every child when it names no node, else to the
 * children whose subtree (the child and the CHILD frames it sent up) holds
 * a node it names.  A child's APOUT goes up as it is when its subtree holds
 * the node that ran it, and is dropped (logged) otherwise. */
void mwt_cp_apreq(struct mwt_cp *cp, const struct mw_hb_msg *m);

/* A PROBEREQ from above (doc/tree.md, "Probing down the tree"): pass it
 * to the child CPs (wait_s a level shorter), probe the nodes of every
 * child (and of every child lost without a goodbye and not back) on the loop (mw_uvprobe: nothing waits), and send one
 * PROBESUM up when every child CP asked has answered, or at the latest
 * r->wait_s after now (mwt_cp_tick; the CPs that did not deliver are
 * listed as missing).  now: monotonic seconds. */
void mwt_cp_probereq(struct mwt_cp *cp, const struct mw_hb_probereq *r, double now);

/* How much shorter a child CP's wait_s is than its parent's: the time a
 * summary may take to go up one level. */
#define MWT_PROBE_LEVEL_S 0.3

/* Probe counters for the agent's log: rounds, nodes probed. */
void mwt_cp_probe_stats(const struct mwt_cp *cp, unsigned long *rounds, unsigned long *probed);

/* Flush the aggregate up if it is due, send the probe summary when its
 * time is up (and close children that did not say hello in time).  Return
 * when the next flush, summary or hello deadline is due (monotonic s; a
 * large number when nothing waits).  The CP's timer calls it; exported for
 * the unit tests. */
double mwt_cp_tick(struct mwt_cp *cp, double now);

/* The CP's agent is leaving (stopped): send up now, before its goodbye,
 * what the CP has gathered and not sent (its window not over yet), so that
 * the last heartbeats of its node and its children reach the parent. */
void mwt_cp_flush(struct mwt_cp *cp);

/* The CP's agent has a new parent link: send again every RANK of its
 * children, a CHILD frame per attached child, the auxiliary output its
 * children sent while it had no parent link (64 at most, kept in order),
 * and the aggregate of every event it has counted. */
void mwt_cp_uplink(struct mwt_cp *cp);

/* Counters for the agent's log: children attached now, aggregates sent,
 * events counted. */
void mwt_cp_stats(const struct mwt_cp *cp, size_t *children, unsigned long *aggs, unsigned long *events);

#endif
