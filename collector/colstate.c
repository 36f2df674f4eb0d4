/* colstate.c - the collector's per-job state (colstate.h). */
#include "colstate.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "log.h"

static double unix_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int col_state_init(struct col_state *s, const char *job)
{
	memset(s, 0, sizeof *s);
	snprintf(s->job, sizeof s->job, "%s", job);
	s->t_start_unix = unix_now();
	return 0;
}

void col_state_free(struct col_state *s)
{
	for (size_t i = 0; i < s->size; i++) {
		free(s->ranks[i].waits);
		free(s->ranks[i].site);
		free(s->dumps[i]);
	}
	free(s->ranks);
	free(s->dumps);
	free(s->nodes);
	free(s->agents);
	free(s->tl);
	free(s->acts);
	col_result_free(&s->res);
	if (s->analysis)
		json_object_put(s->analysis);
	free(s->dl.ranks);
	free(s->dl.waiting);
	free(s->mpi_errors);
	free(s->crash_stacks);
	memset(s, 0, sizeof *s);
}

void col_state_link_error(struct col_state *s, const char *node, const char *source,
			  const char *error)
{
	struct col_link_error *e = NULL;
	for (size_t i = 0; i < s->nlink_errors && !e; i++)
		if (!strcmp(s->link_errors[i].node, node))
			e = &s->link_errors[i];
	if (!e && s->nlink_errors < COL_LINK_ERRORS_MAX)
		e = &s->link_errors[s->nlink_errors++];
	if (!e)
		return;
	snprintf(e->node, sizeof e->node, "%s", node);
	snprintf(e->source, sizeof e->source, "%s", source);
	snprintf(e->error, sizeof e->error, "%s", error);
	for (char *p = e->error; *p; p++) /* one line of text */
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
}

int col_state_node(struct col_state *s, const char *name)
{
	struct col_node *n;
	struct col_agent *a;
	for (size_t i = 0; i < s->nnodes; i++)
		if (strcmp(s->nodes[i].name, name) == 0)
			return (int)i;
	if (strlen(name) >= sizeof s->nodes[0].name || s->nnodes >= 65536) {
		errno = EINVAL;
		return -1;
	}
	n = realloc(s->nodes, (s->nnodes + 1) * sizeof *n);
	if (!n)
		return -1;
	s->nodes = n;
	a = realloc(s->agents, (s->nnodes + 1) * sizeof *a);
	if (!a)
		return -1;
	s->agents = a;
	memset(&n[s->nnodes], 0, sizeof *n);
	memset(&a[s->nnodes], 0, sizeof *a);
	snprintf(n[s->nnodes].name, sizeof n[s->nnodes].name, "%s", name);
	n[s->nnodes].state = MW_PROBE_ALIVE;
	n[s->nnodes].rtt_ms = -1;
	return (int)s->nnodes++;
}

int col_state_grow(struct col_state *s, size_t size)
{
	struct col_rank *r;
	char **d;
	if (size <= s->size)
		return 0;
	if (size > COL_MAX_RANKS) {
		errno = E2BIG;
		return -1;
	}
	r = realloc(s->ranks, size * sizeof *r);
	if (!r)
		return -1;
	s->ranks = r;
	d = realloc(s->dumps, size * sizeof *d);
	if (!d)
		return -1;
	s->dumps = d;
	for (size_t i = s->size; i < size; i++) {
		memset(&r[i], 0, sizeof r[i]);
		r[i].node = -1;
		r[i].peer_world = r[i].root_world = r[i].tag = -1;
		r[i].exit_code = -1;
		d[i] = NULL;
	}
	s->size = size;
	return 0;
}

void col_state_event(struct col_state *s, const char *event, const char *fmt, ...)
{
	struct col_event *e;
	va_list ap;
	if (s->ntl >= 10000)
		return; /* bounded: a flapping job cannot grow it forever */
	e = realloc(s->tl, (s->ntl + 1) * sizeof *e);
	if (!e)
		return;
	s->tl = e;
	e = &s->tl[s->ntl++];
	e->t_unix = unix_now();
	snprintf(e->event, sizeof e->event, "%s", event);
	va_start(ap, fmt);
	vsnprintf(e->detail, sizeof e->detail, fmt, ap);
	va_end(ap);
	mw_info("%s: %s", event, e->detail);
}

