/* mwt_plan.h - the topology of the tree overlay (seed 003, doc/tree.md):
 * CPs placed on hosts (mwt_place.h), arranged as a k-ary tree under the
 * front end (the collector), and the back ends (the node agents) attached to
 * the leaves of that tree (the IBEs).
 *
 * Tree shape: the front end is node 0 of a k-ary heap and CP c is node c+1,
 * so CP c's parent is the front end when c < fanout, else CP c/fanout - 1
 * (Flux's default k-ary tree).  A CP without CP children is an IBE.
 */
#ifndef MWT_PLAN_H
#define MWT_PLAN_H

#include <stddef.h>
#include <stdio.h>

#include "mwt_place.h"

#define MWT_FANOUT_DEFAULT 32
#define MWT_FANOUT_MAX 1024
#define MWT_HOST_MAX 63 /* characters of a host name */

enum mwt_strategy { MWT_AVERAGE = 0, MWT_FUZZY = 1 };

/* One compute host of the job: its name, its BEs, what is known of it. */
struct mwt_host {
	char name[MWT_HOST_MAX + 1];
	int be;                 /* BEs on this host (>= 0) */
	struct mwt_factors f;   /* for the fuzzy strategy */
};

struct mwt_plan_opts {
	enum mwt_strategy strategy;
	int fanout;             /* CPs per CP and below the front end, >= 2 */
	int ncp;                /* CPs to place; -1: mwt_default_cps() */
	const double *weights;  /* fuzzy weights A (MWT_NF values), NULL: default */
};

struct mwt_plan {
	enum mwt_strategy strategy;
	int fanout;
	size_t nhost;
	const struct mwt_host *hosts; /* borrowed from the caller: must outlive the plan */
	int *as;                 /* [nhost] CPs placed on each host */
	struct mwt_avg_info avg; /* average strategy: what its loop did */
	size_t *rank;            /* fuzzy strategy: [nhost] hosts best first (else NULL) */
	struct mwt_eval *eval;   /* fuzzy strategy: [nhost] (else NULL) */
	size_t ncp;
	int *cp_host;   /* [ncp] host index of each CP */
	int *cp_parent; /* [ncp] parent CP, -1 for the front end */
	int *cp_depth;  /* [ncp] 1 for the front end's children */
	int *cp_nbe;    /* [ncp] BEs attached (IBEs only) */
	size_t nibe;
	int depth;          /* the deepest CP (0 when there is none) */
	int attach_fanout;  /* ceil(#BE / #IBE), or #BE when no CP (the flat star) */
	size_t nbe;
	int *be_host;   /* [nbe] host index of each BE (hosts in order, BEs in order) */
	int *be_local;  /* [nbe] index of the BE on its host */
	int *be_cp;     /* [nbe] IBE the BE attaches to; -1: the front end (no CP) */
	size_t be_same_host; /* BEs attached to an IBE on their own host */
};

/* The CPs a tree over nbe BEs needs with this fanout: 0 when the front end
 * can take every BE directly (nbe <= fanout); else ceil(nbe/fanout) IBEs,
 * plus ceil(that/fanout) CPs above them, and so on until the front end can
 * take a level directly.  Return the count (0 for fanout < 2). */
size_t mwt_default_cps(size_t nbe, int fanout);

/* The parent of CP c in a k-ary tree under the front end: -1 (the front
 * end) when c < fanout, else c/fanout - 1. */
long mwt_tree_parent(size_t c, int fanout);

/* The attach plan: nbe BEs on hosts be_host[], nibe IBEs on hosts
 * ibe_host[].  Every IBE takes at most ceil(nbe/nibe) BEs.  First every BE
 * goes to an IBE on its own host that has room (round-robin among that
 * host's IBEs); the BEs left over fill the IBEs with room in IBE order.
 * out[b] receives the IBE of BE b.  Host indexes are in [0, nhost).
 * Return the number of BEs attached on their own host, or -1 with errno
 * EINVAL (nibe == 0 with nbe > 0, a host index out of range) or ENOMEM. */
long mwt_attach(const int *be_host, size_t nbe, const int *ibe_host, size_t nibe, size_t nhost, int *out);

/* Plan the tree over hosts[0..nhost-1] (borrowed; the front end runs on
 * hosts[0]).  The average strategy places CPs by mwt_place_average and
 * orders them host by host; the fuzzy strategy gives CP c to the host of
 * rank c mod nhost, so the best hosts sit nearest the front end.  On error
 * a message goes to err (if errlen > 0).  Return 0, or -1 with errno EINVAL
 * (no host, fanout outside [2, MWT_FANOUT_MAX], ncp above the processes
 * count limit, bad weights) or ENOMEM; p is then empty. */
int mwt_plan_build(const struct mwt_host *hosts, size_t nhost, const struct mwt_plan_opts *o,
		   struct mwt_plan *p, char *err, size_t errlen);

/* Release what mwt_plan_build allocated (a zeroed plan is fine). */
void mwt_plan_free(struct mwt_plan *p);

/* Write the plan as text (summary, placement, tree, attach plan).  Return 0,
 * or -1 on a write error. */
int mwt_plan_write_text(const struct mwt_plan *p, FILE *out);

/* Write the plan as one JSON object (doc/schemas/topo.schema.json) and a
 * newline.  Return 0, or -1 (write error, ENOMEM). */
int mwt_plan_write_json(const struct mwt_plan *p, FILE *out);

/* Write the internal tree as an MRNet topology file: one line per process
 * with children, "host:N => host:N host:N ;", where the front end is
 * hosts[0]:0 and the CPs of a host are numbered on from there.  A plan
 * without CPs writes "host:0 ;".  Return 0, or -1 on a write error. */
int mwt_plan_write_mrnet(const struct mwt_plan *p, FILE *out);

#endif
