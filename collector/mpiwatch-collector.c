/* mpiwatch-collector - the per-job heartbeat collector (see
 * doc/man/mpiwatch-collector.1 and doc/collector.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobconf.h"
#include "cliopt.h"
#include "cmdline.h"
#include "conf.h"
#include "auth.h"
#include "core.h"
#include "heartbeat.h"
#include "hostlist.h"
#include "jsonschema.h"
#include "log.h"
#include "settings.h"

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

static const char coll_intro[] =
	"The per-job heartbeat collector (started by the SPANK plugin or by mpiwatch\n"
	"run).  Required: --job, and --settings FILE, or --timeout and --dir or\n"
	"--report.  A job setting given as an option (--port, --timeout, --threshold,\n"
	"--dir, --action, --drain, --post, --restd, --nhd-socket, --probe-port,\n"
	"--hang-limit, --munge-socket) overrides the settings file's.";

static const char coll_more[] =
	"       mpiwatch-collector --check-report FILE [--schema report.schema.json]";

static int parse_job(const char *v, void *dst)
{
	struct col_opts *o = dst;
	return mw_hb_valid_job(v) && !mw_copy(o->job, sizeof o->job, v) ? 0 : -1;
}

/* A Slurm hostlist of valid node names. */
static int parse_nodes(const char *v, void *dst)
{
	struct col_opts *o = dst;
	struct mw_hostlist hl = {0};
	int rc = 0;
	if (mw_copy(o->nodes, sizeof o->nodes, v) || mw_hostlist_expand(v, 65536, &hl) < 0)
		return -1;
	for (size_t i = 0; i < hl.n; i++)
		if (!mw_hb_valid_name(hl.host[i]))
			rc = -1;
	mw_hostlist_free(&hl);
	return rc;
}

static int parse_report(const char *v, void *dst)
{
	struct col_opts *o = dst;
	return *v && !mw_copy(o->report, sizeof o->report, v) ? 0 : -1;
}

static int parse_auth(const char *v, void *dst)
{
	struct col_opts *o = dst;
	if (!strcmp(v, "munge"))
		o->auth = 1;
	else if (!strcmp(v, "none"))
		o->auth = 0;
	else
		return -1;
	return 0;
}

/* --auth-file FILE: token auth (the later of --auth and --auth-file wins);
 * the file is read once the options are read. */
static const char *auth_file;
static int parse_auth_file(const char *v, void *dst)
{
	struct col_opts *o = dst;
	auth_file = v;
	o->auth = 2;
	return 0;
}

/* The site's auxiliary processes (collector/colap.h). */
static int parse_ap_conf(const char *v, void *dst)
{
	struct col_opts *o = dst;
	return v[0] == '/' && !mw_copy(o->ap_conf, sizeof o->ap_conf, v) ? 0 : -1;
}

static int parse_profile(const char *v, void *dst)
{
	struct col_opts *o = dst;
	return *v && !mw_copy(o->profile, sizeof o->profile, v) ? 0 : -1;
}

static int parse_calibration(const char *v, void *dst)
{
	struct col_opts *o = dst;
	return *v && !mw_copy(o->calibration, sizeof o->calibration, v) ? 0 : -1;
}

/* The options that set a job setting: option, setting, value name. */
static const char *const job_opts[][3] = {
	{"port", "port", "PORT"},	   {"timeout", "timeout", "S"},
	{"threshold", "threshold", "N|P%"}, {"dir", "dir", "OUTDIR"},
	{"action", "action", "report|cancel|requeue"}, {"drain", "drain", "yes|no"},
	{"post", "post", "yes|no"},	   {"restd", "restd", "URL"},
	{"nhd-socket", "nhd_socket", "PATH"}, {"probe-port", "probe_port", "P"},
	{"hang-limit", "hang_limit", "S"}, {"munge-socket", "munge_socket", "PATH"},
	{"job-check", "job_check", "S"},
	/* the collector's own settings (MW_JC_HELPER) */
	{"ports", "ports", "N"},	   {"settle", "settle", "S"},
	{"probe-budget", "probe_budget", "S"}, {"probe-tries", "probe_tries", "N"},
};
#define NJOB_OPTS (sizeof job_opts / sizeof job_opts[0])

