/* imb_group.c - step 2: the two-level group tree and the classification of
 * functions (MPI name table, TAU groups, user rules). */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imb.h"

static const struct {
	const char *id, *label;
	int parent, level;
} groups[IMB_NGROUPS] = {
	[IMB_G_ALL] = {"all", "all processes", -1, 0},
	[IMB_G_COMP] = {"computation", "computation", IMB_G_ALL, 1},
	[IMB_G_COMM] = {"communication", "communication", IMB_G_ALL, 1},
	[IMB_G_IO] = {"io", "I/O", IMB_G_ALL, 1},
	[IMB_G_COMP_USER] = {"computation.user", "user code", IMB_G_COMP, 2},
	[IMB_G_P2P_BLOCKING] = {"communication.p2p_blocking", "blocking point-to-point", IMB_G_COMM, 2},
	[IMB_G_P2P_NONBLOCKING] = {"communication.p2p_nonblocking", "non-blocking point-to-point",
				   IMB_G_COMM, 2},
	[IMB_G_COLLECTIVE] = {"communication.collective", "collective communication", IMB_G_COMM, 2},
	[IMB_G_ONESIDED] = {"communication.onesided", "one-sided communication", IMB_G_COMM, 2},
	[IMB_G_COMM_OTHER] = {"communication.other", "other MPI", IMB_G_COMM, 2},
	[IMB_G_READ_BLOCKING] = {"io.read_blocking", "blocking read", IMB_G_IO, 2},
	[IMB_G_READ_NONBLOCKING] = {"io.read_nonblocking", "non-blocking read", IMB_G_IO, 2},
	[IMB_G_WRITE_BLOCKING] = {"io.write_blocking", "blocking write", IMB_G_IO, 2},
	[IMB_G_WRITE_NONBLOCKING] = {"io.write_nonblocking", "non-blocking write", IMB_G_IO, 2},
	[IMB_G_IO_OTHER] = {"io.other", "other I/O (open, close, sync)", IMB_G_IO, 2},
};

const char *imb_group_id(int g) { return g >= 0 && g < IMB_NGROUPS ? groups[g].id : "?"; }
const char *imb_group_label(int g) { return g >= 0 && g < IMB_NGROUPS ? groups[g].label : "?"; }
int imb_group_parent(int g) { return g >= 0 && g < IMB_NGROUPS ? groups[g].parent : -1; }
int imb_group_level(int g) { return g >= 0 && g < IMB_NGROUPS ? groups[g].level : -1; }

int imb_group_lookup(const char *id)
{
	for (int g = 0; g < IMB_NGROUPS; g++)
		if (!strcmp(id, groups[g].id))
			switch (g) { /* a level-1 id means its catch-all child */
			case IMB_G_ALL: return -1;
			case IMB_G_COMP: return IMB_G_COMP_USER;
			case IMB_G_COMM: return IMB_G_COMM_OTHER;
			case IMB_G_IO: return IMB_G_IO_OTHER;
			default: return g;
			}
	return -1;
}

/* Generated from monitor/mpi.spec by imbalance/build.mk: name without
 * "MPI_", and the spec's kind. */
struct imb_spec_entry {
	const char *name, *kind;
};
extern const struct imb_spec_entry imb_spec_table[];
extern const size_t imb_spec_count;

static int io_group(const char *fn) /* fn without "MPI_File_" */
{
	int nb = fn[0] == 'i' && fn[1] != 'n'; /* iread, iwrite_at...; not "info" */
	if (strstr(fn, "read"))
		return nb || strstr(fn, "_begin") ? IMB_G_READ_NONBLOCKING : IMB_G_READ_BLOCKING;
	if (strstr(fn, "write"))
		return nb || strstr(fn, "_begin") ? IMB_G_WRITE_NONBLOCKING : IMB_G_WRITE_BLOCKING;
	return IMB_G_IO_OTHER;
}

/* The spec's kind -> level-2 group; the same split as the monitor's own
 * GROUP= names (monitor/profile.c, mwm_op_group). */
static int kind_group(const char *name, const char *kind)
{
	if (!strncmp(name, "File_", 5))
		return io_group(name + 5);
	if (!strcmp(kind, "send") || !strcmp(kind, "recv") || !strcmp(kind, "sendrecv") ||
	    !strcmp(kind, "probe"))
		return IMB_G_P2P_BLOCKING;
	if (!strcmp(kind, "wait") || !strcmp(kind, "test") || !strcmp(kind, "init") ||
	    !strcmp(kind, "start") || !strcmp(kind, "iprobe"))
		return IMB_G_P2P_NONBLOCKING;
	if (!strcmp(kind, "rma_sync") || !strncmp(name, "Win_", 4))
		return IMB_G_ONESIDED;
	if (!strcmp(kind, "collective") || !strcmp(kind, "comm") || !strcmp(kind, "fin_manual"))
		return IMB_G_COLLECTIVE;
	if (!strcmp(kind, "nb"))
		return strstr(name, "send") || strstr(name, "recv") ? IMB_G_P2P_NONBLOCKING
								  : IMB_G_COLLECTIVE;
	return IMB_G_COMM_OTHER;
}

