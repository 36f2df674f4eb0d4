/* mws_opts.c - parse plugstack.conf arguments and --mpiwatch[=ARGS]. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobconf.h"
#include "conf.h"
#include "mws_opts.h"

#define MWS_MAX_TIMEOUT MW_TIMEOUT_MAX

static const char *const action_names[] = {"report", "cancel", "requeue", NULL};

const char *mws_action_name(int action)
{
	if (action < 0 || action > MWS_ACTION_REQUEUE)
		return "report";
	return action_names[action];
}

void mws_site_defaults(struct mws_site *s)
{
	memset(s, 0, sizeof(*s));
	s->default_on = 0;
	snprintf(s->lib, sizeof(s->lib), "%s", MWS_DEFAULT_LIBDIR "/libmpiwatch.so");
	snprintf(s->bindir, sizeof(s->bindir), "%s", MWS_DEFAULT_BINDIR);
	s->timeout = MW_TIMEOUT_DEFAULT;
	s->threshold = 1;
	s->threshold_pct = 0;
	s->drain = 1;
	s->post = 1;
	s->strict = 0;
	s->action = MWS_ACTION_REPORT;
	snprintf(s->nhd_socket, sizeof(s->nhd_socket), "/run/mpiwatch/nodehealthd.sock");
	s->probe_port = 7171;
	s->port_base = 7300;
	snprintf(s->rundir, sizeof(s->rundir), "/dev/shm");
}

void mws_user_defaults(struct mws_user *u)
{
	memset(u, 0, sizeof(*u));
	u->threshold = -1;
	u->action = -1;
}

static void add_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_err(char *err, size_t errlen, const char *fmt, ...)
{
	size_t used = strlen(err);
	va_list ap;
	if (used + 2 >= errlen)
		return;
	if (used)
		err[used++] = '\n', err[used] = '\0';
	va_start(ap, fmt);
	vsnprintf(err + used, errlen - used, fmt, ap);
	va_end(ap);
}

/* "N" (1..1e6 ranks) or "P%" (0 < P <= 100). */
static int parse_threshold(const char *v, long *n, int *pct)
{
	size_t len = strlen(v);
	char num[32];

	if (len == 0 || len >= sizeof(num))
		return -1;
	if (v[len - 1] == '%') {
		memcpy(num, v, len - 1);
		num[len - 1] = '\0';
		if (mw_conf_parse_long(num, 1, 100, n) < 0)
			return -1;
		*pct = 1;
		return 0;
	}
	if (mw_conf_parse_long(v, 1, 1000000, n) < 0)
		return -1;
	*pct = 0;
	return 0;
}

static int parse_action(const char *v)
{
	for (int i = 0; action_names[i]; i++)
		if (!strcmp(v, action_names[i]))
			return i;
	return -1;
}

static int set_path(char *dst, size_t len, const char *v, int must_be_absolute)
{
	if (!*v || strlen(v) >= len || (must_be_absolute && v[0] != '/'))
		return -1;
	snprintf(dst, len, "%s", v);
	return 0;
}

int mws_site_parse(int argc, char **argv, struct mws_site *s, char *err, size_t errlen)
{
	int bad = 0;

	if (errlen)
		err[0] = '\0';
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		char key[32];
		const char *v;
		const char *why = NULL;
		long l;
		int b;

		if (!eq || eq == a || (size_t)(eq - a) >= sizeof(key)) {
			add_err(err, errlen, "plugstack.conf argument %d (%s): expected key=value", i + 1, a);
			bad++;
			continue;
		}
		memcpy(key, a, (size_t)(eq - a));
		key[eq - a] = '\0';
		v = eq + 1;
		if (!strcmp(key, "default")) {
			if (!strcmp(v, "on"))
				s->default_on = 1;
			else if (!strcmp(v, "off"))
				s->default_on = 0;
			else
				why = "default must be on or off";
		} else if (!strcmp(key, "lib")) {
			if (set_path(s->lib, sizeof(s->lib), v, 1) < 0)
				why = "lib must be an absolute path";
		} else if (!strcmp(key, "bindir")) {
			if (set_path(s->bindir, sizeof(s->bindir), v, 1) < 0)
				why = "bindir must be an absolute path";
		} else if (!strcmp(key, "rundir")) {
			if (set_path(s->rundir, sizeof(s->rundir), v, 1) < 0)
				why = "rundir must be an absolute path";
		} else if (!strcmp(key, "nhd_socket")) {
			if (set_path(s->nhd_socket, sizeof(s->nhd_socket), v, 1) < 0)
				why = "nhd_socket must be an absolute path";
		} else if (!strcmp(key, "timeout")) {
			if (mw_conf_parse_double(v, 1, MWS_MAX_TIMEOUT, &s->timeout) < 0)
				why = "timeout must be a number of seconds from 1 to 604800";
		} else if (!strcmp(key, "hang_limit")) {
			if (mw_conf_parse_double(v, MW_HANG_LIMIT_MIN, MW_HANG_LIMIT_MAX, &s->hang_limit) < 0)
				why = "hang_limit must be a number of seconds from 1 to 31536000";
		} else if (!strcmp(key, "threshold")) {
			if (parse_threshold(v, &s->threshold, &s->threshold_pct) < 0)
				why = "threshold must be a rank count (1-1000000) or a percentage (1%-100%)";
		} else if (!strcmp(key, "drain")) {
			if (mw_conf_parse_bool(v, &b) < 0)
				why = "drain must be yes or no";
			else
				s->drain = b;
		} else if (!strcmp(key, "post")) {
			if (mw_conf_parse_bool(v, &b) < 0)
				why = "post must be yes or no";
			else
				s->post = b;
		} else if (!strcmp(key, "strict")) {
			if (mw_conf_parse_bool(v, &b) < 0)
				why = "strict must be yes or no";
			else
				s->strict = b;
		} else if (!strcmp(key, "action")) {
			int act = parse_action(v);
			if (act < 0)
				why = "action must be report, cancel or requeue";
			else
				s->action = (enum mws_action)act;
		} else if (!strcmp(key, "restd")) {
			if (strlen(v) >= sizeof(s->restd) ||
			    (*v && strncmp(v, "http://", 7) && strncmp(v, "https://", 8)))
				why = "restd must be an http:// or https:// URL";
			else
				snprintf(s->restd, sizeof(s->restd), "%s", v);
		} else if (!strcmp(key, "off_partitions")) {
			if (strlen(v) >= sizeof(s->off_partitions) || !*v ||
			    strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-,") !=
				    strlen(v))
				why = "off_partitions must be a comma-separated list of partition names";
			else
				snprintf(s->off_partitions, sizeof(s->off_partitions), "%s", v);
		} else if (!strcmp(key, "munge_socket")) {
			if (strlen(v) >= sizeof(s->munge_socket) || v[0] != '/')
				why = "munge_socket must be an absolute path";
			else
				snprintf(s->munge_socket, sizeof(s->munge_socket), "%s", v);
		} else if (!strcmp(key, "probe_port")) {
			if (mw_conf_parse_long(v, 1, 65535, &l) < 0)
				why = "probe_port must be 1-65535";
			else
				s->probe_port = l;
		} else if (!strcmp(key, "port_base")) {
			if (mw_conf_parse_long(v, 1024, 65535 - 505, &l) < 0)
				why = "port_base must be 1024-65030";
			else
				s->port_base = l;
		} else {
			why = "unknown key";
		}
		if (why) {
			add_err(err, errlen, "plugstack.conf argument %d (%s): %s", i + 1, a, why);
			bad++;
		}
	}
	return bad;
}

