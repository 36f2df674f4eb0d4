/* cmd_analyze.c - "mpiwatch analyze deadlock DIR": the offline deadlock
 * detector over the monitor's state dumps (see analyze/dl.h, doc/deadlock.md).
 * Exit status: 0 no deadlock, 1 deadlock found, 2 usage error or no readable
 * dump, 3 incomplete (a rank's dump unreadable, no deadlock among the rest). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "conf.h"
#include "dl.h"

static void analyze_usage(FILE *f)
{
	fprintf(f,
		"Usage: mpiwatch analyze deadlock DIR [--json FILE] [--dot FILE] [--expect-size N]\n"
		"                                     [--top N] [--eager-limit BYTES] [--schema FILE|none]\n"
		"                                     [--skew SECONDS|off] [--no-symbols] [--quiet]\n"
		"                                     [--progress|--no-progress]\n"
		"       mpiwatch analyze imbalance DIR [--json F] [--html F] [--svg F] [--threshold T]\n"
		"                                      [--groups RULES]   (TAU profiles; see --help)\n"
		"       mpiwatch analyze fluctuation A B [--json] [--unit ns|cycles]\n"
		"                                        [--calibration FILE]   (timings; see --help)\n\n"
		"Read every rank-*.json state dump in DIR and report deadlocks: collective\n"
		"mismatches, wait-for cycles and knots, with a diagnosis. FILE may be '-' for\n"
		"standard output. Exit status: 0 no deadlock, 1 deadlock found, 2 usage error or\n"
		"no readable dump, 3 incomplete: a rank's dump is unreadable and the others show\n"
		"no deadlock (no verdict on it). See mpiwatch-analyze(1).\n");
}

static int write_to(const char *path, int (*fn)(FILE *, const struct dl_result *),
		    const struct dl_result *r)
{
	if (!strcmp(path, "-"))
		return fn(stdout, r) < 0 || fflush(stdout) ? -1 : 0;
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "mpiwatch analyze: %s: %s\n", path, strerror(errno));
		return -1;
	}
	int rc = fn(f, r);
	if (fclose(f) != 0)
		rc = -1;
	if (rc < 0)
		fprintf(stderr, "mpiwatch analyze: %s: write error: %s\n", path, strerror(errno));
	return rc;
}

static int run_analyze(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", required_argument, NULL, 'j'},
		{"dot", required_argument, NULL, 'd'},
		{"expect-size", required_argument, NULL, 'n'},
		{"top", required_argument, NULL, 't'},
		{"eager-limit", required_argument, NULL, 'e'},
		{"schema", required_argument, NULL, 's'},
		{"quiet", no_argument, NULL, 'q'},
		{"progress", no_argument, NULL, 'P'},
		{"no-progress", no_argument, NULL, 'N'},
		{"no-symbols", no_argument, NULL, 'S'},
		{"skew", required_argument, NULL, 'k'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct dl_options opt;
	const char *json = NULL, *dot = NULL;
	int quiet = 0;
	long v;
	dl_options_init(&opt);
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		analyze_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "imbalance"))
		return mw_cli_analyze_imbalance(argc - 1, argv + 1);
	if (!strcmp(argv[1], "fluctuation"))
		return mw_cli_analyze_fluctuation(argc - 1, argv + 1);
	if (strcmp(argv[1], "deadlock")) {
		fprintf(stderr, "mpiwatch analyze: unknown analysis '%s' (known: deadlock, imbalance, fluctuation)\n", argv[1]);
		return 2;
	}
	argc--;
	argv++;
	optind = 1;
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, "j:d:n:t:e:s:qh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j': json = optarg; break;
		case 'd': dot = optarg; break;
		case 'n':
			if (mw_conf_parse_long(optarg, 1, 16777216, &v) < 0) {
				fprintf(stderr, "mpiwatch analyze: --expect-size: '%s' is not a number in 1..16777216\n", optarg);
				return 2;
			}
			opt.expect_size = (int)v;
			break;
		case 't':
			if (mw_conf_parse_long(optarg, 0, 1000, &v) < 0) {
				fprintf(stderr, "mpiwatch analyze: --top: '%s' is not a number in 0..1000\n", optarg);
				return 2;
			}
			opt.top = (int)v;
			break;
		case 'e':
			if (mw_conf_parse_long(optarg, 0, 1L << 40, &v) < 0) {
				fprintf(stderr, "mpiwatch analyze: --eager-limit: '%s' is not a byte count\n", optarg);
				return 2;
			}
			opt.eager_limit = v;
			break;
		case 's': opt.schema_path = optarg; break;
		case 'q': quiet = 1; break;
		case 'P': opt.progress = 1; break;
		case 'N': opt.progress = -1; break;
		case 'S': opt.no_symbols = 1; break;
		case 'k': {
			double d;
			if (!strcmp(optarg, "off")) {
				opt.skew = -1;
				break;
			}
			if (mw_conf_parse_double(optarg, 0, 86400, &d) < 0) {
				fprintf(stderr, "mpiwatch analyze: --skew: '%s' is not seconds in 0..86400 or 'off'\n", optarg);
				return 2;
			}
			opt.skew = d;
			break;
		}
		case 'h': analyze_usage(stdout); return 0;
		default:
			fprintf(stderr, "mpiwatch analyze: bad option '%s'\n", argv[optind - 1]);
			analyze_usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "mpiwatch analyze deadlock: expected exactly one dump directory\n");
		analyze_usage(stderr);
		return 2;
	}
	const char *dir = argv[optind];
	struct dl_result *r = NULL;
	if (dl_analyze_dir(dir, &opt, &r) < 0) {
		fprintf(stderr, "mpiwatch analyze: %s: %s\n",
			opt.schema_path && errno != ENOENT && errno != ENOTDIR ? opt.schema_path : dir,
			strerror(errno));
		return 2;
	}
	int rc = dl_result_found(r) ? 1 : dl_result_incomplete(r) ? 3 : 0;
	if (json && write_to(json, dl_write_json, r) < 0)
		rc = 2;
	if (dot && write_to(dot, dl_write_dot, r) < 0)
		rc = 2;
	int json_on_stdout = json && !strcmp(json, "-");
	if (!quiet && !json_on_stdout)
		dl_write_text(stdout, r);
	if (dl_result_dumps(r) == 0) {
		fprintf(stderr, "mpiwatch analyze: %s: no readable dump (rank-*.json)\n", dir);
		rc = 2;
	}
	dl_result_free(r);
	return rc;
}

MW_CLI_COMMAND(analyze, "analyze", "analyze deadlock DIR [--json FILE] [--dot FILE] [--expect-size N] [--top N]",
	       "offline analyses: deadlocks, load imbalance, timing fluctuations", run_analyze)
