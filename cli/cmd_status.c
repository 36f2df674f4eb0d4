/* cmd_status.c - "mpiwatch status": this node's nodehealthd state and
 * counters; with --job, a running job's watch (its collector's report). */
#include <errno.h>
#include <pwd.h>
#include <stdint.h>
#include <unistd.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "conf.h"
#include "drained.h"
#include "drainreq.h"
#include "fsutil.h"
#include "jsonschema.h"
#include "probe.h"
#include "slurm.h"
#include "statusprint.h"

static const char status_intro[] =
	"Show this node's mpiwatch-nodehealthd: health, checks and counters (over its\n"
	"unix socket; if that fails, a probe to localhost gives the state only).\n"
	"With --job: that job's watch, from the report its collector keeps up to date\n"
	"(DIR, default mpiwatch-JOB in the job's working directory as squeue gives it):\n"
	"Slurm's state, the verdict, which nodes' agents are connected, the ranks seen,\n"
	"the last events.\n"
	"With --drained: the nodes mpiwatch drained in Slurm (\"sinfo --json\": draining\n"
	"or drained, with a reason starting \"" MW_DRAIN_REASON_PREFIX "\"), why and since when;\n"
	"nodes drained by anyone else are left out.";

static const char status_epilog[] =
	"Exit status: 0 alive (--job: watched; --drained: listed, none or some), 1\n"
	"degraded or no daemon (--job: no report: not watched, or not started yet;\n"
	"--drained: sinfo failed), 2 usage error.";

/* --job: digits, '_' and '+' (a job id, an array task, a het job). */
static int parse_job(const char *v, void *dst)
{
	if (!*v || strspn(v, "0123456789_+") != strlen(v))
		return -1;
	*(const char **)dst = v;
	return 0;
}

/* A report.json larger than this is not read (10,000 ranks make ~10 MB). */
#define STATUS_REPORT_MAX (256u << 20)

/* The job's report.json: the job user's file, which root may be reading.  So
 * it is read with the job owner's file-system identity when we are root (a
 * link to a root-only file leads nowhere), never through a link at its last
 * component, never blocking (a FIFO), a regular file of bounded size
 * (shared/fsutil.h: mw_read_regular).  Return the object, or NULL with
 * errno set and the reason in err. */
static struct json_object *read_report(const char *path, long owner, char *err, size_t errlen)
{
	struct json_object *r = NULL;
	struct json_tokener *tok;
	struct mw_fsid old;
	char *text;
	size_t len;
	int rc, e;

	if (geteuid() == 0 && owner > 0) {
		struct passwd *pw = getpwuid((uid_t)owner);
		mw_fsid_enter(&old, (uid_t)owner, pw ? pw->pw_gid : (gid_t)owner);
		rc = mw_read_regular(path, STATUS_REPORT_MAX, &text, &len);
		e = errno;
		mw_fsid_leave(&old);
	} else {
		rc = mw_read_regular(path, STATUS_REPORT_MAX, &text, &len);
		e = errno;
	}
	if (rc < 0) {
		snprintf(err, errlen, "%s: %s", path, mw_read_regular_why(e));
		errno = e;
		return NULL;
	}
	if ((tok = json_tokener_new())) {
		r = json_tokener_parse_ex(tok, text, (int)(len > INT32_MAX ? INT32_MAX : len));
		if (!r)
			snprintf(err, errlen, "%s: not JSON: %s", path,
				 json_tokener_error_desc(json_tokener_get_error(tok)));
		json_tokener_free(tok);
	}
	free(text);
	if (!r) {
		if (!tok)
			snprintf(err, errlen, "%s: out of memory", path);
		errno = EINVAL;
	}
	return r;
}

static const char status_scontrol[] = "/usr/bin/scontrol";

/* mpiwatch status --drained [-S SCONTROL] [--json]. */
static int drained_status(const char *scontrol, int json)
{
	const struct mw_slurm slurm = {scontrol, 30};
	struct mw_slurm_node *nodes = NULL;
	struct mw_drained *d = NULL;
	char err[512];
	long n = mw_slurm_nodes(&slurm, &nodes, err, sizeof err), k;

	if (n < 0) {
		fprintf(stderr, "mpiwatch status: %s\n", err);
		return 1;
	}
	k = mw_drained_pick(nodes, n, &d);
	free(nodes);
	if (k < 0) {
		fprintf(stderr, "mpiwatch status: out of memory\n");
		return 1;
	}
	if (json) {
		struct json_object *o = mw_drained_json(d, k);
		if (!o) {
			free(d);
			fprintf(stderr, "mpiwatch status: out of memory\n");
			return 1;
		}
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
								    JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	} else {
		mw_drained_print(d, k, stdout);
	}
	free(d);
	return 0;
}

/* mpiwatch status --job JOB [--dir DIR]. */
static int job_status(const char *job, const char *dir_opt, int json)
{
	struct mw_slurm_job j;
	char dir[4200], path[4300], err[4600];
	int have_job = mw_slurm_job(NULL, job, &j, err, sizeof err) == 0;
	struct json_object *r;
	struct stat st;

	if (dir_opt)
		snprintf(dir, sizeof dir, "%s", dir_opt);
	else if (have_job && j.workdir[0])
		snprintf(dir, sizeof dir, "%.4000s/mpiwatch-%s", j.workdir, job);
	else
		snprintf(dir, sizeof dir, "mpiwatch-%s", job);
	snprintf(path, sizeof path, "%s/report.json", dir);
	r = read_report(path, have_job ? j.uid : -1, err, sizeof err);
	if (!r) {
		printf("job %s: %s; no watch report at %s (%s)\n", job,
		       have_job ? j.state : "unknown to squeue", path,
		       errno == ENOENT ? "not watched, not started yet, or another dir=" : err);
		if (have_job)
			mw_slurm_job_free(&j);
		return 1;
	}
	if (json) {
		printf("%s\n", json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN));
		json_object_put(r);
		if (have_job)
			mw_slurm_job_free(&j);
		return 0;
	}
	printf("job %s: %s\n", job, have_job ? j.state : "unknown to squeue");
	printf("report:      %s", path);
	if (stat(path, &st) == 0)
		printf(" (updated %lds ago)", (long)(time(NULL) - st.st_mtime));
	putchar('\n');
	mw_status_print_job(r, stdout);
	json_object_put(r);
	if (have_job)
		mw_slurm_job_free(&j);
	return 0;
}

