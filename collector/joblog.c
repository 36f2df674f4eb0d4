/* joblog.c - crash reports from the job's output file (joblog.h). */
#include "joblog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dl_crash.h"

int col_joblog_path(const struct mw_slurm_job *j, const char *jobid, char *buf, size_t len)
{
	char pat[4096];
	size_t used = 0;
	if (!j->batch)
		return -1;
	if (j->std_err[0])
		snprintf(pat, sizeof pat, "%s", j->std_err);
	else if (j->std_out[0])
		snprintf(pat, sizeof pat, "%s", j->std_out);
	else
		snprintf(pat, sizeof pat, "slurm-%%j.out");
	if (pat[0] != '/') {
		if (!j->workdir[0] || j->workdir[0] != '/')
			return -1;
		used = (size_t)snprintf(buf, len, "%s/", j->workdir);
		if (used >= len)
			return -1;
	}
	for (const char *p = pat; *p; p++) {
		const char *add;
		char one[2] = {*p, 0};
		if (*p != '%') {
			add = one;
		} else {
			switch (*++p) {
			case 'j':
			case 'J':
			case 'A':
				add = jobid;
				break;
			case 'u':
				if (!j->user[0])
					return -1;
				add = j->user;
				break;
			case '%':
				add = "%";
				break;
			default: /* %x, %N, %t...: not this file (or not one file) */
				return -1;
			}
		}
		size_t n = strlen(add);
		if (used + n >= len)
			return -1;
		memcpy(buf + used, add, n + 1);
		used += n;
	}
	return 0;
}

/* The rank of s whose process is pid on host ("" unknown), or -1. */
static int rank_of(const struct col_state *s, long pid, const char *host)
{
	int found = -1;
	for (size_t i = 0; i < s->size; i++) {
		const struct col_rank *x = &s->ranks[i];
		if (x->pid <= 0 || x->pid != pid)
			continue;
		if (host[0] && x->node >= 0) {
			const char *n = s->nodes[x->node].name;
			size_t k = strlen(n);
			if (strcmp(host, n) && !(strncmp(host, n, k) == 0 && host[k] == '.'))
				continue;
		}
		if (found >= 0)
			return -1; /* two ranks with that pid and no host to tell them apart */
		found = (int)i;
	}
	return found;
}

/* Append "RANK<TAB>LINE\n" to *text (s->crash_stacks, s->mpi_errors), the
 * line's control characters but TAB made spaces. */
static int add_line(char **text, int rank, const char *line)
{
	size_t old = *text ? strlen(*text) : 0, n = strlen(line);
	char *t = realloc(*text, old + n + 16);
	if (!t)
		return -1;
	old += (size_t)snprintf(t + old, 16, "%d\t", rank);
	for (size_t i = 0; i < n; i++)
		t[old + i] = (unsigned char)line[i] < 0x20 && line[i] != '\t' ? ' ' : line[i];
	memcpy(t + old + n, "\n", 2);
	*text = t;
	return 0;
}

char *col_joblog_read(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	char *text;
	ssize_t got;
	off_t from;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	from = st.st_size > COL_JOBLOG_TAIL ? st.st_size - COL_JOBLOG_TAIL : 0;
	if (!(text = malloc(COL_JOBLOG_TAIL + 1))) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	got = pread(fd, text, COL_JOBLOG_TAIL, from);
	close(fd);
	if (got < 0) {
		free(text);
		return NULL;
	}
	text[got] = 0;
	return text;
}

int col_joblog_apply(struct col_state *s, char *text, int *nerr)
{
	struct dl_mpierr_state est = {"", -1};
	struct dl_crash_bt *bt = calloc(1, sizeof *bt);
	char *line, *next;
	int added = 0;
	*nerr = 0;
	if (!bt) {
		errno = ENOMEM;
		return -1;
	}
	for (line = text; line && *line; line = next) {
		char stack[2048], have[8];
		int r;
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		line[strcspn(line, "\r")] = 0;
		if (dl_mpierr_parse(line, &est, &r, stack, sizeof stack) && r >= 0 && (size_t)r < s->size &&
		    !col_rank_line(s->mpi_errors, r, have, sizeof have) && add_line(&s->mpi_errors, r, stack) == 0)
			(*nerr)++;
		if (!dl_crash_parse(line, bt))
			continue;
		r = rank_of(s, bt->pid, bt->host);
		if (r >= 0 && !col_rank_line(s->crash_stacks, r, have, sizeof have) &&
		    dl_crash_text(bt, stack, sizeof stack) > 0 && add_line(&s->crash_stacks, r, stack) == 0)
			added++;
		bt->pid = 0;
	}
	free(bt);
	return added;
}

int col_joblog_scan(struct col_state *s, const char *path, int *nerr)
{
	char *text = col_joblog_read(path);
	int n;
	*nerr = 0;
	if (!text)
		return -1;
	n = col_joblog_apply(s, text, nerr);
	free(text);
	return n;
}
