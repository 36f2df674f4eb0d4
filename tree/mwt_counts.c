/* mwt_counts.c - the BE counts file (see mwt_counts.h). */
#include "mwt_counts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heartbeat.h"

void mwt_factors_unknown(struct mwt_factors *f)
{
	f->load = -1;
	f->mem_free_mb = -1;
	f->cores = 0;
	f->health = MWT_HEALTH_UNKNOWN;
	f->rtt_ms = -1;
}

void mwt_counts_free(struct mwt_counts *c)
{
	free(c->host);
	c->host = NULL;
	c->n = 0;
}

/* One key=value word.  Return 0, or -1 with an error appended. */
static int parse_factor(const char *name, int lineno, char *word, struct mwt_factors *f,
			struct mw_conf_errors *errs)
{
	char *eq = strchr(word, '=');
	const char *k, *v;
	long l;
	int h;
	if (!eq) {
		mw_conf_error(errs, "%s:%d: '%.40s': expected key=value (load, mem, cores, health, rtt)", name,
			      lineno, word);
		return -1;
	}
	*eq = 0;
	k = word;
	v = eq + 1;
	if (strcmp(k, "load") == 0) {
		if (mw_conf_parse_double(v, 0, 1e6, &f->load) == 0)
			return 0;
	} else if (strcmp(k, "mem") == 0) {
		if (mw_conf_parse_double(v, 0, 1e12, &f->mem_free_mb) == 0)
			return 0;
	} else if (strcmp(k, "cores") == 0) {
		if (mw_conf_parse_long(v, 1, 1 << 20, &l) == 0) {
			f->cores = (int)l;
			return 0;
		}
	} else if (strcmp(k, "health") == 0) {
		if ((h = mwt_health_parse(v)) >= 0) {
			f->health = (enum mwt_health)h;
			return 0;
		}
		mw_conf_error(errs, "%s:%d: health '%.40s': expected ok, degraded, down or unknown", name, lineno, v);
		return -1;
	} else if (strcmp(k, "rtt") == 0) {
		if (mw_conf_parse_double(v, 0.000001, 1e6, &f->rtt_ms) == 0)
			return 0;
	} else {
		mw_conf_error(errs, "%s:%d: unknown key '%.40s' (load, mem, cores, health, rtt)", name, lineno, k);
		return -1;
	}
	mw_conf_error(errs, "%s:%d: %s '%.40s': not a number in range", name, lineno, k, v);
	return -1;
}

/* One line (NUL-terminated, no newline).  Return 0 (host filled, or *blank
 * set), or -1 with errors appended. */
static int parse_line(const char *name, int lineno, char *line, struct mwt_host *host, int *blank,
		      struct mw_conf_errors *errs)
{
	char *save = NULL, *node, *count, *w, *hash = strchr(line, '#');
	long be;
	int bad = 0;
	*blank = 0;
	if (hash)
		*hash = 0;
	node = strtok_r(line, " \t\r", &save);
	if (!node) {
		*blank = 1;
		return 0;
	}
	if (!mw_hb_valid_name(node)) {
		mw_conf_error(errs, "%s:%d: '%.40s' is not a node name", name, lineno, node);
		return -1;
	}
	count = strtok_r(NULL, " \t\r", &save);
	if (!count) {
		mw_conf_error(errs, "%s:%d: node %s without a count: expected NODE COUNT", name, lineno, node);
		return -1;
	}
	if (mw_conf_parse_long(count, 0, MWT_COUNTS_BE_MAX, &be) < 0) {
		mw_conf_error(errs, "%s:%d: count '%.40s' of node %s: expected an integer in [0, %d]", name, lineno,
			      count, node, MWT_COUNTS_BE_MAX);
		return -1;
	}
	memset(host, 0, sizeof(*host));
	snprintf(host->name, sizeof(host->name), "%s", node);
	host->be = (int)be;
	mwt_factors_unknown(&host->f);
	while ((w = strtok_r(NULL, " \t\r", &save)))
		if (parse_factor(name, lineno, w, &host->f, errs) < 0)
			bad = 1;
	return bad ? -1 : 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct mwt_host *const *)a)[0]->name, ((const struct mwt_host *const *)b)[0]->name);
}

