/* conf.c - "key = value" configuration files with a declared schema. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

#define CONF_MAX_LINE 4095
#define CONF_MAX_FILE (1 << 20)

void mw_conf_error(struct mw_conf_errors *errs, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	char **nv;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!errs)
		return;
	nv = realloc(errs->msg, (errs->n + 1) * sizeof(*nv));
	if (!nv)
		return;
	errs->msg = nv;
	errs->msg[errs->n] = strdup(buf);
	if (errs->msg[errs->n])
		errs->n++;
}

void mw_conf_errors_free(struct mw_conf_errors *errs)
{
	for (size_t i = 0; i < errs->n; i++)
		free(errs->msg[i]);
	free(errs->msg);
	errs->msg = NULL;
	errs->n = 0;
}

void mw_strlist_add(struct mw_strlist *l, const char *s)
{
	char **nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
	if (!nv)
		return;
	l->v = nv;
	l->v[l->n] = strdup(s);
	if (l->v[l->n])
		l->n++;
}

void mw_strlist_free(struct mw_strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

int mw_conf_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	if (!s || !*s || isspace((unsigned char)*s)) {
		errno = EINVAL;
		return -1;
	}
	v = strtol(s, &end, 0);
	if (*end) {
		errno = EINVAL;
		return -1;
	}
	if (errno == ERANGE || v < min || v > max) {
		errno = ERANGE;
		return -1;
	}
	*out = v;
	return 0;
}

int mw_conf_parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	if (!s || !*s || isspace((unsigned char)*s)) {
		errno = EINVAL;
		return -1;
	}
	v = strtod(s, &end);
	if (*end || isnan(v)) {
		errno = EINVAL;
		return -1;
	}
	if (errno == ERANGE || isinf(v) || v < min || v > max) {
		errno = ERANGE;
		return -1;
	}
	*out = v;
	return 0;
}

int mw_conf_parse_bool(const char *s, int *out)
{
	static const char *const yes[] = {"yes", "true", "on", "1", NULL};
	static const char *const no[] = {"no", "false", "off", "0", NULL};

	for (int i = 0; s && yes[i]; i++)
		if (!strcasecmp(s, yes[i]))
			return *out = 1, 0;
	for (int i = 0; s && no[i]; i++)
		if (!strcasecmp(s, no[i]))
			return *out = 0, 0;
	errno = EINVAL;
	return -1;
}

static const struct mw_conf_key *find_key(const struct mw_conf_key *keys, const char *name)
{
	for (; keys->name; keys++)
		if (!strcmp(keys->name, name))
			return keys;
	return NULL;
}

/* Split a line into key and value (in place in buf).  Return 0 for a blank or
 * comment line, 1 for key/value, -1 for a syntax error (msg set). */
static int split_line(char *buf, char **key, char **val, const char **msg)
{
	char *p = buf, *k, *v, *w;

	while (isspace((unsigned char)*p))
		p++;
	if (!*p || *p == '#')
		return 0;
	k = p;
	while (*p && (isalnum((unsigned char)*p) || *p == '_' || *p == '-' || *p == '.'))
		p++;
	if (p == k) {
		*msg = "expected a key";
		return -1;
	}
	w = p;
	while (isspace((unsigned char)*p))
		p++;
	if (*p != '=') {
		*msg = "expected 'key = value'";
		return -1;
	}
	*w = '\0';
	p++;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '"') {
		/* Quoted value: unescape \" and \\ in place; only a comment may follow. */
		v = w = ++p;
		for (;;) {
			if (!*p) {
				*msg = "unterminated quoted value";
				return -1;
			}
			if (*p == '\\' && (p[1] == '"' || p[1] == '\\')) {
				*w++ = p[1];
				p += 2;
				continue;
			}
			if (*p == '"')
				break;
			*w++ = *p++;
		}
		*w = '\0';
		p++;
		while (isspace((unsigned char)*p))
			p++;
		if (*p && *p != '#') {
			*msg = "unexpected text after quoted value";
			return -1;
		}
	} else {
		v = p;
		while (*p && *p != '#')
			p++;
		*p = '\0';
		while (p > v && isspace((unsigned char)p[-1]))
			*--p = '\0';
	}
	*key = k;
	*val = v;
	return 1;
}

