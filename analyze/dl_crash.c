/* dl_crash.c - the MPI library's crash reports (dl_crash.h). */
#include "dl_crash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl.h"

/* "[host:pid] " at the start of line: the pid, or -1. */
static long bracket_pid(const char *line)
{
	const char *c, *e;
	if (line[0] != '[' || !(e = strchr(line, ']')) || !(c = memchr(line, ':', (size_t)(e - line))))
		return -1;
	char *end;
	long v = strtol(c + 1, &end, 10);
	return end == e && v > 0 ? v : -1;
}

int dl_crash_parse(const char *line, struct dl_crash_bt *bt)
{
	long pid = bracket_pid(line);
	const char *p, *o, *q;
	/* UCX's: "==== backtrace (tid:  16603) ====", " 4  /obj(+0x11c3) [0x...]",
	 * then a line of '='; its signal handler's frames come before libc's
	 * trampoline, which is taken as frame 0. */
	if (!strncmp(line, "==== backtrace (tid:", 20)) {
		memset(bt, 0, sizeof *bt);
		bt->pid = strtol(line + 20, NULL, 10);
		bt->ucx = bt->pid > 0;
		return 0;
	}
	if (bt->ucx && bt->pid > 0) {
		char *end;
		if (line[0] == '=' && strspn(line, "=") == strlen(line))
			return bt->ucx = 0, bt->n > 0;
		long idx = strtol(line, &end, 10);
		if (end == line || idx < 0 || bt->n >= DL_CRASH_MAX)
			return 0;
		o = end + strspn(end, " ");
		if (!(q = strchr(o, '(')) || q == o || !strchr(q, ')'))
			return 0;
		int k = bt->n++;
		bt->f[k].index = (int)idx + 1;
		snprintf(bt->f[k].object, sizeof bt->f[k].object, "%.*s", (int)(q - o), o);
		bt->f[k].offset = q[1] == '+' ? strtoull(q + 2, NULL, 16) : 0;
		bt->f[k].symbol[0] = 0;
		if (q[1] != '+' && q[1] != ')')
			snprintf(bt->f[k].symbol, sizeof bt->f[k].symbol, "%.*s", (int)strcspn(q + 1, "+)"), q + 1);
		const char *b = strrchr(bt->f[k].object, '/');
		if (!bt->trampoline && bt->f[k].offset && !strncmp(b ? b + 1 : bt->f[k].object, "libc.so", 7)) {
			bt->f[0] = bt->f[k]; /* drop UCX's own frames before it */
			bt->f[0].index = 0;
			bt->n = 1;
			bt->trampoline = 1;
		}
		return 0;
	}
	if (pid < 0)
		return 0;
	if (strstr(line, "*** Process received signal ***")) {
		memset(bt, 0, sizeof *bt);
		bt->pid = pid;
		snprintf(bt->host, sizeof bt->host, "%.*s", (int)strcspn(line + 1, ":"), line + 1);
		return 0;
	}
	if (bt->pid != pid)
		return 0;
	if (strstr(line, "*** End of error message ***"))
		return bt->n > 0;
	/* "[host:pid] [ 3] /path/obj(+0x1263)[0x...]" or "(symbol+0x12)" */
	p = strchr(line, ']') + 1;
	while (*p == ' ')
		p++;
	if (*p != '[' || bt->n >= DL_CRASH_MAX)
		return 0;
	char *end;
	long idx = strtol(p + 1 + strspn(p + 1, " "), &end, 10);
	if (end == p + 1 || *end != ']' || idx < 0)
		return 0;
	o = end + 1;
	while (*o == ' ')
		o++;
	if (!(q = strchr(o, '(')) || q == o || !strchr(q, ')'))
		return 0;
	bt->f[bt->n].index = (int)idx;
	snprintf(bt->f[bt->n].object, sizeof bt->f[bt->n].object, "%.*s", (int)(q - o), o);
	bt->f[bt->n].offset = 0;
	bt->f[bt->n].symbol[0] = 0;
	if (q[1] == '+')
		bt->f[bt->n].offset = strtoull(q + 2, NULL, 16);
	else if (q[1] != ')')
		snprintf(bt->f[bt->n].symbol, sizeof bt->f[bt->n].symbol, "%.*s", (int)strcspn(q + 1, "+)"),
			 q + 1);
	bt->n++;
	return 0;
}

