/* dl_json.c - a small, allocation-light JSON reader for the dumps.
 *
 * json-c builds a hash table and a malloc'd object per value; for 100,000
 * dumps that alone costs seconds.  This parser decodes strings in place in
 * the caller's (mutable) buffer and puts every value into one arena that is
 * reused from file to file, so a dump costs no malloc at all once the arena
 * has grown.  It accepts exactly RFC 8259 JSON (no comments, no trailing
 * commas, no NaN), nesting up to DLJ_MAX_DEPTH, and reports the byte offset
 * of the first error; input that ends inside a value is reported as
 * truncated.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_json.h"

#define DLJ_MAX_DEPTH 64

struct dlj_parser {
	char *p, *end, *start;
	struct dlj_arena *a;
	char *err;
	size_t errlen;
	int truncated;
	int depth;
};

static void perr(struct dlj_parser *ps, const char *what)
{
	if (ps->err[0])
		return;
	if (ps->p >= ps->end) {
		ps->truncated = 1;
		snprintf(ps->err, ps->errlen, "truncated JSON (input ends inside a value after %zu bytes)",
			 (size_t)(ps->end - ps->start));
	} else {
		snprintf(ps->err, ps->errlen, "invalid JSON at byte %zu: %s", (size_t)(ps->p - ps->start),
			 what);
	}
}

void dlj_arena_free(struct dlj_arena *a)
{
	free(a->v);
	free(a->stack);
	memset(a, 0, sizeof *a);
}

/* The scratch stack holds the children of open containers. */
static struct dlj *push(struct dlj_parser *ps)
{
	struct dlj_arena *a = ps->a;
	if (a->nstack == a->capstack) {
		size_t ncap = a->capstack ? a->capstack * 2 : 256;
		struct dlj *n = realloc(a->stack, ncap * sizeof *n);
		if (!n)
			return NULL;
		a->stack = n;
		a->capstack = ncap;
	}
	struct dlj *v = &a->stack[a->nstack++];
	memset(v, 0, sizeof *v);
	return v;
}

/* Move the top n stack entries into the arena; return their index. */
static long settle(struct dlj_parser *ps, size_t n)
{
	struct dlj_arena *a = ps->a;
	if (a->nv + n > a->capv) {
		size_t ncap = a->capv ? a->capv : 1024;
		while (ncap < a->nv + n)
			ncap *= 2;
		struct dlj *nv = realloc(a->v, ncap * sizeof *nv);
		if (!nv)
			return -1;
		a->v = nv;
		a->capv = ncap;
	}
	long at = (long)a->nv;
	memcpy(a->v + a->nv, a->stack + a->nstack - n, n * sizeof *a->v);
	a->nv += n;
	a->nstack -= n;
	return at;
}

static void ws(struct dlj_parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\t' || *ps->p == '\r'))
		ps->p++;
}

static int hex4(const char *s, unsigned *out)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		char c = s[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static char *put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		*o++ = (char)cp;
	} else if (cp < 0x800) {
		*o++ = (char)(0xC0 | (cp >> 6));
		*o++ = (char)(0x80 | (cp & 0x3F));
	} else if (cp < 0x10000) {
		*o++ = (char)(0xE0 | (cp >> 12));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
		*o++ = (char)(0x80 | (cp & 0x3F));
	} else {
		*o++ = (char)(0xF0 | (cp >> 18));
		*o++ = (char)(0x80 | ((cp >> 12) & 0x3F));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
		*o++ = (char)(0x80 | (cp & 0x3F));
	}
	return o;
}

