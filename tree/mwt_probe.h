/* mwt_probe.h - probing down the tree (doc/tree.md, "Probing down the
 * tree"; doc/protocol.md, "Probing down the tree").
 *
 * At a suspicious event the collector asks its child CPs to probe (a
 * PROBEREQ frame); every CP probes the nodes of its direct children with
 * nodehealthd's UDP probe (shared/probe.h, mw_probe_nodes: the collector's
 * own probe code), passes the request to its child CPs, merges their
 * summaries into its own and sends ONE summary (a PROBESUM frame) up.  A
 * summary maps node -> result (state, round trip, tries, failed checks,
 * health summary, address) and who probed it, and lists the child CPs
 * that did not deliver in time.  Its JSON form:
 *
 *   {"round":N,"from":"NODE","results":[{"node","by","state","rtt_ms",
 *    "tries","failed","summary","addr"},...],"missing":["NODE",...]}
 *
 * state is a name of mw_probe_state_name ("alive", "dead", ...).  The
 * decoder trusts nothing: names are node names, texts printable ASCII
 * within the probe's own bounds, numbers in range.  Library code: never
 * logs, never exits. */
#ifndef MWT_PROBE_H
#define MWT_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "probe.h"

#define MWT_PSUM_MAX 1048576 /* results in one summary */

struct mwt_psum;

/* An empty summary of round (1 .. 2^31-1) sent by node from.  Return it,
 * or NULL (errno: EINVAL for a bad round or name, ENOMEM). */
struct mwt_psum *mwt_psum_create(uint32_t round, const char *from);

void mwt_psum_destroy(struct mwt_psum *s); /* NULL fine */

/* Add node's result r, probed by by.  When node is there already, the
 * result that shows the node more alive is kept (alive or degraded, then
 * up without nodehealthd, then unprobeable, then dead): a node some CP
 * reached is never judged dead.  Return 1 if added or replaced, 0 if kept
 * the old one, -1 on error (errno EINVAL: bad name, state or text;
 * ENOMEM; E2BIG: MWT_PSUM_MAX results). */
int mwt_psum_add(struct mwt_psum *s, const char *node, const char *by, const struct mw_probe_result *r);

/* Note a child CP (its node) that did not deliver its summary.  Return 0,
 * or -1 (errno EINVAL, ENOMEM). */
int mwt_psum_missing(struct mwt_psum *s, const char *cp);

/* Merge x into s: every result of x by mwt_psum_add, every missing CP of x
 * that delivered nothing in s.  Return the results added or replaced, or
 * -1 (errno). */
long mwt_psum_merge(struct mwt_psum *s, const struct mwt_psum *x);

uint32_t mwt_psum_round(const struct mwt_psum *s);
const char *mwt_psum_from(const struct mwt_psum *s);
size_t mwt_psum_n(const struct mwt_psum *s);
size_t mwt_psum_nmissing(const struct mwt_psum *s);

/* Result i (0 .. n-1): its node, who probed it, the result.  Return 0, or
 * -1 when i is out of range. */
int mwt_psum_get(const struct mwt_psum *s, size_t i, const char **node, const char **by,
		 struct mw_probe_result *r);

/* Missing CP i (0 .. nmissing-1), or NULL. */
const char *mwt_psum_missing_at(const struct mwt_psum *s, size_t i);

/* The summary as compact JSON (malloc'd), or NULL (errno ENOMEM). */
char *mwt_psum_to_json(const struct mwt_psum *s);

/* Decode a summary of len bytes.  Return it, or NULL with the reason in
 * err ("results[3].state: ..."). */
struct mwt_psum *mwt_psum_from_json(const char *txt, size_t len, char *err, size_t errlen);

/* Whether node is in the subtree of root (root itself counts), following
 * parent[] (parent[i] is the parent of i, -1 the collector) from node up;
 * parent2 (NULL: none) is a second map followed as well (the tree as
 * attached now beside the plan).  n: the size of both maps.  Return 1 or 0
 * (0 also for indices out of range; a cycle ends the walk). */
int mwt_in_subtree(const int *parent, const int *parent2, size_t n, int root, int node);

#endif
