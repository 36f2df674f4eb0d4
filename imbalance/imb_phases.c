/* imb_phases.c - read the monitor's compute-phase files (imb_phases.h). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imb.h"
#include "imb_phases.h"

#define MAX_PHASES 4096
#define MAX_SAMPLES 100000
#define MAX_KEY 1024

struct cursor {
	const char *p, *end;
	size_t line;
};

/* The next line into buf (NUL-terminated, without the newline).  Return its
 * length, -1 at the end, -2 if longer than cap - 1. */
static long next_line(struct cursor *c, char *buf, size_t cap)
{
	const char *nl;
	size_t n;
	if (c->p >= c->end)
		return -1;
	nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
	n = (size_t)((nl ? nl : c->end) - c->p);
	c->line++;
	if (n >= cap)
		return -2;
	memcpy(buf, c->p, n);
	buf[n] = 0;
	c->p = nl ? nl + 1 : c->end;
	return (long)n;
}

static void fail(char *err, size_t errlen, const char *file, size_t line, const char *fmt, ...)
{
	va_list ap;
	int k = snprintf(err, errlen, "%s:%zu: ", file, line);
	va_start(ap, fmt);
	if (k >= 0 && (size_t)k < errlen)
		vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
	va_end(ap);
}

void imb_phases_rank_free(struct imb_phases_rank *r)
{
	for (size_t i = 0; i < r->nphase; i++) {
		free(r->phase[i].key);
		free(r->phase[i].ns);
	}
	free(r->phase);
	free(r->node);
	memset(r, 0, sizeof(*r));
}

int imb_phases_parse(const char *buf, size_t len, const char *file, struct imb_phases_rank *r, char *err,
		     size_t errlen)
{
	struct cursor c = {buf, buf + len, 0};
	size_t cap = 64 + MAX_SAMPLES * 24;
	char *line = malloc(cap), node[256], key[MAX_KEY + 1];
	unsigned long long dropped, count;
	size_t pcap = 0;
	long n;
	int rank, used;

	memset(r, 0, sizeof(*r));
	err[0] = 0;
	if (!line) {
		snprintf(err, errlen, "%s: out of memory", file);
		return -1;
	}
	if (len && memchr(buf, 0, len)) {
		fail(err, errlen, file, 1, "a NUL byte: not a text file");
		goto bad;
	}
	if (next_line(&c, line, cap) < 0 || strcmp(line, "mpiwatch-phases 1") != 0) {
		fail(err, errlen, file, c.line ? c.line : 1, "not an mpiwatch-phases 1 file");
		goto bad;
	}
	if (next_line(&c, line, cap) < 0 ||
	    sscanf(line, "rank %d node %255s dropped %llu%n", &rank, node, &dropped, &used) != 3 ||
	    line[used] || rank < 0) {
		fail(err, errlen, file, c.line, "want 'rank R node NAME dropped N'");
		goto bad;
	}
	r->rank = rank;
	r->dropped = dropped;
	if (!(r->node = strdup(node)))
		goto oom;
	while ((n = next_line(&c, line, cap)) != -1) {
		struct imb_phase *ph;
		unsigned long ns;
		char *s, *e;
		if (n == -2) {
			fail(err, errlen, file, c.line, "line too long");
			goto bad;
		}
		if (sscanf(line, "phase %1024s %llu %lu%n", key, &count, &ns, &used) != 3 || line[used] ||
		    ns > MAX_SAMPLES || ns > count) {
			fail(err, errlen, file, c.line, "want 'phase KEY COUNT N' (N <= COUNT, N <= %d)", MAX_SAMPLES);
			goto bad;
		}
		if (r->nphase >= MAX_PHASES) {
			fail(err, errlen, file, c.line, "more than %d phases", MAX_PHASES);
			goto bad;
		}
		for (size_t i = 0; i < r->nphase; i++)
			if (!strcmp(r->phase[i].key, key)) {
				fail(err, errlen, file, c.line, "phase %s listed twice", key);
				goto bad;
			}
		if (r->nphase == pcap) {
			size_t nc = pcap ? 2 * pcap : 4;
			struct imb_phase *np = realloc(r->phase, nc * sizeof(*np));
			if (!np)
				goto oom;
			r->phase = np;
			pcap = nc;
		}
		ph = &r->phase[r->nphase++];
		memset(ph, 0, sizeof(*ph));
		ph->count = count;
		ph->n = ns;
		if (!(ph->key = strdup(key)) || !(ph->ns = malloc((ns ? ns : 1) * sizeof(double))))
			goto oom;
		if (next_line(&c, line, cap) < 0) {
			fail(err, errlen, file, c.line + 1, "the samples line of phase %s is missing or too long", key);
			goto bad;
		}
		s = line;
		for (size_t k = 0; k < ns; k++) {
			errno = 0;
			ph->ns[k] = strtod(s, &e);
			if (e == s || errno || !isfinite(ph->ns[k]) || ph->ns[k] < 0 || (*e && *e != ' ')) {
				fail(err, errlen, file, c.line, "sample %zu of %lu: not a number of ns", k + 1, ns);
				goto bad;
			}
			s = e;
		}
		while (*s == ' ')
			s++;
		if (*s) {
			fail(err, errlen, file, c.line, "more than the %lu samples announced", ns);
			goto bad;
		}
	}
	free(line);
	return 0;
oom:
	snprintf(err, errlen, "%s: out of memory", file);
bad:
	free(line);
	imb_phases_rank_free(r);
	return -1;
}

void imb_phases_free(struct imb_phases *ph)
{
	for (size_t i = 0; i < ph->nrank; i++)
		imb_phases_rank_free(&ph->r[i]);
	free(ph->r);
	memset(ph, 0, sizeof(*ph));
}

static int by_rank(const void *a, const void *b)
{
	const struct imb_phases_rank *x = a, *y = b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

int imb_phases_load(const char *dir, struct imb_phases *ph, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t cap = 0;
	memset(ph, 0, sizeof(*ph));
	if (!d) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		char path[4400], *buf, *end;
		size_t len;
		int rc;
		if (strncmp(e->d_name, "phases.", 7) || !e->d_name[7] ||
		    (strtol(e->d_name + 7, &end, 10), *end))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (imb_read_file(path, &buf, &len) < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto bad;
		}
		if (ph->nrank == cap) {
			size_t nc = cap ? 2 * cap : 16;
			struct imb_phases_rank *nr = realloc(ph->r, nc * sizeof(*nr));
			if (!nr) {
				free(buf);
				snprintf(err, errlen, "%s: out of memory", dir);
				goto bad;
			}
			ph->r = nr;
			cap = nc;
		}
		rc = imb_phases_parse(buf, len, path, &ph->r[ph->nrank], err, errlen);
		free(buf);
		if (rc < 0)
			goto bad;
		ph->nrank++;
	}
	closedir(d);
	qsort(ph->r, ph->nrank, sizeof(*ph->r), by_rank);
	for (size_t i = 1; i < ph->nrank; i++)
		if (ph->r[i].rank == ph->r[i - 1].rank) {
			snprintf(err, errlen, "%s: two phases files for rank %d", dir, ph->r[i].rank);
			imb_phases_free(ph);
			return -1;
		}
	return 0;
bad:
	closedir(d);
	imb_phases_free(ph);
	return -1;
}
