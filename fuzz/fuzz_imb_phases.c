/* libFuzzer target for the compute-phase file parser (imbalance/imb_phases.c),
 * then the fluctuation analysis (imb_fluct.c) of the rank read against a
 * copy of itself with every sample 10 % longer, without and with a node
 * calibration (its interval the file's first sample: the per-node rule,
 * the "not judged" lines and the JSON's node_calibration, not_judged). */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imb_phases.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct imb_phases_rank r[2];
	struct imb_phases ph = {2, r};
	struct imb_fluct_result fl;
	char err[256];

	if (imb_phases_parse((const char *)data, size, "fuzz", &r[0], err, sizeof(err)) < 0) {
		if (strlen(err) >= sizeof(err) || !strstr(err, "fuzz"))
			abort();
		return 0;
	}
	/* rank 1: the same phases, slower */
	r[1] = r[0];
	r[1].rank = r[0].rank + 1;
	r[1].phase = calloc(r[0].nphase ? r[0].nphase : 1, sizeof(*r[1].phase));
	for (size_t i = 0; r[1].phase && i < r[0].nphase; i++) {
		struct imb_phase *p = &r[1].phase[i];
		*p = r[0].phase[i];
		p->ns = malloc((p->n ? p->n : 1) * sizeof(double));
		for (size_t k = 0; p->ns && k < p->n; k++)
			p->ns[k] = r[0].phase[i].ns[k] * 1.1;
	}
	struct imb_nodecal cal = {"", 0, 25, 0};
	struct imb_fluct_opts o;
	imb_fluct_defaults(&o);
	o.cal = &cal;
	o.ncal = 1;
	if (r[0].nphase && r[0].phase[0].n)
		cal.interval_ns = r[0].phase[0].ns[0];
	cal.degraded = r[0].rank % 2;
	for (int pass = 0; pass < 2; pass++) {
		if (!r[1].phase || imb_fluct_analyze(&ph, pass ? &o : NULL, &fl) < 0)
			break;
		FILE *f = fopen("/dev/null", "w");
		struct json_object *j = imb_fluct_json(&fl);
		if (f) {
			imb_fluct_text(f, &fl);
			fclose(f);
		}
		json_object_put(j);
		imb_fluct_free(&fl);
	}
	for (size_t i = 0; r[1].phase && i < r[0].nphase; i++)
		free(r[1].phase[i].ns);
	free(r[1].phase);
	imb_phases_rank_free(&r[0]);
	return 0;
}