/* Store the text val into k's field of dst.  Return 0, or -1 with errno
 * ERANGE (a number out of range), EINVAL (not of the key's kind) or ENOMEM. */
static int store(const struct mw_conf_key *k, const char *val, void *dst)
{
	char *field = (char *)dst + k->offset;

	switch (k->type) {
	case MW_CONF_INT: {
		long v;
		if (mw_conf_parse_long(val, (long)k->min, (long)k->max, &v) < 0)
			return -1;
		*(long *)field = v;
		return 0;
	}
	case MW_CONF_DOUBLE: {
		double v;
		if (mw_conf_parse_double(val, k->min, k->max, &v) < 0)
			return -1;
		*(double *)field = v;
		return 0;
	}
	case MW_CONF_BOOL:
		return mw_conf_parse_bool(val, (int *)field);
	case MW_CONF_STRING: {
		char *s;
		if (k->check && k->check(val)) {
			errno = EINVAL;
			return -1;
		}
		if (!(s = strdup(val)))
			return -1;
		free(*(char **)field);
		*(char **)field = s;
		return 0;
	}
	case MW_CONF_LIST:
		if (!*val || (k->check && k->check(val))) {
			errno = EINVAL;
			return -1;
		}
		mw_strlist_add((struct mw_strlist *)field, val);
		return 0;
	case MW_CONF_ENUM:
		for (int i = 0; k->choices && k->choices[i]; i++)
			if (!strcmp(k->choices[i], val)) {
				*(int *)field = i;
				return 0;
			}
		errno = EINVAL;
		return -1;
	}
	errno = EINVAL;
	return -1;
}

/* "a|b|c" (sep "|") or "a, b or c" (sep NULL) from a NULL-terminated list. */
static void join_choices(const char *const *choices, const char *sep, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	while (choices && choices[n])
		n++;
	for (size_t i = 0; i < n; i++) {
		const char *s = !i ? "" : sep ? sep : i + 1 == n ? " or " : ", ";
		size_t used = strlen(buf);
		snprintf(buf + used, len - used, "%s%s", s, choices[i]);
	}
}

void mw_conf_expect(const struct mw_conf_key *k, char *buf, size_t len)
{
	const char *unit = k->unit && *k->unit ? k->unit : NULL;

	switch (k->type) {
	case MW_CONF_INT:
		snprintf(buf, len, "%s%sa whole number from %ld to %ld", unit ? unit : "",
			 unit ? ", " : "", (long)k->min, (long)k->max);
		break;
	case MW_CONF_DOUBLE:
		snprintf(buf, len, "%s%sa number from %.10g to %.10g", unit ? unit : "", unit ? ", " : "",
			 k->min, k->max);
		break;
	case MW_CONF_BOOL:
		snprintf(buf, len, "yes or no");
		break;
	case MW_CONF_ENUM:
		join_choices(k->choices, NULL, buf, len);
		break;
	default:
		snprintf(buf, len, "%s", unit ? unit : "a value");
		break;
	}
}

const struct mw_conf_key *mw_conf_find(const struct mw_conf_key *keys, const char *name)
{
	return find_key(keys, name);
}

int mw_conf_set(const struct mw_conf_key *keys, void *dst, const char *key, const char *val,
		char *err, size_t errlen)
{
	const struct mw_conf_key *k = find_key(keys, key);
	char what[256];

	if (!k) {
		snprintf(err, errlen, "unknown setting '%s'", key);
		errno = ENOENT;
		return -1;
	}
	if (store(k, val ? val : "", dst) == 0)
		return 0;
	if (errno == ENOMEM) {
		snprintf(err, errlen, "%s: out of memory", key);
		return -1;
	}
	mw_conf_expect(k, what, sizeof(what));
	snprintf(err, errlen, "%s=%s: expected %s", key, val ? val : "", what);
	errno = EINVAL;
	return -1;
}

