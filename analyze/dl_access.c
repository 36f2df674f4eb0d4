/* dl_access.c - typed access to the fields of a parsed dump, with
 * JSON-pointer error messages (see dl_access.h).
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dl_access.h"

void dl_ex_fail(struct dl_ex *e, const char *fmt, ...)
{
	if (e->err[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->err, sizeof e->err, fmt, ap);
	va_end(ap);
}

const char *dl_jtype(const struct dlj *v)
{
	switch (v ? v->type : DLJ_NULL) {
	case DLJ_NULL: return "null";
	case DLJ_BOOL: return "boolean";
	case DLJ_DOUBLE: return "number";
	case DLJ_INT: return "integer";
	case DLJ_OBJECT: return "object";
	case DLJ_ARRAY: return "array";
	case DLJ_STRING: return "string";
	}
	return "?";
}

/* Return 1 and set *v if key is present and not null, 0 if absent or null
 * (an error if required), -1 on a type error. */
static int get_any(struct dl_ex *e, const struct dlj *o, const char *key, int required,
		   const struct dlj **v)
{
	*v = dlj_get(e->A, o, key);
	if (!*v || (*v)->type == DLJ_NULL) {
		if (required) {
			dl_ex_fail(e, "%s/%s: missing required field", e->where, key);
			return -1;
		}
		return 0;
	}
	return 1;
}

int dl_get_long(struct dl_ex *e, const struct dlj *o, const char *key, int required, long lo,
		long hi, long *out)
{
	const struct dlj *v;
	int rc = get_any(e, o, key, required, &v);
	if (rc <= 0)
		return rc;
	long x;
	if (v->type == DLJ_INT) {
		int64_t y = v->i;
		if (y < lo || y > hi) {
			dl_ex_fail(e, "%s/%s: %lld out of range [%ld, %ld]", e->where, key, (long long)y,
				lo, hi);
			return -1;
		}
		x = (long)y;
	} else if (v->type == DLJ_DOUBLE) {
		double d = v->d;
		if (!isfinite(d) || d != floor(d) || d < (double)lo || d > (double)hi) {
			dl_ex_fail(e, "%s/%s: %g is not an integer in [%ld, %ld]", e->where, key, d, lo,
				hi);
			return -1;
		}
		x = (long)d;
	} else {
		dl_ex_fail(e, "%s/%s: expected integer, got %s", e->where, key, dl_jtype(v));
		return -1;
	}
	*out = x;
	return 1;
}

int dl_get_int(struct dl_ex *e, const struct dlj *o, const char *key, int required, int lo,
	       int hi, int *out)
{
	long x;
	int rc = dl_get_long(e, o, key, required, lo, hi, &x);
	if (rc == 1)
		*out = (int)x;
	return rc;
}

int dl_get_double(struct dl_ex *e, const struct dlj *o, const char *key, double *out)
{
	const struct dlj *v;
	int rc = get_any(e, o, key, 0, &v);
	if (rc <= 0)
		return rc;
	if (v->type != DLJ_INT && v->type != DLJ_DOUBLE) {
		dl_ex_fail(e, "%s/%s: expected number, got %s", e->where, key, dl_jtype(v));
		return -1;
	}
	*out = v->type == DLJ_INT ? (double)v->i : v->d;
	return 1;
}

int dl_get_str(struct dl_ex *e, const struct dlj *o, const char *key, int required,
	       const char **out)
{
	const struct dlj *v;
	int rc = get_any(e, o, key, required, &v);
	if (rc <= 0)
		return rc;
	if (v->type != DLJ_STRING) {
		dl_ex_fail(e, "%s/%s: expected string, got %s", e->where, key, dl_jtype(v));
		return -1;
	}
	*out = dl_intern(e->c->pool, v->s);
	if (!*out) {
		dl_ex_fail(e, "out of memory");
		return -1;
	}
	return 1;
}

int dl_get_bool(struct dl_ex *e, const struct dlj *o, const char *key, int *out)
{
	const struct dlj *v;
	int rc = get_any(e, o, key, 0, &v);
	if (rc <= 0)
		return rc;
	if (v->type != DLJ_BOOL) {
		dl_ex_fail(e, "%s/%s: expected boolean, got %s", e->where, key, dl_jtype(v));
		return -1;
	}
	*out = (int)v->i;
	return 1;
}

/* o.key as the value itself if it has JSON type `type` (called tname in the
 * message); as get_any otherwise. */
static int get_value(struct dl_ex *e, const struct dlj *o, const char *key, int required,
		     enum dlj_type type, const char *tname, const struct dlj **out)
{
	int rc = get_any(e, o, key, required, out);
	if (rc <= 0)
		return rc;
	if ((*out)->type != type) {
		dl_ex_fail(e, "%s/%s: expected %s, got %s", e->where, key, tname, dl_jtype(*out));
		return -1;
	}
	return 1;
}

int dl_get_array(struct dl_ex *e, const struct dlj *o, const char *key, int required,
		 const struct dlj **out)
{
	return get_value(e, o, key, required, DLJ_ARRAY, "array", out);
}

int dl_get_object(struct dl_ex *e, const struct dlj *o, const char *key, const struct dlj **out)
{
	return get_value(e, o, key, 0, DLJ_OBJECT, "object", out);
}

int dl_str_in(const char *s, const char *const *set)
{
	for (int i = 0; set[i]; i++)
		if (!strcmp(s, set[i]))
			return i;
	return -1;
}

static const char *const modes[] = {"", "standard", "sync", "buffered", "ready", NULL};

int dl_get_mode(struct dl_ex *e, const struct dlj *o, enum dl_mode *out)
{
	const char *m = NULL;
	*out = DLM_NONE;
	if (dl_get_str(e, o, "mode", 0, &m) < 0)
		return -1;
	if (!m)
		return 0;
	int i = dl_str_in(m, modes);
	if (i <= 0) {
		dl_ex_fail(e, "%s/mode: unknown send mode \"%.40s\"", e->where, m);
		return -1;
	}
	*out = (enum dl_mode)i;
	return 0;
}

int dl_get_tag(struct dl_ex *e, const struct dlj *o, const char *key, int *out)
{
	long t;
	*out = DL_NO_TAG;
	int rc = dl_get_long(e, o, key, 0, -1, INT_MAX, &t);
	if (rc < 0)
		return -1;
	if (rc == 1)
		*out = (int)t;
	return 0;
}

int dl_get_frame(struct dl_ex *e, const struct dlj *o, struct dl_frame *f)
{
	memset(f, 0, sizeof *f);
	if (o->type != DLJ_OBJECT) {
		dl_ex_fail(e, "%s: expected a frame object, got %s", e->where, dl_jtype(o));
		return -1;
	}
	long line = 0;
	if (dl_get_str(e, o, "addr", 1, &f->addr) < 0 || dl_get_str(e, o, "symbol", 0, &f->symbol) < 0 ||
	    dl_get_str(e, o, "file", 0, &f->file) < 0 || dl_get_str(e, o, "object", 0, &f->object) < 0 ||
	    dl_get_str(e, o, "offset", 0, &f->offset) < 0 || dl_get_str(e, o, "build_id", 0, &f->build_id) < 0 ||
	    dl_get_long(e, o, "line", 0, 0, INT_MAX, &line) < 0)
		return -1;
	f->line = (int)line;
	return 0;
}
