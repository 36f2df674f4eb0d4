/* mwt_probe.c - probe summaries of the tree (mwt_probe.h). */
#include "mwt_probe.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "heartbeat.h"
#include "mwt_err.h"
#include "mw_json.h"

struct pres {
	char node[MW_HB_STR_MAX + 1];
	char by[MW_HB_STR_MAX + 1];
	struct mw_probe_result r;
};

struct mwt_psum {
	uint32_t round;
	char from[MW_HB_STR_MAX + 1];
	struct pres *r;
	size_t n, cap;
	char (*miss)[MW_HB_STR_MAX + 1];
	size_t nmiss, capmiss;
};

#define STATE_MAX MW_PROBE_NODAEMON

struct mwt_psum *mwt_psum_create(uint32_t round, const char *from)
{
	struct mwt_psum *s;
	if (round < 1 || round > INT32_MAX || !mw_hb_valid_name(from)) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->round = round;
	memcpy(s->from, from, strlen(from) + 1);
	return s;
}

void mwt_psum_destroy(struct mwt_psum *s)
{
	if (!s)
		return;
	free(s->r);
	free(s->miss);
	free(s);
}

/* Printable ASCII, shorter than max. */
static int text_ok(const char *t, size_t max)
{
	size_t i;
	for (i = 0; t[i]; i++)
		if ((unsigned char)t[i] < 0x20 || (unsigned char)t[i] > 0x7e || i + 1 >= max)
			return 0;
	return 1;
}

static int result_ok(const struct mw_probe_result *r)
{
	return (int)r->state >= 0 && r->state <= STATE_MAX && isfinite(r->rtt_ms) && r->rtt_ms >= -1 &&
	       r->rtt_ms < 1e7 && r->tries >= 0 && r->tries <= 1000 && r->failed >= 0 && r->failed <= 255 &&
	       text_ok(r->name, sizeof r->name) && text_ok(r->summary, sizeof r->summary) &&
	       text_ok(r->addr, sizeof r->addr);
}

/* How alive a result shows its node: the larger wins a merge. */
static int liveness_rank(enum mw_probe_state st)
{
	switch (st) {
	case MW_PROBE_ALIVE:
	case MW_PROBE_DEGRADED:
		return 3;
	case MW_PROBE_NODAEMON:
		return 2;
	case MW_PROBE_ERROR:
		return 1;
	default:
		return 0;
	}
}

static struct pres *find(const struct mwt_psum *s, const char *node)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->r[i].node, node) == 0)
			return &s->r[i];
	return NULL;
}

int mwt_psum_add(struct mwt_psum *s, const char *node, const char *by, const struct mw_probe_result *r)
{
	struct pres *p;
	if (!mw_hb_valid_name(node) || !mw_hb_valid_name(by) || !result_ok(r)) {
		errno = EINVAL;
		return -1;
	}
	p = find(s, node);
	if (p) {
		if (liveness_rank(r->state) <= liveness_rank(p->r.state))
			return 0;
	} else {
		if (s->n >= MWT_PSUM_MAX) {
			errno = E2BIG;
			return -1;
		}
		if (s->n == s->cap) {
			size_t c = s->cap ? s->cap * 2 : 16;
			struct pres *x = realloc(s->r, c * sizeof *x);
			if (!x)
				return -1;
			s->r = x;
			s->cap = c;
		}
		p = &s->r[s->n++];
	}
	memset(p, 0, sizeof *p);
	memcpy(p->node, node, strlen(node) + 1);
	memcpy(p->by, by, strlen(by) + 1);
	p->r = *r;
	return 1;
}

int mwt_psum_missing(struct mwt_psum *s, const char *cp)
{
	if (!mw_hb_valid_name(cp) || s->nmiss >= MWT_PSUM_MAX) {
		errno = EINVAL;
		return -1;
	}
	for (size_t i = 0; i < s->nmiss; i++)
		if (strcmp(s->miss[i], cp) == 0)
			return 0;
	if (s->nmiss == s->capmiss) {
		size_t c = s->capmiss ? s->capmiss * 2 : 8;
		char(*x)[MW_HB_STR_MAX + 1] = realloc(s->miss, c * sizeof *x);
		if (!x)
			return -1;
		s->miss = x;
		s->capmiss = c;
	}
	memcpy(s->miss[s->nmiss++], cp, strlen(cp) + 1);
	return 0;
}

