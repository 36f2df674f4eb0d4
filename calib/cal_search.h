/* cal_search.h - from measured rounds to the calibration's numbers
 * (doc/calibrate.md, steps 3 and 4): the shortest trustworthy interval and
 * the resolution.  Pure functions of the data, so they are tested on
 * synthetic rounds.  No function here prints or exits. */
#ifndef CAL_SEARCH_H
#define CAL_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "cal_apart.h"
#include "cal_work.h"

struct cal_search_opts {
	double q_lo, q_hi;   /* central quantiles that must lie in the band (0.05, 0.95) */
	double tol;          /* the band: expected value * (1 -/+ tol) (0.05, i.e. +-5 %) */
	double threshold_ns; /* detection threshold on a round's median wall interval (10000) */
	double alpha;        /* significance level of the rank-sum tests (0.01) */
};

/* The defaults above. */
void cal_search_defaults(struct cal_search_opts *o);

/* The workload's rate when the timer cost is negligible: the expected value
 * of a chain of a additions is a * cy_per_add cycles and a * ns_per_add ns. */
struct cal_rate {
	double cy_per_add, ns_per_add;
	/* The work's own spread (issue 32): the q_lo and q_hi quantiles of a
	 * chain long enough that the timers' error is negligible (the noise
	 * round, measured sample by sample with the round judged), each over
	 * that chain's median, so below and above 1.  The band of a round is
	 * then [expected * lo_ns * (1 - tol), expected * hi_ns * (1 + tol)]:
	 * what the timers add beyond what the work itself varies at that
	 * moment.  0: not measured, the expected value itself (lo = hi = 1). */
	double lo_ns, hi_ns, lo_cy, hi_cy;
};

/* One round summarised. */
struct cal_round_stat {
	uint64_t adds;
	double exp_cy, lo_cy, med_cy, hi_cy; /* 0 without a cycle counter */
	double exp_ns, lo_ns, med_ns, hi_ns;
	double band_lo_ns, band_hi_ns;       /* the band the quantiles must lie in (cal_rate) */
	double band_lo_cy, band_hi_cy;
	int pass_cy, pass_ns;                /* quantiles within the band (pass_cy 1 without cycles) */
	double outside_ns;                   /* fraction of samples outside the ns band */
	int coarse;                          /* the quantiles passed, but the interval is shorter
						than four steps of the wall clock per tolerance
						(cal_clock_fine): not trustworthy */
};

/* Summarise round r against the expected values and check it: both
 * clocks' q_lo and q_hi quantiles within expected * (1 -/+ tol), each end
 * scaled by the work's own spread when rate has it (rate->lo_ns ...).  Return 1
 * if it passes, 0 if not, -1 with errno set (EINVAL: empty round; ENOMEM). */
int cal_round_check(const struct cal_round *r, const struct cal_rate *rate,
		    const struct cal_search_opts *o, struct cal_round_stat *st);

struct cal_interval {
	int found;     /* 1: round `round` is the first that passes */
	int unable;    /* 1: a round's median passed threshold_ns before any passed */
	size_t round;  /* index of R0 (when found) or of the round that stopped the search */
	double cy, ns; /* the shortest trustworthy interval: R0's medians */
};

/* One step of the search: round r, summarised in st, passed (pass 1) or not.
 * A passing round is R0 (found); a failing round whose median wall interval
 * is above threshold_ns ends the search (unable).  Return 1 when the search
 * ends here, 0 when the next round is needed.  out starts zeroed. */
int cal_interval_step(struct cal_interval *out, size_t r, const struct cal_round_stat *st, int pass,
		      const struct cal_search_opts *o);

/* Search rounds[0..nr-1] (increasing adds) in order: the first that passes
 * cal_round_check is R0; a failing round whose median wall interval is above
 * threshold_ns ends the search (unable).  stats, if not NULL, receives the
 * summary of every round examined (nr entries).  Return the number of rounds
 * examined, or -1 with errno set. */
int cal_find_interval(const struct cal_round *rounds, size_t nr, const struct cal_rate *rate,
		      const struct cal_search_opts *o, struct cal_round_stat *stats,
		      struct cal_interval *out);

struct cal_resolution {
	int found;        /* 1: steps[step] is the smallest significant step */
	size_t step;      /* index into steps */
	double d_cy, d_ns; /* difference of medians, steps[step] - base */
	double rel;       /* d_ns / median(base ns) */
	double p_ns, p_cy; /* two-sided rank-sum p-values of that step (p_cy 0 without cycles) */
	double drift_ns, drift_cy; /* the base round measured again during and after the
				      steps: the largest minus the smallest of its medians,
				      what the same workload moves within one run; 0 when
				      not measured */
	int drift_bound;  /* 1: the drift was larger than the step's difference and
			     is the resolution (d_ns, d_cy, rel) */
	int clock_bound;  /* 1: d_ns is two steps of the wall clock, more than the
			     test resolved (cal_resolution_floor) */
	/* Over blocks (cal_resolution_blocks): how many were measured and
	 * resolved, and the smallest and largest resolution among the resolved
	 * ones (the spread; equal to d_ns, d_cy for one block). */
	unsigned blocks, blocks_found;
	double lo_ns, hi_ns, lo_cy, hi_cy;
	double hi2_ns, hi2_cy; /* the second largest resolved block's (0 with fewer than two) */
	/* What separates two runs (cal_apart_measure, the full calibration's
	 * base round in fresh processes; procs 0: not measured). */
	struct cal_apart apart;
};

/* Blocks cal_resolution_blocks combines at most: a node's history of
 * calibrations (cal_history.h: 8 of up to 16 blocks each). */
