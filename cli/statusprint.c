/* statusprint.c - "mpiwatch status" text from status objects (statusprint.h). */
#include "statusprint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "mw_json.h"

/* v as text with control characters as '?' ("-" for null), in one of 8
 * rotating buffers: a printf may take up to 8. */
static const char *jtext(struct json_object *v)
{
	static char ring[8][1024];
	static unsigned next;
	char *b;
	if (!v)
		return "-";
	b = ring[next++ % 8];
	snprintf(b, sizeof ring[0], "%s", json_object_get_string(v));
	for (char *p = b; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return b;
}

/* k's value in o as jtext() gives it, "?" if o has no k. */
static const char *jstr(struct json_object *o, const char *k)
{
	struct json_object *v;
	return json_object_object_get_ex(o, k, &v) ? jtext(v) : "?";
}

/* A counter's name is printed only if it is a plain word (no escapes). */
static int plain_key(const char *k)
{
	return strspn(k, "abcdefghijklmnopqrstuvwxyz_0123456789") == strlen(k);
}

/* k's number in o times scale, 0 if o has no finite number k. */
static double jdouble(struct json_object *o, const char *k, double scale)
{
	double x;
	return mw_json_num(o, k, -HUGE_VAL, HUGE_VAL, &x) ? 0 : x * scale;
}

/* The status object's "calibration" member, in one or two lines. */
static void print_calibration(struct json_object *k, FILE *out)
{
	struct json_object *v;
	if (json_object_object_get_ex(k, "state", &v)) {
		fprintf(out, "calibration: %s: %s\n", jstr(k, "state"), jstr(k, "detail"));
		fprintf(out, "             R0 %s ns, resolution %s ns, TSC %.4f GHz (rate change %.2g %%), "
			     "%s backward steps; %.2f s, %.2f CPU-s%s, %s s ago\n",
			jstr(k, "interval_ns"), jstr(k, "resolution_ns"), jdouble(k, "tsc_ghz", 1),
			jdouble(k, "rate_diff", 100), jstr(k, "backward_steps"), jdouble(k, "seconds", 1),
			jdouble(k, "cpu_seconds", 1), mw_json_true(k, "truncated") ? " (budget ran out)" : "",
			jstr(k, "age_s"));
	} else {
		fprintf(out, "calibration: none yet\n");
	}
	if (json_object_object_get_ex(k, "skipped", &v))
		fprintf(out, "             last request: %s\n", jtext(v));
}

void mw_status_print_node(struct json_object *st, FILE *out)
{
	struct json_object *c, *m, *v;
	fprintf(out, "node:        %s\nstate:       %s\nsummary:     %s\n", jstr(st, "node"), jstr(st, "state"),
		jstr(st, "summary"));
	fprintf(out, "daemon:      pid %s, version %s, up %s s, udp port %s, socket %s\n", jstr(st, "pid"),
		jstr(st, "version"), jstr(st, "uptime_s"), jstr(st, "port"), jstr(st, "socket"));
	fprintf(out, "config:      %s\nhealth age:  %s s\n", jstr(st, "config"), jstr(st, "health_age_s"));
	if ((v = mw_json_array(st, "checks"))) {
		fprintf(out, "checks:\n");
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			struct json_object *r = json_object_array_get_idx(v, i);
			fprintf(out, "  %-4s %-8s %s\n", mw_json_true(r, "ok") ? "ok" : "FAIL", jstr(r, "check"),
				jstr(r, "detail"));
		}
	}
	if (json_object_object_get_ex(st, "calibration", &v))
		print_calibration(v, out);
	if (json_object_object_get_ex(st, "counters", &c) && json_object_is_type(c, json_type_object)) {
		fprintf(out, "counters:\n");
		json_object_object_foreach(c, key, val) {
			if (strcmp(key, "malformed_by_reason") && plain_key(key))
				fprintf(out, "  %-18s %s\n", key, jtext(val));
		}
		if (json_object_object_get_ex(c, "malformed_by_reason", &m) && json_object_is_type(m, json_type_object)) {
			fprintf(out, "  malformed by reason:");
			json_object_object_foreach(m, k2, v2) {
				if (plain_key(k2))
					fprintf(out, " %s=%s", k2, jtext(v2));
			}
			fprintf(out, "\n");
		}
	}
	fprintf(out, "drains in window: %s\n", jstr(st, "drains_in_window"));
}

