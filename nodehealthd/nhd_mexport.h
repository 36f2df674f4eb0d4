/* nhd_mexport.h - nodehealthd's metrics on its loop: the counts only the
 * metrics keep (drain results, the collectors' summaries), and the file
 * written every NHD_MEXPORT_PERIOD s and soon after a change (nhd_metrics.h
 * writes it). */
#ifndef NHD_MEXPORT_H
#define NHD_MEXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "drainreq.h"

#define NHD_MEXPORT_PERIOD 15 /* seconds between two writes at most */
#define NHD_MEXPORT_SOON 200  /* ms from a change to its write (changes coalesce) */
#define NHD_SEEN_JOBS 1024    /* jobs remembered: a job's summary counts once */

enum nhd_summary_result { NHD_SUM_COUNTED, NHD_SUM_DUPLICATE, NHD_SUM_REFUSED, NHD_SUM_N };

struct nhd_mexport {
	uint64_t already_drained; /* drains answered "already-drained" */
	uint64_t jobs_watched;
	uint64_t verdicts[MW_SUMMARY_NVERDICTS];
	uint64_t summaries[NHD_SUM_N];
	char seen[NHD_SEEN_JOBS][32]; /* job ids counted, a ring */
	size_t nseen, next;
	uv_timer_t tick, soon;
	int started, soon_pending;
	int failing; /* the last write failed (logged once until one succeeds) */
};

struct nhd;

/* Write the file now, then every NHD_MEXPORT_PERIOD s, on d->loop. */
void nhd_mexport_start(struct nhd *d);
/* Something the metrics show changed: write within NHD_MEXPORT_SOON ms. */
void nhd_mexport_changed(struct nhd *d);
/* Stopping: close the timers and remove the file (stale counters would look
 * like a live daemon's). */
void nhd_mexport_stop(struct nhd *d);

/* A collector's summary of job, accepted (its owner asked, the job ran
 * here): count the job and its verdict once.  Return NHD_SUM_COUNTED, or
 * NHD_SUM_DUPLICATE when the job was counted already. */
enum nhd_summary_result nhd_mexport_summary(struct nhd *d, const char *job, int verdict);
/* A summary refused. */
void nhd_mexport_refused(struct nhd *d);

/* The metrics text of d now (malloc'd, *len its length), or NULL (ENOMEM). */
char *nhd_mexport_text(struct nhd *d, size_t *len);

#endif
