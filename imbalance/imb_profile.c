/* imb_profile.c - parse one TAU text profile (profile.N.C.T).
 *
 * Format (as TAU writes it, and monitor/profile.c; doc/schemas/profile.md):
 *   N templated_functions_MULTI_<METRIC>
 *   # Name Calls Subrs Excl Incl ProfileCalls # <metadata>...</metadata>
 *   "name" calls subrs excl incl profcalls GROUP="groups"      (N lines)
 *   M aggregates                                               (M lines follow)
 *   K userevents                                               (optional at EOF)
 *   # eventname numevents max min mean sumsqr
 *   "name" numevents max min mean sumsqr                       (K lines)
 * Names may hold spaces, quotes, braces and " => " (call paths): a name ends
 * at the last '"' before ` GROUP="` (functions) or the last '"' of the line
 * (user events). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "imb.h"

#define IMB_MAX_ENTRIES 10000000L /* a count beyond this is a corrupt header */

struct cursor {
	char *text; /* NUL-terminated copy */
	char *pos;
	long line;
	const char *file;
	char *err;
	size_t errlen;
};

static int fail(struct cursor *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct cursor *c, const char *fmt, ...)
{
	if (c->err && c->errlen) {
		int n = snprintf(c->err, c->errlen, "%s:%ld: ", c->file, c->line);
		if (n >= 0 && (size_t)n < c->errlen) {
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
			va_end(ap);
		}
	}
	errno = EINVAL;
	return -1;
}

/* Next line (without '\n', '\r' stripped), or NULL at the end. */
static char *next_line(struct cursor *c)
{
	if (!*c->pos)
		return NULL;
	char *l = c->pos, *nl = strchr(l, '\n');
	if (nl) {
		*nl = '\0';
		c->pos = nl + 1;
	} else {
		c->pos = l + strlen(l);
	}
	size_t n = strlen(l);
	if (n && l[n - 1] == '\r')
		l[n - 1] = '\0';
	c->line++;
	return l;
}

/* "<count> <word>..." -> count; the rest must start with word. */
static int count_line(struct cursor *c, const char *l, const char *word, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(l, &end, 10);
	if (end == l || errno || v < 0 || v > IMB_MAX_ENTRIES)
		return fail(c, "expected '<count> %s', got '%.60s'", word, l);
	while (*end == ' ' || *end == '\t')
		end++;
	if (strncmp(end, word, strlen(word)))
		return fail(c, "expected '<count> %s', got '%.60s'", word, l);
	*out = v;
	return 0;
}

