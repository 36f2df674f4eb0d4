/* cmd_status.c - "mpiwatch status": this node's nodehealthd state and
 * counters; with --job, a running job's watch (its collector's report). */
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "conf.h"
#include "drainreq.h"
#include "hostlist.h"
#include "jsonschema.h"
#include "probe.h"
#include "slurm.h"

static void status_usage(FILE *f)
{
	fprintf(f, "Usage: mpiwatch status [-s SOCKET] [-p PORT] [-j] [--calibrate [--force]]\n"
		   "       mpiwatch status --job JOB [--dir DIR] [-j]\n"
		   "Show this node's mpiwatch-nodehealthd: health, checks and counters (over its\n"
		   "unix socket; if that fails, a probe to localhost gives the state only).\n"
		   "With --job: that job's watch, from the report its collector keeps up to date\n"
		   "(DIR, default mpiwatch-JOB in the job's working directory as squeue gives it):\n"
		   "Slurm's state, the verdict, which nodes' agents are connected, the ranks seen,\n"
		   "the last events.\n\n"
		   "  -s, --socket PATH  daemon socket (default %s)\n"
		   "  -p, --port PORT    UDP port for the fallback probe (default %d)\n"
		   "  -j, --json         print the status object as JSON\n"
		   "  -c, --calibrate    first a fresh quick timer calibration (not while job steps\n"
		   "                     run on the node; at most one per calibrate_min_interval)\n"
		   "  -f, --force        ... even while job steps run (root only)\n\n"
		   "Exit status: 0 alive (--job: watched), 1 degraded or no daemon (--job: no\n"
		   "report: not watched, or not started yet), 2 usage error.\n",
		MW_DRAIN_DEFAULT_SOCKET, MW_PROBE_DEFAULT_PORT);
}

static const char *jstr(struct json_object *o, const char *k)
{
	struct json_object *v;
	if (!json_object_object_get_ex(o, k, &v))
		return "?";
	return v ? json_object_get_string(v) : "-";
}

/* The live tree of report.json's "tree": who serves whom now. */
static void print_tree(struct json_object *t)
{
	struct json_object *nodes, *mv;
	printf("tree:        %s CP(s), fanout %s, depth %s\n", jstr(t, "cps"), jstr(t, "fanout"), jstr(t, "depth"));
	if (json_object_object_get_ex(t, "nodes", &nodes) && json_object_is_type(nodes, json_type_array))
		for (size_t i = 0; i < json_object_array_length(nodes); i++) {
			struct json_object *e = json_object_array_get_idx(nodes, i);
			const char *now = jstr(e, "parent"), *plan = jstr(e, "planned_parent");
			printf("  %-16s %s, served by %s", jstr(e, "node"), jstr(e, "role"), *now ? now : "(none)");
			if (strcmp(now, plan))
				printf(" (planned: %s)", plan);
			putchar('\n');
		}
	if (json_object_object_get_ex(t, "reattachments", &mv) && json_object_is_type(mv, json_type_array))
		for (size_t i = 0; i < json_object_array_length(mv); i++) {
			struct json_object *e = json_object_array_get_idx(mv, i);
			printf("  re-attachment: %s from %s to %s\n", jstr(e, "node"), jstr(e, "from"), jstr(e, "to"));
		}
}

/* Node names of the report's nodes whose agent is in state want, as a host
 * list ("-" if none); *n gets their count. */
static void agents_in(struct json_object *nodes, const char *want, char *buf, size_t len, int *n)
{
	size_t total = json_object_array_length(nodes);
	char **names = calloc(total ? total : 1, sizeof(*names));
	struct mw_hostlist hl = {names, 0};
	*n = 0;
	for (size_t i = 0; names && i < total; i++) {
		struct json_object *e = json_object_array_get_idx(nodes, i);
		if (!strcmp(jstr(e, "agent"), want))
			names[hl.n++] = (char *)jstr(e, "name");
	}
	*n = (int)hl.n;
	if (!hl.n || mw_hostlist_compress(&hl, buf, len) >= len)
		snprintf(buf, len, "%s", hl.n ? "(too many to list)" : "-");
	free(names);
}