long mwt_psum_merge(struct mwt_psum *s, const struct mwt_psum *x)
{
	long added = 0;
	for (size_t i = 0; i < x->n; i++) {
		int r = mwt_psum_add(s, x->r[i].node, x->r[i].by, &x->r[i].r);
		if (r < 0)
			return -1;
		added += r;
	}
	for (size_t i = 0; i < x->nmiss; i++)
		if (mwt_psum_missing(s, x->miss[i]) < 0)
			return -1;
	return added;
}

uint32_t mwt_psum_round(const struct mwt_psum *s)
{
	return s->round;
}

const char *mwt_psum_from(const struct mwt_psum *s)
{
	return s->from;
}

size_t mwt_psum_n(const struct mwt_psum *s)
{
	return s->n;
}

size_t mwt_psum_nmissing(const struct mwt_psum *s)
{
	return s->nmiss;
}

int mwt_psum_get(const struct mwt_psum *s, size_t i, const char **node, const char **by,
		 struct mw_probe_result *r)
{
	if (i >= s->n)
		return -1;
	*node = s->r[i].node;
	*by = s->r[i].by;
	*r = s->r[i].r;
	return 0;
}

const char *mwt_psum_missing_at(const struct mwt_psum *s, size_t i)
{
	return i < s->nmiss ? s->miss[i] : NULL;
}

char *mwt_psum_to_json(const struct mwt_psum *s)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array(), *m = json_object_new_array();
	char *txt;
	if (!o || !a || !m) {
		json_object_put(o);
		json_object_put(a);
		json_object_put(m);
		errno = ENOMEM;
		return NULL;
	}
	json_object_object_add(o, "round", json_object_new_int64(s->round));
	json_object_object_add(o, "from", json_object_new_string(s->from));
	for (size_t i = 0; i < s->n; i++) {
		const struct pres *p = &s->r[i];
		json_object *e = json_object_new_object();
		json_object_object_add(e, "node", json_object_new_string(p->node));
		json_object_object_add(e, "by", json_object_new_string(p->by));
		json_object_object_add(e, "state", json_object_new_string(mw_probe_state_name(p->r.state)));
		json_object_object_add(e, "rtt_ms", json_object_new_double(p->r.rtt_ms));
		json_object_object_add(e, "tries", json_object_new_int(p->r.tries));
		json_object_object_add(e, "failed", json_object_new_int(p->r.failed));
		json_object_object_add(e, "summary", json_object_new_string(p->r.summary));
		json_object_object_add(e, "addr", json_object_new_string(p->r.addr));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "results", a);
	for (size_t i = 0; i < s->nmiss; i++)
		json_object_array_add(m, json_object_new_string(s->miss[i]));
	json_object_object_add(o, "missing", m);
	txt = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	if (!txt)
		errno = ENOMEM;
	return txt;
}

/* ---------------------------------------------------------------- decode */

/* A string field, printable ASCII, shorter than size, into dst. */
static int get_str(json_object *o, const char *key, char *dst, size_t size)
{
	const char *t = mw_json_str(o, key, size - 1);
	if (!t || !text_ok(t, size))
		return -1;
	memcpy(dst, t, strlen(t) + 1);
	return 0;
}

static int parse_state(const char *t)
{
	for (int st = 0; st <= STATE_MAX; st++)
		if (strcmp(t, mw_probe_state_name((enum mw_probe_state)st)) == 0)
			return st;
	return -1;
}

