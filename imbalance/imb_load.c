/* imb_load.c - read a directory of TAU profiles (profile.N.C.T), taking the
 * TIME metric when the directory holds MULTI__<metric> subdirectories. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "imb.h"

#define IMB_MAX_NODE (1 << 24) /* as --expect-size of the deadlock analysis */
#define IMB_MAX_FILE (256L << 20) /* a text profile larger than this is not one */

int imb_profile_name(const char *s, int *n, int *c, int *t)
{
	int *v[3] = {n, c, t};
	const char *p;
	if (strncmp(s, "profile.", 8))
		return -1;
	p = s + 8;
	for (int i = 0; i < 3; i++) { /* digits only: no sign, blank or overflow */
		long x = 0;
		if (*p < '0' || *p > '9')
			return -1;
		while (*p >= '0' && *p <= '9')
			if ((x = x * 10 + (*p++ - '0')) > INT_MAX)
				return -1;
		*v[i] = (int)x;
		if (i < 2 && *p++ != '.')
			return -1;
	}
	return *p ? -1 : 0;
}

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The directory holding the TIME profiles: dir itself, dir/MULTI__TIME, or
 * the first (sorted) MULTI__*TIME* directory.  Return a malloc'd path. */
static char *time_dir(const char *dir)
{
	struct dirent **ent;
	int n = scandir(dir, &ent, NULL, alphasort);
	char *best = NULL;
	if (n < 0)
		return NULL;
	for (int i = 0; i < n; i++) {
		const char *nm = ent[i]->d_name;
		if (!strncmp(nm, "MULTI__", 7)) {
			int exact = !strcmp(nm, "MULTI__TIME");
			if (exact || (!best && strstr(nm + 7, "TIME"))) {
				char *p;
				if (asprintf(&p, "%s/%s", dir, nm) >= 0 && is_dir(p)) {
					free(best);
					best = p;
					if (exact)
						exact = 2;
				} else if (p) {
					free(p);
				}
			}
			if (exact == 2)
				break;
		}
	}
	for (int i = 0; i < n; i++)
		free(ent[i]);
	free(ent);
	return best ? best : strdup(dir);
}

int imb_read_file(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	size_t cap = 65536, n = 0;
	char *b = malloc(cap);
	while (b) {
		size_t r = fread(b + n, 1, cap - n, f);
		n += r;
		if (n < cap)
			break;
		if (cap >= (size_t)IMB_MAX_FILE) {
			free(b);
			fclose(f);
			errno = EFBIG;
			return -1;
		}
		char *nb = realloc(b, cap *= 2);
		if (!nb)
			free(b);
		b = nb;
	}
	int e = ferror(f);
	fclose(f);
	if (!b || e) {
		free(b);
		errno = b ? EIO : ENOMEM;
		return -1;
	}
	*buf = b, *len = n;
	return 0;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct imb_profile *x = a, *y = b;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->context != y->context)
		return x->context < y->context ? -1 : 1;
	return (x->thread > y->thread) - (x->thread < y->thread);
}

void imb_job_free(struct imb_job *job)
{
	for (size_t i = 0; job->proc && i < job->nproc; i++)
		imb_profile_free(&job->proc[i]);
	free(job->proc);
	free(job->missing);
	free(job->dir);
	memset(job, 0, sizeof(*job));
}

int imb_job_load(const char *dir, struct imb_job *job, char *err, size_t errlen)
{
	return imb_job_load_progress(dir, job, err, errlen, NULL, NULL);
}

int imb_job_load_progress(const char *dir, struct imb_job *job, char *err, size_t errlen,
			  void (*progress)(size_t done, size_t total, void *arg), void *arg)
{
	struct dirent **ent = NULL;
	int n = -1;
	memset(job, 0, sizeof(*job));
	if (err && errlen)
		err[0] = '\0';
	if (!(job->dir = time_dir(dir))) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	n = scandir(job->dir, &ent, NULL, alphasort);
	if (n < 0) {
		snprintf(err, errlen, "%s: %s", job->dir, strerror(errno));
		goto fail;
	}
	job->proc = calloc((size_t)n + 1, sizeof(*job->proc));
	if (!job->proc) {
		snprintf(err, errlen, "%s: out of memory", job->dir);
		goto fail;
	}
	for (int i = 0; i < n; i++) {
		int pn, pc, pt;
		if (imb_profile_name(ent[i]->d_name, &pn, &pc, &pt) < 0)
			continue;
		char *path = NULL, *buf = NULL;
		size_t len;
		if (asprintf(&path, "%s/%s", job->dir, ent[i]->d_name) < 0) {
			snprintf(err, errlen, "%s: out of memory", job->dir);
			goto fail;
		}
		if (imb_read_file(path, &buf, &len) < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			free(path);
			goto fail;
		}
		struct imb_profile *p = &job->proc[job->nproc];
		int rc = imb_profile_parse(buf, len, path, p, err, errlen);
		free(buf);
		free(path);
		if (rc < 0)
			goto fail;
		p->node = pn, p->context = pc, p->thread = pt;
		job->nproc++;
		if (progress && i % 256 == 255)
			progress((size_t)i + 1, (size_t)n, arg);
	}
	if (progress)
		progress((size_t)n, (size_t)n, arg);
	if (!job->nproc) {
		snprintf(err, errlen, "%s: no profile.N.C.T file", job->dir);
		goto fail;
	}
	qsort(job->proc, job->nproc, sizeof(*job->proc), cmp_proc);
	int maxn = job->proc[job->nproc - 1].node;
	if (maxn >= IMB_MAX_NODE) {
		snprintf(err, errlen, "%s: profile.%d.*: node number beyond %d", job->dir, maxn, IMB_MAX_NODE - 1);
		goto fail;
	}
	char *seen = calloc((size_t)maxn + 1, 1);
	if (!seen) {
		snprintf(err, errlen, "%s: out of memory", job->dir);
		goto fail;
	}
	for (size_t i = 0; i < job->nproc; i++)
		seen[job->proc[i].node] = 1;
	for (int r = 0; r <= maxn; r++)
		job->nmissing += !seen[r];
	if (job->nmissing) {
		job->missing = malloc(job->nmissing * sizeof(int));
		if (!job->missing) {
			free(seen);
			snprintf(err, errlen, "%s: out of memory", job->dir);
			goto fail;
		}
		size_t k = 0;
		for (int r = 0; r <= maxn; r++)
			if (!seen[r])
				job->missing[k++] = r;
	}
	free(seen);
	for (int i = 0; i < n; i++)
		free(ent[i]);
	free(ent);
	return 0;
fail:
	for (int i = 0; i < n; i++)
		free(ent[i]);
	free(ent);
	imb_job_free(job);
	return -1;
}
