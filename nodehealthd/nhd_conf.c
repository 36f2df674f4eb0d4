/* nhd_conf.c - nodehealthd configuration: schema, defaults, loading. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nhd_conf.h"
#include "probe.h"
#include "drainreq.h"

static const char *const log_choices[] = {"syslog", "stderr", NULL};
static const char *const level_choices[] = {"err", "warning", "notice", "info", "debug", NULL};

#define K(n, t, field, lo, hi) {.name = n, .type = t, .offset = offsetof(struct nhd_conf, field), .min = lo, .max = hi}
const struct mw_conf_key nhd_conf_keys[] = {
	K("listen", MW_CONF_STRING, listen, 0, 0),
	K("port", MW_CONF_INT, port, 1, 65535),
	K("socket", MW_CONF_STRING, socket, 0, 0),
	K("node_name", MW_CONF_STRING, node_name, 0, 0),
	K("rate_limit", MW_CONF_DOUBLE, rate_limit, 0, 1e7),
	K("rate_burst", MW_CONF_DOUBLE, rate_burst, 1, 1e7),
	{.name = "log", .type = MW_CONF_ENUM, .offset = offsetof(struct nhd_conf, log), .choices = log_choices},
	{.name = "log_level", .type = MW_CONF_ENUM, .offset = offsetof(struct nhd_conf, log_level),
	 .choices = level_choices},
	K("check_interval", MW_CONF_DOUBLE, check_interval, 0.1, 86400),
	K("load_max_per_core", MW_CONF_DOUBLE, load_max_per_core, 0, 1e6),
	K("mem_min_free_mb", MW_CONF_INT, mem_min_free_mb, 0, 1L << 40),
	K("mount", MW_CONF_LIST, mount, 0, 0),
	K("mount_writable", MW_CONF_BOOL, mount_writable, 0, 0),
	K("tmp_path", MW_CONF_STRING, tmp_path, 0, 0),
	K("tmp_min_free_mb", MW_CONF_INT, tmp_min_free_mb, 0, 1L << 40),
	K("daemon", MW_CONF_LIST, daemon, 0, 0),
	K("clock_min_year", MW_CONF_INT, clock_min_year, 1970, 9999),
	K("clock_max_jump", MW_CONF_DOUBLE, clock_max_jump, 0, 1e9),
	K("edac_max_ue", MW_CONF_INT, edac_max_ue, -1, 1L << 40),
	K("edac_max_ce", MW_CONF_INT, edac_max_ce, -1, 1L << 40),
	K("edac_path", MW_CONF_STRING, edac_path, 0, 0),
	K("calibrate", MW_CONF_BOOL, calibrate, 0, 0),
	K("calibrate_max_noise", MW_CONF_DOUBLE, calibrate_max_noise, 0, 1),
	K("calibrate_max_rate_diff", MW_CONF_DOUBLE, calibrate_max_rate_diff, 0, 1),
	K("calibrate_min_interval", MW_CONF_DOUBLE, calibrate_min_interval, 0, 86400),
	K("slurmd_spool_dir", MW_CONF_STRING, slurmd_spool_dir, 0, 0),
	K("drain", MW_CONF_BOOL, drain, 0, 0),
	K("scontrol", MW_CONF_STRING, scontrol, 0, 0),
	K("job_grace", MW_CONF_INT, job_grace, 0, 86400 * 7),
	K("reprobe_tries", MW_CONF_INT, reprobe_tries, 1, 16),
	K("reprobe_timeout", MW_CONF_DOUBLE, reprobe_timeout, 0.1, 600),
	K("partition_check", MW_CONF_BOOL, partition_check, 0, 0),
	K("partition_max_dead_fraction", MW_CONF_DOUBLE, partition_max_dead_fraction, 0, 1),
	K("storm_window", MW_CONF_DOUBLE, storm_window, 1, 86400 * 30),
	K("storm_max_per_window", MW_CONF_INT, storm_max_per_window, 0, 1000000),
	K("storm_max_drained", MW_CONF_INT, storm_max_drained, 0, 1000000),
	K("storm_max_fraction", MW_CONF_DOUBLE, storm_max_fraction, 0, 1),
	K("hook", MW_CONF_LIST, hook, 0, 0),
	K("hook_timeout", MW_CONF_DOUBLE, hook_timeout, 0.1, 3600),
	K("metrics_dir", MW_CONF_STRING, metrics_dir, 0, 0),
	{.name = NULL},
};
#undef K

static int set_str(char **dst, const char *s)
{
	free(*dst);
	*dst = s ? strdup(s) : NULL;
	return (s && !*dst) ? -1 : 0;
}

int nhd_conf_defaults(struct nhd_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->port = MW_PROBE_DEFAULT_PORT;
	c->rate_limit = 100;
	c->rate_burst = 200;
	c->log = NHD_LOG_SYSLOG;
	c->log_level = NHD_LL_INFO;
	c->check_interval = 30;
	c->load_max_per_core = 4.0;
	c->mem_min_free_mb = 64;
	c->mount_writable = 1;
	c->tmp_min_free_mb = 100;
	c->clock_min_year = 2020;
	c->clock_max_jump = 60;
	c->edac_max_ue = 0;
	c->edac_max_ce = -1;
	c->calibrate = 1;
	c->calibrate_max_noise = 0.05;
	c->calibrate_max_rate_diff = 0.001;
	c->calibrate_min_interval = 10;
	c->drain = 1;
	c->job_grace = 600;
	c->reprobe_tries = 3;
	c->reprobe_timeout = 3.0;
	c->partition_check = 1;
	c->partition_max_dead_fraction = 0.5;
	c->storm_window = 3600;
	c->storm_max_per_window = 4;
	c->storm_max_drained = 8;
	c->storm_max_fraction = 0.1;
	c->hook_timeout = 30;
	if (set_str(&c->listen, "0.0.0.0") || set_str(&c->socket, MW_DRAIN_DEFAULT_SOCKET) ||
	    set_str(&c->tmp_path, "/tmp") || set_str(&c->scontrol, "/usr/bin/scontrol") ||
	    set_str(&c->edac_path, "/sys/devices/system/edac/mc") ||
	    set_str(&c->slurmd_spool_dir, "/var/spool/slurmd") || set_str(&c->node_name, "") ||
	    set_str(&c->metrics_dir, NHD_DEFAULT_METRICS_DIR)) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

static int is_abs(const char *p)
{
	return p && p[0] == '/';
}

int nhd_conf_validate(const struct nhd_conf *c, const char *source, struct mw_conf_errors *errs)
{
	size_t before = errs->n;

	if (!c->listen || !c->listen[0])
		mw_conf_error(errs, "%s: listen: must not be empty", source);
	if (!is_abs(c->socket))
		mw_conf_error(errs, "%s: socket: must be an absolute path", source);
	else if (strlen(c->socket) >= 108)
		mw_conf_error(errs, "%s: socket: path longer than 107 bytes", source);
	if (c->node_name && c->node_name[0] && !mw_drainreq_valid_node(c->node_name))
		mw_conf_error(errs, "%s: node_name: '%s' is not a valid node name", source, c->node_name);
	if (!is_abs(c->tmp_path))
		mw_conf_error(errs, "%s: tmp_path: must be an absolute path", source);
	if (!is_abs(c->scontrol))
		mw_conf_error(errs, "%s: scontrol: must be an absolute path", source);
	if (!is_abs(c->slurmd_spool_dir))
		mw_conf_error(errs, "%s: slurmd_spool_dir: must be an absolute path", source);
	if (!is_abs(c->edac_path))
		mw_conf_error(errs, "%s: edac_path: must be an absolute path", source);
	if (c->metrics_dir && c->metrics_dir[0] && !is_abs(c->metrics_dir))
		mw_conf_error(errs, "%s: metrics_dir: must be an absolute path (or empty: no metrics)", source);
	for (size_t i = 0; i < c->mount.n; i++)
		if (!is_abs(c->mount.v[i]))
			mw_conf_error(errs, "%s: mount: '%s' is not an absolute path", source, c->mount.v[i]);
	for (size_t i = 0; i < c->daemon.n; i++)
		if (!c->daemon.v[i][0] || strchr(c->daemon.v[i], '/'))
			mw_conf_error(errs, "%s: daemon: '%s' is not a process name", source, c->daemon.v[i]);
	for (size_t i = 0; i < c->hook.n; i++)
		if (!is_abs(c->hook.v[i]))
			mw_conf_error(errs, "%s: hook: '%s' is not an absolute path", source, c->hook.v[i]);
	if (c->reprobe_timeout / (double)c->reprobe_tries < 0.05)
		mw_conf_error(errs, "%s: reprobe_timeout: less than 50 ms per try", source);
	return (int)(errs->n - before);
}

struct nhd_conf *nhd_conf_load(const char *path, struct mw_conf_errors *errs)
{
	struct nhd_conf *c = calloc(1, sizeof(*c));
	int nerr;

	if (!c || nhd_conf_defaults(c) < 0) {
		mw_conf_error(errs, "%s: out of memory", path);
		free(c);
		return NULL;
	}
	nerr = mw_conf_parse_file(path, nhd_conf_keys, c, errs);
	nerr += nhd_conf_validate(c, path, errs);
	c->path = strdup(path);
	c->refs = 1;
	if (nerr || !c->path) {
		nhd_conf_free(c);
		return NULL;
	}
	return c;
}

void nhd_conf_free(struct nhd_conf *c)
{
	if (!c)
		return;
	mw_conf_free(nhd_conf_keys, c);
	free(c->path);
	free(c);
}