int mwt_counts_parse(const char *text, size_t len, const char *name, struct mwt_counts *c,
		     struct mw_conf_errors *errs)
{
	size_t pos = 0, cap = 0, before = errs->n;
	int lineno = 0;
	struct mwt_host **sorted = NULL;
	c->host = NULL;
	c->n = 0;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - (text + pos)) : len - pos;
		char line[4096];
		struct mwt_host h;
		int blank;
		lineno++;
		if (lineno > MWT_COUNTS_LINES_MAX) {
			mw_conf_error(errs, "%s:%d: more than %d lines", name, lineno, MWT_COUNTS_LINES_MAX);
			break;
		}
		if (ll >= sizeof(line)) {
			mw_conf_error(errs, "%s:%d: line longer than %zu bytes", name, lineno, sizeof(line) - 1);
		} else if (memchr(text + pos, 0, ll)) {
			mw_conf_error(errs, "%s:%d: NUL byte", name, lineno);
		} else {
			memcpy(line, text + pos, ll);
			line[ll] = 0;
			if (parse_line(name, lineno, line, &h, &blank, errs) == 0 && !blank) {
				if (c->n == cap) {
					size_t ncap = cap ? cap * 2 : 16;
					struct mwt_host *nh = realloc(c->host, ncap * sizeof(*nh));
					if (!nh) {
						mw_conf_error(errs, "%s: out of memory", name);
						break;
					}
					c->host = nh;
					cap = ncap;
				}
				c->host[c->n++] = h;
			}
		}
		pos += ll + (nl ? 1 : 0);
	}
	/* a node named twice is an error (which count would be right?) */
	if (errs->n == before && c->n > 1) {
		size_t i;
		sorted = malloc(c->n * sizeof(*sorted));
		if (!sorted) {
			mw_conf_error(errs, "%s: out of memory", name);
		} else {
			for (i = 0; i < c->n; i++)
				sorted[i] = &c->host[i];
			qsort(sorted, c->n, sizeof(*sorted), name_cmp);
			for (i = 1; i < c->n; i++)
				if (strcmp(sorted[i - 1]->name, sorted[i]->name) == 0)
					mw_conf_error(errs, "%s: node %s given twice", name, sorted[i]->name);
			free(sorted);
		}
	}
	if (errs->n == before && c->n == 0)
		mw_conf_error(errs, "%s: no NODE COUNT line", name);
	if (errs->n != before) {
		mwt_counts_free(c);
		return (int)(errs->n - before);
	}
	return 0;
}

int mwt_counts_read(const char *path, struct mwt_counts *c, struct mw_conf_errors *errs)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, got;
	int rv;
	c->host = NULL;
	c->n = 0;
	if (!f) {
		mw_conf_error(errs, "%s: %s", path, strerror(errno));
		return 1;
	}
	for (;;) {
		if (len == cap) {
			char *nb;
			if (cap >= (64u << 20)) {
				mw_conf_error(errs, "%s: larger than 64 MiB", path);
				free(buf);
				fclose(f);
				return 1;
			}
			cap = cap ? cap * 2 : 65536;
			nb = realloc(buf, cap);
			if (!nb) {
				mw_conf_error(errs, "%s: out of memory", path);
				free(buf);
				fclose(f);
				return 1;
			}
			buf = nb;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		mw_conf_error(errs, "%s: read error", path);
		free(buf);
		fclose(f);
		return 1;
	}
	fclose(f);
	rv = mwt_counts_parse(buf, len, path, c, errs);
	free(buf);
	return rv;
}
