/* cmd_status.c - "mpiwatch status": this node's nodehealthd state and counters. */
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "conf.h"
#include "drainreq.h"
#include "probe.h"

static void status_usage(FILE *f)
{
	fprintf(f, "Usage: mpiwatch status [-s SOCKET] [-p PORT] [-j]\n"
		   "Show this node's mpiwatch-nodehealthd: health, checks and counters (over its\n"
		   "unix socket; if that fails, a probe to localhost gives the state only).\n\n"
		   "  -s, --socket PATH  daemon socket (default %s)\n"
		   "  -p, --port PORT    UDP port for the fallback probe (default %d)\n"
		   "  -j, --json         print the status object as JSON\n\n"
		   "Exit status: 0 alive, 1 degraded or no daemon, 2 usage error.\n",
		MW_DRAIN_DEFAULT_SOCKET, MW_PROBE_DEFAULT_PORT);
}

static const char *jstr(struct json_object *o, const char *k)
{
	struct json_object *v;
	return json_object_object_get_ex(o, k, &v) ? json_object_get_string(v) : "?";
}

static int cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{"socket", required_argument, NULL, 's'}, {"port", required_argument, NULL, 'p'},
		{"json", no_argument, NULL, 'j'},         {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *sock = MW_DRAIN_DEFAULT_SOCKET;
	long port = MW_PROBE_DEFAULT_PORT;
	int opt, json = 0, rv;
	char msg[512], *text = NULL;
	struct json_object *st, *v;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "s:p:jh", opts, NULL)) != -1) {
		switch (opt) {
		case 's': sock = optarg; break;
		case 'p':
			if (mw_conf_parse_long(optarg, 1, 65535, &port) < 0) {
				fprintf(stderr, "mpiwatch status: bad port '%s'\n", optarg);
				return 2;
			}
			break;
		case 'j': json = 1; break;
		case 'h': status_usage(stdout); return 0;
		default: status_usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		status_usage(stderr);
		return 2;
	}
	if (mw_drain_status(sock, &text, msg, sizeof(msg)) < 0) {
		const char *name = "localhost";
		struct mw_probe_result r;
		fprintf(stderr, "mpiwatch status: %s; probing localhost:%ld instead\n", msg, port);
		if (mw_probe_nodes(&name, NULL, 1, (uint16_t)port, 1.0, 3, &r) < 0 || r.state == MW_PROBE_DEAD ||
		    r.state == MW_PROBE_ERROR) {
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

MW_CLI_COMMAND(status, "status", "status [-s SOCKET] [-p PORT] [-j]",
	       "show this node's health daemon: state, checks, counters", cmd_status)
