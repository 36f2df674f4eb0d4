/* cal_timer.h - the timers the calibration measures with, and what they
 * cost: the cycle counter (x86-64: rdtsc/rdtscp, with the TSC's invariance
 * checked) and the wall clock (clock_gettime(CLOCK_MONOTONIC)).  On other
 * architectures only the wall clock is used.  No function here prints or
 * exits. */
#ifndef CAL_TIMER_H
#define CAL_TIMER_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#if defined(__x86_64__)
#define CAL_HAVE_CYCLES 1
#else
#define CAL_HAVE_CYCLES 0
#endif

struct cal_timer_info {
	int have_cycles;           /* 1 on x86-64: the TSC is read */
	int rdtscp;                /* 1 if the CPU has rdtscp (else lfence; rdtsc) */
	int invariant_tsc;         /* 1 if the TSC runs at a constant rate in every state */
	const char *invariant_how; /* "cpuid" (leaf 0x80000007 EDX bit 8), "cpuinfo"
				      (constant_tsc and nonstop_tsc flags) or "none" */
	double tsc_ghz;            /* TSC ticks per ns, measured against CLOCK_MONOTONIC */
	/* Costs, medians over the samples: one read of each timer alone, and the
	 * pair as the workload is timed (start cycle, start ns, stop ns, stop
	 * cycle, with nothing between): L_cy and L_ts of doc/calibrate.md. */
	double read_cycles_cy;     /* one cycle-counter read, in cycles */
	double read_ns_ns;         /* one clock_gettime, in ns */
	double l_cy;               /* cycle interval of an empty measurement */
	double l_ts;               /* wall interval (ns) of an empty measurement */
	double step_ns;            /* the wall clock's step: every interval is a multiple of it
				      (cal_clock_step of two reads' deltas; 10 on some guests) */
	size_t samples;            /* samples taken for each cost */
	long backward_steps;       /* reads that went backwards (either clock) */
};

/* One wall-clock read: CLOCK_MONOTONIC in ns. */
static inline uint64_t cal_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)
/* Start of a timed region: lfence; rdtsc; lfence (no earlier instruction
 * still running, no later one started). */
static inline uint64_t cal_cycles_start(void)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
}

/* End of a timed region: rdtscp (waits for the earlier instructions); lfence.
 * use_rdtscp 0: lfence; rdtsc; lfence instead. */
static inline uint64_t cal_cycles_stop(int use_rdtscp)
{
	uint32_t lo, hi, aux;
	if (use_rdtscp)
		__asm__ volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
	else
		__asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi)::"memory");
	(void)aux;
	return ((uint64_t)hi << 32) | lo;
}
#else
static inline uint64_t cal_cycles_start(void) { return 0; }
static inline uint64_t cal_cycles_stop(int use_rdtscp) { (void)use_rdtscp; return 0; }
#endif

/* Which timers this machine has and whether the TSC is invariant (cpuid,
 * else /proc/cpuinfo).  Fills the first four fields of *ti; the costs are
 * zero.  Never fails. */
void cal_timer_detect(struct cal_timer_info *ti);

/* Whether a /proc/cpuinfo text (len bytes) has both constant_tsc and
 * nonstop_tsc on a "flags" line.  Return 1 or 0. */
int cal_cpuinfo_invariant(const char *text, size_t len);

/* The TSC's rate against CLOCK_MONOTONIC, in ticks per ns, over about ms
 * ms of busy waiting; each end is the closest of a few paired reads, so a
 * preemption does not bias it.  use_rdtscp as cal_cycles_stop.  Return the
 * rate, or 0 without a cycle counter or with ms == 0. */
double cal_tsc_rate(int use_rdtscp, unsigned ms);

/* cal_timer_detect, then measure the costs over `samples` (>= 1) back-to-back
 * reads each, and the TSC rate over about `rate_ms` ms.  Return 0, or -1
 * with errno set (EINVAL: samples == 0; ENOMEM). */
int cal_timer_measure(struct cal_timer_info *ti, size_t samples, unsigned rate_ms);

/* The step of a clock from deltas x[0..n-1] of it (integers, e.g. the
 * intervals between two reads): the values that occur in at least 1 % of
 * them, joined into clusters where they are 1 apart (a 10 ns clock converted
 * from the TSC gives 20 and 21, 30 and 31), and the smallest distance
 * between neighbouring clusters' means, rounded; 1 when there is one
 * cluster or one wider than 1 (the clock resolves what was seen: a 1 ns
 * clock whose reads cost 25-28 or 35-37 ns is not a 10 ns clock), 0 when no
 * value is frequent. */
double cal_clock_step(const double *x, size_t n);

#endif
