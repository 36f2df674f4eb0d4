/* cmd_topo.c - "mpiwatch topo": plan the tree overlay of a job (tree/,
 * doc/tree.md): where the CPs go, the tree they form, where each BE (node
 * agent) attaches.  Exit status: 0 planned, 2 usage or input error. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "conf.h"
#include "hostlist.h"
#include "jobconf.h"
#include "mwt_counts.h"
#include "mwt_plan.h"

#define ME "mpiwatch topo"
#define TOPO_HOSTS_MAX 1000000

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: mpiwatch topo --nodes HOSTLIST [--be-per-node N | --be-counts FILE] [--cps N]\n"
		"                     [--strategy average|fuzzy] [--fanout F] [--weights L,M,C,H,R]\n"
		"                     [--json | --mrnet]\n\n"
		"Plan the tree overlay between the node agents (BEs) and the collector (the\n"
		"front end, on the first node of HOSTLIST): how many CPs (default: what a tree\n"
		"of fanout F needs, none when F or fewer BEs), which nodes run them (best-effort\n"
		"average, the default, or the fuzzy evaluation of each node's load, free memory,\n"
		"cores, health and probe round-trip, weighted L,M,C,H,R, default 0.3,0.2,0.1,0.3,0.1),\n"
		"the k-ary tree they form (fanout F, default %d) and the CP each BE attaches to\n"
		"(preferably one on its own node).  --be-per-node N: N BEs on every node (default\n"
		"1); --be-counts FILE: one 'NODE COUNT [load=L mem=MIB cores=N health=ok|degraded|down\n"
		"rtt=MS]' line per node (a node of HOSTLIST not in FILE has no BE).  Output: text,\n"
		"--json (doc/schemas/topo.schema.json) or --mrnet (an MRNet topology file,\n"
		"'host:0 => host:1 host:2 ;').  See mpiwatch(1) and doc/tree.md.\n",
		MWT_FANOUT_DEFAULT);
}

static int host_ptr_cmp(const void *a, const void *b)
{
	return strcmp((*(struct mwt_host *const *)a)->name, (*(struct mwt_host *const *)b)->name);
}

/* The hosts of HOSTLIST with their BE counts: n each, or from the counts
 * file (every node there must be in HOSTLIST).  Return 0, or -1 after
 * saying why on stderr. */
static int load_hosts(const struct mw_hostlist *hl, long per_node, const char *counts, struct mwt_host **out)
{
	struct mwt_host *h = calloc(hl->n, sizeof(*h)), **byname = calloc(hl->n, sizeof(*byname));
	size_t i, j;
	if (!h || !byname) {
		free(byname);
		fprintf(stderr, ME ": out of memory\n");
		return -1;
	}
	for (i = 0; i < hl->n; i++) {
		if (strlen(hl->host[i]) > MWT_HOST_MAX) {
			fprintf(stderr, ME ": node name '%.80s' longer than %d characters\n", hl->host[i],
				MWT_HOST_MAX);
			goto fail;
		}
		strcpy(h[i].name, hl->host[i]);
		h[i].be = counts ? 0 : (int)per_node;
		mwt_factors_unknown(&h[i].f);
		byname[i] = &h[i];
	}
	qsort(byname, hl->n, sizeof(*byname), host_ptr_cmp);
	for (i = 1; i < hl->n; i++)
		if (strcmp(byname[i - 1]->name, byname[i]->name) == 0) {
			fprintf(stderr, ME ": node %s named twice in --nodes\n", byname[i]->name);
			goto fail;
		}
	if (counts) {
		struct mw_conf_errors errs = {0};
		struct mwt_counts c;
		int bad = 0;
		if (mwt_counts_read(counts, &c, &errs) != 0) {
			for (i = 0; i < errs.n; i++)
				fprintf(stderr, ME ": %s\n", errs.msg[i]);
			mw_conf_errors_free(&errs);
			goto fail;
		}
		for (j = 0; j < c.n; j++) {
			struct mwt_host *key = &c.host[j], **hit;
			hit = bsearch(&key, byname, hl->n, sizeof(*byname), host_ptr_cmp);
			if (!hit) {
				fprintf(stderr, ME ": %s: node %s is not in --nodes\n", counts, c.host[j].name);
				bad = 1;
				continue;
			}
			(*hit)->be = c.host[j].be;
			(*hit)->f = c.host[j].f;
		}
		mwt_counts_free(&c);
		if (bad)
			goto fail;
	}
	free(byname);
	*out = h;
	return 0;
fail:
	free(byname);
	free(h);
	return -1;
}

