/* cal_history.h - a node's calibrations over time (issue 32, doc/calibrate.md
 * section 6): what one calibration of 20 s measures is the minute it ran
 * in.  On the guest of doc/benchmarks.md the same node's runs-apart bound
 * was 25 ns in a calm minute and 35-65 in busier ones, and the false alarms
 * followed the calm calibrations; five blocks of one calm minute reported a
 * resolution spread of 20-20 ns that the next minute's 31 and 41 fell
 * outside.  The history keeps each calibration's blocks and runs-apart
 * bound (the last CAL_HISTORY_MAX), and the node's figures pool them: the
 * median and spread over every block of the calibrations at the same base
 * chain, and the largest runs-apart bound among them (each calibration's
 * bound holds in 99 % of its minute's pairs; the largest holds in each of
 * the minutes kept).  The criterion judges with the node's figures.
 *
 * The file (mpiwatch calibrate --history FILE) is JSON:
 *   {"version": 1, "calibrations": [{"time": UNIX_S, "base_adds": N,
 *    "step_ns": S, "blocks": [{"ns": X, "cy": Y, "relative": R} or null,
 *    ...], "runs_apart_ns": B or null, "runs_apart_cy": C or null}, ...]}
 * oldest first (doc/schemas/calibration-history.schema.json).  No function
 * here prints or exits. */
#ifndef CAL_HISTORY_H
#define CAL_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "cal_calib.h"
#include "cal_search.h"

#define CAL_HISTORY_MAX 8 /* calibrations kept, the most recent */

struct cal_history_entry {
	int64_t time;         /* when it ran, Unix seconds */
	uint64_t base_adds;   /* the chain its resolution was measured at */
	double step_ns;       /* the wall clock's step then (0: not known) */
	unsigned nblocks;     /* 1..CAL_BLOCKS_MAX */
	struct cal_block block[CAL_BLOCKS_MAX]; /* as cal_result's */
	int apart;            /* 1: the runs apart were bounded (cal_apart_bounded) */
	double apart_ns, apart_cy;
};

struct cal_history {
	size_t n; /* entries, oldest first */
	struct cal_history_entry e[CAL_HISTORY_MAX];
};

/* Parse a history file's text txt[0..len) (not NUL-terminated) into *h.
 * Return 0, or -1 with a message in err naming what is wrong (what names
 * the file; errno EINVAL, ENOMEM). */
int cal_history_parse(const char *txt, size_t len, const char *what, struct cal_history *h, char *err,
		      size_t errlen);

/* Read the history at path into *h: a missing file is an empty history
 * (a node's first calibration).  Return 0, or -1 with a message naming the
 * file in err (a file that does not parse is refused, not overwritten). */
int cal_history_load(const char *path, struct cal_history *h, char *err, size_t errlen);

/* Append r's resolution blocks and runs-apart bound, taken at time now, to
 * *h, dropping the oldest beyond CAL_HISTORY_MAX.  A calibration that
 * measured no resolution (no base chain, no block) adds nothing.  Return 1
 * when added, 0 when not. */
int cal_history_add(struct cal_history *h, const struct cal_result *r, int64_t now);

/* The node's resolution over the entries of h at base_adds and step_ns
 * (the same chain on the same clock): *node the blocks of all of them
 * combined as cal_resolution_blocks does (median, spread, second largest),
 * the relative figure the median block's own; its runs apart own's (this
 * calibration's, already added to h) with the bound the largest of theirs
 * (when own measured none and an earlier one
 * did, measured 2 and slowed 0: bounded by the history; when none did, not
 * bounded, and the blocks' upper end stands in).  *ncal (may be NULL) counts the entries
 * pooled; with none, *node = *own.  The criterion judges with *node
 * (cal_resolution_judged).  Return 0, or -1 with errno set. */
int cal_history_node(const struct cal_history *h, uint64_t base_adds, double step_ns,
		     const struct cal_resolution *own, struct cal_resolution *node, unsigned *ncal);

/* Add r to h (cal_history_add, at time now) and set r->node and
 * r->node_calibrations to the node's figures over h at r's chain and clock
 * (cal_history_node): what the criterion then judges with.  A calibration
 * that measured no resolution is not added and keeps r->node as cal_run set
 * it.  Return 0, or -1 with errno set (ENOMEM; r->node unchanged, r already
 * added to h). */
int cal_history_apply(struct cal_history *h, struct cal_result *r, int64_t now);

/* The history as the file's text (malloc'd, NUL-terminated; free it), or
 * NULL with errno set. */
char *cal_history_format(const struct cal_history *h);

/* Write h to path atomically (mode 0644).  Return 0, or -1 with a message
 * naming the file in err. */
int cal_history_save(const char *path, const struct cal_history *h, char *err, size_t errlen);

#endif
