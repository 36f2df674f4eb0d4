/* probe-fanout.c - time mw_probe_nodes() (the collector's probe client) on N
 * targets that all point at one daemon on loopback: the client's own cost of
 * sending N probes and matching N replies.
 *
 *   probe-fanout N PORT [BUDGET_S] [TRIES]
 */
#include <stdio.h>
#include <stdlib.h>

#include "log.h"
#include "probe.h"

int main(int argc, char **argv)
{
	size_t n;
	int port, tries, answered;
	double budget, t0, dt;
	const char **names;
	struct mw_probe_result *r;

	if (argc < 3) {
		fprintf(stderr, "usage: probe-fanout N PORT [BUDGET_S] [TRIES]\n");
		return 2;
	}
	n = strtoul(argv[1], NULL, 10);
	port = atoi(argv[2]);
	budget = argc > 3 ? atof(argv[3]) : 2.0;
	tries = argc > 4 ? atoi(argv[4]) : 3;
	names = calloc(n ? n : 1, sizeof(*names));
	r = calloc(n ? n : 1, sizeof(*r));
	if (!names || !r || port < 1 || port > 65535)
		return 2;
	for (size_t i = 0; i < n; i++)
		names[i] = "127.0.0.1";
	t0 = mw_now();
	answered = mw_probe_nodes(names, NULL, n, (uint16_t)port, budget, tries, r);
	dt = mw_now() - t0;
	printf("nodes=%zu answered=%d seconds=%.3f\n", n, answered, dt);
	free(names);
	free(r);
	return answered == (int)n ? 0 : 1;
}