#define CAL_POOL_MAX 128

/* One block's resolution, as a node's history keeps it (cal_history.h). */
struct cal_block {
	int found;          /* 0: the block resolved no step (ns, cy, rel unused) */
	double ns, cy, rel; /* its d_ns, d_cy (0 without a cycle counter), rel */
};

/* The resolution: steps[0..ns-1] are rounds with more additions than base,
 * in increasing order.  Step k is significant when the two-sided rank-sum
 * test of its wall intervals (and cycle intervals, if any) against base has
 * p < alpha, with a positive difference of medians.  The resolution is the
 * difference of medians at the smallest k from which every larger step is
 * significant too (one significant step by chance does not count).  Return
 * 0 (found may be 0: no step is resolved), or -1 with errno set. */
int cal_find_resolution(const struct cal_round *base, const struct cal_round *steps, size_t ns,
			const struct cal_search_opts *o, struct cal_resolution *out);

/* Bound a found resolution r by the drift: bases[0..nb) are the same round
 * (the base's additions) measured at times spread over the run, bases[0]
 * the base the steps were tested against.  A difference of medians smaller
 * than what the same workload moves within one run (the largest minus the
 * smallest of their medians) is not resolved: the resolution becomes that
 * drift when it is larger (r->drift_bound; r->rel relative to bases[0]).
 * Nothing changes when r->found is 0 or nb < 2.  Return 0, or -1 with errno
 * set (an empty round). */
int cal_resolution_drift(struct cal_resolution *r, const struct cal_round *bases, size_t nb);

/* Combine the resolutions blk[0..nb) of nb >= 1 blocks (each measured alone:
 * cal_find_resolution, then cal_resolution_drift against the block's own
 * base measured again after its steps) into *out: the median over the
 * blocks, an unresolved block counting as larger than every resolved one,
 * so found iff more than half of the blocks resolved a difference; the spread lo_ns..hi_ns (lo_cy..hi_cy) is
 * the smallest and largest resolved block's; drift_ns (drift_cy) the largest
 * of the blocks'; step, p, drift_bound those of the median block.  Return
 * 0, or -1 with errno EINVAL (nb 0 or above CAL_POOL_MAX). */
int cal_resolution_blocks(const struct cal_resolution *blk, size_t nb, struct cal_resolution *out);

/* The resolution a criterion judges with, from the combined blocks rs (found):
 * the median block's, or what separates two runs when larger
 * (rs->apart.bound_ns, bound_cy, when the full calibration measured it:
 * two or more runs kept); without that measurement (nodehealthd, --quick)
 * the upper end of the spread over blocks stands in for it, one block
 * excepted when more than three resolved (a burst of load spoils one block:
 * the second largest): what repeats from one run to the next, where the
 * median block's does not (doc/calibrate.md section 5).  *ns and *cy (0 without cycles) are
 * absolute, *rel the same relative to the interval it was measured at.  Never
 * below two steps of the wall clock (step_ns, cal_clock_step; 0: not known):
 * two quantiles timed with such a clock differ by up to a step each with no
 * change in the work.  The one rule for the calibration file's criterion and
 * nodehealthd's probe reply. */
void cal_resolution_judged(const struct cal_resolution *rs, double step_ns, double *ns, double *cy, double *rel);

/* The resolution rs (combined blocks) as this node's wall clock can state
 * it: its ns figures (the median block's d_ns, the spread lo_ns..hi_ns,
 * hi2_ns) never below two steps of the wall clock (step_ns, cal_clock_step;
 * 0: not known, nothing changes), rel scaled with d_ns; the cycle figures
 * are left as they are (the TSC counts single cycles).  A difference of two
 * medians below a step is an interpolation between two readings of the
 * clock, not something it resolves (issue 32: 1, 5.5 and 9 ns were reported
 * on a 10 ns clock, and the spreads of quiet runs, 9-10 ns, left out a
 * neighbour's 5.5); two steps is the least a criterion judges with
 * (cal_resolution_judged), so what is reported is what is judged with. */
void cal_resolution_floor(struct cal_resolution *rs, double step_ns);

/* Whether an interval of med_ns is long enough for a wall clock of step
 * step_ns (0: not known) to time it within the tolerance tol: two steps (what
 * two quantiles of such a clock may differ by with no change, the least
 * resolution a criterion judges with) at most half of tol.  A round whose
 * quantiles pass but is shorter is not trustworthy (issue 32: on a guest
 * with a 10 ns clock, 581 ns passed in some runs and not in others, and a 5 %
 * slowdown there is 3 steps). */
int cal_clock_fine(double med_ns, double step_ns, double tol);

/* The resolution analyze fluctuation judges with when it measured the
 * blocks rs just now, at the scale of the data (cal_opts.at): the smallest
 * resolved block's (lo_ns, lo_cy), in the timings' unit, cycles iff cycles;
 * 0 when no block resolved anything.  Other load only ever slows the work:
 * a burst inflates the blocks it falls in and never shrinks one below what
 * the timers resolve, so the smallest block is what this node resolves at
 * that scale, and the verdict on the same files does not follow how busy
 * the node was during the 1 s of calibration (issue 32, t/0623; the spread
 * over the blocks is still reported).  A calibration file and nodehealthd
 * judge with cal_resolution_judged: there the resolution must cover what
 * separates runs measured at other times.  In ns, never below two steps of
 * the wall clock (step_ns, as cal_resolution_judged). */
double cal_resolution_at_scale(const struct cal_resolution *rs, int cycles, double step_ns);

#endif
