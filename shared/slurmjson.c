/* slurmjson.c - Slurm's JSON answers (see slurmjson.h). */
#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurmjson.h"

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;
	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* An integer field; Slurm 22.05 writes plain numbers. */
static int jlong(json_object *o, const char *key, long long *out)
{
	json_object *v;
	if (!json_object_object_get_ex(o, key, &v) ||
	    !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		return -1;
	*out = json_object_get_int64(v);
	return 0;
}

/* A boolean field: 1, or 0 when false or missing. */
static int jbool(json_object *o, const char *key)
{
	json_object *v;
	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_boolean) &&
	       json_object_get_boolean(v);
}

static void scopy(char *dst, size_t n, const char *s)
{
	snprintf(dst, n, "%s", s ? s : "");
}

/* The top-level array named key, or NULL. */
static json_object *top_array(json_object *root, const char *key)
{
	json_object *a;
	if (!json_object_is_type(root, json_type_object) || !json_object_object_get_ex(root, key, &a) ||
	    !json_object_is_type(a, json_type_array))
		return NULL;
	return a;
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
	if (!root || !(a = top_array(root, "jobs")))
		goto fail;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *x = json_object_array_get_idx(a, i);
		long long id = -1, het = 0;
		const char *nodes;
		if (!json_object_is_type(x, json_type_object) || jlong(x, "job_id", &id) < 0)
			continue;
		jlong(x, "het_job_id", &het);
		if (id != want && het != want)
			continue;
		if (!found) {
			found = 1;
			if (jlong(x, "user_id", &v) == 0 && v >= 0)
				j->uid = (long)v;
			scopy(j->user, sizeof(j->user), jstr(x, "user_name"));
			scopy(j->state, sizeof(j->state), jstr(x, "job_state"));
			if (jlong(x, "end_time", &v) == 0 && v > 0)
				j->end_time = (time_t)v;
			scopy(j->excluded, sizeof(j->excluded), jstr(x, "excluded_nodes"));
			scopy(j->workdir, sizeof(j->workdir), jstr(x, "current_working_directory"));
			scopy(j->comment, sizeof(j->comment), jstr(x, "comment"));
			scopy(j->std_out, sizeof(j->std_out), jstr(x, "standard_output"));
			scopy(j->std_err, sizeof(j->std_err), jstr(x, "standard_error"));
			j->batch = jbool(x, "batch_flag");
		}
		nodes = jstr(x, "nodes");
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
	const char *st = jstr(x, "state");
	json_object *fl;
	size_t o;
	scopy(buf, len, st ? st : "unknown");
	if (json_object_object_get_ex(x, "state_flags", &fl) && json_object_is_type(fl, json_type_array))
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
	if (!root || !(a = top_array(root, "nodes")))
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
		const char *name = json_object_is_type(x, json_type_object) ? jstr(x, "name") : NULL;
		const char *addr;
		if (!name || !*name)
			continue;
		scopy(v[n].name, sizeof(v[n].name), name);
		addr = jstr(x, "address");
		scopy(v[n].addr, sizeof(v[n].addr), addr && *addr ? addr : name);
		node_state(x, v[n].state, sizeof(v[n].state));
		scopy(v[n].reason, sizeof(v[n].reason), jstr(x, "reason"));
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
