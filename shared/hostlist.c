/* hostlist.c - Slurm hostlist expressions and integer range lists. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"

#define HL_MAX_NAME 256

void mw_hostlist_free(struct mw_hostlist *hl)
{
	for (size_t i = 0; i < hl->n; i++)
		free(hl->host[i]);
	free(hl->host);
	hl->host = NULL;
	hl->n = 0;
}

static int hl_add(struct mw_hostlist *hl, const char *name, size_t max)
{
	char **nv;

	if (hl->n >= max) {
		errno = E2BIG;
		return -1;
	}
	nv = realloc(hl->host, (hl->n + 1) * sizeof(*nv));
	if (!nv)
		return -1;
	hl->host = nv;
	if (!(hl->host[hl->n] = strdup(name)))
		return -1;
	hl->n++;
	return 0;
}

static int parse_num(const char **pp, unsigned long *v, int *width)
{
	const char *p = *pp;
	char *end;

	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	*v = strtoul(p, &end, 10);
	if (errno || end - p > 9)
		return -1;
	*width = (int)(end - p);
	*pp = end;
	return 0;
}

/* Expand one name that may hold bracket groups: prefix is what was built so
 * far, p points at the rest of this name (up to end). */
static int expand_name(const char *prefix, const char *p, const char *end, size_t max,
		       struct mw_hostlist *hl)
{
	char buf[HL_MAX_NAME];
	const char *lb = memchr(p, '[', (size_t)(end - p));
	const char *rb;
	size_t plen = strlen(prefix);

	if (!lb) {
		if (plen + (size_t)(end - p) >= sizeof(buf) || plen + (size_t)(end - p) == 0) {
			errno = EINVAL;
			return -1;
		}
		if (memchr(p, ']', (size_t)(end - p))) {
			errno = EINVAL;
			return -1;
		}
		snprintf(buf, sizeof(buf), "%s%.*s", prefix, (int)(end - p), p);
		return hl_add(hl, buf, max);
	}
	rb = memchr(lb, ']', (size_t)(end - lb));
	if (!rb || memchr(p, ']', (size_t)(lb - p)) || plen + (size_t)(lb - p) >= sizeof(buf)) {
		errno = EINVAL;
		return -1;
	}
	/* Each element of the group: N or N-M, comma separated. */
	const char *q = lb + 1;
	if (q == rb) {
		errno = EINVAL;
		return -1;
	}
	while (q < rb) {
		unsigned long lo, hi;
		int wlo, whi;
		if (parse_num(&q, &lo, &wlo) < 0) {
			errno = EINVAL;
			return -1;
		}
		hi = lo;
		whi = wlo;
		if (*q == '-') {
			q++;
			if (parse_num(&q, &hi, &whi) < 0 || hi < lo) {
				errno = EINVAL;
				return -1;
			}
		}
		if (q < rb && *q != ',') {
			errno = EINVAL;
			return -1;
		}
		if (*q == ',') {
			q++;
			if (q == rb) {
				errno = EINVAL;
				return -1;
			}
		}
		if (hi - lo >= max) {
			errno = E2BIG;
			return -1;
		}
		for (unsigned long v = lo; v <= hi; v++) {
			char np[HL_MAX_NAME];
			int n = snprintf(np, sizeof(np), "%s%.*s%0*lu", prefix, (int)(lb - p), p,
					 wlo, v);
			if (n < 0 || (size_t)n >= sizeof(np)) {
				errno = EINVAL;
				return -1;
			}
			if (expand_name(np, rb + 1, end, max, hl) < 0)
				return -1;
		}
	}
	return 0;
}