int dl_crash_text(const struct dl_crash_bt *bt, char *buf, size_t len)
{
	size_t used = 0;
	int n = 0;
	buf[0] = 0;
	for (int i = 0; i < bt->n && used + 1 < len; i++) {
		char fn[256] = "", file[256] = "", fr[600];
		int line = 0, k = -1;
		if (bt->f[i].index == 0)
			continue; /* the signal trampoline */
		const char *obj = bt->f[i].object, *base = strrchr(obj, '/') ? strrchr(obj, '/') + 1 : obj;
		int sys = !strncmp(obj, "/lib/", 5) || !strncmp(obj, "/lib64/", 7) ||
			  !strncmp(obj, "/usr/lib/", 9) || !strncmp(obj, "/usr/lib64/", 11);
		if (bt->f[i].offset)
			/* the frame after the trampoline is the faulting PC itself */
			k = dl_sym_lookup(bt->f[i].object, bt->f[i].offset, i > 0 && bt->f[i - 1].index == 0,
					  fn, sizeof fn, file, sizeof file, &line);
		if (!fn[0])
			snprintf(fn, sizeof fn, "%s", bt->f[i].symbol);
		if (sys && (fn[0] || k >= 0)) /* the system's libraries: where, not why */
			snprintf(fr, sizeof fr, "%s (in %s)", fn[0] ? fn : "??", base);
		else if (k == 1)
			snprintf(fr, sizeof fr, "%s (%s:%d)", fn[0] ? fn : "??", file, line);
		else if (fn[0])
			snprintf(fr, sizeof fr, "%s (in %s, no source line: no debug info)", fn, base);
		else
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s", n ? "\t" : "", fr);
		n++;
	}
	return n;
}

int dl_mpierr_parse(const char *line, struct dl_mpierr_state *st, int *rank, char *msg, size_t len)
{
	const char *p;
	long v;

	/* Open MPI: "[host:pid] *** An error occurred in MPI_Bcast" ... */
	if ((p = strstr(line, "*** An error occurred in "))) {
		p += strlen("*** An error occurred in ");
		snprintf(st->call, sizeof st->call, "%.*s", (int)strcspn(p, " \t\r"), p);
		st->rank = -1;
		return 0;
	}
	if (st->call[0] && (p = strstr(line, "*** reported by process ["))) {
		p = strchr(p, ',');
		v = p ? strtol(p + 1, NULL, 10) : -1;
		st->rank = v >= 0 && v < 0x7fffffff ? (int)v : -1;
		return 0;
	}
	if (st->call[0] && st->rank >= 0 && (p = strstr(line, "*** MPI_ERR"))) {
		p += 4;
		*rank = st->rank;
		snprintf(msg, len, "%s: %.*s", st->call, (int)strcspn(p, "\r"), p);
		st->call[0] = 0;
		st->rank = -1;
		return 1;
	}
	if (st->call[0] && strstr(line, "*** MPI_ERRORS_ARE_FATAL"))
		st->call[0] = 0; /* the block ended without an error class */
	/* MPICH: "Abort(N) on node X (rank R in comm C): Fatal error in F: MSG, error stack:" */
	char *end;
	if (!strncmp(line, "Abort(", 6) && (p = strstr(line, "(rank ")) &&
	    (v = strtol(p + 6, &end, 10)) >= 0 && end != p + 6 && v < 0x7fffffff &&
	    (p = strstr(line, "): "))) {
		size_t n;
		p += 3;
		n = strlen(p);
		if (n >= 14 && !strcmp(p + n - 14, ", error stack:"))
			n -= 14;
		*rank = (int)v;
		snprintf(msg, len, "%.*s", (int)n, p);
		return 1;
	}
	return 0;
}