/* Parse a string at ps->p (on the opening quote); decode in place. */
static int pstring(struct dlj_parser *ps, const char **s, uint32_t *len)
{
	char *in = ++ps->p, *out = ps->p;
	const char *begin = out;
	/* fast path: no escapes so far, nothing to move */
	while (in < ps->end && *in != '"' && *in != '\\' && (unsigned char)*in >= 0x20)
		in++;
	out = in;
	while (in < ps->end) {
		unsigned char c = (unsigned char)*in;
		if (c == '"') {
			*out = '\0';
			*s = begin;
			*len = (uint32_t)(out - begin);
			ps->p = in + 1;
			return 0;
		}
		if (c < 0x20) {
			ps->p = in;
			perr(ps, "control character in string");
			return -1;
		}
		if (c != '\\') {
			*out++ = *in++;
			continue;
		}
		if (in + 1 >= ps->end)
			break;
		char e = in[1];
		in += 2;
		switch (e) {
		case '"': *out++ = '"'; break;
		case '\\': *out++ = '\\'; break;
		case '/': *out++ = '/'; break;
		case 'b': *out++ = '\b'; break;
		case 'f': *out++ = '\f'; break;
		case 'n': *out++ = '\n'; break;
		case 'r': *out++ = '\r'; break;
		case 't': *out++ = '\t'; break;
		case 'u': {
			unsigned cp, lo;
			if (in + 4 > ps->end) {
				ps->p = ps->end;
				perr(ps, "");
				return -1;
			}
			if (hex4(in, &cp) < 0) {
				ps->p = in;
				perr(ps, "bad \\u escape");
				return -1;
			}
			in += 4;
			if (cp >= 0xD800 && cp < 0xDC00 && in + 6 <= ps->end && in[0] == '\\' &&
			    in[1] == 'u' && hex4(in + 2, &lo) == 0 && lo >= 0xDC00 && lo < 0xE000) {
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				in += 6;
			} else if (cp >= 0xD800 && cp < 0xE000) {
				cp = 0xFFFD; /* lone surrogate */
			}
			if (cp == 0) {
				ps->p = in;
				perr(ps, "\\u0000 in string");
				return -1;
			}
			out = put_utf8(out, cp);
			break;
		}
		default:
			ps->p = in - 1;
			perr(ps, "bad escape in string");
			return -1;
		}
	}
	ps->p = ps->end;
	perr(ps, "");
	return -1;
}

static int pnumber(struct dlj_parser *ps, struct dlj *v)
{
	char *s = ps->p, *q = s;
	int is_int = 1, neg = 0, ndig = 0;
	int64_t acc = 0;
	if (q < ps->end && *q == '-') {
		neg = 1;
		q++;
	}
	if (q >= ps->end)
		goto trunc;
	if (*q == '0') {
		q++;
		ndig = 1;
	} else if (*q >= '1' && *q <= '9') {
		while (q < ps->end && *q >= '0' && *q <= '9') {
			if (ndig < 18)
				acc = acc * 10 + (*q - '0');
			ndig++;
			q++;
		}
	} else {
		ps->p = q;
		perr(ps, "bad number");
		return -1;
	}
	if (q < ps->end && *q == '.') {
		is_int = 0;
		q++;
		if (q >= ps->end)
			goto trunc;
		if (*q < '0' || *q > '9') {
			ps->p = q;
			perr(ps, "bad number");
			return -1;
		}
		while (q < ps->end && *q >= '0' && *q <= '9')
			q++;
	}
	if (q < ps->end && (*q == 'e' || *q == 'E')) {
		is_int = 0;
		q++;
		if (q < ps->end && (*q == '+' || *q == '-'))
			q++;
		if (q >= ps->end)
			goto trunc;
		if (*q < '0' || *q > '9') {
			ps->p = q;
			perr(ps, "bad number");
			return -1;
		}
		while (q < ps->end && *q >= '0' && *q <= '9')
			q++;
	}
	if (q >= ps->end)
		goto trunc; /* a number cannot end a dump: the top level is an object */
	if (is_int && ndig <= 18) {
		v->type = DLJ_INT;
		v->i = neg ? -acc : acc;
		ps->p = q;
		return 0;
	}
	char save = *q;
	*q = '\0';
	if (is_int) {
		errno = 0;
		long long x = strtoll(s, NULL, 10);
		if (errno == ERANGE) {
			v->type = DLJ_DOUBLE;
			v->d = strtod(s, NULL);
		} else {
			v->type = DLJ_INT;
			v->i = x;
		}
	} else {
		v->type = DLJ_DOUBLE;
		v->d = strtod(s, NULL);
	}
	*q = save;
	ps->p = q;
	return 0;
trunc:
	ps->p = ps->end;
	perr(ps, "");
	return -1;
}

static int pvalue(struct dlj_parser *ps, struct dlj *v);