int mw_hostlist_expand(const char *expr, size_t max, struct mw_hostlist *hl)
{
	const char *p = expr;

	hl->host = NULL;
	hl->n = 0;
	if (!expr) {
		errno = EINVAL;
		return -1;
	}
	while (*p) {
		const char *s = p;
		int depth = 0;
		while (*p && (depth || (*p != ',' && !isspace((unsigned char)*p)))) {
			if (*p == '[')
				depth++;
			else if (*p == ']')
				depth--;
			if (depth < 0 || depth > 1)
				break;
			p++;
		}
		if (depth != 0 || p == s) {
			mw_hostlist_free(hl);
			errno = EINVAL;
			return -1;
		}
		if (expand_name("", s, p, max, hl) < 0) {
			int e = errno == E2BIG ? E2BIG : EINVAL;
			mw_hostlist_free(hl);
			errno = e;
			return -1;
		}
		if (*p) {
			p++;
			if (!*p) { /* trailing separator */
				mw_hostlist_free(hl);
				errno = EINVAL;
				return -1;
			}
		}
	}
	if (hl->n == 0) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* Split "abc012" into prefix "abc", number 12, width 3.  Return 0 if the
 * name ends in digits. */
static int split_suffix(const char *name, size_t *plen, unsigned long *num, int *width)
{
	size_t n = strlen(name), i = n;
	while (i > 0 && isdigit((unsigned char)name[i - 1]))
		i--;
	if (i == n || n - i > 9)
		return -1;
	*plen = i;
	*num = strtoul(name + i, NULL, 10);
	*width = (int)(n - i);
	return 0;
}

struct out {
	char *buf;
	size_t len, used;
};

static void out_put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out_put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	size_t room = o->used < o->len ? o->len - o->used : 0;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(room ? o->buf + o->used : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->used += (size_t)n;
}

size_t mw_hostlist_compress(const struct mw_hostlist *hl, char *buf, size_t len)
{
	struct out o = {buf, len, 0};
	char *done = calloc(hl->n ? hl->n : 1, 1);

	if (len)
		buf[0] = '\0';
	if (!done)
		return 0;
	for (size_t i = 0; i < hl->n; i++) {
		size_t plen;
		unsigned long num;
		int width;
		if (done[i])
			continue;
		if (o.used)
			out_put(&o, ",");
		if (split_suffix(hl->host[i], &plen, &num, &width) < 0) {
			out_put(&o, "%s", hl->host[i]);
			done[i] = 1;
			continue;
		}
		/* Gather every later name with the same prefix and width. */
		size_t cap = 16, cnt = 0;
		unsigned long *nums = malloc(cap * sizeof(*nums));
		if (!nums)
			break;
		for (size_t j = i; j < hl->n; j++) {
			size_t pl2;
			unsigned long n2;
			int w2;
			if (done[j] || split_suffix(hl->host[j], &pl2, &n2, &w2) < 0 || pl2 != plen ||
			    w2 != width || strncmp(hl->host[i], hl->host[j], plen))
				continue;
			if (cnt == cap) {
				unsigned long *nn = realloc(nums, 2 * cap * sizeof(*nums));
				if (!nn)
					break;
				nums = nn;
				cap *= 2;
			}
			nums[cnt++] = n2;
			done[j] = 1;
		}
		/* Sort (insertion sort: lists are short). */
		for (size_t a = 1; a < cnt; a++)
			for (size_t b = a; b > 0 && nums[b - 1] > nums[b]; b--) {
				unsigned long t = nums[b];
				nums[b] = nums[b - 1];
				nums[b - 1] = t;
			}
		if (cnt == 1) {
			out_put(&o, "%s", hl->host[i]);
		} else {
			out_put(&o, "%.*s[", (int)plen, hl->host[i]);
			for (size_t a = 0; a < cnt;) {
				size_t b = a;
				while (b + 1 < cnt && nums[b + 1] <= nums[b] + 1)
					b++;
				out_put(&o, "%s%0*lu", a ? "," : "", width, nums[a]);
				if (nums[b] != nums[a])
					out_put(&o, "-%0*lu", width, nums[b]);
				a = b + 1;
			}
			out_put(&o, "]");
		}
		free(nums);
	}
	free(done);
	return o.used;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

size_t mw_ranges_format(const int *v, size_t n, char *buf, size_t len)
{
	struct out o = {buf, len, 0};
	int *s;

	if (len)
		buf[0] = '\0';
	if (n == 0)
		return 0;
	s = malloc(n * sizeof(*s));
	if (!s)
		return 0;
	memcpy(s, v, n * sizeof(*s));
	size_t up = 1;
	while (up < n && s[up - 1] <= s[up])
		up++;
	if (up < n) /* most callers pass their ranks in order already */
		qsort(s, n, sizeof(*s), cmp_int);
	for (size_t a = 0; a < n;) {
		size_t b = a;
		while (b + 1 < n && (s[b + 1] == s[b] || (long)s[b + 1] == (long)s[b] + 1))
			b++;
		out_put(&o, "%s%d", o.used ? "," : "", s[a]);
		if (s[b] != s[a])
			out_put(&o, "-%d", s[b]);
		a = b + 1;
	}
	free(s);
	if (o.used >= len && len) {
		/* Cut after the last whole item that leaves room for ",...". */
		size_t keep = 0;
		for (size_t i = 0; i < len - 1; i++)
			if (buf[i] == ',' && i + 5 <= len)
				keep = i;
		if (keep)
			memcpy(buf + keep, ",...", 5);
		else
			snprintf(buf, len, "%s", len >= 4 ? "..." : "");
	}
	return o.used;
}

long mw_ranges_parse(const char *str, size_t max, int **out)
{
	const char *p = str;
	int *v = NULL;
	size_t n = 0;

	*out = NULL;
	if (!str || !*str)
		goto bad;
	while (*p) {
		char *end;
		long lo, hi;
		if (!isdigit((unsigned char)*p))
			goto bad;
		errno = 0;
		lo = strtol(p, &end, 10);
		if (errno || lo > 0x7fffffff)
			goto bad;
		p = end;
		hi = lo;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				goto bad;
			hi = strtol(p, &end, 10);
			if (errno || hi > 0x7fffffff || hi < lo)
				goto bad;
			p = end;
		}
		if (*p == ',') {
			p++;
			if (!*p)
				goto bad;
		} else if (*p) {
			goto bad;
		}
		if ((size_t)(hi - lo) + n >= max) {
			free(v);
			errno = E2BIG;
			return -1;
		}
		int *nv = realloc(v, (n + (size_t)(hi - lo) + 1) * sizeof(*v));
		if (!nv) {
			free(v);
			return -1;
		}
		v = nv;
		for (long x = lo; x <= hi; x++)
			v[n++] = (int)x;
	}
	*out = v;
	return (long)n;
bad:
	free(v);
	errno = EINVAL;
	return -1;
}