static int cmd_status(int argc, char **argv)
{
	const char *sock = MW_DRAIN_DEFAULT_SOCKET, *job = NULL, *dir = NULL, *scontrol = status_scontrol;
	long port = MW_PROBE_DEFAULT_PORT;
	int json = 0, rv, calibrate = 0, force = 0, drained = 0, first;
	char msg[512], *text = NULL, sock_help[160], port_help[120];
	struct json_object *st, *v;
	snprintf(sock_help, sizeof(sock_help), "daemon socket (default %s)", MW_DRAIN_DEFAULT_SOCKET);
	snprintf(port_help, sizeof(port_help), "UDP port for the fallback probe (default %d)",
		 MW_PROBE_DEFAULT_PORT);
	const struct mw_cliopt opts[] = {
		{.name = "socket", .shortname = 's', .kind = MW_CLIOPT_STRING, .dst = &sock, .arg = "PATH",
		 .help = sock_help},
		{.name = "port", .shortname = 'p', .kind = MW_CLIOPT_LONG, .dst = &port, .arg = "PORT",
		 .min = 1, .max = 65535, .unit = "a port", .help = port_help},
		{.name = "json", .shortname = 'j', .kind = MW_CLIOPT_FLAG, .dst = &json,
		 .help = "print the status object as JSON"},
		{.name = "calibrate", .shortname = 'c', .kind = MW_CLIOPT_FLAG, .dst = &calibrate,
		 .help = "first a fresh quick timer calibration (not while job steps "
			 "run on the node; at most one per calibrate_min_interval)"},
		{.name = "force", .shortname = 'f', .kind = MW_CLIOPT_FLAG, .dst = &force,
		 .help = "... even while job steps run (root only)"},
		{.name = "job", .kind = MW_CLIOPT_CUSTOM, .dst = &job, .parse = parse_job, .arg = "JOB",
		 .what = "a job id (digits, '_' or '+')", .help = "that job's watch instead"},
		{.name = "dir", .kind = MW_CLIOPT_STRING, .dst = &dir, .arg = "DIR",
		 .help = "--job: its report folder (default mpiwatch-JOB in its working directory)"},
		{.name = "drained", .kind = MW_CLIOPT_FLAG, .dst = &drained,
		 .help = "the nodes mpiwatch drained in Slurm instead: why and since when"},
		{.name = "scontrol", .shortname = 'S', .kind = MW_CLIOPT_STRING, .dst = &scontrol, .arg = "PATH",
		 .help = "--drained: sinfo is taken from this scontrol's folder (default /usr/bin/scontrol)"},
		{.name = NULL},
	};
	const struct mw_cliopt_cmd cmd = {
		.prog = "mpiwatch status",
		.more = "       mpiwatch status --job JOB [--dir DIR] [--json]\n"
			"       mpiwatch status --drained [-S PATH] [--json]",
		.intro = status_intro, .epilog = status_epilog, .opts = opts,
	};

	if ((rv = mw_cli_options(&cmd, argc, argv, &first)) >= 0)
		return rv;
	if (first != argc || (dir && !job) || (force && !calibrate) || (job && calibrate) ||
	    (drained && (job || calibrate)) || (scontrol != status_scontrol && !drained)) {
		mw_cli_usage(&cmd, stderr);
		return 2;
	}
	if (drained)
		return drained_status(scontrol, json);
	if (job)
		return job_status(job, dir, json);
	if (mw_drain_status(sock, calibrate + force, &text, msg, sizeof(msg)) < 0 && errno == EPERM) {
		fprintf(stderr, "mpiwatch status: nodehealthd refused: %s\n", msg);
		return 1;
	}
	if (!text) {
		const char *name = "localhost";
		struct mw_probe_result r;
		fprintf(stderr, "mpiwatch status: %s; probing localhost:%ld instead\n", msg, port);
		if (mw_probe_nodes(&name, NULL, 1, (uint16_t)port, 1.0, 3, &r) < 0 || r.state == MW_PROBE_DEAD ||
		    r.state == MW_PROBE_ERROR || r.state == MW_PROBE_NODAEMON) {
			printf("nodehealthd: not running (%s)\n", r.summary);
			return 1;
		}
		printf("node:    %s\nstate:   %s\nsummary: %s\nrtt:     %.3f ms\n", r.name, mw_probe_state_name(r.state),
		       r.summary, r.rtt_ms);
		return r.state == MW_PROBE_ALIVE ? 0 : 1;
	}
	st = json_tokener_parse(text);
	if (!st) {
		fprintf(stderr, "mpiwatch status: malformed status from the daemon\n");
		free(text);
		return 1;
	}
	rv = !json_object_object_get_ex(st, "state", &v) || !json_object_is_type(v, json_type_string) ||
	     strcmp(json_object_get_string(v), "alive");
	if (json)
		printf("%s\n", text);
	else
		mw_status_print_node(st, stdout);
	json_object_put(st);
	free(text);
	return rv;
}

MW_CLI_COMMAND(status, "status",
	       "show this node's health daemon, or a running job's watch", cmd_status)