/* mpiwatch status --job JOB [--dir DIR]. */
static int job_status(const char *job, const char *dir_opt, int json)
{
	struct mw_slurm_job j;
	char dir[4200], path[4300], err[512], list[1024];
	int have_job = mw_slurm_job(NULL, job, &j, err, sizeof err) == 0;
	struct json_object *r, *nodes, *tl, *stats, *v;
	struct stat st;
	int n;

	if (dir_opt)
		snprintf(dir, sizeof dir, "%s", dir_opt);
	else if (have_job && j.workdir[0])
		snprintf(dir, sizeof dir, "%.4000s/mpiwatch-%s", j.workdir, job);
	else
		snprintf(dir, sizeof dir, "mpiwatch-%s", job);
	snprintf(path, sizeof path, "%s/report.json", dir);
	r = mw_json_read_file(path, err, sizeof err);
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
	printf("\nverdict:     %s%s\n", jstr(r, "summary"),
	       json_object_object_get_ex(r, "confirmed", &v) && json_object_get_boolean(v) ? " (confirmed)" : "");
	if (json_object_object_get_ex(r, "nodes", &nodes) && json_object_is_type(nodes, json_type_array)) {
		int total = (int)json_object_array_length(nodes);
		agents_in(nodes, "connected", list, sizeof list, &n);
		printf("agents:      %d of %d connected: %s\n", n, total, list);
		agents_in(nodes, "never", list, sizeof list, &n);
		if (n)
			printf("             %d never connected: %s\n", n, list);
		agents_in(nodes, "lost", list, sizeof list, &n);
		if (n)
			printf("             %d lost: %s\n", n, list);
	}
	if (json_object_object_get_ex(r, "tree", &v)) /* the tree overlay (doc/tree.md) */
		print_tree(v);
	if (json_object_object_get_ex(r, "stats", &stats))
		printf("ranks seen:  %s of %s; heartbeats %s\n", jstr(stats, "rank_announcements"),
		       jstr(r, "ranks_total"), jstr(stats, "heartbeats"));
	if (json_object_object_get_ex(r, "timeline", &tl) && json_object_is_type(tl, json_type_array)) {
		size_t len = json_object_array_length(tl);
		printf("last events:\n");
		for (size_t i = len > 5 ? len - 5 : 0; i < len; i++) {
			struct json_object *e = json_object_array_get_idx(tl, i);
			printf("  %s  %-16s %s\n", jstr(e, "time"), jstr(e, "event"), jstr(e, "detail"));
		}
	}
	json_object_put(r);
	if (have_job)
		mw_slurm_job_free(&j);
	return 0;
}

/* The status object's "calibration" member, in one or two lines. */
static void print_calibration(struct json_object *k)
{
	struct json_object *v;
	if (json_object_object_get_ex(k, "state", &v)) {
		printf("calibration: %s: %s\n", jstr(k, "state"), jstr(k, "detail"));
		printf("             R0 %s ns, resolution %s ns, TSC %.4f GHz (rate change %.2g %%), "
		       "%s backward steps; %.2f s, %.2f CPU-s%s, %s s ago\n",
		       jstr(k, "interval_ns"), jstr(k, "resolution_ns"),
		       json_object_object_get_ex(k, "tsc_ghz", &v) ? json_object_get_double(v) : 0,
		       json_object_object_get_ex(k, "rate_diff", &v) ? json_object_get_double(v) * 100 : 0,
		       jstr(k, "backward_steps"),
		       json_object_object_get_ex(k, "seconds", &v) ? json_object_get_double(v) : 0,
		       json_object_object_get_ex(k, "cpu_seconds", &v) ? json_object_get_double(v) : 0,
		       json_object_object_get_ex(k, "truncated", &v) && json_object_get_boolean(v)
			       ? " (budget ran out)" : "",
		       jstr(k, "age_s"));
	} else {
		printf("calibration: none yet\n");
	}
	if (json_object_object_get_ex(k, "skipped", &v))
		printf("             last request: %s\n", json_object_get_string(v));
}