/* n finite numbers separated by blanks from s; *rest points after them. */
static int numbers(struct cursor *c, char *s, double *v, int n, char **rest, const char *what)
{
	static const char *names[] = {"calls", "subrs", "excl", "incl", "profcalls", "sixth"};
	static const char *enames[] = {"numevents", "max", "min", "mean", "sumsqr", "sixth"};
	for (int i = 0; i < n; i++) {
		while (*s == ' ' || *s == '\t')
			s++;
		const char *nm = strcmp(what, "event") ? names[i] : enames[i];
		if (!*s)
			return fail(c, "%s: missing '%s' value", what, nm);
		/* strtod also takes "nan", "inf" and hex: only decimal numbers are TAU's */
		if (!strchr("+-.0123456789", *s))
			return fail(c, "%s: '%s' is not a number near '%.20s'", what, nm, s);
		char *end;
		errno = 0;
		v[i] = strtod(s, &end);
		if (end == s || (*end && *end != ' ' && *end != '\t') || !isfinite(v[i]) ||
		    (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')))
			return fail(c, "%s: '%s' is not a number near '%.20s'", what, nm, s);
		s = end;
	}
	*rest = s;
	return 0;
}

static char *dupn(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

static int parse_func(struct cursor *c, char *l, struct imb_func *f)
{
	if (l[0] != '"')
		return fail(c, "function line must start with '\"', got '%.60s'", l);
	char *g = NULL, *p = l;
	while ((p = strstr(p + 1, " GROUP=\"")))
		g = p;
	if (!g)
		return fail(c, "function line without GROUP=\"...\"");
	char *q = g;
	while (q > l && *q != '"')
		q--;
	if (q == l)
		return fail(c, "function name has no closing '\"'");
	char *gend = strrchr(g + 8, '"');
	if (!gend)
		return fail(c, "GROUP value has no closing '\"'");
	for (char *t = gend + 1; *t; t++)
		if (*t != ' ' && *t != '\t')
			return fail(c, "unexpected text after GROUP: '%.20s'", t);
	double v[5];
	char *rest;
	*g = '\0';
	if (numbers(c, q + 1, v, 5, &rest, "function") < 0)
		return -1;
	while (*rest == ' ' || *rest == '\t')
		rest++;
	if (*rest)
		return fail(c, "function: unexpected text '%.20s' before GROUP", rest);
	if (v[0] < 0 || v[1] < 0)
		return fail(c, "function: negative call count");
	f->name = dupn(l + 1, (size_t)(q - l - 1));
	f->group = dupn(g + 8, (size_t)(gend - g - 8));
	if (!f->name || !f->group)
		return fail(c, "out of memory");
	f->calls = v[0], f->subrs = v[1], f->excl = v[2], f->incl = v[3], f->profcalls = v[4];
	return 0;
}

static int parse_event(struct cursor *c, char *l, struct imb_event *e)
{
	if (l[0] != '"')
		return fail(c, "user event line must start with '\"', got '%.60s'", l);
	char *q = strrchr(l, '"');
	if (q == l)
		return fail(c, "user event name has no closing '\"'");
	double v[5];
	char *rest;
	if (numbers(c, q + 1, v, 5, &rest, "event") < 0)
		return -1;
	while (*rest == ' ' || *rest == '\t')
		rest++;
	if (*rest)
		return fail(c, "user event: unexpected text '%.20s'", rest);
	if (v[0] < 0)
		return fail(c, "user event: negative numevents");
	e->name = dupn(l + 1, (size_t)(q - l - 1));
	if (!e->name)
		return fail(c, "out of memory");
	e->num = v[0], e->max = v[1], e->min = v[2], e->mean = v[3], e->sumsqr = v[4];
	return 0;
}

void imb_profile_free(struct imb_profile *p)
{
	for (size_t i = 0; p->func && i < p->nfunc; i++) {
		free(p->func[i].name);
		free(p->func[i].group);
	}
	for (size_t i = 0; p->event && i < p->nevent; i++)
		free(p->event[i].name);
	free(p->func);
	free(p->event);
	free(p->metric);
	free(p->metadata);
	memset(p, 0, sizeof(*p));
	p->node = p->context = p->thread = -1;
}

static int parse(struct cursor *c, struct imb_profile *p)
{
	long n;
	char *l = next_line(c);
	if (!l)
		return fail(c, "empty file (expected '<count> templated_functions_MULTI_<metric>')");
	if (count_line(c, l, "templated_functions", &n) < 0)
		return -1;
	char *m = strstr(l, "templated_functions");
	m += strlen("templated_functions");
	if (!strncmp(m, "_MULTI_", 7))
		m += 7;
	else if (*m)
		return fail(c, "unknown header '%.60s'", l);
	else
		m = "TIME";
	p->metric = strdup(*m ? m : "TIME");
	l = next_line(c);
	if (!l)
		return fail(c, "missing '# Name Calls Subrs Excl Incl ProfileCalls' line");
	if (strncmp(l, "# Name Calls Subrs Excl Incl ProfileCalls", 41))
		return fail(c, "expected '# Name Calls Subrs Excl Incl ProfileCalls', got '%.60s'", l);
	char *md = strstr(l, "<metadata>"), *mde = md ? strstr(md, "</metadata>") : NULL;
	if (md && !mde)
		return fail(c, "<metadata> without </metadata>");
	if (md)
		p->metadata = dupn(md, (size_t)(mde + 11 - md));
	p->func = calloc(n ? (size_t)n : 1, sizeof(*p->func));
	if (!p->metric || !p->func || (md && !p->metadata))
		return fail(c, "out of memory");
	for (long i = 0; i < n; i++) {
		if (!(l = next_line(c)))
			return fail(c, "file ends after %ld of %ld function lines", i, n);
		if (parse_func(c, l, &p->func[i]) < 0)
			return -1;
		p->nfunc++;
	}
	if (!(l = next_line(c)))
		return fail(c, "file ends before the '<count> aggregates' line");
	if (count_line(c, l, "aggregates", &n) < 0)
		return -1;
	for (long i = 0; i < n; i++) /* aggregate lines are not used by the analysis */
		if (!next_line(c))
			return fail(c, "file ends after %ld of %ld aggregate lines", i, n);
	p->naggr = (size_t)n;
	while ((l = next_line(c)) && !*l)
		;
	if (!l)
		return 0; /* no user events section */
	if (count_line(c, l, "userevents", &n) < 0)
		return -1;
	if (n > 0) {
		if (!(l = next_line(c)) || strncmp(l, "# eventname numevents max min mean sumsqr", 41))
			return fail(c, "expected '# eventname numevents max min mean sumsqr'");
		p->event = calloc((size_t)n, sizeof(*p->event));
		if (!p->event)
			return fail(c, "out of memory");
		for (long i = 0; i < n; i++) {
			if (!(l = next_line(c)))
				return fail(c, "file ends after %ld of %ld user event lines", i, n);
			if (parse_event(c, l, &p->event[i]) < 0)
				return -1;
			p->nevent++;
		}
	}
	while ((l = next_line(c)))
		if (*l && !(n == 0 && !strncmp(l, "# eventname", 11))) /* header after "0 userevents" */
			return fail(c, "unexpected text after the user events: '%.60s'", l);
	return 0;
}

int imb_profile_parse(const char *buf, size_t len, const char *file, struct imb_profile *p,
		      char *err, size_t errlen)
{
	struct cursor c = {0};
	memset(p, 0, sizeof(*p));
	p->node = p->context = p->thread = -1;
	c.file = file ? file : "<profile>";
	c.err = err, c.errlen = errlen;
	if (err && errlen)
		err[0] = '\0';
	if (memchr(buf, '\0', len)) {
		c.line = 1;
		for (const char *s = buf; *s; s++)
			c.line += *s == '\n';
		return fail(&c, "NUL byte in a text profile");
	}
	c.text = dupn(buf, len);
	if (!c.text)
		return fail(&c, "out of memory");
	c.pos = c.text;
	int rc = parse(&c, p);
	free(c.text);
	if (rc < 0)
		imb_profile_free(p);
	return rc;
}