int mw_conf_apply_defaults(const struct mw_conf_key *keys, void *dst, char *err, size_t errlen)
{
	for (const struct mw_conf_key *k = keys; k->name; k++)
		if (k->def && mw_conf_set(keys, dst, k->name, k->def, err, errlen) < 0)
			return -1;
	return 0;
}

const char *mw_conf_format(const struct mw_conf_key *k, const void *src, char *buf, size_t len)
{
	const char *field = (const char *)src + k->offset;

	buf[0] = '\0';
	switch (k->type) {
	case MW_CONF_INT:
		snprintf(buf, len, "%ld", *(const long *)field);
		break;
	case MW_CONF_DOUBLE:
		snprintf(buf, len, "%.17g", *(const double *)field);
		break;
	case MW_CONF_BOOL:
		snprintf(buf, len, "%s", *(const int *)field ? "yes" : "no");
		break;
	case MW_CONF_STRING: {
		const char *s = *(char *const *)field;
		snprintf(buf, len, "%s", s ? s : "");
		break;
	}
	case MW_CONF_LIST: {
		const struct mw_strlist *l = (const struct mw_strlist *)field;
		join_choices((const char *const *)l->v, ",", buf, len);
		if (!l->n)
			buf[0] = '\0';
		break;
	}
	case MW_CONF_ENUM: {
		int i = *(const int *)field, n = 0;
		while (k->choices && k->choices[n])
			n++;
		snprintf(buf, len, "%s", i >= 0 && i < n ? k->choices[i] : "");
		break;
	}
	}
	return buf;
}

int mw_conf_write(const struct mw_conf_key *keys, const void *src, unsigned mask, FILE *f)
{
	char buf[CONF_MAX_LINE + 1];

	for (const struct mw_conf_key *k = keys; k->name; k++) {
		if (!(k->scope & mask) || k->type == MW_CONF_LIST)
			continue;
		mw_conf_format(k, src, buf, sizeof(buf));
		if (k->type != MW_CONF_STRING) {
			fprintf(f, "%s = %s\n", k->name, buf);
			continue;
		}
		fprintf(f, "%s = \"", k->name);
		for (const char *p = buf; *p; p++) {
			if (*p == '"' || *p == '\\')
				fputc('\\', f);
			fputc(*p == '\n' ? ' ' : *p, f);
		}
		fputs("\"\n", f);
	}
	return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}

int mw_conf_parse_line(const char *source, int lineno, const char *line,
		       const struct mw_conf_key *keys, void *dst, struct mw_conf_errors *errs)
{
	char buf[CONF_MAX_LINE + 1];
	char *key = NULL, *val = NULL;
	const char *msg = NULL;
	const struct mw_conf_key *k;
	int r;

	if (strlen(line) > CONF_MAX_LINE) {
		mw_conf_error(errs, "%s:%d: line too long", source, lineno);
		return -1;
	}
	strcpy(buf, line);
	r = split_line(buf, &key, &val, &msg);
	if (r == 0)
		return 0;
	if (r < 0) {
		mw_conf_error(errs, "%s:%d: %s", source, lineno, msg);
		return -1;
	}
	k = find_key(keys, key);
	if (!k) {
		mw_conf_error(errs, "%s:%d: unknown key '%s'", source, lineno, key);
		return -1;
	}
	if (store(k, val, dst) == 0)
		return 0;
	if (errno == ENOMEM) {
		mw_conf_error(errs, "%s:%d: out of memory", source, lineno);
		return -1;
	}
	switch (k->type) {
	case MW_CONF_INT:
		if (errno == ERANGE)
			mw_conf_error(errs, "%s:%d: %s = '%s' is out of range [%ld, %ld]", source,
				      lineno, key, val, (long)k->min, (long)k->max);
		else
			mw_conf_error(errs, "%s:%d: %s = '%s' is not an integer", source, lineno,
				      key, val);
		break;
	case MW_CONF_DOUBLE:
		if (errno == ERANGE)
			mw_conf_error(errs, "%s:%d: %s = '%s' is out of range [%g, %g]", source,
				      lineno, key, val, k->min, k->max);
		else
			mw_conf_error(errs, "%s:%d: %s = '%s' is not a number", source, lineno,
				      key, val);
		break;
	case MW_CONF_BOOL:
		mw_conf_error(errs, "%s:%d: %s = '%s' is not yes/no", source, lineno, key, val);
		break;
	case MW_CONF_ENUM: {
		char all[256];
		join_choices(k->choices, "|", all, sizeof(all));
		mw_conf_error(errs, "%s:%d: %s = '%s' is not one of %s", source, lineno, key, val,
			      all);
		break;
	}
	case MW_CONF_LIST:
		if (!*val) {
			mw_conf_error(errs, "%s:%d: %s needs a value", source, lineno, key);
			break;
		}
		__attribute__((fallthrough)); /* a value its check refused */
	case MW_CONF_STRING: {
		char what[256];
		mw_conf_expect(k, what, sizeof(what));
		mw_conf_error(errs, "%s:%d: %s = '%s': expected %s", source, lineno, key, val, what);
		break;
	}
	}
	return -1;
}

