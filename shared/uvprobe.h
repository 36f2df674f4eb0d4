/* uvprobe.h - a probe round (probe.h's mw_probe_round) driven by a libuv
 * loop: the loop's counterpart of mw_probe_nodes_ex, with the same tries,
 * budget, flags (MW_PROBE_F_PRIVSRC: a privileged source port) and results.
 * The round's sockets are watched with uv_poll (a reply, or an ICMP error
 * on the socket's error queue), its next tries and its end with a timer. */
#ifndef MW_UVPROBE_H
#define MW_UVPROBE_H

#include <uv.h>

#include "probe.h"

struct mw_uvprobe;

/* Called once, on the loop, when the round is over: rc as
 * mw_probe_nodes_ex returns it (the nodes that answered, or -1 after a
 * local error, errno set); out[] is filled. */
typedef void (*mw_uvprobe_fn)(void *arg, int rc);

/* Start probing the n nodes (names, addrs as mw_probe_nodes_ex; read during
 * the call only) on loop; out (n entries, the caller's) is filled until
 * done.  Return the round, or NULL (errno: EINVAL, ENOMEM, or libuv's);
 * done is then not called. */
struct mw_uvprobe *mw_uvprobe_start(uv_loop_t *loop, const char *const *names, const char *const *addrs,
				    size_t n, uint16_t port, double budget_s, int tries, unsigned flags,
				    struct mw_probe_result *out, mw_uvprobe_fn done, void *arg);

/* End the round now (the nodes not answered yet are dead, as at the end of
 * the budget): done is called, on the loop, before this returns. */
void mw_uvprobe_stop(struct mw_uvprobe *p);

#endif
