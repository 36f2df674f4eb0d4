/* mpiwatch-collector - the per-job heartbeat collector (see
 * doc/man/mpiwatch-collector.1 and doc/collector.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobconf.h"
#include "cmdline.h"
#include "conf.h"
#include "auth.h"
#include "core.h"
#include "heartbeat.h"
#include "hostlist.h"
#include "jsonschema.h"
#include "log.h"

/* --check-report FILE --schema SCHEMA: validate a report.json. */
static int check_report(const char *file, const char *schema)
{
	char err[512];
	json_object *s = mw_json_read_file(schema, err, sizeof err), *r;
	int rc;
	if (!s) {
		fprintf(stderr, "mpiwatch-collector: %s\n", err);
		return 2;
	}
	r = mw_json_read_file(file, err, sizeof err);
	if (!r) {
		fprintf(stderr, "mpiwatch-collector: %s\n", err);
		json_object_put(s);
		return 1;
	}
	rc = mw_jsonschema_validate(s, r, err, sizeof err);
	if (rc == 0)
		printf("%s: report OK\n", file);
	else
		fprintf(stderr, "mpiwatch-collector: %s: %s\n", file, err);
	json_object_put(s);
	json_object_put(r);
	return rc == 0 ? 0 : rc < 0 ? 2 : 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mpiwatch-collector --job JOBID (--settings FILE | --timeout S (--dir OUTDIR | --report FILE))\n"
		"         [--nodes HOSTLIST] [--port PORT] [--threshold N|P%%]\n"
		"         [--action report|cancel|requeue] [--drain yes|no] [--post yes|no]\n"
		"         [--restd URL] [--nhd-socket PATH] [--probe-port P] [--ranks N]\n"
		"         [--pidfile FILE] [--log FILE] [--settle S] [--probe-budget S]\n"
		"         [--probe-tries N] [--job-check S] [--ports N] [--exit-on-verdict]\n"
		"         [--hang-limit S] [--profile DIR] [--auth munge|none]\n"
		"         [--munge-socket PATH] [--auth-file FILE] [--ap-conf FILE]\n"
		"         [-v] [--help] [--version]\n"
		"       mpiwatch-collector --check-report FILE [--schema report.schema.json]\n");
}

