/* nhd_conf.h - nodehealthd configuration: schema, defaults, loading. */
#ifndef NHD_CONF_H
#define NHD_CONF_H

#include "conf.h"

#define NHD_DEFAULT_CONF "/etc/mpiwatch/nodehealthd.conf"
/* node_exporter's textfile folder in Debian's prometheus-node-exporter */
#define NHD_DEFAULT_METRICS_DIR "/var/lib/prometheus/node-exporter"

enum nhd_log_dest { NHD_LOG_SYSLOG = 0, NHD_LOG_STDERR = 1 };
enum nhd_log_level { NHD_LL_ERR = 0, NHD_LL_WARNING, NHD_LL_NOTICE, NHD_LL_INFO, NHD_LL_DEBUG };

struct nhd_conf {
	/* network */
	char *listen;
	long port;
	char *socket;
	char *node_name;
	double rate_limit;
	double rate_burst;
	/* logging */
	int log;
	int log_level;
	/* health checks */
	double check_interval;
	double load_max_per_core;
	long mem_min_free_mb;
	struct mw_strlist mount;
	int mount_writable;
	char *tmp_path;
	long tmp_min_free_mb;
	struct mw_strlist daemon;
	long clock_min_year;
	double clock_max_jump;
	long edac_max_ue;
	long edac_max_ce;
	char *edac_path;
	/* calibration (nhd_calib.h) */
	int calibrate;
	double calibrate_max_noise;
	double calibrate_max_rate_diff;
	double calibrate_min_interval;
	char *slurmd_spool_dir;
	/* drains */
	int drain;
	char *scontrol;
	long job_grace;
	long reprobe_tries;
	double reprobe_timeout;
	int partition_check;
	double partition_max_dead_fraction;
	double storm_window;
	long storm_max_per_window;
	long storm_max_drained;
	double storm_max_fraction;
	struct mw_strlist hook;
	double hook_timeout;
	/* metrics (nhd_mexport.h) */
	char *metrics_dir;
	/* not from the file */
	char *path;
	int refs;
};

/* The schema (NULL-terminated by a NULL name). */
extern const struct mw_conf_key nhd_conf_keys[];

/* Set every field of c to its default.  Return 0, or -1 (ENOMEM). */
int nhd_conf_defaults(struct nhd_conf *c);

/* Cross-field checks after parsing (e.g. a hook that is not an absolute
 * path); errors are appended to errs with source as their prefix.  Return the
 * number of errors added. */
int nhd_conf_validate(const struct nhd_conf *c, const char *source, struct mw_conf_errors *errs);

/* Load defaults + path into a new config (refs = 1).  Return it, or NULL
 * with every error in errs (which the caller frees). */
struct nhd_conf *nhd_conf_load(const char *path, struct mw_conf_errors *errs);

/* Release a config made by nhd_conf_load (or defaults). */
void nhd_conf_free(struct nhd_conf *c);

#endif