static int pcontainer(struct dlj_parser *ps, struct dlj *v, int obj)
{
	char close = obj ? '}' : ']';
	size_t n = 0;
	if (++ps->depth > DLJ_MAX_DEPTH) {
		perr(ps, "nested too deeply");
		return -1;
	}
	ps->p++;
	ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		goto done;
	}
	for (;;) {
		const char *key = NULL;
		uint32_t klen = 0;
		ws(ps);
		if (obj) {
			if (ps->p >= ps->end || *ps->p != '"') {
				perr(ps, "expected a member name");
				return -1;
			}
			if (pstring(ps, &key, &klen) < 0)
				return -1;
			ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				perr(ps, "expected ':'");
				return -1;
			}
			ps->p++;
			ws(ps);
		}
		struct dlj *c = push(ps);
		if (!c) {
			perr(ps, "out of memory");
			return -1;
		}
		size_t ci = ps->a->nstack - 1;
		struct dlj tmp;
		memset(&tmp, 0, sizeof tmp);
		if (pvalue(ps, &tmp) < 0)
			return -1;
		tmp.key = key;
		tmp.keylen = klen;
		ps->a->stack[ci] = tmp; /* the stack may have moved */
		n++;
		ws(ps);
		if (ps->p >= ps->end) {
			perr(ps, "");
			return -1;
		}
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p == close) {
			ps->p++;
			break;
		}
		perr(ps, obj ? "expected ',' or '}'" : "expected ',' or ']'");
		return -1;
	}
done:
	v->type = obj ? DLJ_OBJECT : DLJ_ARRAY;
	v->n = (uint32_t)n;
	v->kids = n ? settle(ps, n) : 0;
	if (n && v->kids < 0) {
		perr(ps, "out of memory");
		return -1;
	}
	ps->depth--;
	return 0;
}

static int lit(struct dlj_parser *ps, const char *w, size_t n)
{
	size_t have = (size_t)(ps->end - ps->p);
	if (have < n) {
		if (!memcmp(ps->p, w, have)) {
			ps->p = ps->end;
			perr(ps, "");
		} else {
			perr(ps, "unexpected character");
		}
		return -1;
	}
	if (memcmp(ps->p, w, n)) {
		perr(ps, "unexpected character");
		return -1;
	}
	ps->p += n;
	return 0;
}

static int pvalue(struct dlj_parser *ps, struct dlj *v)
{
	ws(ps);
	if (ps->p >= ps->end) {
		perr(ps, "");
		return -1;
	}
	switch (*ps->p) {
	case '{': return pcontainer(ps, v, 1);
	case '[': return pcontainer(ps, v, 0);
	case '"':
		v->type = DLJ_STRING;
		return pstring(ps, &v->s, &v->slen);
	case 't':
		v->type = DLJ_BOOL;
		v->i = 1;
		return lit(ps, "true", 4);
	case 'f':
		v->type = DLJ_BOOL;
		v->i = 0;
		return lit(ps, "false", 5);
	case 'n':
		v->type = DLJ_NULL;
		return lit(ps, "null", 4);
	default:
		if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
			return pnumber(ps, v);
		perr(ps, "unexpected character");
		return -1;
	}
}

const struct dlj *dlj_parse(struct dlj_arena *a, char *buf, size_t len, char *err, size_t errlen)
{
	struct dlj_parser ps = {buf, buf + len, buf, a, err, errlen, 0, 0};
	err[0] = '\0';
	a->nv = 0;
	a->nstack = 0;
	struct dlj *root = push(&ps);
	if (!root) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	struct dlj tmp;
	memset(&tmp, 0, sizeof tmp);
	if (pvalue(&ps, &tmp) < 0)
		return NULL;
	ws(&ps);
	if (ps.p < ps.end) {
		snprintf(err, errlen, "invalid JSON: trailing data at byte %zu", (size_t)(ps.p - buf));
		return NULL;
	}
	a->stack[0] = tmp;
	if (settle(&ps, 1) < 0) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	return &a->v[a->nv - 1];
}

const struct dlj *dlj_kid(const struct dlj_arena *a, const struct dlj *v, size_t i)
{
	if (!v || (v->type != DLJ_ARRAY && v->type != DLJ_OBJECT) || i >= v->n)
		return NULL;
	return &a->v[v->kids + (long)i];
}

const struct dlj *dlj_get(const struct dlj_arena *a, const struct dlj *v, const char *key)
{
	if (!v || v->type != DLJ_OBJECT)
		return NULL;
	const struct dlj *k = &a->v[v->kids];
	size_t len = strlen(key);
	for (uint32_t i = 0; i < v->n; i++)
		if (k[i].keylen == len && !memcmp(k[i].key, key, len))
			return &k[i];
	return NULL;
}