int mws_user_parse(const char *arg, struct mws_user *u, char *err, size_t errlen)
{
	char buf[1024];
	char *save = NULL, *w;

	if (errlen)
		err[0] = '\0';
	u->given = 1;
	if (!arg || !*arg || !strcmp(arg, "(null)"))
		return 0;
	if (strlen(arg) >= sizeof(buf)) {
		add_err(err, errlen, "--mpiwatch: argument too long");
		return -1;
	}
	strcpy(buf, arg);
	if (buf[0] == ',' || buf[strlen(buf) - 1] == ',' || strstr(buf, ",,")) {
		add_err(err, errlen, "--mpiwatch=%s: empty item in the list", arg);
		return -1;
	}
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(w, '=');
		const char *v = eq ? eq + 1 : NULL;
		if (eq)
			*eq = '\0';
		if (!strcmp(w, "off") && !v) {
			u->off = 1;
		} else if (!strcmp(w, "on") && !v) {
			u->off = 0;
		} else if (!strcmp(w, "profile") && !v) {
			u->profile = 1;
		} else if (!strcmp(w, "timeout") && v) {
			if (mw_conf_parse_double(v, 1, MWS_MAX_TIMEOUT, &u->timeout) < 0) {
				add_err(err, errlen,
					"--mpiwatch: timeout=%s: expected seconds, a number from 1 to 604800", v);
				return -1;
			}
		} else if (!strcmp(w, "hang_limit") && v) {
			if (mw_conf_parse_double(v, MW_HANG_LIMIT_MIN, MW_HANG_LIMIT_MAX, &u->hang_limit) < 0) {
				add_err(err, errlen,
					"--mpiwatch: hang_limit=%s: expected seconds, a number from 1 to 31536000", v);
				return -1;
			}
		} else if (!strcmp(w, "threshold") && v) {
			if (parse_threshold(v, &u->threshold, &u->threshold_pct) < 0) {
				add_err(err, errlen,
					"--mpiwatch: threshold=%s: expected a rank count (e.g. 4) or a percentage (e.g. 50%%)", v);
				return -1;
			}
		} else if (!strcmp(w, "dir") && v) {
			if (!*v || strlen(v) >= sizeof(u->dir)) {
				add_err(err, errlen, "--mpiwatch: dir= needs a path");
				return -1;
			}
			snprintf(u->dir, sizeof(u->dir), "%s", v);
		} else if (!strcmp(w, "action") && v) {
			int act = parse_action(v);
			if (act < 0) {
				add_err(err, errlen,
					"--mpiwatch: action=%s: expected report, cancel or requeue", v);
				return -1;
			}
			u->action = act;
		} else {
			add_err(err, errlen,
				"--mpiwatch: unknown item '%s%s%s' (expected off, timeout=S, hang_limit=S, threshold=N|P%%, dir=PATH, action=report|cancel|requeue, profile)",
				w, v ? "=" : "", v ? v : "");
			return -1;
		}
	}
	return 0;
}

int mws_enabled(const struct mws_site *s, const struct mws_user *u)
{
	if (u->given)
		return !u->off;
	return s->default_on;
}

int mws_partition_off(const struct mws_site *s, const char *partition)
{
	size_t n = partition ? strlen(partition) : 0;
	const char *p = s->off_partitions;
	if (!n)
		return 0;
	while (*p) {
		size_t l = strcspn(p, ",");
		if (l == n && !strncmp(p, partition, n))
			return 1;
		p += l;
		if (*p == ',')
			p++;
	}
	return 0;
}

void mws_threshold_str(const struct mws_site *s, const struct mws_user *u, char *buf, size_t len)
{
	if (u->threshold > 0)
		snprintf(buf, len, "%ld%s", u->threshold, u->threshold_pct ? "%" : "");
	else
		snprintf(buf, len, "%ld%s", s->threshold, s->threshold_pct ? "%" : "");
}
