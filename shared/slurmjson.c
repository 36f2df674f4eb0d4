/* slurmjson.c - Slurm's JSON answers (see slurmjson.h). */
#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mw_json.h"
#include "slurmjson.h"

static void scopy(char *dst, size_t n, const char *s)
{
	snprintf(dst, n, "%s", s ? s : "");
}

void mw_slurm_job_free(struct mw_slurm_job *j)
{
	free(j->nodelist);
	j->nodelist = NULL;
}

int mw_slurm_job_parse(const char *text, const char *jobid, struct mw_slurm_job *j)
{
	json_object *root, *a;
	char *end;
	long long want, v;
	size_t len = 0;
	int found = 0, e = EINVAL;

	memset(j, 0, sizeof(*j));
	j->uid = -1;
	want = strtoll(jobid ? jobid : "", &end, 10);
	if (!jobid || end == jobid || *end || want <= 0) {
		errno = EINVAL;
		return -1;
	}
	root = text ? json_tokener_parse(text) : NULL;
	if (!root || !(a = mw_json_array(root, "jobs")))
		goto fail;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *x = json_object_array_get_idx(a, i);
		long long id = -1, het = 0;
		const char *nodes;
		if (!json_object_is_type(x, json_type_object) || mw_json_long(x, "job_id", &id) < 0)
			continue;
		mw_json_long(x, "het_job_id", &het);
		if (id != want && het != want)
			continue;
		if (!found) {
			found = 1;
			if (mw_json_long(x, "user_id", &v) == 0 && v >= 0)
				j->uid = (long)v;
			scopy(j->user, sizeof(j->user), mw_json_text(x, "user_name"));
			scopy(j->state, sizeof(j->state), mw_json_text(x, "job_state"));
			if (mw_json_long(x, "end_time", &v) == 0 && v > 0)
				j->end_time = (time_t)v;
			scopy(j->excluded, sizeof(j->excluded), mw_json_text(x, "excluded_nodes"));
			scopy(j->workdir, sizeof(j->workdir), mw_json_text(x, "current_working_directory"));
			scopy(j->comment, sizeof(j->comment), mw_json_text(x, "comment"));
			scopy(j->std_out, sizeof(j->std_out), mw_json_text(x, "standard_output"));
			scopy(j->std_err, sizeof(j->std_err), mw_json_text(x, "standard_error"));
			j->batch = mw_json_true(x, "batch_flag");
		}
		nodes = mw_json_text(x, "nodes");
		if (nodes && *nodes) {
			size_t vl = strlen(nodes);
			char *nb = realloc(j->nodelist, len + vl + 2);
			if (!nb) {
				e = ENOMEM;
				goto fail;
			}
			j->nodelist = nb;
			if (len)
				j->nodelist[len++] = ',';
			memcpy(j->nodelist + len, nodes, vl + 1);
			len += vl;
		}
	}
	if (!found)
		goto fail;
	if (!j->nodelist && !(j->nodelist = strdup(""))) {
		e = ENOMEM;
		goto fail;
	}
	json_object_put(root);
	return 0;
fail:
	if (root)
		json_object_put(root);
	mw_slurm_job_free(j);
	errno = e;
	return -1;
}

/* "down" + ["DRAIN", "NOT_RESPONDING"] -> "DOWN+DRAIN+NOT_RESPONDING". */
static void node_state(json_object *x, char *buf, size_t len)
{
	const char *st = mw_json_text(x, "state");
	json_object *fl;
	size_t o;
	scopy(buf, len, st ? st : "unknown");
	if ((fl = mw_json_array(x, "state_flags")) != NULL)
		for (size_t i = 0; i < json_object_array_length(fl); i++) {
			json_object *f = json_object_array_get_idx(fl, i);
			if (!json_object_is_type(f, json_type_string))
				continue;
			o = strlen(buf);
			snprintf(buf + o, len - o, "+%s", json_object_get_string(f));
		}
	for (char *p = buf; *p; p++)
		*p = (char)toupper((unsigned char)*p);
}

long mw_slurm_nodes_parse(const char *text, struct mw_slurm_node **nodes)
{
	json_object *root, *a;
	struct mw_slurm_node *v = NULL;
	size_t n = 0;
	int e = EINVAL;

	*nodes = NULL;
	root = text ? json_tokener_parse(text) : NULL;
	if (!root || !(a = mw_json_array(root, "nodes")))
		goto fail;
	n = json_object_array_length(a);
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v) {
		e = ENOMEM;
		goto fail;
	}
	n = 0;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *x = json_object_array_get_idx(a, i);
		const char *name = json_object_is_type(x, json_type_object) ? mw_json_text(x, "name") : NULL;
		const char *addr;
		if (!name || !*name)
			continue;
		scopy(v[n].name, sizeof(v[n].name), name);
		addr = mw_json_text(x, "address");
		scopy(v[n].addr, sizeof(v[n].addr), addr && *addr ? addr : name);
		node_state(x, v[n].state, sizeof(v[n].state));
		scopy(v[n].reason, sizeof(v[n].reason), mw_json_text(x, "reason"));
		if (v[n].reason[0]) {
			long long t;
			if (mw_json_long(x, "reason_changed_at", &t) == 0 && t > 0 && t <= (long long)MW_JSON_NUM_MAX)
				v[n].reason_time = (time_t)t;
			scopy(v[n].reason_user, sizeof(v[n].reason_user), mw_json_text(x, "reason_set_by_user"));
		}
		n++;
	}
	json_object_put(root);
	*nodes = v;
	return (long)n;
fail:
	if (root)
		json_object_put(root);
	free(v);
	errno = e;
	return -1;
}
