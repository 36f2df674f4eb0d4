/* collinks.h - the collector's links to the agents and CPs.  Internal to
 * collector/.
 */
#ifndef COL_LINKS_H
#define COL_LINKS_H

#include <stddef.h>

#include "colctx.h"

/* Accept the waiting connections on c->lfd (each with the link liveness,
 * a small pre-authentication frame limit, its handshake begun; the
 * least advanced from a crowded address evicted). */
void col_links_accept(struct collector *c);

/* Serve client k for the poll events revents (POLLIN, POLLOUT, POLLHUP,
 * POLLERR): flush, read and handle its frames (at most 256), close it on
 * an error, a goodbye or once a refusal is flushed.  k may be gone after
 * (col_links_close moves the last client into its place). */
void col_links_serve(struct collector *c, size_t k, short revents);

/* The finished authq jobs: the challenge sent, the HELLO welcomed or
 * refused, then what the client sent meanwhile read. */
void col_links_authq_finished(struct collector *c);

/* Close client k (the last client takes its place); a welcomed agent lost
 * this way is col_eval_agent_lost, unless it moved into the tree. */
void col_links_close(struct collector *c, size_t k, const char *why);

/* Close the connections that sent no HELLO within the deadline. */
void col_links_expire(struct collector *c);

/* Whether an agent (or a CP for its subtree) is still linked to us. */
int col_links_linked(const struct collector *c);

/* col_tree_send_fn (arg is the collector): send m to node's agent on its
 * direct link.  Return 0, or -1 (no such link, or the send failed). */
int col_links_send_to_node(void *arg, int node, const struct mw_hb_msg *m);

/* Ask each link for the dumps of its stuck ranks without one (a CP for its
 * whole subtree). */
void col_links_dumpreq(struct collector *c);

/* Ask the agents (of every node, or of the suspicious ranks' nodes, as the
 * site says; one APREQ per direct link in the tree) to run the site's
 * auxiliary processes for reason; the round is told in the timeline. */
void col_links_apreq(struct collector *c, const char *reason);

#endif
