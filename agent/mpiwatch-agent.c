/* mpiwatch-agent - the per-node, per-job heartbeat agent (see
 * doc/man/mpiwatch-agent.1 and doc/collector.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobconf.h"
#include "agent.h"
#include "auth.h"
#include "cliopt.h"
#include "cmdline.h"
#include "conf.h"
#include "heartbeat.h"
#include "log.h"
#include "settings.h"

static const char agent_intro[] =
	"The per-node, per-job heartbeat agent (started by the SPANK plugin or by\n"
	"mpiwatch run).  Required: --job, --node, --rundir, --collector, and\n"
	"--settings or --timeout.  A job setting given as an option (--timeout,\n"
	"--munge-socket) overrides the settings file's.";

static int parse_job(const char *v, void *dst)
{
	struct ag_opts *o = dst;
	return mw_hb_valid_job(v) && !mw_copy(o->job, sizeof o->job, v) ? 0 : -1;
}

static int parse_node(const char *v, void *dst)
{
	struct ag_opts *o = dst;
	return mw_hb_valid_name(v) && !mw_copy(o->node, sizeof o->node, v) ? 0 : -1;
}

static int parse_rundir(const char *v, void *dst)
{
	struct ag_opts *o = dst;
	return v[0] == '/' && !mw_copy(o->rundir, sizeof o->rundir, v) ? 0 : -1;
}

static int parse_collector(const char *v, void *dst)
{
	struct ag_opts *o = dst;
	return mw_parse_hostport(v, o->host, sizeof o->host, &o->port) ? -1 : 0;
}

/* The site's auxiliary processes (agent/agap.c). */
static int parse_ap_conf(const char *v, void *dst)
{
	struct ag_opts *o = dst;
	return v[0] == '/' && !mw_copy(o->ap_conf, sizeof o->ap_conf, v) ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct ag_opts o;
	const char *pidfile = NULL, *logfile = NULL, *settings = NULL, *auth_file = NULL;
	const char *timeout = NULL, *munge_socket = NULL, *job_check = NULL, *tick = NULL, *ports = NULL;
	int verbose = 0, have_coll = 0, version = 0, rc, first;
	/* Job settings given one by one (after --settings FILE, which they
	 * override): checked here by the one table (shared/jobconf.c), applied
	 * by mw_jobconf_load. */
	struct mw_jobconf scratch;
	struct mw_jobconf_override set[5];
	int nset = 0;

	ag_opts_default(&o);
	const struct mw_cliopt opts[] = {
		{.name = "job", .kind = MW_CLIOPT_CUSTOM, .dst = &o, .parse = parse_job, .arg = "JOBID",
		 .what = "a job id", .help = "the job"},
		{.name = "node", .kind = MW_CLIOPT_CUSTOM, .dst = &o, .parse = parse_node, .arg = "NODENAME",
		 .what = "a node name", .help = "this node's name"},
		{.name = "rundir", .kind = MW_CLIOPT_CUSTOM, .dst = &o, .parse = parse_rundir, .arg = "DIR",
		 .what = "an absolute path", .help = "the monitor's slot directory"},
		{.name = "collector", .kind = MW_CLIOPT_CUSTOM, .dst = &o, .parse = parse_collector,
		 .given = &have_coll, .arg = "HOST:PORT", .what = "HOST:PORT", .help = "the job's collector"},
		{.name = "settings", .kind = MW_CLIOPT_STRING, .dst = &settings, .arg = "FILE",
		 .help = "the job's settings file"},
		{.name = "timeout", .kind = MW_CLIOPT_SETTING, .setting = "timeout", .text = &timeout,
		 .arg = "S"},
		{.name = "pidfile", .kind = MW_CLIOPT_STRING, .dst = &pidfile, .arg = "FILE",
		 .help = "write our pid to FILE"},
		{.name = "log", .kind = MW_CLIOPT_STRING, .dst = &logfile, .arg = "FILE",
		 .help = "append the log to FILE"},
		{.name = "tick", .kind = MW_CLIOPT_SETTING, .setting = "tick", .text = &tick, .arg = "S"},
		{.name = "job-check", .kind = MW_CLIOPT_SETTING, .setting = "job_check", .text = &job_check,
		 .arg = "S"},
		{.name = "ports", .kind = MW_CLIOPT_SETTING, .setting = "ports", .text = &ports, .arg = "N"},
		{.name = "munge-socket", .kind = MW_CLIOPT_SETTING, .setting = "munge_socket",
		 .text = &munge_socket, .arg = "PATH"},
		{.name = "auth-file", .kind = MW_CLIOPT_STRING, .dst = &auth_file, .arg = "FILE",
		 .help = "a token instead of MUNGE (mpiwatch run)"},
		{.name = "ap-conf", .kind = MW_CLIOPT_CUSTOM, .dst = &o, .parse = parse_ap_conf, .arg = "FILE",
		 .what = "an absolute path", .help = "the site's auxiliary processes"},
		{.name = "verbose", .shortname = 'v', .kind = MW_CLIOPT_FLAG, .dst = &verbose,
		 .help = "log debug messages"},
		{.name = "version", .kind = MW_CLIOPT_FLAG, .dst = &version, .help = "print the version and exit"},
		{.name = NULL},
	};
	const struct mw_cliopt_cmd cmd = {
		.prog = "mpiwatch-agent", .intro = agent_intro, .keys = mw_jobconf_keys, .conf = &scratch,
		.opts = opts,
	};
	char err[1024];

	if (mw_jobconf_init(&scratch) < 0) {
		fprintf(stderr, "mpiwatch-agent: out of memory\n");
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
		fprintf(stderr, "mpiwatch-agent: %s\n", err);
		return 2;
	}
	if (version) {
		printf("mpiwatch-agent %s\n", MW_VERSION);
		return 0;
	}
	if (auth_file && mw_auth_token_read(auth_file, o.auth_token, sizeof o.auth_token, err, sizeof err) < 0) {
		fprintf(stderr, "mpiwatch-agent: --auth-file: %s\n", err);
		return 2;
	}
	if (timeout)
		set[nset].key = "timeout", set[nset++].val = timeout;
	if (munge_socket)
		set[nset].key = "munge_socket", set[nset++].val = munge_socket;
	if (job_check)
		set[nset].key = "job_check", set[nset++].val = job_check;
	if (tick)
		set[nset].key = "tick", set[nset++].val = tick;
	if (ports)
		set[nset].key = "ports", set[nset++].val = ports;
	if (first < argc || !o.job[0] || !o.node[0] || !o.rundir[0] || !have_coll ||
	    (!settings && !timeout && !munge_socket)) {
		fprintf(stderr, "mpiwatch-agent: --job, --node, --rundir, --collector and --settings (or --timeout) are required\n");
		return 2;
	}
	/* The settings, read-only from now on (shared/settings.h). */
	if (mw_settings_load(settings, set, nset, err, sizeof err) < 0) {
		fprintf(stderr, "mpiwatch-agent: %s\n", err);
		return 2;
	}
	if (mw_helper_setup("mpiwatch-agent", logfile, pidfile, verbose))
		return 1;
	return ag_run(&o) == 0 ? 0 : 1;
}
