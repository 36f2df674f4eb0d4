/* imb_phases.h - compute-phase samples (the monitor's phases.RANK files,
 * doc/schemas/profile.md "Compute phases") and the fluctuation flag on them
 * (issue 14, doc/imbalance.md "Compute-phase fluctuations"): a rank whose
 * compute intervals between the same two MPI call sites are slower than its
 * peers' beyond calib/'s criterion (rank-sum test, resolution, band).
 * Library code: never exits, never prints except into the FILE it is given. */
#ifndef MW_IMB_PHASES_H
#define MW_IMB_PHASES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct json_object;

/* One phase of one rank: the intervals between two MPI call sites. */
struct imb_phase {
	char *key;       /* "MPI_Recv@prog+0x1a2b>MPI_Send@prog+0x1a40" */
	uint64_t count;  /* intervals seen */
	size_t n;        /* samples kept (a uniform sample of the count) */
	double *ns;      /* [n], nanoseconds */
};

struct imb_phases_rank {
	int rank;
	char *node;
	uint64_t dropped; /* intervals of phases beyond the monitor's limit */
	size_t nphase;
	struct imb_phase *phase;
};

struct imb_phases {
	size_t nrank;
	struct imb_phases_rank *r; /* sorted by rank */
};

/* Parse one phases file held in buf (len bytes, need not be NUL-terminated);
 * file names it in errors.  Return 0, or -1 with "FILE:LINE: reason" in err
 * and *r empty. */
int imb_phases_parse(const char *buf, size_t len, const char *file, struct imb_phases_rank *r, char *err,
		     size_t errlen);
void imb_phases_rank_free(struct imb_phases_rank *r);

/* Every phases.N in dir (none: 0 with ph->nrank 0).  Return 0, or -1 with
 * the reason in err. */
int imb_phases_load(const char *dir, struct imb_phases *ph, char *err, size_t errlen);
void imb_phases_free(struct imb_phases *ph);

/* What one node's timer calibration found (its nodehealthd's, through the
 * probe reply; or mpiwatch run's quick calibration of the machine): the
 * figures the flag trusts on that node (doc/imbalance.md "The node's
 * calibration"). */
struct imb_nodecal {
	char node[64];        /* "": every node not listed by name (one machine's) */
	double interval_ns;   /* shortest trustworthy interval; 0: none found */
	double resolution_ns; /* 0: none resolved */
	int degraded;         /* the calibration made the node degraded */
};

/* The criterion's parameters (doc/imbalance.md). */
struct imb_fluct_opts {
	double alpha;       /* significance of the rank-sum test and the band test: 0.001 */
	double min_rel;     /* the resolution, relative to the peers' median: 0.02 */
	double q;           /* fraction of intervals with timing error (band): 0.5 */
	size_t min_samples; /* per rank and phase: 20 */
	double min_ns;      /* phases whose peers' median is shorter are not judged: 10000 */
	size_t max_peers;   /* peers' samples pooled, at most (evenly thinned): 8192 */
	const struct imb_nodecal *cal; /* the nodes' calibrations (the caller's; NULL) */
	size_t ncal;
};
void imb_fluct_defaults(struct imb_fluct_opts *o);

/* A flagged rank: its most slowed phase. */
struct imb_fluct {
	int rank;
	char *node;
	char *key;            /* the phase */
	double rel;           /* median over the peers' median, minus 1 (0.06 = 6 % slower) */
	double p;             /* two-sided rank-sum p-value */
	double med, peer_med; /* ns */
	size_t n, npeers;     /* samples compared */
	int flagged, tested;  /* phases of this rank flagged / judged */
	char *message;        /* "rank 17 on n4: the same compute phase is 6% slower ..." */
};

/* The rank-phases of one node that its calibration could not judge. */
struct imb_fluct_unjudged {
	char *node;
	size_t rank_phases;
	char *message;        /* "not judged: below what node n2 can resolve (...)" */
};

struct imb_fluct_result {
	struct imb_fluct_opts opts;   /* opts.cal and opts.ncal: this result's copy (used) */
	size_t ranks, ranks_tested, phases_tested;
	size_t n;
	struct imb_fluct *f;  /* flagged ranks, by rank */
	size_t nnode;
	char **node_message;  /* nodes all of whose judged ranks are flagged (others are not) */
	char error[512];      /* non-empty: the phases could not be read (why) */
	size_t nunjudged;
	struct imb_fluct_unjudged *unjudged; /* by node, in order of first rank */
};

/* The calibration of node in o: its own, else the one for every node
 * (NULL: none known). */
const struct imb_nodecal *imb_nodecal_find(const struct imb_fluct_opts *o, const char *node);

/* The per-node rule: whether node calibration k can judge a phase whose
 * shorter median (the rank's or its peers') is med_ns.  Not when the
 * calibration made the node degraded, or med_ns is below its shortest
 * trustworthy interval (none found: only min_ns bounds it, as without a
 * calibration).  k NULL (no calibration known): yes. */
int imb_nodecal_can_judge(const struct imb_nodecal *k, double med_ns);

/* Judge every rank's phases against the same phases of its peers: the ranks
 * on the other nodes, or in a one-node job the other ranks.  With a
 * calibration of the rank's node (o->cal), a phase it cannot judge
 * (imb_nodecal_can_judge) is counted in out->unjudged instead, and the
 * resolution is at least that node's.
 * o NULL: the defaults.  Return 0 with *out filled (free it), or -1 (ENOMEM). */
int imb_fluct_analyze(const struct imb_phases *ph, const struct imb_fluct_opts *o,
		      struct imb_fluct_result *out);
void imb_fluct_free(struct imb_fluct_result *r);

/* imb_phases_load and imb_fluct_analyze (options o, NULL: the defaults) of
 * the phases.N files in profdir into *fl; a file that cannot be read is
 * said in fl->error, not an error.  Return 0, or -1 (ENOMEM). */
int imb_fluct_of_dir(const char *profdir, const struct imb_fluct_opts *o, struct imb_fluct_result *fl);

/* A calibration JSON file (mpiwatch calibrate --json; calib/'s reader) as
 * the entry for every node (*k, node "").  Return 0, or -1 with a message
 * naming the file in err. */
int imb_nodecal_load(const char *path, struct imb_nodecal *k, char *err, size_t errlen);

/* The text section and the JSON member ("fluctuation" of imbalance.json). */
int imb_fluct_text(FILE *f, const struct imb_fluct_result *r);
struct json_object *imb_fluct_json(const struct imb_fluct_result *r);

#endif
