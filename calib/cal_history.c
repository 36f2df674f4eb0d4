/* cal_history.c - a node's calibrations over time (cal_history.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cal_apart.h"
#include "cal_history.h"
#include "fsutil.h"
#include "mw_json.h"

#define HISTORY_FILE_MAX (1 << 20) /* far above 8 calibrations of 16 blocks */

_Static_assert(CAL_HISTORY_MAX * CAL_BLOCKS_MAX <= CAL_POOL_MAX, "a history's blocks are combined at once");

static int fail(char *err, size_t errlen, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, const char *what, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errlen, "%s: ", what);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	errno = EINVAL;
	return -1;
}

/* Member key of o, present: a JSON null (*isnull 1) or a finite number
 * >= 0 into *v (mw_json_num).  Return 0, or -1. */
static int number_or_null(struct json_object *o, const char *key, double *v, int *isnull)
{
	struct json_object *x;
	if (!json_object_object_get_ex(o, key, &x))
		return -1;
	*isnull = !x;
	return x ? mw_json_num(o, key, 0, INFINITY, v) : 0;
}

static int entry(struct json_object *c, size_t i, const char *what, struct cal_history_entry *e, char *err,
		 size_t errlen)
{
	struct json_object *b;
	double v;
	int64_t n;
	int isnull;
	memset(e, 0, sizeof(*e));
	if (!json_object_is_type(c, json_type_object))
		return fail(err, errlen, what, "calibrations[%zu] is not an object", i);
	if (mw_json_int(c, "time", 0, INT64_MAX, &e->time) < 0)
		return fail(err, errlen, what, "calibrations[%zu].time: expected Unix seconds", i);
	if (mw_json_int(c, "base_adds", 1, INT64_MAX, &n) < 0)
		return fail(err, errlen, what, "calibrations[%zu].base_adds: expected a positive integer", i);
	e->base_adds = (uint64_t)n;
	if (mw_json_num(c, "step_ns", 0, INFINITY, &e->step_ns) < 0)
		return fail(err, errlen, what, "calibrations[%zu].step_ns: expected a number >= 0", i);
	if (!(b = mw_json_array(c, "blocks")) || json_object_array_length(b) < 1 ||
	    json_object_array_length(b) > CAL_BLOCKS_MAX)
		return fail(err, errlen, what, "calibrations[%zu].blocks: expected an array of 1 to %d", i,
			    CAL_BLOCKS_MAX);
	e->nblocks = (unsigned)json_object_array_length(b);
	for (unsigned k = 0; k < e->nblocks; k++) {
		struct json_object *x = json_object_array_get_idx(b, k);
		struct cal_block *blk = &e->block[k];
		if (!x)
			continue; /* null: the block resolved nothing */
		if (mw_json_num(x, "ns", 0, INFINITY, &blk->ns) < 0 || mw_json_num(x, "cy", 0, INFINITY, &blk->cy) < 0 ||
		    mw_json_num(x, "relative", 0, INFINITY, &blk->rel) < 0)
			return fail(err, errlen, what,
				    "calibrations[%zu].blocks[%u]: expected null or {\"ns\", \"cy\", \"relative\"} "
				    "numbers >= 0",
				    i, k);
		blk->found = 1;
	}
	if (number_or_null(c, "runs_apart_ns", &v, &isnull) < 0)
		return fail(err, errlen, what, "calibrations[%zu].runs_apart_ns: expected null or a number >= 0", i);
	e->apart = !isnull;
	e->apart_ns = isnull ? 0 : v;
	if (number_or_null(c, "runs_apart_cy", &v, &isnull) < 0 || (!isnull && !e->apart))
		return fail(err, errlen, what, "calibrations[%zu].runs_apart_cy: expected %s", i,
			    e->apart ? "null or a number >= 0" : "null (runs_apart_ns is)");
	e->apart_cy = isnull ? 0 : v;
	return 0;
}

