/* cal_timings.c - the timings file parser (cal_timings.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cal_timings.h"

/* Show at most 40 bytes of a bad line, non-printing bytes as '?'. */
static void excerpt(const char *s, size_t n, char *buf, size_t len)
{
	size_t k = 0;
	for (size_t i = 0; i < n && k + 4 < len && i < 40; i++)
		buf[k++] = isprint((unsigned char)s[i]) ? s[i] : '?';
	if (n > 40 && k + 4 < len) {
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	buf[k] = 0;
}

int cal_timings_parse(const char *text, size_t len, const char *name, double **out, size_t *n,
		      char *err, size_t errlen)
{
	double *v = NULL;
	size_t cap = 0, cnt = 0, line = 0;
	const char *p = text, *end = text + len;
	char num[64], shown[64];

	*out = NULL;
	*n = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		line++;
		const char *s = p, *t = e;
		p = nl ? nl + 1 : end;
		while (s < t && isspace((unsigned char)*s))
			s++;
		while (t > s && isspace((unsigned char)t[-1]))
			t--;
		if (s == t || *s == '#')
			continue;
		size_t w = (size_t)(t - s);
		const char *why = NULL;
		double d = 0;
		if (memchr(s, 0, w))
			why = "a NUL byte";
		else if (w >= sizeof(num))
			why = "too long for a number";
		else {
			memcpy(num, s, w);
			num[w] = 0;
			char *stop;
			errno = 0;
			d = strtod(num, &stop);
			if (stop == num || *stop)
				why = "not a number";
			else if (errno == ERANGE || !isfinite(d))
				why = "out of range";
			else if (d < 0)
				why = "negative";
		}
		if (why) {
			excerpt(s, w, shown, sizeof(shown));
			snprintf(err, errlen, "%s:%zu: '%s' is not a timing (%s; expected one non-negative number per line)",
				 name, line, shown, why);
			free(v);
			errno = EINVAL;
			return -1;
		}
		if (cnt == CAL_TIMINGS_MAX) {
			snprintf(err, errlen, "%s:%zu: more than %d timings", name, line, CAL_TIMINGS_MAX);
			free(v);
			errno = E2BIG;
			return -1;
		}
		if (cnt == cap) {
			size_t nc = cap ? cap * 2 : 256;
			double *nv = realloc(v, nc * sizeof(*nv));
			if (!nv) {
				snprintf(err, errlen, "%s: out of memory", name);
				free(v);
				errno = ENOMEM;
				return -1;
			}
			v = nv;
			cap = nc;
		}
		v[cnt++] = d;
	}
	if (cnt == 0) {
		snprintf(err, errlen, "%s: no timings (expected one non-negative number per line)", name);
		free(v);
		errno = EINVAL;
		return -1;
	}
	*out = v;
	*n = cnt;
	return 0;
}

int cal_timings_read(const char *path, double **out, size_t *n, char *err, size_t errlen)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rv = -1, saved;
	if (!f) {
		saved = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(saved));
		errno = saved;
		return -1;
	}
	for (;;) {
		if (len == cap) {
			size_t nc = cap ? cap * 2 : 65536;
			char *nb = realloc(buf, nc);
			if (!nb) {
				snprintf(err, errlen, "%s: out of memory", path);
				errno = ENOMEM;
				goto out;
			}
			buf = nb;
			cap = nc;
		}
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		saved = errno ? errno : EIO;
		snprintf(err, errlen, "%s: %s", path, strerror(saved));
		errno = saved;
		goto out;
	}
	rv = cal_timings_parse(buf, len, path, out, n, err, errlen);
out:
	saved = errno;
	if (f != stdin)
		fclose(f);
	free(buf);
	errno = saved;
	return rv;
}
