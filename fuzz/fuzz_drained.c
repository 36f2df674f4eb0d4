/* libFuzzer target for "mpiwatch status --drained": sinfo's JSON answer
 * (shared/slurmjson.c) and the nodes picked from it, listed as JSON and as
 * text (cli/drained.c); then the same bytes as one Slurm reason, which
 * anyone who may drain a node writes (shared/drainreason.c). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cli/drained.h"
#include "drainreason.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct mw_slurm_node *v = NULL;
	struct mw_drained *d = NULL;
	char *s = malloc(size + 1), job[32];
	const char *sum;
	long n, k;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (!null && !(null = fopen("/dev/null", "w"))) {
		free(s);
		return 0;
	}
	n = mw_slurm_nodes_parse(s, &v);
	if (n >= 0 && (k = mw_drained_pick(v, n, &d)) >= 0) {
		json_object_put(mw_drained_json(d, k));
		mw_drained_print(d, k, null);
		free(d);
	}
	free(v);
	if (mw_drain_reason_parse(s, job, sizeof(job), &sum) == 0 && strlen(job) >= sizeof(job))
		abort();
	free(s);
	return 0;
}
