/* cal_calib.h - the whole calibration (doc/calibrate.md): timer costs, the
 * workload's rate, rounds up to the shortest trustworthy interval, the
 * resolution there, and the criterion's parameters.  No function here
 * prints or exits. */
#ifndef CAL_CALIB_H
#define CAL_CALIB_H

#include <stddef.h>
#include <stdint.h>

#include "cal_search.h"
#include "cal_timer.h"
#include "cal_work.h"

#define CAL_BLOCKS_MAX 16 /* blocks of the resolution, at most */
/* Blocks of the quick calibration that analyze fluctuation runs at A's
 * median: 5 (the quick default is 3), so that two blocks spoiled by bursts
 * of load do not decide the median; at 100 us they add about 0.15 s. */
#define CAL_BLOCKS_AT_QUICK 5

struct cal_opts {
	struct cal_search_opts search;
	int quick;             /* the quick defaults were taken */
	size_t samples;        /* measurements per round: 200 (quick 40) */
	size_t timer_samples;  /* reads per timer cost: 20000 (quick 2000) */
	double growth;         /* additions multiplied by this each round: 4 (a coarse ladder:
				  runs whose crossing moves by up to a factor 4 land on the
				  same step, issue 32; 2 before session 13) */
	uint64_t max_adds;     /* no round beyond this: 1 << 24 */
	double step;           /* the first resolution round is this fraction of the base
				  longer: 0.0025 (quick 0.005) */
	unsigned steps;        /* resolution rounds after the base in each block, each
				  sqrt(2) times further from it: 12 (quick 10), up to
				  step * 2^((steps - 1) / 2) = 11.3 % */
	unsigned blocks;       /* the resolution measured this many times, one block after
				  the other (base, steps, base again): 5 (quick 3) */
	double at;             /* 0: the resolution at R0; else at the chain whose expected
				  interval is this (ns, or cycles with at_cycles) */
	int at_cycles;
	size_t flush_bytes;    /* cache flush: largest cache, at most 4 MiB (quick 1 MiB) */
	int interleave;        /* resolution rounds sample by sample (1) or one after the
				  other (0, the default: drift between them counts) */
	double budget_s;       /* 0, or stop measuring once this much wall time is used (the
				  rounds so far are judged; truncated is set) */
	double budget_cpu_s;   /* the same for this thread's CPU time */
	double q;              /* criterion: fraction with timing error: q_lo + 1 - q_hi,
				  what the interval search allows (0.1) */
	unsigned procs;        /* the base round timed again in this many fresh processes
				  (cal_apart_measure): 32 (quick 0, which starts none) */
	struct cal_fresh fresh; /* how they are started (run NULL: none is, nothing measured) */
};

/* Fill o with the defaults above (quick: the quick ones). */
void cal_opts_defaults(struct cal_opts *o, int quick);

/* Check o's ranges.  Return 0, or -1 with a message in err (errno EINVAL). */
int cal_opts_check(const struct cal_opts *o, char *err, size_t errlen);

struct cal_result {
	struct cal_opts opts;
	struct cal_timer_info timer;
	struct cal_rate rate;             /* per addition, from the long chains measured
					     with the last round searched; the work's own
					     spread from its noise round */
	uint64_t noise_adds;              /* the noise round's chain: expected to take the
					     detection threshold */
	size_t nrounds;
	struct cal_round_stat *rounds;    /* the rounds searched, in order */
	struct cal_interval interval;
	int high_precision;               /* 1: interval found, at most threshold_ns; 0: the
					     platform cannot do high-precision detection */
	uint64_t base_adds, step_adds;    /* resolution rounds: the base, and the first step's
					     extra additions (cal_step_adds) */
	struct cal_resolution resolution;
	struct cal_block block[CAL_BLOCKS_MAX]; /* each block's own resolution (resolution.blocks
						   of them, before cal_resolution_floor), what a
						   node's history keeps (cal_history.h) */
	struct cal_resolution node;       /* what the criterion judges with: the node's
					     resolution over its calibrations at this chain
					     (cal_history_apply); cal_run sets it to resolution,
					     this calibration alone */
	unsigned node_calibrations;       /* how many calibrations node pools (cal_run: 1, or 0
					     without a base chain) */
	double seconds, cpu_seconds;      /* what the calibration took (CPU: this thread's) */
	int truncated;                    /* 1: a budget ran out before the end */
};

/* Run the calibration with options o (NULL: the full defaults).  Return 0
 * with *r filled (free with cal_result_free), or -1 with errno set (EINVAL:
 * bad options; ENOMEM). */
int cal_run(const struct cal_opts *o, struct cal_result *r);

/* The extra additions of resolution step k (0-based) above a base of
 * base_adds: base_adds * step * sqrt(2)^k rounded up to whole groups,
 * increasing with k. */
uint64_t cal_step_adds(uint64_t base_adds, double step, unsigned k);

/* The largest resolution step of o relative to the base: step *
 * sqrt(2)^(steps - 1), what a calibration that resolved nothing could not
 * resolve. */
double cal_largest_step(const struct cal_opts *o);

/* Who takes the samples of the resolution's rounds: take(r, i, arg) fills
 * sample i of round r (cal_run: cal_measure with its timers and flusher; a
 * unit test: synthetic timings), over(arg) says whether the budget is used
 * up (NULL: never). */
struct cal_sampler {
	void (*take)(struct cal_round *r, size_t i, void *arg);
	int (*over)(void *arg);
	/* NULL, or called after each block measured whole (b from 0): cal_run
	 * times the base round in fresh processes there, so that what
	 * separates runs is sampled over the whole step, not in one moment. */
	void (*after_block)(unsigned b, void *arg);
	void *arg;
};

/* Step 4: measure the resolution at a chain of base_adds additions with
 * o's blocks, steps, samples and interleave, through sampler s (rounds with
 * cycles iff with_cycles), and combine the blocks (cal_resolution_blocks)
 * into *out; each block's own in blocks[0..out->blocks) when blocks is not
 * NULL (room for o->blocks); *truncated is set to 1 when the budget
 * stopped it early.  Return 0, or -1 with errno set (EINVAL: base_adds 0;
 * ENOMEM). */
int cal_resolution_measure(const struct cal_opts *o, uint64_t base_adds, int with_cycles,
			   const struct cal_sampler *s, struct cal_resolution *out, struct cal_block *blocks,
			   int *truncated);

/* Free what cal_run allocated in r. */
void cal_result_free(struct cal_result *r);

/* Print n raw wall intervals (ns, the timer cost not subtracted) of a chain of
 * adds * (1 + extra) additions through put(value, arg), each after a cache
 * flush: real timings for tests and benchmarks of the criterion (extra
 * injects a slowdown).  Return 0, or -1 with errno set. */
int cal_emit(uint64_t adds, double extra, size_t n, size_t flush_bytes,
	     void (*put)(double ns, void *arg), void *arg);

#endif
