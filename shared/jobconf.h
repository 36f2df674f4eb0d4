/* jobconf.h - the ranges and defaults of the per-job settings that more than
 * one program checks: the SPANK plugin (user option and site arguments),
 * "mpiwatch run", the monitor (MPIWATCH_*), the agent and the collector.
 * Each of them takes its limits from here, so a value one accepts is never
 * refused by another (a refused value would leave the job unwatched).
 *
 * Header only: the monitor's dispatcher (libmpiwatch.so) links nothing of
 * shared/.  The settings table of issue 11 grows from this file.
 */
#ifndef MW_JOBCONF_H
#define MW_JOBCONF_H

#include <string.h>
#include <strings.h>

/* timeout: seconds a rank may stay in one MPI call (or poll without
 * progress) before it counts as stuck. */
#define MW_TIMEOUT_DEFAULT 60.0
#define MW_TIMEOUT_MIN 1.0
#define MW_TIMEOUT_MAX 604800.0 /* 7 days */
#define MW_TIMEOUT_RANGE_TEXT "a number from 1 to 604800"

/* hang_limit: seconds after which a hang the analysis does not confirm is
 * acted on anyway; default MW_HANG_LIMIT_FACTOR x the timeout. */
#define MW_HANG_LIMIT_FACTOR 10
#define MW_HANG_LIMIT_MIN 1.0
#define MW_HANG_LIMIT_MAX 31536000.0 /* a year */

/* MPIWATCH_DISABLE: the monitor is off when it is set to anything but "",
 * "0", "no" or "false" (any case).  The one reading of that variable. */
static inline int mw_env_disables(const char *v)
{
	return v && *v && strcmp(v, "0") != 0 && strcasecmp(v, "no") != 0 &&
	       strcasecmp(v, "false") != 0;
}

#endif