void col_state_action(struct col_state *s, const char *what, const char *target, int ok,
		      const char *message)
{
	struct col_action *a = realloc(s->acts, (s->nacts + 1) * sizeof *a);
	if (a) {
		s->acts = a;
		a = &s->acts[s->nacts++];
		memset(a, 0, sizeof *a);
		snprintf(a->what, sizeof a->what, "%s", what);
		snprintf(a->target, sizeof a->target, "%s", target);
		a->ok = ok;
		snprintf(a->message, sizeof a->message, "%s", message);
		a->t_unix = unix_now();
	}
	col_state_event(s, strcmp(what, "drain") == 0 ? "drain" :
			   strcmp(what, "comment") == 0 ? "comment" : "action",
			"%s %s: %s: %s", what, target, ok ? "done" : "FAILED", message);
}

const char *col_dl_none(const struct col_state *s, int guess, char *buf, size_t len)
{
	json_object *v;
	if (s->analysis && json_object_object_get_ex(s->analysis, "incomplete_reason", &v) &&
	    json_object_is_type(v, json_type_string))
		snprintf(buf, len, "the analysis of the dumps is incomplete: %s", json_object_get_string(v));
	else
		snprintf(buf, len, "the analysis of the dumps finds no deadlock%s", guess ? " (a slow transfer?)" : "");
	return buf;
}

void col_state_set_dump(struct col_state *s, int rank, char *json)
{
	if (rank < 0 || (size_t)rank >= s->size) {
		free(json);
		return;
	}
	free(s->dumps[rank]);
	s->dumps[rank] = json;
	s->ranks[rank].has_dump = 1;
	col_dump_waits(json, &s->ranks[rank]);
}

/* ------------------------------------------------------- waits from a dump */

static int int_of(json_object *o, const char *k, int dflt)
{
	json_object *v;
	if (o && json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_int))
		return json_object_get_int(v);
	return dflt;
}

static const char *str_of(json_object *o, const char *k)
{
	json_object *v;
	if (o && json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return NULL;
}

static int add_wait(struct col_rank *r, size_t *cap, int w)
{
	if (w < 0 || w >= COL_MAX_RANKS)
		return 0;
	for (size_t i = 0; i < r->nwaits; i++)
		if (r->waits[i] == w)
			return 0;
	if (r->nwaits == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		int *p = realloc(r->waits, nc * sizeof *p);
		if (!p)
			return -1;
		r->waits = p;
		*cap = nc;
	}
	r->waits[r->nwaits++] = w;
	return 0;
}

static json_object *find_comm(json_object *root, int id)
{
	json_object *comms;
	if (!json_object_object_get_ex(root, "comms", &comms) ||
	    !json_object_is_type(comms, json_type_array))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(comms); i++) {
		json_object *c = json_object_array_get_idx(comms, i);
		if (json_object_is_type(c, json_type_object) && int_of(c, "id", -99) == id)
			return c;
	}
	return NULL;
}

static int add_members(struct col_rank *r, size_t *cap, json_object *comm)
{
	json_object *wr;
	if (!comm || !json_object_object_get_ex(comm, "world_ranks", &wr) ||
	    !json_object_is_type(wr, json_type_array))
		return -1;
	for (size_t i = 0; i < json_object_array_length(wr) && i < COL_MAX_RANKS; i++) {
		json_object *v = json_object_array_get_idx(wr, i);
		if (json_object_is_type(v, json_type_int) && add_wait(r, cap, json_object_get_int(v)))
			return -1;
	}
	return 0;
}

