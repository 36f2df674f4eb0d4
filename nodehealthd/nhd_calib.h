/* nhd_calib.h - the quick timer calibration nodehealthd runs at start and on
 * request (calib/, doc/nodehealthd.md "Calibration"), and the rule that makes
 * a node degraded from its result: a soft state, never a drain. */
#ifndef NHD_CALIB_H
#define NHD_CALIB_H

#include <stddef.h>
#include <time.h>

#include "cal_calib.h"
#include "nhd_checks.h"
#include "nhd_conf.h"

/* What the degraded rule judges (filled from a calibration, or faked by a test). */
struct nhd_calib_obs {
	long backward_steps;      /* timer reads that went backwards */
	double tsc_ghz_start;     /* TSC ticks per CLOCK_MONOTONIC ns, before the calibration */
	double tsc_ghz_end;       /* the same after it (both 0: no cycle counter) */
	int found;                /* a shortest trustworthy interval R0 was found */
	double noise;             /* the resolution relative to R0 (0.004 = 0.4 %); < 0: not resolved */
};

struct nhd_calib {
	int ran;                  /* calibrations run (0: none yet) */
	unsigned long gen;        /* calibrations run or skipped: a waiting request watches it */
	char skipped[120];        /* non-empty: the last request did not run, and why */
	double mono;              /* monotonic time the last calibration ended */
	time_t wall;
	double seconds, cpu_seconds;
	int truncated;            /* the budget ran out (the rounds may take 1.7 s, 0.8 CPU-s) */
	struct nhd_calib_obs obs;
	double r0_ns;             /* R0's median wall interval (0: not found) */
	double resolution_ns;     /* the resolution (0: not resolved) */
	double rate_diff;         /* |end - start| / start of the TSC rate (0 without a TSC) */
	int degraded;
	char detail[120];         /* the check's detail line */
};

/* The degraded rule: untrustworthy timers (a backward step, the TSC's rate
 * against CLOCK_MONOTONIC changing by more than c->calibrate_max_rate_diff)
 * or noise above c->calibrate_max_noise (when that is > 0; no interval
 * found or no resolution within the quick calibration counts as above).
 * Writes *rate_diff and a one-line detail.  Return 1 if degraded, else 0. */
int nhd_calib_judge(const struct nhd_calib_obs *o, const struct nhd_conf *c, double *rate_diff, char *detail,
		    size_t len);

/* Live Slurm job steps on node: the step sockets "NODE_JOB.STEP" in spool
 * (SlurmdSpoolDir) that a slurmstepd still listens on (a killed step's
 * stale socket does not count), not counting the extern step (it holds no
 * ranks).
 * Return their number, or -1 if spool cannot be read (errno set). */
int nhd_calib_busy_steps(const char *spool, const char *node);

/* Judge the calibration result r into *k (ran, seconds, what the degraded
 * rule observes, R0 and the resolution sent in the probe reply, degraded and
 * detail), with the TSC rate measured before (tsc_start) and after
 * (tsc_end) it (both 0 without a cycle counter).  Neither gen nor the times
 * of day are touched. */
void nhd_calib_take(const struct nhd_conf *c, struct nhd_calib *k, const struct cal_result *r, double tsc_start,
		    double tsc_end);

/* Run a quick calibration with a budget (the whole within 2 s and 1 CPU-second) and judge it
 * into *k (ran, gen and everything measured).  Return 0, or -1 if the
 * calibration could not run (errno set; *k's skipped says why). */
int nhd_calib_run(const struct nhd_conf *c, struct nhd_calib *k);

/* Append k's result to h as the check "calibration" (if one ran) and
 * summarise h again. */
void nhd_calib_to_health(const struct nhd_calib *k, struct nhd_health *h);

#endif