/* The live tree of report.json's "tree": who serves whom now. */
static void print_tree(struct json_object *t, FILE *out)
{
	struct json_object *nodes, *mv;
	fprintf(out, "tree:        %s CP(s), fanout %s, depth %s\n", jstr(t, "cps"), jstr(t, "fanout"),
		jstr(t, "depth"));
	if ((nodes = mw_json_array(t, "nodes")))
		for (size_t i = 0; i < json_object_array_length(nodes); i++) {
			struct json_object *e = json_object_array_get_idx(nodes, i);
			const char *now = jstr(e, "parent"), *plan = jstr(e, "planned_parent");
			fprintf(out, "  %-16s %s, served by %s", jstr(e, "node"), jstr(e, "role"), *now ? now : "(none)");
			if (strcmp(now, plan))
				fprintf(out, " (planned: %s)", plan);
			fputc('\n', out);
		}
	if ((mv = mw_json_array(t, "reattachments")))
		for (size_t i = 0; i < json_object_array_length(mv); i++) {
			struct json_object *e = json_object_array_get_idx(mv, i);
			fprintf(out, "  re-attachment: %s from %s to %s\n", jstr(e, "node"), jstr(e, "from"),
				jstr(e, "to"));
		}
}

/* Node names of the report's nodes whose agent is in state want, as a host
 * list ("-" if none); *n gets their count. */
static void agents_in(struct json_object *nodes, const char *want, char *buf, size_t len, int *n)
{
	size_t total = json_object_array_length(nodes);
	char **names = calloc(total ? total : 1, sizeof(*names));
	struct mw_hostlist hl = {names, 0};
	*n = 0;
	for (size_t i = 0; names && i < total; i++) {
		struct json_object *e = json_object_array_get_idx(nodes, i);
		const char *name;
		if (strcmp(jstr(e, "agent"), want))
			continue;
		name = jstr(e, "name");
		if (!(names[hl.n] = strdup(name)))
			break;
		hl.n++;
	}
	*n = (int)hl.n;
	if (!hl.n || mw_hostlist_compress(&hl, buf, len) >= len)
		snprintf(buf, len, "%s", hl.n ? "(too many to list)" : "-");
	for (size_t i = 0; i < hl.n; i++)
		free(names[i]);
	free(names);
}

void mw_status_print_job(struct json_object *r, FILE *out)
{
	struct json_object *nodes, *tl, *stats, *v;
	char list[1024];
	int n;

	fprintf(out, "verdict:     %s%s\n", jstr(r, "summary"), mw_json_true(r, "confirmed") ? " (confirmed)" : "");
	if ((nodes = mw_json_array(r, "nodes"))) {
		int total = (int)json_object_array_length(nodes);
		agents_in(nodes, "connected", list, sizeof list, &n);
		fprintf(out, "agents:      %d of %d connected: %s\n", n, total, list);
		agents_in(nodes, "never", list, sizeof list, &n);
		if (n)
			fprintf(out, "             %d never connected: %s\n", n, list);
		agents_in(nodes, "lost", list, sizeof list, &n);
		if (n)
			fprintf(out, "             %d lost: %s\n", n, list);
	}
	if (json_object_object_get_ex(r, "tree", &v)) /* the tree overlay (doc/tree.md) */
		print_tree(v, out);
	if (json_object_object_get_ex(r, "stats", &stats))
		fprintf(out, "ranks seen:  %s of %s; heartbeats %s\n", jstr(stats, "rank_announcements"),
			jstr(r, "ranks_total"), jstr(stats, "heartbeats"));
	if ((tl = mw_json_array(r, "timeline"))) {
		size_t len = json_object_array_length(tl);
		fprintf(out, "last events:\n");
		for (size_t i = len > 5 ? len - 5 : 0; i < len; i++) {
			struct json_object *e = json_object_array_get_idx(tl, i);
			fprintf(out, "  %s  %-16s %s\n", jstr(e, "time"), jstr(e, "event"), jstr(e, "detail"));
		}
	}
}
