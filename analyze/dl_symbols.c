/* dl_symbols.c - symbolise call sites and stacks with addr2line.
 *
 * The monitor writes return addresses as object + offset and leaves file:line
 * to the analysis (doc/monitor.md).  Frames are deduplicated first (100,000
 * ranks share a few dozen distinct frames), then each readable object gets
 * one addr2line run for all its offsets.  A return address points after the
 * call instruction, so offset - 1 is looked up, which gives the line of the
 * call.  Nothing here is fatal: frames that cannot be resolved stay as they
 * are. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dl_int.h"

#define BATCH 400

extern char **environ;

struct fref {
	struct dl_frame *f;
};

static int fref_cmp(const void *a, const void *b)
{
	const struct dl_frame *x = ((const struct fref *)a)->f, *y = ((const struct fref *)b)->f;
	if (x->object != y->object)
		return x->object < y->object ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return 0;
}

/* Run addr2line -f -C -e obj addr... and return its output (malloc'd). */
static char *run_addr2line(const char *obj, char **addrs, int n)
{
	char **argv = calloc((size_t)n + 6, sizeof *argv);
	int pfd[2] = {-1, -1};
	char *out = NULL;
	size_t len = 0, cap = 0;
	pid_t pid = -1;
	posix_spawn_file_actions_t fa;
	int fa_ok = 0;
	if (!argv || pipe2(pfd, O_CLOEXEC) < 0)
		goto fail;
	argv[0] = "addr2line";
	argv[1] = "-f";
	argv[2] = "-C";
	argv[3] = "-e";
	argv[4] = (char *)obj;
	for (int i = 0; i < n; i++)
		argv[5 + i] = addrs[i];
	if (posix_spawn_file_actions_init(&fa) != 0)
		goto fail;
	fa_ok = 1;
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, "addr2line", &fa, NULL, argv, environ) != 0) {
		pid = -1;
		goto fail;
	}
	close(pfd[1]);
	pfd[1] = -1;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			size_t ncap = cap ? cap * 2 : 16384;
			char *nb = realloc(out, ncap);
			if (!nb)
				goto fail;
			out = nb;
			cap = ncap;
		}
		ssize_t r = read(pfd[0], out + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	out[len] = '\0';
	goto done;
fail:
	free(out);
	out = NULL;
done:
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	if (pid > 0) {
		int st;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	if (fa_ok)
		posix_spawn_file_actions_destroy(&fa);
	free(argv);
	return out;
}

static void add_ref(struct fref **v, size_t *n, size_t *cap, struct dl_frame *f)
{
	if (f->file || !f->object || !f->offset)
		return;
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 1024;
		struct fref *nv = realloc(*v, ncap * sizeof *nv);
		if (!nv)
			return;
		*v = nv;
		*cap = ncap;
	}
	(*v)[(*n)++].f = f;
}

/* Resolve one batch of distinct offsets of one object; apply to all frames
 * with the same (object, offset) in refs[lo..hi). */
static int resolve(struct dl_ctx *c, struct fref *refs, size_t *starts, int nd)
{
	const char *obj = refs[starts[0]].f->object;
	char **addrs = calloc((size_t)nd + 1, sizeof *addrs);
	char *bufs = calloc((size_t)nd + 1, 24);
	int done = 0;
	if (!addrs || !bufs)
		goto out;
	for (int i = 0; i < nd; i++) {
		unsigned long long off = strtoull(refs[starts[i]].f->offset, NULL, 0);
		snprintf(bufs + 24 * i, 24, "0x%llx", off ? off - 1 : 0);
		addrs[i] = bufs + 24 * i;
	}
	char *out = run_addr2line(obj, addrs, nd);
	if (!out)
		goto out;
	char *save = NULL, *line = strtok_r(out, "\n", &save);
	for (int i = 0; i < nd && line; i++) {
		char *fn = line;
		char *fl = strtok_r(NULL, "\n", &save);
		if (!fl)
			break;
		const char *sym = NULL, *file = NULL;
		int ln = 0;
		if (strcmp(fn, "??"))
			sym = dl_intern(c->pool, fn);
		char *colon = strrchr(fl, ':');
		if (colon && strncmp(fl, "??", 2)) {
			*colon = '\0';
			ln = atoi(colon + 1);
			const char *base = strrchr(fl, '/');
			file = dl_intern(c->pool, base ? base + 1 : fl);
		}
		for (size_t j = starts[i]; j < starts[i + 1]; j++) {
			struct dl_frame *f = refs[j].f;
			if (!f->symbol && sym)
				f->symbol = sym;
			if (file && ln > 0) {
				f->file = file;
				f->line = ln;
				done++;
			}
		}
		line = strtok_r(NULL, "\n", &save);
	}
	free(out);
out:
	free(addrs);
	free(bufs);
	return done;
}

int dl_symbolize(struct dl_ctx *c)
{
	struct fref *refs = NULL;
	size_t n = 0, cap = 0;
	int done = 0;
	for (int r = 0; r < c->size; r++) {
		struct dl_rank *p = c->ranks[r];
		if (!p)
			continue;
		if (p->has_call)
			add_ref(&refs, &n, &cap, &p->call.site);
		for (int i = 0; i < p->nstack; i++)
			add_ref(&refs, &n, &cap, &p->stack[i]);
	}
	if (!n)
		return 0;
	qsort(refs, n, sizeof *refs, fref_cmp);
	size_t *starts = malloc((BATCH + 2) * sizeof *starts);
	if (!starts) {
		free(refs);
		return 0;
	}
	size_t i = 0;
	while (i < n) {
		const char *obj = refs[i].f->object;
		size_t end = i;
		while (end < n && refs[end].f->object == obj)
			end++;
		/* System libraries have no line information worth an addr2line run
		 * (the monitor gives their symbols already). */
		if (access(obj, R_OK) != 0 || !strncmp(obj, "/lib/", 5) || !strncmp(obj, "/lib64/", 7) ||
		    !strncmp(obj, "/usr/lib/", 9) || !strncmp(obj, "/usr/lib64/", 11)) {
			i = end;
			continue;
		}
		/* distinct offsets in batches */
		size_t j = i;
		while (j < end) {
			int nd = 0;
			while (j < end && nd < BATCH) {
				starts[nd++] = j;
				const char *off = refs[j].f->offset;
				while (j < end && refs[j].f->offset == off)
					j++;
			}
			starts[nd] = j;
			done += resolve(c, refs, starts, nd);
		}
		i = end;
	}
	free(starts);
	free(refs);
	return done;
}
