/* cal_criterion.h - the calibrated criterion (doc/calibrate.md, step 5):
 * is the difference between two sets of timings a real performance
 * fluctuation, or timing error?  No function here prints or exits. */
#ifndef CAL_CRITERION_H
#define CAL_CRITERION_H

#include <stddef.h>

#include "cal_stats.h"

struct cal_criterion {
	double q;          /* fraction of measurements affected by timing error (0.1) */
	double resolution; /* the calibrated resolution, in the timings' unit (>= 0) */
	double relative;   /* the same relative to the interval it was measured at (>= 0):
			      the resolution used is max(resolution, relative * |median(A)|) */
	double alpha;      /* significance level (0.01) */
	int upper;         /* 0: b's band moved (the seed's criterion for a set: its
			      lower edge Q(q/2), where timing error does not reach,
			      beyond a's by more than the resolution); 1: count b above
			      a's band, against q/2 (is b SLOWER than a, however few of
			      its samples?  The flag of doc/imbalance.md) */
};

/* q = 0.1, resolution = 0, relative = 0, alpha = 0.01, upper = 0. */
void cal_criterion_defaults(struct cal_criterion *c);

struct cal_verdict {
	struct cal_test test;     /* rank-sum of b against a */
	double med_a, med_b;      /* medians */
	double diff, rel;         /* med_b - med_a, and that over med_a (0 if med_a is 0) */
	double delta;             /* the resolution used: max(resolution, relative * |med_a|) */
	double band_lo, band_hi;  /* a's quantiles q/2 and 1 - q/2, widened by the resolution */
	size_t outside;           /* samples of b outside the band (upper: above it) */
	double p_band;            /* P(Binomial(nb, q) >= outside); upper: q/2 */
	double edge_a, edge_b;    /* the lower edges of the bands: a's and b's Q(q/2) */
	int significant;          /* test.p_two_sided < alpha */
	int above_resolution;     /* |diff| > resolution */
	int beyond_band;          /* upper 0: b's lower edge moved beyond a's by more than the
				     resolution, the way the medians moved; upper 1:
				     p_band < alpha */
	int real;                 /* all three: a real performance fluctuation */
};

/* The band [Q(q/2) - delta, Q(1 - q/2) + delta] of the SORTED
 * sample a[0..n-1] (n >= 1, 0 <= q <= 1). */
void cal_band(const double *sorted, size_t n, double q, double delta, double *lo,
	      double *hi);

/* Judge b[0..nb-1] against the reference a[0..na-1] with criterion c.  Real
 * iff the rank-sum test finds a difference (two-sided p < alpha), the
 * difference of medians exceeds the resolution delta, and b's band lies
 * beyond a's: its lower edge Q(q/2) moved by more than delta the way the
 * medians moved (timing error only adds time to a fraction q of the
 * samples, so the lower edge is what the work itself takes; a burst of
 * interference that slows some of b's samples does not move it); with
 * c->upper, instead, more of b lies above a's band widened by delta than
 * the q/2 of timing error above it explains (binomial tail < alpha).  Return 0 with *v filled, or -1 with errno set (EINVAL: an
 * empty sample, a NaN, q outside [0, 1], a negative resolution; ENOMEM). */
int cal_judge(const double *a, size_t na, const double *b, size_t nb,
	      const struct cal_criterion *c, struct cal_verdict *v);

#endif