static void add_request_peers(struct col_rank *r, size_t *cap, json_object *root, const char *key,
			      json_object *want)
{
	json_object *a;
	if (!json_object_object_get_ex(root, key, &a) || !json_object_is_type(a, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *q = json_object_array_get_idx(a, i);
		int req = int_of(q, "req", -1), pw = int_of(q, "peer_world", -1), match = !want;
		if (want)
			for (size_t k = 0; k < json_object_array_length(want); k++)
				if (json_object_get_int(json_object_array_get_idx(want, k)) == req)
					match = 1;
		if (!match)
			continue;
		if (pw >= 0)
			add_wait(r, cap, pw);
		else if (pw == -2 || int_of(q, "peer", -1) == -1) /* any source / collective */
			add_members(r, cap, find_comm(root, int_of(q, "comm", -99)));
	}
}

int col_rank_set_site(struct col_rank *r, const char *site)
{
	free(r->site);
	r->site = site && *site ? strdup(site) : NULL;
	return site && *site && !r->site ? -1 : 0;
}

int col_dump_waits(const char *json, struct col_rank *r)
{
	json_object *root = json ? json_tokener_parse(json) : NULL, *call, *reqs = NULL;
	const char *kind;
	size_t cap = 0;
	int rv = -1;

	if (!root || !json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "call", &call) || !json_object_is_type(call, json_type_object))
		goto out;
	free(r->waits);
	r->waits = NULL;
	r->nwaits = 0;
	kind = str_of(call, "kind");
	if (!kind)
		goto out;
	if (strcmp(kind, "collective") == 0 || int_of(call, "peer_world", -1) == -2) {
		if (add_members(r, &cap, find_comm(root, int_of(call, "comm", -99))))
			goto out;
	} else if (strcmp(kind, "wait") == 0 || strcmp(kind, "test") == 0) {
		json_object_object_get_ex(call, "requests", &reqs);
		if (reqs && !json_object_is_type(reqs, json_type_array))
			reqs = NULL;
		add_request_peers(r, &cap, root, "pending_recvs", reqs);
		add_request_peers(r, &cap, root, "pending_sends", reqs);
	} else {
		add_wait(r, &cap, int_of(call, "peer_world", -1));
		add_wait(r, &cap, int_of(call, "send_peer_world", -1));
	}
	r->waits_known = 1;
	rv = 0;
out:
	json_object_put(root);
	return rv;
}

/* The analysis' missing_ranks: call fn(rank, arg) for each; stop at non-zero. */
static int missing_each(const struct col_state *s, int (*fn)(const struct col_state *, int, void *),
			void *arg)
{
	json_object *m;
	if (!s->analysis || !json_object_object_get_ex(s->analysis, "missing_ranks", &m) ||
	    !json_object_is_type(m, json_type_array))
		return 0;
	for (size_t i = 0; i < json_object_array_length(m); i++) {
		int r = json_object_get_int(json_object_array_get_idx(m, i)), v;
		if (r >= 0 && (size_t)r < s->size && (v = fn(s, r, arg)))
			return v;
	}
	return 0;
}

static int ended_cb(const struct col_state *s, int r, void *arg)
{
	int st = s->ranks[r].state;
	(void)arg;
	return st == MW_HB_S_EXITED || st == MW_HB_S_VANISHED ? r + 1 : 0;
}

int col_deadlock_ended_rank(const struct col_state *s)
{
	return s->dl.found ? missing_each(s, ended_cb, NULL) - 1 : -1;
}

static int running_cb(const struct col_state *s, int r, void *arg)
{
	int st = s->ranks[r].state;
	(void)arg;
	return st != MW_HB_S_EXITED && st != MW_HB_S_VANISHED && st != MW_HB_S_FINALIZED;
}

int col_deadlock_certain(const struct col_state *s)
{
	if (!s->dl.found || col_deadlock_ended_rank(s) >= 0)
		return 0;
	if (strcmp(s->dl.kind, "collective_mismatch") != 0)
		return 1;
	return !missing_each(s, running_cb, NULL);
}

int col_mpi_error(const struct col_state *s, int r, char *buf, size_t len)
{
	return col_rank_line(s->mpi_errors, r, buf, len);
}

int col_rank_line(const char *text, int r, char *buf, size_t len)
{
	char key[24];
	const char *p = text;
	size_t kl = (size_t)snprintf(key, sizeof key, "%d\t", r);
	while (p && *p) {
		size_t n = strcspn(p, "\n");
		if (n > kl && !strncmp(p, key, kl)) {
			snprintf(buf, len, "%.*s", (int)(n - kl), p + kl);
			return 1;
		}
		p += n + (p[n] == '\n');
	}
	return 0;
}