static int cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{"socket", required_argument, NULL, 's'}, {"port", required_argument, NULL, 'p'},
		{"json", no_argument, NULL, 'j'},         {"help", no_argument, NULL, 'h'},
		{"job", required_argument, NULL, 'J'},    {"dir", required_argument, NULL, 'd'},
		{"calibrate", no_argument, NULL, 'c'},    {"force", no_argument, NULL, 'f'},
		{NULL, 0, NULL, 0},
	};
	const char *sock = MW_DRAIN_DEFAULT_SOCKET, *job = NULL, *dir = NULL;
	long port = MW_PROBE_DEFAULT_PORT;
	int opt, json = 0, rv, calibrate = 0, force = 0;
	char msg[512], *text = NULL;
	struct json_object *st, *v;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "s:p:jcfh", opts, NULL)) != -1) {
		switch (opt) {
		case 's': sock = optarg; break;
		case 'p':
			if (mw_conf_parse_long(optarg, 1, 65535, &port) < 0) {
				fprintf(stderr, "mpiwatch status: bad port '%s'\n", optarg);
				return 2;
			}
			break;
		case 'j': json = 1; break;
		case 'J':
			if (!*optarg || strspn(optarg, "0123456789_+") != strlen(optarg)) {
				fprintf(stderr, "mpiwatch status: bad job id '%s'\n", optarg);
				return 2;
			}
			job = optarg;
			break;
		case 'd': dir = optarg; break;
		case 'c': calibrate = 1; break;
		case 'f': force = 1; break;
		case 'h': status_usage(stdout); return 0;
		default: status_usage(stderr); return 2;
		}
	}
	if (optind != argc || (dir && !job) || (force && !calibrate) || (job && calibrate)) {
		status_usage(stderr);
		return 2;
	}
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
	rv = strcmp(jstr(st, "state"), "alive") ? 1 : 0;
	if (json) {
		printf("%s\n", text);
	} else {
		struct json_object *c, *m;
		printf("node:        %s\nstate:       %s\nsummary:     %s\n", jstr(st, "node"), jstr(st, "state"),
		       jstr(st, "summary"));
		printf("daemon:      pid %s, version %s, up %s s, udp port %s, socket %s\n", jstr(st, "pid"),
		       jstr(st, "version"), jstr(st, "uptime_s"), jstr(st, "port"), jstr(st, "socket"));
		printf("config:      %s\nhealth age:  %s s\n", jstr(st, "config"), jstr(st, "health_age_s"));
		if (json_object_object_get_ex(st, "checks", &v)) {
			printf("checks:\n");
			for (size_t i = 0; i < json_object_array_length(v); i++) {
				struct json_object *r = json_object_array_get_idx(v, i), *ok;
				json_object_object_get_ex(r, "ok", &ok);
				printf("  %-4s %-8s %s\n", json_object_get_boolean(ok) ? "ok" : "FAIL", jstr(r, "check"),
				       jstr(r, "detail"));
			}
		}
		if (json_object_object_get_ex(st, "calibration", &v))
			print_calibration(v);
		if (json_object_object_get_ex(st, "counters", &c)) {
			printf("counters:\n");
			json_object_object_foreach(c, key, val) {
				if (!strcmp(key, "malformed_by_reason"))
					continue;
				printf("  %-18s %s\n", key, json_object_get_string(val));
			}
			if (json_object_object_get_ex(c, "malformed_by_reason", &m)) {
				printf("  malformed by reason:");
				json_object_object_foreach(m, k2, v2) printf(" %s=%s", k2, json_object_get_string(v2));
				printf("\n");
			}
		}
		printf("drains in window: %s\n", jstr(st, "drains_in_window"));
	}
	json_object_put(st);
	free(text);
	return rv;
}

MW_CLI_COMMAND(status, "status", "status [-s SOCKET] [-p PORT] [-j] [-c [-f]] | status --job JOB [--dir DIR] [-j]",
	       "show this node's health daemon, or a running job's watch", cmd_status)