/* One results[] entry into s.  Return 0, or -1 with the field in *what. */
static int decode_result(struct mwt_psum *s, json_object *e, const char **what)
{
	char node[MW_HB_STR_MAX + 1], by[MW_HB_STR_MAX + 1], st[16];
	struct mw_probe_result r;
	int64_t x;
	int state;
	memset(&r, 0, sizeof r);
	if (!json_object_is_type(e, json_type_object))
		return *what = "not an object", -1;
	if (get_str(e, "node", node, sizeof node) || !mw_hb_valid_name(node))
		return *what = "node", -1;
	if (get_str(e, "by", by, sizeof by) || !mw_hb_valid_name(by))
		return *what = "by", -1;
	if (get_str(e, "state", st, sizeof st) || (state = parse_state(st)) < 0)
		return *what = "state", -1;
	r.state = (enum mw_probe_state)state;
	if (mw_json_num(e, "rtt_ms", -1, 1e7, &r.rtt_ms))
		return *what = "rtt_ms", -1;
	if (mw_json_int(e, "tries", 0, 1000, &x))
		return *what = "tries", -1;
	r.tries = (int)x;
	if (mw_json_int(e, "failed", 0, 255, &x))
		return *what = "failed", -1;
	r.failed = (int)x;
	if (get_str(e, "summary", r.summary, sizeof r.summary))
		return *what = "summary", -1;
	if (get_str(e, "addr", r.addr, sizeof r.addr))
		return *what = "addr", -1;
	if (mwt_psum_add(s, node, by, &r) < 0)
		return *what = errno == E2BIG ? "too many results" : "out of range", -1;
	return 0;
}

struct mwt_psum *mwt_psum_from_json(const char *txt, size_t len, char *err, size_t errlen)
{
	json_tokener *tok;
	json_object *o = NULL, *a, *m;
	struct mwt_psum *s = NULL;
	char from[MW_HB_STR_MAX + 1];
	int64_t round;
	const char *what = "";

	if (len > MW_HB_MAX_PAYLOAD || !(tok = json_tokener_new_ex(32))) {
		mwt_errf(err, errlen, "probe summary: too long");
		return NULL;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, txt, (int)len);
	if (!o || json_tokener_get_error(tok) != json_tokener_success || json_tokener_get_parse_end(tok) != len ||
	    !json_object_is_type(o, json_type_object) || memchr(txt, 0, len)) {
		json_tokener_free(tok);
		json_object_put(o);
		mwt_errf(err, errlen, "probe summary: not one JSON object");
		return NULL;
	}
	json_tokener_free(tok);
	if (mw_json_int(o, "round", 1, INT32_MAX, &round)) {
		mwt_errf(err, errlen, "probe summary: round");
		goto fail;
	}
	if (get_str(o, "from", from, sizeof from) || !mw_hb_valid_name(from)) {
		mwt_errf(err, errlen, "probe summary: from");
		goto fail;
	}
	if (!json_object_object_get_ex(o, "results", &a) || !json_object_is_type(a, json_type_array) ||
	    json_object_array_length(a) > MWT_PSUM_MAX) {
		mwt_errf(err, errlen, "probe summary: results");
		goto fail;
	}
	if (!json_object_object_get_ex(o, "missing", &m) || !json_object_is_type(m, json_type_array) ||
	    json_object_array_length(m) > MWT_PSUM_MAX) {
		mwt_errf(err, errlen, "probe summary: missing");
		goto fail;
	}
	s = mwt_psum_create((uint32_t)round, from);
	if (!s) {
		mwt_errf(err, errlen, "probe summary: out of memory");
		goto fail;
	}
	for (size_t i = 0; i < json_object_array_length(a); i++)
		if (decode_result(s, json_object_array_get_idx(a, i), &what) < 0) {
			mwt_errf(err, errlen, "probe summary: results[%zu].%s", i, what);
			goto fail;
		}
	for (size_t i = 0; i < json_object_array_length(m); i++) {
		json_object *v = json_object_array_get_idx(m, i);
		const char *t = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
		if (!t || (size_t)json_object_get_string_len(v) != strlen(t) || !mw_hb_valid_name(t) ||
		    mwt_psum_missing(s, t) < 0) {
			mwt_errf(err, errlen, "probe summary: missing[%zu]", i);
			goto fail;
		}
	}
	json_object_put(o);
	return s;
fail:
	json_object_put(o);
	mwt_psum_destroy(s);
	return NULL;
}

int mwt_in_subtree(const int *parent, const int *parent2, size_t n, int root, int node)
{
	const int *maps[2] = {parent, parent2};
	if (root < 0 || node < 0 || (size_t)root >= n || (size_t)node >= n)
		return 0;
	for (int k = 0; k < 2; k++) {
		int x = node;
		if (!maps[k])
			continue;
		for (size_t steps = 0; x >= 0 && (size_t)x < n && steps <= n; steps++) {
			if (x == root)
				return 1;
			x = maps[k][x];
		}
	}
	return 0;
}
