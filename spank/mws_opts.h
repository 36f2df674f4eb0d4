/* mws_opts.h - the plugin's settings: the one job-settings table
 * (shared/jobconf.h) filled from the plugstack.conf arguments and the
 * user's --mpiwatch[=ARGS].  Pure, no Slurm calls: unit-tested and fuzzed. */
#ifndef MWS_OPTS_H
#define MWS_OPTS_H

#include "jobconf.h"

/* c = the table's defaults, with the monitor library and the helpers'
 * folder of this build (lib=, bindir=).  Return 0, or -1 (out of memory). */
int mws_conf_init(struct mw_jobconf *c);

/* c = defaults, then the site arguments (errors in err, as
 * mw_jobconf_parse_site: return their count), then, if user_given, the
 * user's argument (already checked by the option callback). */
int mws_conf_load(struct mw_jobconf *c, int argc, char **argv, int user_given, const char *user_arg,
		  char *err, size_t errlen);

/* Whether the site turned watching off for partition (off_partitions=): 1 if
 * partition is one of the listed names, else 0 (also for NULL or ""). */
int mws_partition_off(const struct mw_jobconf *c, const char *partition);

#endif