int imb_mpi_group(const char *name)
{
	char base[128];
	if (strncmp(name, "MPI_", 4) && strncmp(name, "mpi_", 4))
		return -1;
	size_t n = strcspn(name + 4, "( ");
	if (n == 0 || n >= sizeof(base))
		return -1;
	memcpy(base, name + 4, n);
	base[n] = '\0';
	/* Fortran names (mpi_send_) and any case: compare case-insensitively */
	if (n > 1 && base[n - 1] == '_')
		base[--n] = '\0';
	for (size_t i = 0; i < imb_spec_count; i++)
		if (!strcasecmp(base, imb_spec_table[i].name))
			return kind_group(imb_spec_table[i].name, imb_spec_table[i].kind);
	if (!strncasecmp(base, "File_", 5)) {
		for (char *p = base; *p; p++)
			*p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
		return io_group(base + 5);
	}
	return IMB_G_COMM_OTHER; /* an MPI function the monitor does not wrap */
}

static int group_has(const char *tau_group, const char *word)
{
	/* TAU groups are '|'-separated: "MPI", "TAU_USER|TAU_IO" */
	size_t wl = strlen(word);
	for (const char *p = tau_group; p && *p;) {
		size_t n = strcspn(p, "|");
		if ((n == wl && !strncmp(p, word, n)) || (n > wl && !strncmp(p + n - wl, word, wl) &&
							   p[n - wl - 1] == '_'))
			return 1;
		p += n + (p[n] == '|');
	}
	return 0;
}

int imb_classify(const char *name, const char *tau_group, const struct imb_rules *rules)
{
	for (size_t i = 0; rules && i < rules->n; i++)
		if (!fnmatch(rules->pattern[i], name, 0))
			return rules->group[i];
	int g = imb_mpi_group(name);
	if (g >= 0)
		return g;
	if (tau_group && group_has(tau_group, "MPI"))
		return IMB_G_COMM_OTHER;
	if (tau_group && group_has(tau_group, "IO")) {
		if (strstr(name, "read"))
			return IMB_G_READ_BLOCKING;
		if (strstr(name, "write"))
			return IMB_G_WRITE_BLOCKING;
		return IMB_G_IO_OTHER;
	}
	return IMB_G_COMP_USER;
}

void imb_rules_free(struct imb_rules *r)
{
	for (size_t i = 0; r->pattern && i < r->n; i++)
		free(r->pattern[i]);
	free(r->pattern);
	free(r->group);
	memset(r, 0, sizeof(*r));
}

static void add_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_err(char *err, size_t errlen, const char *fmt, ...)
{
	size_t used = strlen(err);
	if (used + 1 >= errlen)
		return;
	if (used)
		err[used++] = '\n', err[used] = '\0';
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err + used, errlen - used, fmt, ap);
	va_end(ap);
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

int imb_rules_parse(const char *buf, size_t len, const char *file, struct imb_rules *r, char *err,
		    size_t errlen)
{
	char tmp[1];
	if (!err || !errlen)
		err = tmp, errlen = sizeof(tmp);
	err[0] = '\0';
	memset(r, 0, sizeof(*r));
	char *text = malloc(len + 1);
	if (!text)
		return -1;
	memcpy(text, buf, len);
	text[len] = '\0';
	int bad = 0;
	long line = 0;
	for (char *l = text, *nl; l; l = nl) {
		nl = memchr(l, '\n', (size_t)(text + len - l));
		if (nl)
			*nl++ = '\0';
		line++;
		if (strlen(l) != (size_t)((nl ? nl - 1 : text + len) - l)) {
			add_err(err, errlen, "%s:%ld: NUL byte", file, line);
			bad = 1;
			break;
		}
		char *s = trim(l);
		if (!*s || *s == '#')
			continue;
		char *eq = strrchr(s, '=');
		if (!eq) {
			add_err(err, errlen, "%s:%ld: expected 'pattern = group'", file, line);
			bad = 1;
			continue;
		}
		*eq = '\0';
		char *pat = trim(s), *grp = trim(eq + 1);
		int g = imb_group_lookup(grp);
		if (!*pat) {
			add_err(err, errlen, "%s:%ld: empty pattern", file, line);
			bad = 1;
			continue;
		}
		if (g < 0) {
			add_err(err, errlen, "%s:%ld: unknown group '%.40s' (see doc/imbalance.md)", file,
				line, grp);
			bad = 1;
			continue;
		}
		char **np = realloc(r->pattern, (r->n + 1) * sizeof(*np));
		if (np)
			r->pattern = np;
		int *ng = np ? realloc(r->group, (r->n + 1) * sizeof(*ng)) : NULL;
		if (ng)
			r->group = ng;
		char *d = ng ? strdup(pat) : NULL;
		if (!d) {
			add_err(err, errlen, "%s:%ld: out of memory", file, line);
			bad = 1;
			break;
		}
		r->pattern[r->n] = d;
		r->group[r->n++] = g;
	}
	free(text);
	if (bad) {
		imb_rules_free(r);
		errno = EINVAL;
		return -1;
	}
	return 0;
}