int main(int argc, char **argv)
{
	struct mw_jobconf_override set[NJOB_OPTS];
	const char *texts[NJOB_OPTS] = {0};
	int nset = 0;
	const char *settings = NULL;
	struct col_opts o;
	const char *pidfile = NULL, *logfile = NULL, *check = NULL;
	const char *schema = "/usr/local/share/mpiwatch/report.schema.json";
	int verbose = 0, schema_set = 0, version = 0, rc, first;
	struct mw_jobconf scratch;
	char err[1024];

	col_opts_default(&o);
	/* The job settings first, each checked by the one table
	 * (shared/jobconf.c) as it is read, and applied after --settings FILE
	 * by mw_settings_load; then the collector's own options. */
	struct mw_cliopt opts[NJOB_OPTS + 32];
	size_t nopt = 0;
	for (; nopt < NJOB_OPTS; nopt++)
		opts[nopt] = (struct mw_cliopt){.name = job_opts[nopt][0], .kind = MW_CLIOPT_SETTING,
					     .setting = job_opts[nopt][1], .arg = job_opts[nopt][2],
					     .text = &texts[nopt]};
	const struct mw_cliopt own[] = {
		{.name = "job", .kind = MW_CLIOPT_CUSTOM, .dst = &o, .parse = parse_job, .arg = "JOBID",
		 .what = "a job id", .help = "the job"},
		{.name = "settings", .kind = MW_CLIOPT_STRING, .dst = &settings, .arg = "FILE",
		 .help = "the job's settings file"},
		{.name = "nodes", .kind = MW_CLIOPT_CUSTOM, .dst = &o, .parse = parse_nodes, .arg = "HOSTLIST",
		 .what = "a Slurm hostlist of node names", .help = "the job's nodes (default: learnt from the agents)"},
		{.name = "report", .kind = MW_CLIOPT_CUSTOM, .dst = &o, .parse = parse_report, .arg = "FILE",
		 .what = "a file name", .help = "the report (default OUTDIR/report.json)"},
		{.name = "ranks", .kind = MW_CLIOPT_LONG, .dst = &o.ranks, .arg = "N", .min = 1, .max = 262144,
		 .unit = "a rank count", .help = "the job's ranks (default: learnt)"},
		{.name = "exit-on-verdict", .kind = MW_CLIOPT_FLAG, .dst = &o.exit_on_verdict,
		 .help = "leave after a confirmed verdict"},
		{.name = "profile", .kind = MW_CLIOPT_CUSTOM, .dst = &o, .parse = parse_profile, .arg = "DIR",
		 .what = "a directory path", .help = "at the end, the imbalance analysis of DIR's profiles"},
		{.name = "calibration", .kind = MW_CLIOPT_CUSTOM, .dst = &o, .parse = parse_calibration,
		 .arg = "FILE", .what = "a file path",
		 .help = "every node's timer calibration (mpiwatch calibrate --json) for the compute-phase flag"},
		{.name = "auth", .kind = MW_CLIOPT_CUSTOM, .dst = &o, .parse = parse_auth, .arg = "munge|none",
		 .what = "munge or none", .help = "how agents prove who they are (default munge)"},
		{.name = "auth-file", .kind = MW_CLIOPT_CUSTOM, .dst = &o, .parse = parse_auth_file,
		 .arg = "FILE", .what = "a file holding a token", .help = "a token instead of MUNGE (mpiwatch run)"},
		{.name = "ap-conf", .kind = MW_CLIOPT_CUSTOM, .dst = &o, .parse = parse_ap_conf, .arg = "FILE",
		 .what = "an absolute path", .help = "the site's auxiliary processes"},
		{.name = "pidfile", .kind = MW_CLIOPT_STRING, .dst = &pidfile, .arg = "FILE",
		 .help = "write our pid to FILE"},
		{.name = "log", .kind = MW_CLIOPT_STRING, .dst = &logfile, .arg = "FILE",
		 .help = "append the log to FILE"},
		{.name = "check-report", .kind = MW_CLIOPT_STRING, .dst = &check, .arg = "FILE",
		 .help = "validate a report.json and exit"},
		{.name = "schema", .kind = MW_CLIOPT_STRING, .dst = &schema, .given = &schema_set,
		 .arg = "SCHEMA", .help = "--check-report: the schema (default: the installed one)"},
		{.name = "verbose", .shortname = 'v', .kind = MW_CLIOPT_FLAG, .dst = &verbose,
		 .help = "log debug messages"},
		{.name = "version", .kind = MW_CLIOPT_FLAG, .dst = &version, .help = "print the version and exit"},
		{.name = NULL},
	};
	_Static_assert(sizeof own / sizeof own[0] <= 32, "opts too small");
	memcpy(opts + nopt, own, sizeof own);
	const struct mw_cliopt_cmd cmd = {
		.prog = "mpiwatch-collector", .more = coll_more, .intro = coll_intro, .keys = mw_jobconf_keys,
		.conf = &scratch, .opts = opts,
	};

	if (mw_jobconf_init(&scratch) < 0) {
		fprintf(stderr, "mpiwatch-collector: out of memory\n");
		return 1;
	}
	rc = mw_cliopt_parse(&cmd, argc, argv, &first, err, sizeof err);
	mw_jobconf_free(&scratch);
	if (rc == MW_CLIOPT_HELP) {
		char *h = mw_cliopt_help(&cmd);
		fputs(h ? h : "", stdout);
		free(h);
		return 0;
	}
	if (rc != MW_CLIOPT_OK) {
		fprintf(stderr, "mpiwatch-collector: %s\n", err);
		return 2;
	}
	if (version) {
		printf("mpiwatch-collector %s\n", MW_VERSION);
		return 0;
	}
	for (size_t k = 0; k < NJOB_OPTS; k++)
		if (texts[k])
			set[nset].key = job_opts[k][1], set[nset++].val = texts[k];
	if (auth_file && mw_auth_token_read(auth_file, o.auth_token, sizeof o.auth_token, err, sizeof err) < 0) {
		fprintf(stderr, "mpiwatch-collector: --auth-file: %s\n", err);
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
		/* The settings, read-only from now on (shared/settings.h). */
		int bad = mw_settings_load(settings, set, nset, err, sizeof err) < 0;
		int have_timeout = settings != NULL;
		const char *dir = mw_setting_str(MW_SET_DIR);
		for (int i = 0; i < nset; i++)
			have_timeout |= !strcmp(set[i].key, "timeout");
		if (bad) {
			fprintf(stderr, "mpiwatch-collector: %s\n", err);
			return 2;
		}
		/* A later step may profile when the first does not: always
		 * look in the report folder's profile/. */
		if (settings && !o.profile[0] && dir[0])
			snprintf(o.profile, sizeof o.profile, "%.4080s/profile", dir);
		if (first < argc || !o.job[0] || !have_timeout || (!dir[0] && !o.report[0])) {
			fprintf(stderr, "mpiwatch-collector: --job and --settings (or --timeout and --dir or --report) are required\n");
			return 2;
		}
	}
	if (mw_helper_setup("mpiwatch-collector", logfile, pidfile, verbose))
		return 1;
	return col_run(&o) == 0 ? 0 : 1;
}
