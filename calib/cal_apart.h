/* cal_apart.h - what separates two runs of the same work (issue 32): the
 * base round timed in several fresh processes, one after the other, and the
 * bound that the difference of two runs' lower edges stays within in 99 %
 * of pairs.  One process's blocks agree within a nanosecond or two; two
 * processes' do not (the cache flush leaves each one's timers and chain
 * loading from memory whose placement is the process's own: on the 2-core
 * guest of doc/benchmarks.md the lower edges of 2.2 us chains spread with an
 * SD of 4-13 ns between processes).  A criterion that compares a user's runs
 * must cover that spread.  No function here prints or exits. */
#ifndef CAL_APART_H
#define CAL_APART_H

#include <stddef.h>
#include <stdint.h>

#include "cal_timer.h"

#define CAL_APART_MAX 64 /* fresh processes, at most */

/* How a fresh process is started (the CLI runs itself, "mpiwatch
 * calibrate --emit"): run(adds, n, flush_bytes, ns, arg) fills ns[0..n)
 * with raw wall intervals (the timer cost not subtracted) of a chain of
 * adds additions, each after a flush of flush_bytes, as cal_emit does,
 * timed in an exec'd process of its own; 0, or -1.  An exec'd process is
 * what a user's runs are: its data, stack and relocated pages are its own.
 * (Forked children, which share their parent's pages until they write
 * them, were tried first; their edges agreed more closely than exec'd
 * processes' in the first measurements, SD 0-10 against 10-13 ns on the
 * guest of doc/benchmarks.md, though that spread also moves from minute to
 * minute.)  A library caller without one measures no runs apart. */
struct cal_fresh {
	int (*run)(uint64_t adds, size_t n, size_t flush_bytes, double *ns, void *arg);
	void *arg;
};

struct cal_apart {
	unsigned procs;            /* processes asked for (0: not measured) */
	unsigned measured;         /* processes whose samples arrived */
	unsigned slowed;           /* of those, left out: an edge more than tol above the
				      median edge (other load slowed that run: what the
				      criterion is there to flag, not to cover) */
	double q_edge;             /* the quantile taken as each run's edge (the criterion's q/2) */
	double step_ns;            /* the wall clock's step (struct cal_timer_info; 0: 1 ns) */
	double lo_ns, hi_ns;       /* the smallest and largest edge over the processes */
	double lo_cy, hi_cy;
	double sd_ns, sd_cy;       /* the edges' standard deviation (0 with fewer than 2) */
	double excess_ns;          /* their mean excess over the lowest, in whole clock steps,
				      ns */
	double bound_sd_ns;        /* t(0.995, n - 1) * sd * sqrt(2): 1 % of pairs beyond, were
				      the edges normal */
	double bound_tail_ns;      /* the same from a geometric tail fitted to the runs'
				      excess over the lowest in clock steps, when half the
				      runs or more sit on the lowest step (cal_apart_bound);
				      else 0 */
	double bound_ns, bound_cy; /* two runs' edges differ by more than this in 1 % of pairs:
				      the larger of the two, over the n = measured - slowed
				      edges kept; 0 with fewer than 2 */
};

/* The two-sided 99 % quantile of Student's t with df degrees of freedom
 * (df >= 1; a table to 30, then interpolated in 1/df to the normal's
 * 2.576).  Return it, or NaN for df 0. */
double cal_t995(unsigned df);

/* The bound of out from the edges edge_ns[0..k) of k <= CAL_APART_MAX
 * fresh runs: a run whose edge is more than tol (a fraction; the interval
 * search's tolerance) above the median edge is left out (slowed), then lo,
 * hi, sd and the bounds over the others as in struct cal_apart; the cycle
 * figures are the same at cy_per_ns (the TSC's rate; 0 without a cycle
 * counter: a fresh process reports wall intervals).  Two bounds, the
 * larger taken: the normal one from the SD, and a tail one for edges that
 * are not bell-shaped: on a clock of 10 ns steps most runs land on the
 * lowest value and a few one, two, three steps above, with each further
 * step rarer by about the same factor (100 processes: 79, 17, 3, 1), so
 * the runs' excess over the lowest edge in steps is fitted a geometric
 * tail through its mean (raised by one standard error: 32 runs see the
 * third step rarely), where the SD understates how often two runs are
 * three steps apart (26.5 ns for such 32 edges where three steps, 30 ns,
 * part 1 % of pairs).  The tail bound is taken only when half the runs or
 * more sit on the lowest step: edges spread over several steps (seen in
 * busier minutes: 8, 13, 5, 5 and 1 runs on steps 0-4) are bell-shaped
 * enough for the SD.
 * out->procs, out->q_edge and out->step_ns are left as they are,
 * out->measured = k.  Pure, for the tests. */
void cal_apart_bound(const double *edge_ns, size_t k, double tol, double cy_per_ns, struct cal_apart *out);

/* Whether a's bounds were computed: two runs or more kept (measured less
 * slowed).  The one rule for the report and the judged resolution. */
int cal_apart_bounded(const struct cal_apart *a);

/* Time the chain of `adds` additions `samples` times in each of `procs`
 * fresh processes (fresh->run, each flushing flush_bytes before every
 * sample), one after the other, and append each one's q_edge quantile
 * (the timer cost ti->l_ts subtracted, as cal_measure does) to
 * edge_ns[*k], *k counting: the caller leaves room for procs more.  Call
 * it at several moments and give the edges to cal_apart_bound.  A process
 * that fails is left out; without fresh (or fresh->run) nothing is
 * measured.  Return 0, or -1 with errno set (EINVAL: samples or q_edge
 * out of range; ENOMEM). */
int cal_apart_measure(unsigned procs, uint64_t adds, size_t samples, double q_edge,
		      const struct cal_timer_info *ti, size_t flush_bytes, const struct cal_fresh *fresh,
		      double *edge_ns, size_t *k);

#endif
