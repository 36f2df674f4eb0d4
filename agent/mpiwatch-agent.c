/* mpiwatch-agent - the per-node, per-job heartbeat agent (see
 * doc/man/mpiwatch-agent.1 and doc/collector.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobconf.h"
#include "agent.h"
#include "auth.h"
#include "cmdline.h"
#include "conf.h"
#include "heartbeat.h"
#include "log.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mpiwatch-agent --job JOBID --node NODENAME --rundir DIR --collector HOST:PORT\n"
		"                      (--settings FILE | --timeout S) [--pidfile FILE] [--log FILE] [--tick S]\n"
		"                      [--job-check S] [--ports N] [--munge-socket PATH]\n"
		"                      [--auth-file FILE] [--ap-conf FILE] [-v]\n"
		"                      [--help] [--version]\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{"job", 1, 0, 'j'},     {"node", 1, 0, 'n'},      {"rundir", 1, 0, 'r'},
		{"collector", 1, 0, 'c'}, {"timeout", 1, 0, 't'}, {"pidfile", 1, 0, 'p'},
		{"log", 1, 0, 'l'},     {"tick", 1, 0, 'T'},      {"job-check", 1, 0, 'J'},
		{"ports", 1, 0, 'P'},   {"verbose", 0, 0, 'v'},   {"help", 0, 0, 'h'},
		{"version", 0, 0, 'V'}, {"munge-socket", 1, 0, 'M'},
		{"auth-file", 1, 0, 'A'}, {"settings", 1, 0, 'S'}, {"ap-conf", 1, 0, 'X'},
		{0, 0, 0, 0}};
	struct ag_opts o;
	const char *pidfile = NULL, *logfile = NULL, *settings = NULL;
	int c, verbose = 0, have_coll = 0;
	long l;
	/* Job settings given one by one (after --settings FILE, which they
	 * override): checked by the one table (shared/jobconf.c). */
	struct mw_jobconf_override set[8];
	int nset = 0;

	ag_opts_default(&o);
	while ((c = getopt_long(argc, argv, "vh", lo, NULL)) != -1) {
		switch (c) {
		case 'j':
			if (!mw_hb_valid_job(optarg) || mw_copy(o.job, sizeof o.job, optarg))
				goto bad_val;
			break;
		case 'n':
			if (!mw_hb_valid_name(optarg) || mw_copy(o.node, sizeof o.node, optarg))
				goto bad_val;
			break;
		case 'r':
			if (mw_copy(o.rundir, sizeof o.rundir, optarg) || optarg[0] != '/')
				goto bad_val;
			break;
		case 'c':
			if (mw_parse_hostport(optarg, o.host, sizeof o.host, &o.port))
				goto bad_val;
			have_coll = 1;
			break;
		case 't':
		case 'M':
			if (nset < 8)
				set[nset].key = c == 't' ? "timeout" : "munge_socket", set[nset++].val = optarg;
			break;
		case 'S':
			settings = optarg;
			break;
		case 'T':
			if (mw_conf_parse_double(optarg, 0.01, 60, &o.tick_s))
				goto bad_val;
			break;
		case 'J':
			if (mw_conf_parse_double(optarg, 0, 86400, &o.job_check_s))
				goto bad_val;
			break;
		case 'P':
			if (mw_conf_parse_long(optarg, 1, 100, &l))
				goto bad_val;
			o.nports = (int)l;
			break;
		case 'A': {
			char err[300];
			if (mw_auth_token_read(optarg, o.auth_token, sizeof o.auth_token, err, sizeof err) < 0) {
				fprintf(stderr, "mpiwatch-agent: --auth-file: %s\n", err);
				return 2;
			}
			break;
		}
		case 'p':
			pidfile = optarg;
			break;
		case 'l':
			logfile = optarg;
			break;
		case 'X': /* the site's auxiliary processes (agent/ap.c) */
			if (mw_copy(o.ap_conf, sizeof o.ap_conf, optarg) || optarg[0] != '/')
				goto bad_val;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("mpiwatch-agent %s\n", MW_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
		continue;
bad_val:
		fprintf(stderr, "mpiwatch-agent: invalid value for --%s: '%s'\n",
			lo[0].name ? (c == 'j' ? "job" : c == 'n' ? "node" : c == 'r' ? "rundir (absolute path)"
				   : c == 'c' ? "collector (HOST:PORT)"
				   : c == 'T' ? "tick" : c == 'J' ? "job-check"
				   : c == 'X' ? "ap-conf (absolute path)" : "ports") : "?",
			optarg);
		return 2;
	}
	if (optind < argc || !o.job[0] || !o.node[0] || !o.rundir[0] || !have_coll ||
	    (!settings && !nset)) {
		fprintf(stderr, "mpiwatch-agent: --job, --node, --rundir, --collector and --settings (or --timeout) are required\n");
		usage(stderr);
		return 2;
	}
	{
		struct mw_jobconf jc;
		char err[600];
		int bad = mw_jobconf_load(&jc, settings, set, nset, err, sizeof err) < 0;
		if (!bad) {
			o.timeout_s = jc.timeout;
			o.liveness_s = jc.liveness;
			o.connect_timeout_s = jc.connect_timeout;
			o.handshake_timeout_s = jc.handshake_timeout;
			bad = mw_copy(o.munge_socket, sizeof o.munge_socket, jc.munge_socket) ||
			      (settings && jc.dir && mw_copy(o.outdir, sizeof o.outdir, jc.dir));
			if (bad)
				snprintf(err, sizeof err, "munge_socket or dir: path too long");
			mw_jobconf_free(&jc);
		}
		if (bad) {
			fprintf(stderr, "mpiwatch-agent: %s\n", err);
			return 2;
		}
	}
	if (mw_helper_setup("mpiwatch-agent", logfile, pidfile, verbose))
		return 1;
	return ag_run(&o) == 0 ? 0 : 1;
}
