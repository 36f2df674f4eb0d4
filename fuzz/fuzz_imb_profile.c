/* libFuzzer target for the TAU profile parser and the group rules parser
 * (imbalance/imb_profile.c, imb_group.c), then the analysis on the result
 * and its JSON (every group's and every function's similarity in [0,1] or
 * null, the findings lines);
 * and the profile file-name reader (imb_load.c imb_profile_name). */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imb.h"

/* Abort unless every element of the array key of o has a similarity in
 * [0,1] or null. */
static void check_sims(struct json_object *o, const char *key)
{
	struct json_object *arr = json_object_object_get(o, key);
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *s;
		if (!json_object_object_get_ex(json_object_array_get_idx(arr, i), "similarity", &s))
			abort();
		if (s && !(json_object_get_double(s) >= 0 && json_object_get_double(s) <= 1))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct imb_profile p;
	struct imb_rules r;
	char err[256];

	if (imb_profile_parse((const char *)data, size, "fuzz", &p, err, sizeof(err)) == 0) {
		struct imb_job job = {1, &p, (char *)"fuzz", 0, NULL};
		struct imb_threshold th = {IMB_DEFAULT_FRAC, 0};
		struct imb_analysis a;
		p.node = p.context = p.thread = 0;
		if (imb_analyze(&job, &th, NULL, &a) == 0) {
			struct json_object *o = imb_report_json(&a, &job), *fl;
			if (!o)
				abort();
			check_sims(o, "groups");
			check_sims(o, "functions");
			if (!json_object_object_get_ex(o, "findings", &fl) || json_object_array_length(fl) < 1)
				abort();
			json_object_put(o);
			imb_analysis_free(&a);
		}
		imb_profile_free(&p);
	}
	if (strlen(err) >= sizeof(err))
		abort();
	{
		char name[64];
		int n, c, t;
		snprintf(name, sizeof name, "%.*s", (int)(size < 63 ? size : 63), (const char *)data);
		if (imb_profile_name(name, &n, &c, &t) == 0 && (n < 0 || c < 0 || t < 0))
			abort();
	}
	if (imb_rules_parse((const char *)data, size, "rules", &r, err, sizeof(err)) == 0) {
		imb_classify("MPI_Allreduce()", "MPI", &r);
		imb_rules_free(&r);
	}
	return 0;
}
