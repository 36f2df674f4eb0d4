/* colresolve.h - the probe round's node names made addresses on the event
 * loop (uv_getaddrinfo, libuv's pool), before the round starts, so that
 * the round itself (shared/probe.c) only reads numeric addresses and never
 * waits for a name server on the loop.  Internal to collector/. */
#ifndef COL_RESOLVE_H
#define COL_RESOLVE_H

#include <stddef.h>

#include <uv.h>

#include "probe.h"

struct col_resolve;

/* Look up names[k] (k < n) whose addrs[k] is NULL, all at once on loop.
 * As each comes in: its numeric address (IPv4 first, else IPv6, as
 * probe.c's resolver picks) goes into hosts[k] and addrs[k] points at it;
 * a name that does not resolve gets names[k] "" (the round then marks it
 * MW_PROBE_ERROR without a look-up of its own), and its error is kept for
 * col_resolve_summaries.  names, addrs and hosts are the caller's, kept
 * until then is called or col_resolve_free.  When every look-up is in,
 * then(arg) is called once, on the loop, unless none could start (then
 * col_resolve_busy is 0 at once: the caller goes on).  Return the
 * look-ups (free with col_resolve_free), or NULL when there was nothing to
 * look up or no memory (ENOMEM): then nothing was changed and then is not
 * called. */
struct col_resolve *col_resolve_start(uv_loop_t *loop, const char **names, const char **addrs, char (*hosts)[64],
				      size_t n, void (*then)(void *arg), void *arg);

/* Whether look-ups of q (may be NULL) are still under way.  Return 1 or 0. */
int col_resolve_busy(const struct col_resolve *q);

/* The round is over: each name that did not resolve gets its error
 * ("cannot resolve 'NAME': ...", probe.c's words) as out[k]'s summary
 * (out[0..n), the round's results in the order of names).  q may be NULL. */
void col_resolve_summaries(const struct col_resolve *q, struct mw_probe_result *out, size_t n);

/* Free q (may be NULL); look-ups still under way are cancelled, and the
 * last one's end frees what is left.  Nothing of the caller's is touched
 * after this. */
void col_resolve_free(struct col_resolve *q);

#endif