int main(int argc, char **argv)
{
	enum { O_JOB = 256, O_NODES, O_PORT, O_TIMEOUT, O_THRESHOLD, O_DIR, O_ACTION, O_DRAIN, O_POST,
	       O_RESTD, O_NHD, O_PROBEPORT, O_RANKS, O_PIDFILE, O_LOG, O_REPORT, O_SETTLE, O_BUDGET,
	       O_TRIES, O_JOBCHECK, O_PORTS, O_EXIT, O_VERSION, O_CHECK, O_SCHEMA, O_HANG, O_PROFILE, O_AUTH, O_MSOCK, O_AFILE, O_SETTINGS, O_APCONF };
	static const struct option lo[] = {
		{"job", 1, 0, O_JOB},           {"nodes", 1, 0, O_NODES},
		{"port", 1, 0, O_PORT},         {"timeout", 1, 0, O_TIMEOUT},
		{"threshold", 1, 0, O_THRESHOLD}, {"dir", 1, 0, O_DIR},
		{"action", 1, 0, O_ACTION},     {"drain", 1, 0, O_DRAIN},
		{"post", 1, 0, O_POST},         {"restd", 1, 0, O_RESTD},
		{"nhd-socket", 1, 0, O_NHD},    {"probe-port", 1, 0, O_PROBEPORT},
		{"ranks", 1, 0, O_RANKS},       {"pidfile", 1, 0, O_PIDFILE},
		{"log", 1, 0, O_LOG},           {"report", 1, 0, O_REPORT},
		{"settle", 1, 0, O_SETTLE},     {"probe-budget", 1, 0, O_BUDGET},
		{"probe-tries", 1, 0, O_TRIES}, {"job-check", 1, 0, O_JOBCHECK},
		{"ports", 1, 0, O_PORTS},       {"exit-on-verdict", 0, 0, O_EXIT},
		{"verbose", 0, 0, 'v'},         {"help", 0, 0, 'h'},
		{"version", 0, 0, O_VERSION},   {"check-report", 1, 0, O_CHECK},
		{"schema", 1, 0, O_SCHEMA},     {"hang-limit", 1, 0, O_HANG},
		{"profile", 1, 0, O_PROFILE},   {"auth", 1, 0, O_AUTH},
		{"munge-socket", 1, 0, O_MSOCK}, {"auth-file", 1, 0, O_AFILE},
		{"settings", 1, 0, O_SETTINGS}, {"ap-conf", 1, 0, O_APCONF},
		{0, 0, 0, 0}};
	/* The job settings an option sets one by one (after --settings FILE,
	 * which they override), checked by the one table (shared/jobconf.c). */
	static const struct {
		int opt;
		const char *key;
	} job_opts[] = {
		{O_PORT, "port"},	  {O_TIMEOUT, "timeout"},	  {O_THRESHOLD, "threshold"},
		{O_DIR, "dir"},		  {O_ACTION, "action"},		  {O_DRAIN, "drain"},
		{O_POST, "post"},	  {O_RESTD, "restd"},		  {O_NHD, "nhd_socket"},
		{O_PROBEPORT, "probe_port"}, {O_HANG, "hang_limit"},	  {O_MSOCK, "munge_socket"},
	};
	struct mw_jobconf_override set[32];
	int nset = 0;
	const char *settings = NULL;
	struct col_opts o;
	const char *pidfile = NULL, *logfile = NULL, *what = "?", *check = NULL;
	const char *schema = "/usr/local/share/mpiwatch/report.schema.json";
	int c, verbose = 0, schema_set = 0;
	long l;

	col_opts_default(&o);
	while ((c = getopt_long(argc, argv, "vh", lo, NULL)) != -1) {
		size_t k;
		for (k = 0; k < sizeof job_opts / sizeof job_opts[0]; k++)
			if (c == job_opts[k].opt)
				break;
		if (k < sizeof job_opts / sizeof job_opts[0]) {
			if (nset < 32)
				set[nset].key = job_opts[k].key, set[nset++].val = optarg;
			continue;
		}
		switch (c) {
		case O_SETTINGS:
			settings = optarg;
			break;
		case O_JOB:
			what = "job";
			if (!mw_hb_valid_job(optarg) || mw_copy(o.job, sizeof o.job, optarg))
				goto bad_val;
			break;
		case O_NODES: {
			struct mw_hostlist hl = {0};
			what = "nodes (a Slurm hostlist)";
			if (mw_copy(o.nodes, sizeof o.nodes, optarg) ||
			    mw_hostlist_expand(optarg, 65536, &hl) < 0)
				goto bad_val;
			for (size_t i = 0; i < hl.n; i++)
				if (!mw_hb_valid_name(hl.host[i])) {
					mw_hostlist_free(&hl);
					goto bad_val;
				}
			mw_hostlist_free(&hl);
			break;
		}
		case O_PORTS:
			what = "ports";
			if (mw_conf_parse_long(optarg, 1, 100, &l))
				goto bad_val;
			o.nports = (int)l;
			break;
		case O_REPORT:
			what = "report";
			if (mw_copy(o.report, sizeof o.report, optarg) || !*optarg)
				goto bad_val;
			break;
		case O_RANKS:
			what = "ranks (1-262144)";
			if (mw_conf_parse_long(optarg, 1, 262144, &o.ranks))
				goto bad_val;
			break;
		case O_AUTH:
			what = "auth (munge or none)";
			if (!strcmp(optarg, "munge"))
				o.auth = 1;
			else if (!strcmp(optarg, "none"))
				o.auth = 0;
			else
				goto bad_val;
			break;
		case O_AFILE: {
			char err[300];
			what = "auth-file (a file holding a token)";
			if (mw_auth_token_read(optarg, o.auth_token, sizeof o.auth_token, err, sizeof err) < 0) {
				fprintf(stderr, "mpiwatch-collector: --auth-file: %s\n", err);
				return 2;
			}
			o.auth = 2;
			break;
		}
		case O_APCONF: /* the site's auxiliary processes (collector/ap.h) */
			what = "ap-conf (an absolute path)";
			if (optarg[0] != '/' || mw_copy(o.ap_conf, sizeof o.ap_conf, optarg))
				goto bad_val;
			break;
		case O_PROFILE:
			what = "profile (a directory path)";
			if (!*optarg || mw_copy(o.profile, sizeof o.profile, optarg))
				goto bad_val;
			break;
		case O_SETTLE:
			what = "settle (0-600 s)";
			if (mw_conf_parse_double(optarg, 0, 600, &o.settle_s))
				goto bad_val;
			break;
		case O_BUDGET:
			what = "probe-budget (0.1-60 s)";
			if (mw_conf_parse_double(optarg, 0.1, 60, &o.probe_budget_s))
				goto bad_val;
			break;
		case O_TRIES:
			what = "probe-tries (1-20)";
			if (mw_conf_parse_long(optarg, 1, 20, &l))
				goto bad_val;
			o.probe_tries = (int)l;
			break;
		case O_JOBCHECK:
			what = "job-check (0-86400 s)";
			if (mw_conf_parse_double(optarg, 0, 86400, &o.job_check_s))
				goto bad_val;
			break;
		case O_EXIT:
			o.exit_on_verdict = 1;
			break;
		case O_CHECK:
			check = optarg;
			break;
		case O_SCHEMA:
			schema = optarg;
			schema_set = 1;
			break;
		case O_PIDFILE:
			pidfile = optarg;
			break;
		case O_LOG:
			logfile = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case O_VERSION:
			printf("mpiwatch-collector %s\n", MW_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
		continue;
bad_val:
		fprintf(stderr, "mpiwatch-collector: invalid value for --%s: '%s'\n", what, optarg);
		return 2;
	}
	if (check) {
		/* Without --schema: the build tree's copy (build/bin/../../doc),
		 * else the one installed beside the program, else the default. */
		static char guess[4200];
		char exe[4096];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (!schema_set && n > 0) {
			exe[n] = 0;
			char *slash = strrchr(exe, '/');
			if (slash) {
				*slash = 0;
				snprintf(guess, sizeof guess, "%s/../../doc/schemas/report.schema.json", exe);
				if (access(guess, R_OK) != 0) /* installed: PREFIX/share/mpiwatch */
					snprintf(guess, sizeof guess, "%s/../share/mpiwatch/report.schema.json", exe);
				if (access(guess, R_OK) == 0)
					schema = guess;
			}
		}
		return check_report(check, schema);
	}
	{
		struct mw_jobconf jc;
		char err[600];
		int bad = mw_jobconf_load(&jc, settings, set, nset, err, sizeof err) < 0;
		int have_timeout = settings != NULL;
		for (int i = 0; i < nset; i++)
			have_timeout |= !strcmp(set[i].key, "timeout");
		if (!bad) {
			if (col_opts_set_job(&o, &jc) < 0) {
				snprintf(err, sizeof err, "a setting is too long for the collector");
				bad = 1;
			}
			mw_jobconf_free(&jc);
		}
		/* A later step may profile when the first does not: always
		 * look in the report folder's profile/. */
		if (!bad && settings && !o.profile[0] && o.dir[0])
			snprintf(o.profile, sizeof o.profile, "%.4080s/profile", o.dir);
		if (bad) {
			fprintf(stderr, "mpiwatch-collector: %s\n", err);
			return 2;
		}
		if (optind < argc || !o.job[0] || !have_timeout || (!o.dir[0] && !o.report[0])) {
			fprintf(stderr, "mpiwatch-collector: --job and --settings (or --timeout and --dir or --report) are required\n");
			usage(stderr);
			return 2;
		}
	}
	if (mw_helper_setup("mpiwatch-collector", logfile, pidfile, verbose))
		return 1;
	return col_run(&o) == 0 ? 0 : 1;
}