int cal_history_parse(const char *txt, size_t len, const char *what, struct cal_history *h, char *err,
		      size_t errlen)
{
	struct json_tokener *tok;
	struct json_object *j, *cs;
	int64_t version;
	int rc = -1;
	memset(h, 0, sizeof(*h));
	if (len > HISTORY_FILE_MAX)
		return fail(err, errlen, what, "larger than %d bytes", HISTORY_FILE_MAX);
	if (!(tok = json_tokener_new())) {
		snprintf(err, errlen, "%s: %s", what, strerror(ENOMEM));
		errno = ENOMEM;
		return -1;
	}
	j = json_tokener_parse_ex(tok, txt, (int)len);
	if (!j || json_tokener_get_parse_end(tok) != len) {
		size_t end = json_tokener_get_parse_end(tok);
		while (j && end < len && strchr(" \t\r\n", txt[end]))
			end++;
		if (!j || end != len) {
			fail(err, errlen, what, "not a calibration history (JSON): %s",
			     j ? "text after the object" : json_tokener_error_desc(json_tokener_get_error(tok)));
			goto out;
		}
	}
	if (!json_object_is_type(j, json_type_object)) {
		fail(err, errlen, what, "not a calibration history: expected a JSON object");
		goto out;
	}
	if (mw_json_int(j, "version", 1, 1, &version) < 0) {
		fail(err, errlen, what, "version: expected 1");
		goto out;
	}
	if (!(cs = mw_json_array(j, "calibrations"))) {
		fail(err, errlen, what, "calibrations: expected an array");
		goto out;
	}
	if (json_object_array_length(cs) > CAL_HISTORY_MAX) {
		fail(err, errlen, what, "calibrations: more than %d", CAL_HISTORY_MAX);
		goto out;
	}
	for (size_t i = 0; i < json_object_array_length(cs); i++)
		if (entry(json_object_array_get_idx(cs, i), i, what, &h->e[h->n++], err, errlen) < 0)
			goto out;
	rc = 0;
out:
	if (rc < 0)
		h->n = 0;
	json_object_put(j);
	json_tokener_free(tok);
	if (rc < 0)
		errno = EINVAL;
	return rc;
}

int cal_history_load(const char *path, struct cal_history *h, char *err, size_t errlen)
{
	char *buf;
	size_t len;
	int rc;
	memset(h, 0, sizeof(*h));
	if (mw_read_regular(path, HISTORY_FILE_MAX, &buf, &len) < 0) {
		if (errno == ENOENT)
			return 0; /* the node's first calibration */
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, mw_read_regular_why(e));
		errno = e;
		return -1;
	}
	rc = cal_history_parse(buf, len, path, h, err, errlen);
	free(buf);
	return rc;
}

int cal_history_add(struct cal_history *h, const struct cal_result *r, int64_t now)
{
	const struct cal_resolution *rs = &r->resolution;
	struct cal_history_entry *e;
	if (!r->base_adds || rs->blocks < 1 || rs->blocks > CAL_BLOCKS_MAX)
		return 0;
	if (h->n == CAL_HISTORY_MAX) {
		memmove(&h->e[0], &h->e[1], (CAL_HISTORY_MAX - 1) * sizeof(h->e[0]));
		h->n--;
	}
	e = &h->e[h->n++];
	memset(e, 0, sizeof(*e));
	e->time = now;
	e->base_adds = r->base_adds;
	e->step_ns = r->timer.step_ns;
	e->nblocks = rs->blocks;
	memcpy(e->block, r->block, rs->blocks * sizeof(r->block[0]));
	e->apart = cal_apart_bounded(&rs->apart);
	e->apart_ns = e->apart ? rs->apart.bound_ns : 0;
	e->apart_cy = e->apart ? rs->apart.bound_cy : 0;
	return 1;
}

