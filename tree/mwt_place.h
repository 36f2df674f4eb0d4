/* mwt_place.h - where the communication processes (CPs) of the tree overlay
 * go (seed 003, doc/tree.md): the best-effort average strategy and the
 * comprehensive (fuzzy) evaluation of the hosts.  Pure computation: no I/O,
 * no allocation beyond what is documented. */
#ifndef MWT_PLACE_H
#define MWT_PLACE_H

#include <stddef.h>

/* What the best-effort average strategy did (for tests and the text output). */
struct mwt_avg_info {
	int rounds;  /* passes of step 7 (the RS loop); 0 when step 5 put nothing in RS */
	size_t nrs;  /* |RS|: hosts whose BEs alone exceed their share */
	long sum;    /* the final sum (BEs and CPs left to share among the other hosts) */
};

/* Best-effort average placement of ncp CPs over m hosts holding os[i] BEs
 * each (seed 003, the eight steps: TS, OS, RS, AS).  ts (the final target
 * total of processes per host) may be NULL; as[i] receives the number of
 * CPs placed on host i (sum of as == ncp); info may be NULL.
 * Return 0, or -1 with errno EINVAL (m == 0 with ncp > 0, a negative count,
 * or a total above INT_MAX) or ENOMEM. */
int mwt_place_average(const int *os, size_t m, int ncp, int *ts, int *as, struct mwt_avg_info *info);

/* The factor set U of the comprehensive evaluation: what nodehealthd knows
 * of a host.  A negative value (or MWT_HEALTH_UNKNOWN) is "unknown", which
 * evaluates as the middle of the scale (fully "fair"). */
enum mwt_health { MWT_HEALTH_UNKNOWN = 0, MWT_HEALTH_OK, MWT_HEALTH_DEGRADED, MWT_HEALTH_DOWN };
struct mwt_factors {
	double load;        /* 1-minute load average */
	double mem_free_mb; /* free (available) memory, MiB */
	int cores;          /* online cores */
	enum mwt_health health;
	double rtt_ms;      /* probe round-trip from the front end, ms */
};

/* U = {load, free memory, cores, health, round-trip}, V = {good, fair, poor}. */
enum { MWT_F_LOAD, MWT_F_MEM, MWT_F_CORES, MWT_F_HEALTH, MWT_F_RTT, MWT_NF };
enum { MWT_J_GOOD, MWT_J_FAIR, MWT_J_POOR, MWT_NJ };

/* The default weights A (load 0.3, memory 0.2, cores 0.1, health 0.3,
 * round-trip 0.1); static, MWT_NF values. */
const double *mwt_fuzzy_default_weights(void);

/* Static names "load", "memory", "cores", "health", "rtt" / "good", "fair",
 * "poor" ("?" if out of range). */
const char *mwt_factor_name(int f);
const char *mwt_judgement_name(int j);

/* Parse "ok", "degraded", "down", "unknown".  Return the state or -1. */
int mwt_health_parse(const char *s);
const char *mwt_health_name(int h);

/* The evaluation of one host. */
struct mwt_eval {
	double x[MWT_NF];          /* each factor's goodness in [0,1] (1 best) */
	double r[MWT_NF][MWT_NJ];  /* membership matrix R: r[i][j] of factor i in judgement j */
	double b[MWT_NJ];          /* B = A o R (weighted sum), sums to 1 */
	int judgement;             /* the judgement of maximum membership in B */
};

/* Evaluate m hosts: goodness x (load: 1 - load/cores capped to [0,1];
 * memory and cores: value / the largest among the hosts; health: ok 1,
 * degraded 0.5, down 0; round-trip: the smallest among the hosts / value;
 * a host whose health is down is 0 on every factor: the worst membership),
 * memberships poor = max(0, 1-2x), fair = 1 - |2x-1|, good = max(0, 2x-1),
 * B = A o R with the weighted-sum operator M(*,+) and A = w normalised to
 * sum 1 (NULL: the default weights).  rank[k] receives the index of the
 * k-th best host: by the judgement of maximum membership (good first; a tie
 * between judgements counts as the better one), then larger b[good], then
 * smaller b[poor], then input order.  ev (m entries) may be NULL.
 * Return 0, or -1 with errno EINVAL (a negative or non-finite weight, all
 * weights 0) or ENOMEM. */
int mwt_fuzzy_rank(const struct mwt_factors *f, size_t m, const double *w, struct mwt_eval *ev,
		   size_t *rank);

#endif
