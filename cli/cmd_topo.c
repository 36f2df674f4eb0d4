/* cmd_topo.c - "mpiwatch topo": plan the tree overlay of a job (tree/,
 * doc/tree.md): where the CPs go, the tree they form, where each BE (node
 * agent) attaches.  Exit status: 0 planned, 2 usage or input error. */
#include <errno.h>
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

static const char topo_intro[] =
	"Plan the tree overlay between the node agents (BEs) and the collector (the\n"
	"front end, on the first node of HOSTLIST): how many CPs (default: what a tree\n"
	"of fanout F needs, none when F or fewer BEs), which nodes run them (best-effort\n"
	"average, the default, or the fuzzy evaluation of each node's load, free memory,\n"
	"cores, health and probe round-trip, weighted L,M,C,H,R, default 0.3,0.2,0.1,0.3,0.1),\n"
	"the k-ary tree they form (fanout F) and the CP each BE attaches to\n"
	"(preferably one on its own node).  --be-per-node N: N BEs on every node (default\n"
	"1); --be-counts FILE: one 'NODE COUNT [load=L mem=MIB cores=N health=ok|degraded|down\n"
	"rtt=MS]' line per node (a node of HOSTLIST not in FILE has no BE).  Output: text,\n"
	"--json (doc/schemas/topo.schema.json) or --mrnet (an MRNet topology file,\n"
	"'host:0 => host:1 host:2 ;').";

static const char *const topo_strategies[] = {"average", "fuzzy", NULL};

/* --weights: L,M,C,H,R (dst: double[MWT_NF]). */
static int parse_weights(const char *v, void *dst)
{
	return mw_jobconf_weights(v, (double *)dst, MWT_NF);
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
	const char *nodes = NULL, *counts = NULL;
	long per_node = 1, ncp = -1, fanout = MWT_FANOUT_DEFAULT;
	int per_node_set = 0, json = 0, mrnet = 0, rv = 2, wset = 0, strategy = 0, first;
	double w[MWT_NF];
	struct mwt_plan_opts o = {MWT_AVERAGE, MWT_FANOUT_DEFAULT, -1, NULL};
	struct mw_hostlist hl = {0};
	struct mwt_host *hosts = NULL;
	struct mwt_plan p;
	char err[256], fanout_help[80];
	snprintf(fanout_help, sizeof(fanout_help), "the tree's fanout (default %d)", MWT_FANOUT_DEFAULT);
	const struct mw_cliopt opts[] = {
		{.name = "nodes", .kind = MW_CLIOPT_STRING, .dst = &nodes, .arg = "HOSTLIST",
		 .help = "the job's nodes; the first runs the collector (required)"},
		{.name = "be-per-node", .kind = MW_CLIOPT_LONG, .dst = &per_node, .given = &per_node_set,
		 .arg = "N", .min = 0, .max = MWT_COUNTS_BE_MAX, .help = "BEs on every node (default 1)"},
		{.name = "be-counts", .kind = MW_CLIOPT_STRING, .dst = &counts, .arg = "FILE",
		 .help = "BEs (and load...) per node, one line each"},
		{.name = "cps", .kind = MW_CLIOPT_LONG, .dst = &ncp, .arg = "N", .min = 0, .max = 1 << 24,
		 .help = "CPs (default: what the fanout needs)"},
		{.name = "strategy", .kind = MW_CLIOPT_CHOICE, .dst = &strategy, .choices = topo_strategies,
		 .arg = "average|fuzzy", .help = "where the CPs go (default average)"},
		{.name = "fanout", .kind = MW_CLIOPT_LONG, .dst = &fanout, .arg = "F", .min = 2,
		 .max = MWT_FANOUT_MAX, .help = fanout_help},
		{.name = "weights", .kind = MW_CLIOPT_CUSTOM, .dst = w, .given = &wset, .parse = parse_weights,
		 .arg = "L,M,C,H,R", .what = "5 non-negative numbers L,M,C,H,R, not all 0",
		 .help = "the fuzzy placement's weights"},
		{.name = "json", .kind = MW_CLIOPT_FLAG, .dst = &json,
		 .help = "the plan as JSON (doc/schemas/topo.schema.json)"},
		{.name = "mrnet", .kind = MW_CLIOPT_FLAG, .dst = &mrnet, .help = "the plan as an MRNet topology file"},
		{.name = NULL},
	};
	const struct mw_cliopt_cmd cmd = {
		.prog = ME, .intro = topo_intro, .epilog = "See mpiwatch(1) and doc/tree.md.", .opts = opts,
	};

	if ((rv = mw_cli_options(&cmd, argc, argv, &first)) >= 0)
		return rv;
	rv = 2;
	o.strategy = strategy ? MWT_FUZZY : MWT_AVERAGE;
	if (first < argc || !nodes || (per_node_set && counts) || (json && mrnet)) {
		if (first < argc)
			fprintf(stderr, ME ": unexpected argument '%s'\n", argv[first]);
		else if (!nodes)
			fprintf(stderr, ME ": --nodes HOSTLIST is required\n");
		else if (json && mrnet)
			fprintf(stderr, ME ": --json and --mrnet exclude each other\n");
		else
			fprintf(stderr, ME ": --be-per-node and --be-counts exclude each other\n");
		mw_cli_usage(&cmd, stderr);
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
	       "plan the tree overlay (CP placement, tree, attach plan) of a job's nodes", run_topo)