int cal_history_node(const struct cal_history *h, uint64_t base_adds, double step_ns,
		     const struct cal_resolution *own, struct cal_resolution *node, unsigned *ncal)
{
	struct cal_resolution *blk;
	struct cal_apart ap = own->apart;
	size_t nb = 0;
	unsigned k = 0;
	int rv;
	double bound_ns = 0, bound_cy = 0;
	int bounded = 0;
	if (ncal)
		*ncal = 0;
	blk = calloc(CAL_HISTORY_MAX * CAL_BLOCKS_MAX, sizeof(*blk));
	if (!blk)
		return -1;
	for (size_t i = 0; i < h->n; i++) {
		const struct cal_history_entry *e = &h->e[i];
		if (e->base_adds != base_adds || e->step_ns != step_ns)
			continue;
		k++;
		for (unsigned b = 0; b < e->nblocks; b++, nb++)
			blk[nb] = (struct cal_resolution){.found = e->block[b].found, .d_ns = e->block[b].ns,
							  .d_cy = e->block[b].cy, .rel = e->block[b].rel};
		if (e->apart) { /* bounds are >= 0: the largest from 0 */
			bound_ns = fmax(bound_ns, e->apart_ns);
			bound_cy = fmax(bound_cy, e->apart_cy);
			bounded = 1;
		}
	}
	if (k == 0) {
		*node = *own;
		free(blk);
		return 0;
	}
	rv = cal_resolution_blocks(blk, nb, node);
	free(blk);
	if (rv < 0)
		return -1;
	cal_resolution_floor(node, step_ns);
	/* The runs apart: own's figures, the bound the largest kept; none
	 * bounded: none (the blocks' upper end stands in, as without). */
	node->apart = ap;
	if (bounded) {
		if (!cal_apart_bounded(&node->apart)) /* this one measured none: the earlier did */
			node->apart.measured = 2, node->apart.slowed = 0;
		node->apart.bound_ns = bound_ns;
		node->apart.bound_cy = bound_cy;
	} else {
		node->apart.measured = node->apart.slowed;
	}
	if (ncal)
		*ncal = k;
	return 0;
}

int cal_history_apply(struct cal_history *h, struct cal_result *r, int64_t now)
{
	struct cal_resolution node;
	unsigned k;
	if (!cal_history_add(h, r, now))
		return 0; /* nothing measured: node stays this calibration's */
	if (cal_history_node(h, r->base_adds, r->timer.step_ns, &r->resolution, &node, &k) < 0)
		return -1;
	r->node = node;
	r->node_calibrations = k;
	return 0;
}

char *cal_history_format(const struct cal_history *h)
{
	struct json_object *j = json_object_new_object(), *cs = json_object_new_array();
	char *txt = NULL;
	if (!j || !cs)
		goto out;
	json_object_object_add(j, "version", json_object_new_int(1));
	for (size_t i = 0; i < h->n; i++) {
		const struct cal_history_entry *e = &h->e[i];
		struct json_object *c = json_object_new_object(), *b = json_object_new_array();
		json_object_object_add(c, "time", json_object_new_int64(e->time));
		json_object_object_add(c, "base_adds", json_object_new_int64((int64_t)e->base_adds));
		json_object_object_add(c, "step_ns", json_object_new_double(e->step_ns));
		for (unsigned k = 0; k < e->nblocks; k++) {
			struct json_object *x = NULL;
			if (e->block[k].found) {
				x = json_object_new_object();
				json_object_object_add(x, "ns", json_object_new_double(e->block[k].ns));
				json_object_object_add(x, "cy", json_object_new_double(e->block[k].cy));
				json_object_object_add(x, "relative", json_object_new_double(e->block[k].rel));
			}
			json_object_array_add(b, x);
		}
		json_object_object_add(c, "blocks", b);
		json_object_object_add(c, "runs_apart_ns", e->apart ? json_object_new_double(e->apart_ns) : NULL);
		json_object_object_add(c, "runs_apart_cy", e->apart ? json_object_new_double(e->apart_cy) : NULL);
		json_object_array_add(cs, c);
	}
	json_object_object_add(j, "calibrations", cs);
	cs = NULL;
	const char *s = json_object_to_json_string_ext(j, JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (s) {
		size_t n = strlen(s);
		if ((txt = malloc(n + 2))) {
			memcpy(txt, s, n);
			txt[n] = '\n', txt[n + 1] = 0;
		}
	}
out:
	json_object_put(cs);
	json_object_put(j);
	if (!txt)
		errno = ENOMEM;
	return txt;
}

int cal_history_save(const char *path, const struct cal_history *h, char *err, size_t errlen)
{
	char *txt = cal_history_format(h);
	if (!txt || mw_write_atomic(path, txt, strlen(txt), 0644, (uid_t)-1, (gid_t)-1) < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		free(txt);
		errno = e;
		return -1;
	}
	free(txt);
	return 0;
}
