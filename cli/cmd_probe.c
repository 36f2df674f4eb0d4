/* cmd_probe.c - "mpiwatch probe": probe the nodehealthd of a list of nodes. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <netdb.h>
#include <sys/socket.h>

#include "cli.h"
#include "conf.h"
#include "hostlist.h"
#include "probe.h"
#include "slurm.h"

static const char probe_intro[] =
	"Probe the mpiwatch-nodehealthd of every node (Slurm hostlist syntax, e.g. n[1-4])\n"
	"and print its state, health summary and round-trip time.";

static const char probe_epilog[] =
	"Names that do not resolve are looked up in Slurm (NodeAddr).\n"
	"A node up without nodehealthd (its kernel refused the port) is \"no daemon\".\n"
	"Exit status: 0 all alive, 1 some dead, degraded, without a daemon or unresolvable,\n"
	"2 usage error.";

/* Names that do not resolve get Slurm's node address ("sinfo --json"), e.g.
 * when probing the nodes of a cluster from a host without their names. */
static void slurm_addrs(char **names, size_t n, char **addrs)
{
	const struct mw_slurm slurm = {"/usr/bin/scontrol", 20};
	struct mw_slurm_node *nodes = NULL;
	char err[256];
	size_t todo = 0;
	long nn;

	for (size_t i = 0; i < n; i++) {
		struct addrinfo hints = {.ai_socktype = SOCK_DGRAM}, *res = NULL;
		if (getaddrinfo(names[i], NULL, &hints, &res) == 0)
			freeaddrinfo(res);
		else
			todo++;
	}
	if (!todo || (nn = mw_slurm_nodes(&slurm, &nodes, err, sizeof(err))) < 0)
		return;
	for (long k = 0; k < nn; k++)
		for (size_t i = 0; i < n; i++)
			if (!addrs[i] && !strcmp(names[i], nodes[k].name))
				addrs[i] = strdup(nodes[k].addr);
	free(nodes);
}

static int cmd_probe(int argc, char **argv)
{
	long port = MW_PROBE_DEFAULT_PORT, tries = 3;
	double timeout = 2.0;
	int json = 0, rv = 2, bad = 0, first;
	struct mw_hostlist hl = {0};
	struct mw_probe_result *res = NULL;
	char **addrs = NULL, port_help[64];
	snprintf(port_help, sizeof(port_help), "UDP port (default %d)", MW_PROBE_DEFAULT_PORT);
	const struct mw_cliopt opts[] = {
		{.name = "port", .shortname = 'p', .kind = MW_CLIOPT_LONG, .dst = &port, .arg = "PORT",
		 .min = 1, .max = 65535, .unit = "a port", .help = port_help},
		{.name = "timeout", .shortname = 't', .kind = MW_CLIOPT_DOUBLE, .dst = &timeout,
		 .arg = "SECS", .min = 0.01, .max = 3600, .unit = "seconds",
		 .help = "time budget for all tries (default 2)"},
		{.name = "tries", .shortname = 'r', .kind = MW_CLIOPT_LONG, .dst = &tries, .arg = "N",
		 .min = 1, .max = 16, .help = "probes per node (default 3)"},
		{.name = "json", .shortname = 'j', .kind = MW_CLIOPT_FLAG, .dst = &json, .help = "JSON output"},
		{.name = NULL},
	};
	const struct mw_cliopt_cmd cmd = {
		.prog = "mpiwatch probe", .args = "HOSTLIST...", .intro = probe_intro, .epilog = probe_epilog,
		.opts = opts,
	};

	if ((rv = mw_cli_options(&cmd, argc, argv, &first)) >= 0)
		return rv;
	rv = 2;
	if (first >= argc) {
		mw_cli_usage(&cmd, stderr);
		return 2;
	}
	for (int i = first; i < argc; i++) {
		struct mw_hostlist one = {0};
		if (mw_hostlist_expand(argv[i], 100000, &one) < 0) {
			fprintf(stderr, "mpiwatch probe: bad hostlist '%s'\n", argv[i]);
			goto fail;
		}
		for (size_t k = 0; k < one.n; k++) {
			char **nh = realloc(hl.host, (hl.n + 1) * sizeof(*nh));
			if (!nh) {
				mw_hostlist_free(&one);
				goto fail;
			}
			hl.host = nh;
			hl.host[hl.n++] = one.host[k];
			one.host[k] = NULL;
		}
		mw_hostlist_free(&one);
	}
	res = calloc(hl.n ? hl.n : 1, sizeof(*res));
	addrs = calloc(hl.n ? hl.n : 1, sizeof(*addrs));
	if (!res || !addrs)
		goto fail;
	slurm_addrs(hl.host, hl.n, addrs);
	if (mw_probe_nodes((const char *const *)hl.host, (const char *const *)addrs, hl.n, (uint16_t)port, timeout, (int)tries, res) < 0) {
		fprintf(stderr, "mpiwatch probe: %s\n", res[0].summary);
		rv = 1;
		goto fail;
	}
	if (json) {
		struct json_object *arr = json_object_new_array();
		for (size_t i = 0; i < hl.n; i++) {
			struct json_object *o = json_object_new_object();
			json_object_object_add(o, "node", json_object_new_string(hl.host[i]));
			json_object_object_add(o, "addr", json_object_new_string(res[i].addr));
			json_object_object_add(o, "state", json_object_new_string(mw_probe_state_name(res[i].state)));
			json_object_object_add(o, "rtt_ms", res[i].rtt_ms >= 0 ? json_object_new_double(res[i].rtt_ms) : NULL);
			json_object_object_add(o, "tries", json_object_new_int(res[i].tries));
			json_object_object_add(o, "summary", json_object_new_string(res[i].summary));
			json_object_array_add(arr, o);
		}
		printf("%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
								       JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(arr);
	} else {
		printf("%-16s %-9s %10s  %s\n", "NODE", "STATE", "RTT", "SUMMARY");
		for (size_t i = 0; i < hl.n; i++) {
			char rtt[32] = "-";
			if (res[i].rtt_ms >= 0)
				snprintf(rtt, sizeof(rtt), "%.3fms", res[i].rtt_ms);
			printf("%-16s %-9s %10s  %s\n", hl.host[i], mw_probe_state_name(res[i].state), rtt, res[i].summary);
		}
	}
	for (size_t i = 0; i < hl.n; i++)
		if (res[i].state != MW_PROBE_ALIVE)
			bad = 1;
	rv = bad ? 1 : 0;
fail:
	for (size_t i = 0; addrs && i < hl.n; i++)
		free(addrs[i]);
	free(addrs);
	free(res);
	mw_hostlist_free(&hl);
	return rv;
}

MW_CLI_COMMAND(probe, "probe",
	       "probe nodes' health daemons: alive, degraded or dead", cmd_probe)
