/* colquick.h - a one-off probe round of a list of nodes on the event loop,
 * for what asks every node once and waits for nothing else: the fuzzy
 * placement's start-up probe (colprobe.c) and the node calibrations at the
 * job's end (nodecal.c).  The names are made addresses first (colresolve.h,
 * libuv's pool), then the round runs on the loop (shared/uvprobe.h): the
 * loop is never blocked.  Internal to collector/. */
#ifndef COL_QUICK_H
#define COL_QUICK_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "probe.h"

struct col_quick;

/* Called once, on the loop, when the round is over: rc as
 * mw_probe_nodes returns it (the nodes that answered, or -1 after a local
 * error); the caller's out[] is filled (a name that did not resolve has
 * its error as the summary). */
typedef void (*col_quick_fn)(void *arg, int rc);

/* Probe the n nodes names[i] (addrs[i] its address, or NULL: its name is
 * looked up; both copied) on loop, with budget_s and tries as
 * mw_probe_nodes, results into out[0..n) (the caller's, kept until done
 * or col_quick_free).  Return the round, or NULL (errno: ENOMEM, EINVAL,
 * or libuv's): done is then not called. */
struct col_quick *col_quick_start(uv_loop_t *loop, const char *const *names, const char *const *addrs,
				  size_t n, uint16_t port, double budget_s, int tries,
				  struct mw_probe_result *out, col_quick_fn done, void *arg);

/* Whether q's round is still under way (it has not called done yet). */
int col_quick_busy(const struct col_quick *q);

/* Free q (may be NULL; after done, or to give it up: done is then not
 * called, and out is not written any more). */
void col_quick_free(struct col_quick *q);

#endif
