/* jsonschema.c - a small JSON Schema (draft-07 subset) validator over json-c. */
#include "jsonschema.h"

#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JS_MAX_DEPTH 200
#define JS_PATH_MAX 512

struct js_ctx {
	struct json_object *root;
	char *err;
	size_t errlen;
	int bad_schema; /* set when the schema itself is unusable */
	int depth;
	int quiet; /* >0 while trying alternatives (anyOf/oneOf/not) */
	char path[JS_PATH_MAX];
	size_t plen;
};

static int js_validate(struct js_ctx *c, struct json_object *s, struct json_object *v);

static void js_fail(struct js_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void js_fail(struct js_ctx *c, const char *fmt, ...)
{
	if (c->quiet || !c->err || c->errlen == 0 || c->err[0])
		return;
	va_list ap;
	int n = snprintf(c->err, c->errlen, "%s: ", c->plen ? c->path : "/");
	if (n < 0 || (size_t)n >= c->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

static void js_schema_error(struct js_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void js_schema_error(struct js_ctx *c, const char *fmt, ...)
{
	c->bad_schema = 1;
	if (!c->err || c->errlen == 0)
		return;
	va_list ap;
	int n = snprintf(c->err, c->errlen, "schema: ");
	if (n < 0 || (size_t)n >= c->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

/* Push "/key" onto the path; return the old length for js_pop. */
static size_t js_push(struct js_ctx *c, const char *key)
{
	size_t old = c->plen;
	int n = snprintf(c->path + c->plen, sizeof c->path - c->plen, "/%s", key);
	if (n > 0)
		c->plen = strnlen(c->path, sizeof c->path - 1);
	return old;
}

static size_t js_push_idx(struct js_ctx *c, size_t i)
{
	char b[32];
	snprintf(b, sizeof b, "%zu", i);
	return js_push(c, b);
}

static void js_pop(struct js_ctx *c, size_t old)
{
	c->plen = old;
	c->path[old] = '\0';
}

static const char *js_type_name(struct json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null: return "null";
	case json_type_boolean: return "boolean";
	case json_type_double: return "number";
	case json_type_int: return "integer";
	case json_type_object: return "object";
	case json_type_array: return "array";
	case json_type_string: return "string";
	}
	return "unknown";
}

static int js_is_integral(struct json_object *v)
{
	if (json_object_is_type(v, json_type_int))
		return 1;
	if (json_object_is_type(v, json_type_double)) {
		double d = json_object_get_double(v);
		return isfinite(d) && d == floor(d);
	}
	return 0;
}

static int js_type_matches(const char *t, struct json_object *v)
{
	enum json_type jt = json_object_get_type(v);
	if (!strcmp(t, "null")) return jt == json_type_null;
	if (!strcmp(t, "boolean")) return jt == json_type_boolean;
	if (!strcmp(t, "object")) return jt == json_type_object;
	if (!strcmp(t, "array")) return jt == json_type_array;
	if (!strcmp(t, "string")) return jt == json_type_string;
	if (!strcmp(t, "number")) return jt == json_type_int || jt == json_type_double;
	if (!strcmp(t, "integer")) return js_is_integral(v);
	return 0;
}

static double js_num(struct json_object *v)
{
	if (json_object_is_type(v, json_type_int))
		return (double)json_object_get_int64(v);
	return json_object_get_double(v);
}

static int js_is_num(struct json_object *v)
{
	return json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double);
}

/* Structural equality of two JSON values (numbers compared by value). */
static int js_equal(struct json_object *a, struct json_object *b)
{
	if (js_is_num(a) && js_is_num(b)) {
		if (json_object_is_type(a, json_type_int) && json_object_is_type(b, json_type_int))
			return json_object_get_int64(a) == json_object_get_int64(b);
		return js_num(a) == js_num(b);
	}
	if (json_object_get_type(a) != json_object_get_type(b))
		return 0;
	switch (json_object_get_type(a)) {
	case json_type_null: return 1;
	case json_type_boolean: return json_object_get_boolean(a) == json_object_get_boolean(b);
	case json_type_string:
		return json_object_get_string_len(a) == json_object_get_string_len(b) &&
		       !memcmp(json_object_get_string(a), json_object_get_string(b),
			       (size_t)json_object_get_string_len(a));
	case json_type_array: {
		size_t n = json_object_array_length(a);
		if (n != json_object_array_length(b))
			return 0;
		for (size_t i = 0; i < n; i++)
			if (!js_equal(json_object_array_get_idx(a, i), json_object_array_get_idx(b, i)))
				return 0;
		return 1;
	}
	case json_type_object: {
		if (json_object_object_length(a) != json_object_object_length(b))
			return 0;
		json_object_object_foreach(a, k, av) {
			struct json_object *bv;
			if (!json_object_object_get_ex(b, k, &bv) || !js_equal(av, bv))
				return 0;
		}
		return 1;
	}
	default: return 0;
	}
}

/* Resolve "#/a/b" (JSON pointer with ~0 ~1 escapes) in the root schema. */
static struct json_object *js_resolve(struct js_ctx *c, const char *ref)
{
	if (ref[0] != '#')
		return NULL;
	const char *p = ref + 1;
	struct json_object *cur = c->root;
	while (*p) {
		if (*p != '/')
			return NULL;
		p++;
		char tok[256];
		size_t n = 0;
		while (*p && *p != '/') {
			char ch = *p++;
			if (ch == '~') {
				if (*p == '0') ch = '~';
				else if (*p == '1') ch = '/';
				else return NULL;
				p++;
			}
			if (n + 1 >= sizeof tok)
				return NULL;
			tok[n++] = ch;
		}
		tok[n] = '\0';
		if (json_object_is_type(cur, json_type_object)) {
			if (!json_object_object_get_ex(cur, tok, &cur))
				return NULL;
		} else if (json_object_is_type(cur, json_type_array)) {
			char *end;
			unsigned long i = strtoul(tok, &end, 10);
			if (*end || i >= json_object_array_length(cur))
				return NULL;
			cur = json_object_array_get_idx(cur, i);
		} else {
			return NULL;
		}
	}
	return cur;
}

static int js_check_object(struct js_ctx *c, struct json_object *s, struct json_object *v)
{
	struct json_object *req, *props = NULL, *addl = NULL;
	int ok = 1;
	if (json_object_object_get_ex(s, "required", &req) && json_object_is_type(req, json_type_array)) {
		size_t n = json_object_array_length(req);
		for (size_t i = 0; i < n; i++) {
			const char *k = json_object_get_string(json_object_array_get_idx(req, i));
			if (k && !json_object_object_get_ex(v, k, NULL)) {
				js_fail(c, "missing required property \"%s\"", k);
				return 0;
			}
		}
	}
	json_object_object_get_ex(s, "properties", &props);
	json_object_object_get_ex(s, "additionalProperties", &addl);
	json_object_object_foreach(v, key, val) {
		struct json_object *ps = NULL;
		if (props && json_object_is_type(props, json_type_object) &&
		    json_object_object_get_ex(props, key, &ps)) {
			size_t old = js_push(c, key);
			ok = js_validate(c, ps, val);
			js_pop(c, old);
		} else if (addl) {
			if (json_object_is_type(addl, json_type_boolean)) {
				if (!json_object_get_boolean(addl)) {
					js_fail(c, "unknown property \"%s\"", key);
					ok = 0;
				}
			} else {
				size_t old = js_push(c, key);
				ok = js_validate(c, addl, val);
				js_pop(c, old);
			}
		}
		if (!ok)
			return 0;
	}
	return 1;
}

static int js_check_array(struct js_ctx *c, struct json_object *s, struct json_object *v)
{
	struct json_object *k;
	size_t n = json_object_array_length(v);
	if (json_object_object_get_ex(s, "minItems", &k) && js_is_num(k) && (double)n < js_num(k)) {
		js_fail(c, "expected at least %g items, got %zu", js_num(k), n);
		return 0;
	}
	if (json_object_object_get_ex(s, "maxItems", &k) && js_is_num(k) && (double)n > js_num(k)) {
		js_fail(c, "expected at most %g items, got %zu", js_num(k), n);
		return 0;
	}
	if (!json_object_object_get_ex(s, "items", &k))
		return 1;
	if (json_object_is_type(k, json_type_array)) {
		size_t m = json_object_array_length(k);
		for (size_t i = 0; i < n; i++) {
			struct json_object *is;
			if (i < m) {
				is = json_object_array_get_idx(k, i);
			} else if (json_object_object_get_ex(s, "additionalItems", &is)) {
				if (json_object_is_type(is, json_type_boolean)) {
					if (json_object_get_boolean(is))
						return 1;
					js_fail(c, "expected at most %zu items, got %zu", m, n);
					return 0;
				}
			} else {
				return 1;
			}
			size_t old = js_push_idx(c, i);
			int ok = js_validate(c, is, json_object_array_get_idx(v, i));
			js_pop(c, old);
			if (!ok)
				return 0;
		}
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		size_t old = js_push_idx(c, i);
		int ok = js_validate(c, k, json_object_array_get_idx(v, i));
		js_pop(c, old);
		if (!ok)
			return 0;
	}
	return 1;
}

static int js_check_string(struct js_ctx *c, struct json_object *s, struct json_object *v)
{
	struct json_object *k;
	const char *str = json_object_get_string(v);
	/* Length in code points, as the standard says. */
	size_t cps = 0;
	for (const unsigned char *p = (const unsigned char *)str; *p; p++)
		if ((*p & 0xC0) != 0x80)
			cps++;
	if (json_object_object_get_ex(s, "minLength", &k) && js_is_num(k) && (double)cps < js_num(k)) {
		js_fail(c, "string shorter than %g", js_num(k));
		return 0;
	}
	if (json_object_object_get_ex(s, "maxLength", &k) && js_is_num(k) && (double)cps > js_num(k)) {
		js_fail(c, "string longer than %g", js_num(k));
		return 0;
	}
	if (json_object_object_get_ex(s, "pattern", &k) && json_object_is_type(k, json_type_string)) {
		regex_t re;
		if (regcomp(&re, json_object_get_string(k), REG_EXTENDED | REG_NOSUB) != 0) {
			js_schema_error(c, "bad pattern \"%s\"", json_object_get_string(k));
			return 0;
		}
		int m = regexec(&re, str, 0, NULL, 0);
		regfree(&re);
		if (m != 0) {
			js_fail(c, "\"%.60s\" does not match pattern \"%s\"", str,
				json_object_get_string(k));
			return 0;
		}
	}
	return 1;
}

static int js_check_number(struct js_ctx *c, struct json_object *s, struct json_object *v)
{
	struct json_object *k;
	double x = js_num(v);
	if (json_object_object_get_ex(s, "minimum", &k) && js_is_num(k) && x < js_num(k)) {
		js_fail(c, "%g is less than the minimum %g", x, js_num(k));
		return 0;
	}
	if (json_object_object_get_ex(s, "maximum", &k) && js_is_num(k) && x > js_num(k)) {
		js_fail(c, "%g is greater than the maximum %g", x, js_num(k));
		return 0;
	}
	if (json_object_object_get_ex(s, "exclusiveMinimum", &k) && js_is_num(k) && x <= js_num(k)) {
		js_fail(c, "%g is not greater than %g", x, js_num(k));
		return 0;
	}
	if (json_object_object_get_ex(s, "exclusiveMaximum", &k) && js_is_num(k) && x >= js_num(k)) {
		js_fail(c, "%g is not less than %g", x, js_num(k));
		return 0;
	}
	return 1;
}

static int js_validate(struct js_ctx *c, struct json_object *s, struct json_object *v)
{
	struct json_object *k;
	if (c->bad_schema)
		return 0;
	if (json_object_is_type(s, json_type_boolean)) {
		if (!json_object_get_boolean(s))
			js_fail(c, "no value is allowed here");
		return json_object_get_boolean(s);
	}
	if (!json_object_is_type(s, json_type_object))
		return 1; /* not a schema: permissive */
	if (++c->depth > JS_MAX_DEPTH) {
		c->depth--;
		js_schema_error(c, "nesting deeper than %d (recursive $ref?)", JS_MAX_DEPTH);
		errno = ELOOP;
		return 0;
	}
	int ok = 0;

	if (json_object_object_get_ex(s, "$ref", &k) && json_object_is_type(k, json_type_string)) {
		/* draft-07: $ref overrides every sibling keyword. */
		struct json_object *t = js_resolve(c, json_object_get_string(k));
		if (!t) {
			js_schema_error(c, "cannot resolve $ref \"%s\"", json_object_get_string(k));
			goto out;
		}
		ok = js_validate(c, t, v);
		goto out;
	}
	if (json_object_object_get_ex(s, "type", &k)) {
		int match = 0;
		if (json_object_is_type(k, json_type_string)) {
			match = js_type_matches(json_object_get_string(k), v);
		} else if (json_object_is_type(k, json_type_array)) {
			for (size_t i = 0; i < json_object_array_length(k) && !match; i++) {
				const char *t = json_object_get_string(json_object_array_get_idx(k, i));
				match = t && js_type_matches(t, v);
			}
		} else {
			match = 1;
		}
		if (!match) {
			js_fail(c, "expected %s, got %s",
				json_object_is_type(k, json_type_string) ? json_object_get_string(k)
									 : json_object_to_json_string(k),
				js_type_name(v));
			goto out;
		}
	}
	if (json_object_object_get_ex(s, "enum", &k) && json_object_is_type(k, json_type_array)) {
		int match = 0;
		for (size_t i = 0; i < json_object_array_length(k) && !match; i++)
			match = js_equal(json_object_array_get_idx(k, i), v);
		if (!match) {
			js_fail(c, "%.60s is not one of %.120s", json_object_to_json_string(v),
				json_object_to_json_string(k));
			goto out;
		}
	}
	if (json_object_object_get_ex(s, "const", &k) && !js_equal(k, v)) {
		js_fail(c, "expected %.60s", json_object_to_json_string(k));
		goto out;
	}
	switch (json_object_get_type(v)) {
	case json_type_object:
		if (!js_check_object(c, s, v))
			goto out;
		break;
	case json_type_array:
		if (!js_check_array(c, s, v))
			goto out;
		break;
	case json_type_string:
		if (!js_check_string(c, s, v))
			goto out;
		break;
	case json_type_int:
	case json_type_double:
		if (!js_check_number(c, s, v))
			goto out;
		break;
	default: break;
	}
	if (json_object_object_get_ex(s, "allOf", &k) && json_object_is_type(k, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(k); i++)
			if (!js_validate(c, json_object_array_get_idx(k, i), v))
				goto out;
	}
	if (json_object_object_get_ex(s, "anyOf", &k) && json_object_is_type(k, json_type_array)) {
		int match = 0;
		c->quiet++;
		for (size_t i = 0; i < json_object_array_length(k) && !match && !c->bad_schema; i++)
			match = js_validate(c, json_object_array_get_idx(k, i), v);
		c->quiet--;
		if (!match) {
			js_fail(c, "matches none of the anyOf alternatives");
			goto out;
		}
	}
	if (json_object_object_get_ex(s, "oneOf", &k) && json_object_is_type(k, json_type_array)) {
		int count = 0;
		c->quiet++;
		for (size_t i = 0; i < json_object_array_length(k) && !c->bad_schema; i++)
			count += js_validate(c, json_object_array_get_idx(k, i), v);
		c->quiet--;
		if (count != 1) {
			js_fail(c, "matches %d of the oneOf alternatives, not exactly one", count);
			goto out;
		}
	}
	if (json_object_object_get_ex(s, "not", &k)) {
		c->quiet++;
		int match = js_validate(c, k, v);
		c->quiet--;
		if (match) {
			js_fail(c, "matches a schema it must not match");
			goto out;
		}
	}
	ok = !c->bad_schema;
out:
	c->depth--;
	return ok;
}

int mw_jsonschema_validate(struct json_object *schema, struct json_object *instance, char *errbuf,
			   size_t len)
{
	struct js_ctx c;
	memset(&c, 0, sizeof c);
	c.root = schema;
	c.err = errbuf;
	c.errlen = len;
	if (errbuf && len)
		errbuf[0] = '\0';
	int ok = js_validate(&c, schema, instance);
	if (c.bad_schema) {
		if (errno != ELOOP)
			errno = EINVAL;
		return -1;
	}
	if (!ok && errbuf && len && !errbuf[0])
		snprintf(errbuf, len, "/: invalid");
	return ok ? 0 : 1;
}

struct json_object *mw_json_read_file(const char *path, char *errbuf, size_t len)
{
	errno = 0;
	struct json_object *o = json_object_from_file(path);
	if (!o) {
		int e = errno ? errno : EINVAL;
		if (errbuf && len)
			snprintf(errbuf, len, "%s: %s", path, json_util_get_last_err() ? json_util_get_last_err() : "cannot read JSON");
		errno = e;
		return NULL;
	}
	return o;
}
