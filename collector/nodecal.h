/* nodecal.h - the job's nodes' timer calibrations for the compute-phase
 * flag (issue 32, doc/imbalance.md "The node's calibration"): what each
 * node's nodehealthd measured, read from its probe reply's calibration
 * block (doc/protocol.md, flag bit 2), or the one calibration file of
 * "mpiwatch run" (--calibration FILE: the machine's quick calibration). */
#ifndef COL_NODECAL_H
#define COL_NODECAL_H

#include <stddef.h>

#include "probe.h"

struct collector;
struct imb_nodecal;

/* One probe result's calibration as the flag's entry for node: 1 with *k
 * filled when the reply carried the block, else 0. */
int col_nodecal_of_probe(const char *node, const struct mw_probe_result *r, struct imb_nodecal *k);

/* The calibrations of the job's nodes into *tab (malloc'd, *n entries; the
 * nodes without one are left out): with c->o->calibration, that file's for
 * every node (one entry, node ""); else one probe of every node (within 1 s)
 * on c->loop, their replies' blocks: the loop turns until the round is
 * over (c->env.probe instead when set; no loop: no probe, none).  Told in
 * the log.  Return 0 (*n may be 0), or -1 (ENOMEM). */
int col_nodecal_get(struct collector *c, struct imb_nodecal **tab, size_t *n);

#endif
