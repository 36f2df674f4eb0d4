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
#include <sys/socket.h>

#include "heartbeat.h"

struct mw_link;

/* Listen on TCP port lo, or the next free one up to lo + nports - 1, on all
 * IPv4 addresses.  Return the listening fd and the port in *bound, or -1
 * (errno set; EADDRINUSE if every port was taken). */
int mw_link_listen(uint16_t lo, int nports, uint16_t *bound);

/* Accept one connection from a listening fd.  Return a new link, or NULL
 * (errno set; EAGAIN when there is nothing to accept). */
struct mw_link *mw_link_accept(int lfd);

/* Connect to host:port within timeout_s, blocking (the CLI, tests and
 * benches; a daemon's loop uses mw_link_connect_start/_end).  Return a new
 * link, or NULL (errno set: ECONNREFUSED, ETIMEDOUT, ENOENT when host does
 * not resolve...). */
struct mw_link *mw_link_connect(const char *host, uint16_t port, double timeout_s);

/* Begin a TCP connect to the IPv4 address sa (salen bytes) without
 * waiting.  Return the socket (non-blocking, close-on-exec), whose connect
 * is done or under way: once the socket is writable (or its poll reports
 * an error) the connect is over, and mw_link_connect_end tells how.  Or
 * -1 (errno set: ECONNREFUSED when it failed at once...). */
int mw_link_connect_start(const struct sockaddr *sa, socklen_t salen);

/* The connect begun on fd by mw_link_connect_start is over (the socket
 * writable): return a new link to sa that owns fd, or NULL with fd still
 * the caller's to close (after it stops watching it; errno: the connect's
 * error, ECONNREFUSED, EHOSTUNREACH...). */
struct mw_link *mw_link_connect_end(int fd, const struct sockaddr *sa);

/* The link liveness setting (jobconf "liveness", seconds), shared by the
 * two ends of every link (agent -> collector, the tree's links) so that
 * only one of them pays for it (issue 34): the accepting end (the
 * collector, a CP toward its children) watches, the connecting end (an
 * agent, a CP toward its parent) only answers.
 *
 * The watching end (mw_link_liveness_watch_fd), s > 0: TCP keepalive probes
 * after mw_link_keepidle(s) seconds of silence and every
 * mw_link_keepintvl(s) seconds after, and TCP_USER_TIMEOUT of
 * mw_link_user_timeout(s): a peer that stops answering (its node died, its
 * link is down) breaks the link with ETIMEDOUT that long after it last
 * answered (at the default s = 5: probes every second, given up after 3 s
 * without an answer, i.e. after two unanswered probes).
 *
 * The answering end (mw_link_liveness_fd), s > 0: no keepalive probes of
 * its own (the watcher's, answered by the kernel, keep the link busy both
 * ways), TCP_USER_TIMEOUT s for its own data; it tells a silent watcher by
 * mw_link_segs_in not moving for mw_link_silence_limit(s) seconds
 * (agent/agent.c).
 *
 * s <= 0 (both ends): off, the passive mode: keepalive with the kernel's
 * defaults (net.ipv4.tcp_keepalive_time, 2 hours), so an idle link carries
 * nothing, and no user timeout.  Return 0, or -1 (errno from setsockopt). */
int mw_link_liveness_fd(int fd, double s);
int mw_link_liveness_watch_fd(int fd, double s);

/* mw_link_liveness_fd, mw_link_liveness_watch_fd on l's socket. */
int mw_link_set_liveness(struct mw_link *l, double s);
int mw_link_set_liveness_watch(struct mw_link *l, double s);

/* The watching end's keepalive idle time and probe interval (whole
 * seconds, >= 1: max(1, s/5)) and its user timeout (seconds: 0.6 s, at
 * least two intervals) that liveness s gives (for the docs and the
 * benchmark). */
int mw_link_keepidle(double s);
int mw_link_keepintvl(double s);
double mw_link_user_timeout(double s);

/* How long the answering end waits for a segment from a watcher before it
 * gives the link up: s, and at least the watcher's user timeout plus one
 * probe interval (a short s must not outrun the watcher's own probes). */
double mw_link_silence_limit(double s);

