/* drained.c - the nodes mpiwatch drained (drained.h). */
#include <stdlib.h>
#include <string.h>

#include "drainreason.h"
#include "drained.h"

/* Slurm's STATE[+FLAG...] has the flag DRAIN (draining or drained). */
static int has_drain(const char *state)
{
	const char *p = strchr(state, '+');
	while (p) {
		const char *e = strchr(p + 1, '+');
		size_t n = e ? (size_t)(e - p - 1) : strlen(p + 1);
		if (n == 5 && !strncmp(p + 1, "DRAIN", 5))
			return 1;
		p = e;
	}
	return 0;
}

long mw_drained_pick(const struct mw_slurm_node *v, long n, struct mw_drained **out)
{
	struct mw_drained *d;
	long k = 0;

	*out = NULL;
	for (long i = 0; i < n; i++)
		if (mw_drain_reason_ours(v[i].reason) && has_drain(v[i].state))
			k++;
	if (!k)
		return 0;
	if (!(d = calloc((size_t)k, sizeof(*d))))
		return -1;
	k = 0;
	for (long i = 0; i < n; i++) {
		const char *summary = NULL;
		if (!mw_drain_reason_ours(v[i].reason) || !has_drain(v[i].state))
			continue;
		mw_drain_reason_parse(v[i].reason, d[k].job, sizeof(d[k].job), &summary);
		snprintf(d[k].node, sizeof(d[k].node), "%s", v[i].name);
		snprintf(d[k].state, sizeof(d[k].state), "%s", v[i].state);
		snprintf(d[k].summary, sizeof(d[k].summary), "%s", summary ? summary : "");
		snprintf(d[k].reason, sizeof(d[k].reason), "%s", v[i].reason);
		snprintf(d[k].set_by, sizeof(d[k].set_by), "%s", v[i].reason_user);
		d[k].since = v[i].reason_time;
		k++;
	}
	*out = d;
	return k;
}

static struct json_object *str_or_null(const char *s)
{
	return s[0] ? json_object_new_string(s) : NULL;
}

struct json_object *mw_drained_json(const struct mw_drained *d, long n)
{
	struct json_object *root = json_object_new_object(), *a = json_object_new_array();

	if (!root || !a)
		goto fail;
	json_object_object_add(root, "drained", a);
	for (long i = 0; i < n; i++) {
		struct json_object *o = json_object_new_object();
		char utc[32] = "";
		struct tm tm;
		if (!o || json_object_array_add(a, o) < 0) {
			json_object_put(o);
			json_object_put(root);
			return NULL;
		}
		if (d[i].since > 0 && gmtime_r(&d[i].since, &tm))
			strftime(utc, sizeof(utc), "%Y-%m-%dT%H:%M:%SZ", &tm);
		json_object_object_add(o, "node", json_object_new_string(d[i].node));
		json_object_object_add(o, "state", json_object_new_string(d[i].state));
		json_object_object_add(o, "since", d[i].since > 0 ? json_object_new_int64((int64_t)d[i].since) : NULL);
		json_object_object_add(o, "since_utc", str_or_null(utc));
		json_object_object_add(o, "job", str_or_null(d[i].job));
		json_object_object_add(o, "summary", json_object_new_string(d[i].summary));
		json_object_object_add(o, "reason", json_object_new_string(d[i].reason));
		json_object_object_add(o, "set_by", str_or_null(d[i].set_by));
	}
	return root;
fail:
	json_object_put(root);
	json_object_put(a);
	return NULL;
}

void mw_drained_print(const struct mw_drained *d, long n, FILE *out)
{
	if (n <= 0) {
		fputs("no node is drained by mpiwatch\n", out);
		return;
	}
	fprintf(out, "%-16s %-26s %-19s %-10s %s\n", "NODE", "STATE", "SINCE", "JOB", "REASON");
	for (long i = 0; i < n; i++) {
		char since[32] = "-";
		struct tm tm;
		if (d[i].since > 0 && localtime_r(&d[i].since, &tm))
			strftime(since, sizeof(since), "%Y-%m-%d %H:%M:%S", &tm);
		fprintf(out, "%-16s %-26s %-19s %-10s %s\n", d[i].node, d[i].state, since, d[i].job[0] ? d[i].job : "-",
			d[i].job[0] ? d[i].summary : d[i].reason);
	}
}
