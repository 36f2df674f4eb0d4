/* cal_work.h - the fixed workload of the calibration: chains of dependent
 * register additions, each measurement after the cache is flushed with
 * random data, timed with both clocks and the timer cost subtracted
 * (doc/calibrate.md, steps 2 and 3).  No function here prints or exits. */
#ifndef CAL_WORK_H
#define CAL_WORK_H

#include <stddef.h>
#include <stdint.h>

#include "cal_timer.h"

/* Additions per group: a chain is a whole number of groups. */
#define CAL_GROUP 8

/* A round: n measurements of a chain of `adds` additions.  cy[i] (cycles,
 * NULL without a cycle counter) and ns[i] are intervals with the empty
 * measurement's cost (L_cy, L_ts) already subtracted; they can be negative
 * for very short chains. */
struct cal_round {
	uint64_t adds;
	size_t n;
	double *cy;
	double *ns;
};

/* The cache flusher: a buffer written with pseudo-random data. */
struct cal_flush;

/* Run groups * CAL_GROUP dependent additions (groups >= 1) that the compiler
 * cannot fold; return the sum (so the result is used). */
uint64_t cal_chain(uint64_t groups);

/* A flusher of `bytes` (rounded up to 4 KiB; 0 means no flushing) seeded
 * with `seed`.  Return it, or NULL with errno set (ENOMEM). */
struct cal_flush *cal_flush_create(size_t bytes, uint64_t seed);

/* Write the whole buffer with new random data.  f may be NULL (nothing). */
void cal_flush_run(struct cal_flush *f);

/* The flusher's size in bytes (0 for NULL). */
size_t cal_flush_bytes(const struct cal_flush *f);

/* Free a flusher (NULL is fine). */
void cal_flush_destroy(struct cal_flush *f);

/* The flush size the calibration uses by default: the largest cache level
 * sysconf reports, capped at `cap` bytes (4 MiB if none is reported). */
size_t cal_flush_default(size_t cap);

/* Allocate r for n samples of a chain of adds additions (cy only if
 * with_cycles).  Return 0, or -1 with errno set (ENOMEM). */
int cal_round_init(struct cal_round *r, uint64_t adds, size_t n, int with_cycles);

/* Free a round's arrays (r itself is not freed). */
void cal_round_free(struct cal_round *r);

/* Take sample i of round r: flush, time r->adds additions with both clocks
 * (ti from cal_timer_measure), subtract L_cy and L_ts.  Never fails. */
void cal_measure(struct cal_round *r, size_t i, const struct cal_timer_info *ti,
		 struct cal_flush *fl);

#endif