/* The TCP segments l's socket received so far (TCP_INFO tcpi_segs_in: the
 * peer's data, acknowledgements and keepalive probes alike), or -1. */
long long mw_link_segs_in(const struct mw_link *l);

/* Where an agent leaves its last link error (one line of text) for the
 * collector's report: OUTDIR/logs/link-error-NODE.txt.  The collector reads
 * every OUTDIR/logs/MW_LINK_ERROR_PREFIX*MW_LINK_ERROR_SUFFIX. */
#define MW_LINK_ERROR_PREFIX "link-error-"
#define MW_LINK_ERROR_SUFFIX ".txt"
/* That path into buf.  Return 0, or -1 (ENAMETOOLONG). */
int mw_link_error_path(char *buf, size_t len, const char *outdir, const char *node);

/* Parse one file of OUTDIR/logs: from its name (a d_name) and its text (len
 * bytes, any bytes: the job user's file), the node (between
 * MW_LINK_ERROR_PREFIX and MW_LINK_ERROR_SUFFIX: not empty, shorter than
 * nodelen, without '/') into node, and the text's first line (up to a
 * newline or a NUL, cut to linelen - 1 bytes, without the newline) into
 * line.  Return 0, or -1 if name is not a link-error file's or that line is
 * empty (node and line are then ""). */
int mw_link_error_parse(const char *name, const char *text, size_t len, char *node, size_t nodelen,
			char *line, size_t linelen);

/* Read dir/name as mw_link_error_parse parses it: only a regular file, not
 * through a link, never blocking (a FIFO), its first linelen - 1 bytes.
 * Return 0, or -1 (not a link-error file, unreadable, or no line). */
int mw_link_error_read(const char *dir, const char *name, char *node, size_t nodelen, char *line,
		       size_t linelen);

/* What a failed mw_link_connect's errno means for a user, one phrase:
 * "the name does not resolve on this node (...)", "nothing listens on the
 * port (...)", "no answer within the connect timeout (...)"... */
const char *mw_link_connect_hint(int err);

/* The socket, for poll(). */
int mw_link_fd(const struct mw_link *l);

/* Peer address as text ("198.18.5.2:40312"). */
const char *mw_link_peer(const struct mw_link *l);

/* This end's address as text ("198.18.5.1:7300"): on an accepted link,
 * the address and port the peer connected to. */
const char *mw_link_local(const struct mw_link *l);

/* Refuse frames whose payload is longer than n bytes (mw_link_recv then
 * returns -2 with MW_HB_E_LONG), and buffer no more than about two such
 * frames: the cap of a link not yet authenticated (MW_HB_PREAUTH_MAX).
 * n = 0 or >= MW_HB_MAX_PAYLOAD: the protocol's own limit. */
void mw_link_set_max_payload(struct mw_link *l, size_t n);

/* Limits on connections not yet authenticated, the same on the collector
 * and on a tree CP (doc/security.md "Limits before authentication"): the
 * time from connect to the welcome, and how many are kept per source
 * address and in all. */
#define MW_LINK_HELLO_DEADLINE_S 5.0
#define MW_LINK_PREAUTH_PER_SRC 32
#define MW_LINK_PREAUTH_CONNS 256

/* One of n connections, as mw_link_preauth_victim sees it: its peer's
 * address without the port (src), whether it is authenticated, how far its
 * handshake went (stage: larger is further) and when it connected. */
typedef void (*mw_link_conn_fn)(void *arg, size_t k, const char **src, int *authed, int *stage,
				double *t_conn);

/* Before accepting one more connection from src: if src already has
 * MW_LINK_PREAUTH_PER_SRC unauthenticated connections (pass 0), or all have
 * MW_LINK_PREAUTH_CONNS (pass 1), return the one to close: the least
 * advanced, then the oldest, of those counted.  Closing it, not refusing
 * the new one, keeps the job's own agent able to get in (its handshake
 * takes milliseconds; a few idle connections would otherwise lock it out).
 * Return its index, or -1 when there is room. */
long mw_link_preauth_victim(size_t n, const char *src, int pass, mw_link_conn_fn get, void *arg);

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
