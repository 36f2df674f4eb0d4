/* mw_link.h - the agent <-> collector link: framed heartbeat messages over TCP.
 *
 * The only interface between the agents and the collector's transport, so
 * that a tree overlay (seed 003) can replace the direct TCP star later
 * without touching the agent or the collector logic.  Sockets are
 * non-blocking; sends are queued and flushed as the socket allows.
 */
#ifndef MW_LINK_H
#define MW_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "heartbeat.h"

struct mw_link;

/* Listen on TCP port lo, or the next free one up to lo + nports - 1, on all
 * IPv4 addresses.  Return the listening fd and the port in *bound, or -1
 * (errno set; EADDRINUSE if every port was taken). */
int mw_link_listen(uint16_t lo, int nports, uint16_t *bound);

/* Accept one connection from a listening fd.  Return a new link, or NULL
 * (errno set; EAGAIN when there is nothing to accept). */
struct mw_link *mw_link_accept(int lfd);

/* Connect to host:port within timeout_s.  Return a new link, or NULL (errno
 * set: ECONNREFUSED, ETIMEDOUT, ENOENT when host does not resolve...). */
struct mw_link *mw_link_connect(const char *host, uint16_t port, double timeout_s);

/* The socket, for poll(). */
int mw_link_fd(const struct mw_link *l);

/* Peer address as text ("198.18.5.2:40312"). */
const char *mw_link_peer(const struct mw_link *l);

/* Queue m and write as much as the socket takes.  Return 0, or -1 (errno
 * set: EINVAL message invalid, ENOBUFS queue above its limit, EPIPE...). */
int mw_link_send(struct mw_link *l, const struct mw_hb_msg *m);

/* Write queued bytes.  Return 1 if bytes remain queued, 0 if all written,
 * -1 on a broken connection (errno set). */
int mw_link_flush(struct mw_link *l);

/* Return 1 if bytes are queued for writing. */
int mw_link_pending(const struct mw_link *l);

/* Read what is available and decode the next frame into m (free with
 * mw_hb_msg_free).  Return 1 with a message, 0 when more bytes are needed,
 * -1 at end of stream or on a read error (errno: 0 for an orderly close),
 * -2 on a malformed frame (*err says why; the link must be closed). */
int mw_link_recv(struct mw_link *l, struct mw_hb_msg *m, enum mw_hb_err *err);

/* Wait up to timeout_s for one message (blocking helper for handshakes).
 * Return as mw_link_recv, with 0 meaning timeout. */
int mw_link_recv_wait(struct mw_link *l, struct mw_hb_msg *m, enum mw_hb_err *err,
		       double timeout_s);

/* Close the socket and free the link (NULL is fine). */
void mw_link_close(struct mw_link *l);

#endif