static int run_topo(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"nodes", required_argument, NULL, 'n'},
		{"be-per-node", required_argument, NULL, 'b'},
		{"be-counts", required_argument, NULL, 'c'},
		{"cps", required_argument, NULL, 'p'},
		{"strategy", required_argument, NULL, 's'},
		{"fanout", required_argument, NULL, 'f'},
		{"weights", required_argument, NULL, 'w'},
		{"json", no_argument, NULL, 'j'},
		{"mrnet", no_argument, NULL, 'm'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *nodes = NULL, *counts = NULL;
	long per_node = 1, ncp = -1, fanout = MWT_FANOUT_DEFAULT;
	int per_node_set = 0, json = 0, mrnet = 0, opt, rv = 2, wset = 0;
	double w[MWT_NF];
	struct mwt_plan_opts o = {MWT_AVERAGE, MWT_FANOUT_DEFAULT, -1, NULL};
	struct mw_hostlist hl = {0};
	struct mwt_host *hosts = NULL;
	struct mwt_plan p;
	char err[256];

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n': nodes = optarg; break;
		case 'c': counts = optarg; break;
		case 'b':
			if (mw_conf_parse_long(optarg, 0, MWT_COUNTS_BE_MAX, &per_node) < 0) {
				fprintf(stderr, ME ": --be-per-node '%s': expected an integer in [0, %d]\n", optarg,
					MWT_COUNTS_BE_MAX);
				return 2;
			}
			per_node_set = 1;
			break;
		case 'p':
			if (mw_conf_parse_long(optarg, 0, 1 << 24, &ncp) < 0) {
				fprintf(stderr, ME ": --cps '%s': expected an integer in [0, %d]\n", optarg, 1 << 24);
				return 2;
			}
			break;
		case 's':
			if (strcmp(optarg, "average") == 0)
				o.strategy = MWT_AVERAGE;
			else if (strcmp(optarg, "fuzzy") == 0)
				o.strategy = MWT_FUZZY;
			else {
				fprintf(stderr, ME ": --strategy '%s': expected average or fuzzy\n", optarg);
				return 2;
			}
			break;
		case 'f':
			if (mw_conf_parse_long(optarg, 2, MWT_FANOUT_MAX, &fanout) < 0) {
				fprintf(stderr, ME ": --fanout '%s': expected an integer in [2, %d]\n", optarg,
					MWT_FANOUT_MAX);
				return 2;
			}
			break;
		case 'w':
			if (mw_jobconf_weights(optarg, w, MWT_NF) < 0) {
				fprintf(stderr, ME ": --weights '%s': expected 5 non-negative numbers L,M,C,H,R, not all 0\n",
					optarg);
				return 2;
			}
			wset = 1;
			break;
		case 'j': json = 1; break;
		case 'm': mrnet = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc || !nodes || (per_node_set && counts) || (json && mrnet)) {
		if (optind < argc)
			fprintf(stderr, ME ": unexpected argument '%s'\n", argv[optind]);
		else if (!nodes)
			fprintf(stderr, ME ": --nodes HOSTLIST is required\n");
		else if (json && mrnet)
			fprintf(stderr, ME ": --json and --mrnet exclude each other\n");
		else
			fprintf(stderr, ME ": --be-per-node and --be-counts exclude each other\n");
		usage(stderr);
		return 2;
	}
	if (mw_hostlist_expand(nodes, TOPO_HOSTS_MAX, &hl) < 0 || hl.n == 0) {
		fprintf(stderr, ME ": --nodes '%.200s': %s\n", nodes,
			errno == E2BIG ? "too many nodes" : "not a hostlist (e.g. n[01-16],gpu3)");
		goto out;
	}
	if (load_hosts(&hl, per_node, counts, &hosts) < 0)
		goto out;
	o.fanout = (int)fanout;
	o.ncp = (int)ncp;
	o.weights = wset ? w : NULL;
	if (mwt_plan_build(hosts, hl.n, &o, &p, err, sizeof(err)) < 0) {
		fprintf(stderr, ME ": %s\n", err);
		goto out;
	}
	if (json)
		rv = mwt_plan_write_json(&p, stdout);
	else if (mrnet)
		rv = mwt_plan_write_mrnet(&p, stdout);
	else
		rv = mwt_plan_write_text(&p, stdout);
	if (fflush(stdout) != 0)
		rv = -1;
	if (rv < 0)
		fprintf(stderr, ME ": cannot write the plan: %s\n", strerror(errno));
	rv = rv < 0 ? 2 : 0;
	mwt_plan_free(&p);
out:
	free(hosts);
	mw_hostlist_free(&hl);
	return rv;
}

MW_CLI_COMMAND(topo, "topo",
	       "topo --nodes HOSTLIST [--be-per-node N | --be-counts FILE] [--cps N] [--strategy average|fuzzy] "
	       "[--fanout F] [--weights L,M,C,H,R] [--json | --mrnet]",
	       "plan the tree overlay (CP placement, tree, attach plan) of a job's nodes", run_topo)