int mw_conf_parse_buffer(const char *source, const char *buf, size_t len,
			 const struct mw_conf_key *keys, void *dst, struct mw_conf_errors *errs)
{
	char line[CONF_MAX_LINE + 1];
	int nerr = 0;
	int lineno = 0;
	size_t i = 0;

	while (i < len) {
		size_t start = i, n;
		int bad_nul = 0;

		while (i < len && buf[i] != '\n') {
			if (buf[i] == '\0')
				bad_nul = 1;
			i++;
		}
		n = i - start;
		if (i < len)
			i++; /* the newline */
		lineno++;
		if (bad_nul) {
			mw_conf_error(errs, "%s:%d: NUL byte in line", source, lineno);
			nerr++;
			continue;
		}
		if (n > CONF_MAX_LINE) {
			mw_conf_error(errs, "%s:%d: line too long", source, lineno);
			nerr++;
			continue;
		}
		memcpy(line, buf + start, n);
		if (n && line[n - 1] == '\r')
			n--;
		line[n] = '\0';
		if (mw_conf_parse_line(source, lineno, line, keys, dst, errs) < 0)
			nerr++;
	}
	return nerr;
}

int mw_conf_parse_file(const char *path, const struct mw_conf_key *keys, void *dst,
		       struct mw_conf_errors *errs)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len;
	int r;

	if (!f) {
		mw_conf_error(errs, "%s: %s", path, strerror(errno));
		return 1;
	}
	buf = malloc(CONF_MAX_FILE + 1);
	if (!buf) {
		fclose(f);
		mw_conf_error(errs, "%s: out of memory", path);
		return 1;
	}
	len = fread(buf, 1, CONF_MAX_FILE + 1, f);
	if (ferror(f)) {
		mw_conf_error(errs, "%s: read error: %s", path, strerror(errno));
		r = 1;
	} else if (len > CONF_MAX_FILE) {
		mw_conf_error(errs, "%s: file larger than %d bytes", path, CONF_MAX_FILE);
		r = 1;
	} else {
		r = mw_conf_parse_buffer(path, buf, len, keys, dst, errs);
	}
	free(buf);
	fclose(f);
	return r;
}

void mw_conf_free(const struct mw_conf_key *keys, void *dst)
{
	for (; keys->name; keys++) {
		char *field = (char *)dst + keys->offset;
		if (keys->type == MW_CONF_STRING) {
			free(*(char **)field);
			*(char **)field = NULL;
		} else if (keys->type == MW_CONF_LIST) {
			mw_strlist_free((struct mw_strlist *)field);
		}
	}
}
