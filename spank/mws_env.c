/* mws_env.c - LD_PRELOAD editing and the job's paths. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fsutil.h"
#include "mws_env.h"

/* Whether lib is one of the entries of an LD_PRELOAD value. */
static int has_entry(const char *cur, const char *lib)
{
	size_t ll = strlen(lib);
	const char *p = cur;

	while (p && *p) {
		size_t n;
		while (*p == ' ' || *p == ':')
			p++;
		n = strcspn(p, " :");
		if (n == ll && !strncmp(p, lib, n))
			return 1;
		p += n;
	}
	return 0;
}

int mws_preload_append(const char *cur, const char *lib, char *out, size_t len)
{
	int n;

	if (!cur || !*cur)
		n = snprintf(out, len, "%s", lib);
	else if (has_entry(cur, lib))
		n = snprintf(out, len, "%s", cur);
	else
		n = snprintf(out, len, "%s %s", cur, lib);
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int mws_preload_remove(const char *cur, const char *lib, char *out, size_t len)
{
	size_t ll = strlen(lib), used = 0;
	const char *p = cur;

	if (!len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	out[0] = '\0';
	while (p && *p) {
		size_t n;
		while (*p == ' ' || *p == ':')
			p++;
		n = strcspn(p, " :");
		if (n && !(n == ll && !strncmp(p, lib, n))) {
			if (used + n + 2 > len) {
				errno = ENAMETOOLONG;
				return -1;
			}
			if (used)
				out[used++] = ' ';
			memcpy(out + used, p, n);
			used += n;
			out[used] = '\0';
		}
		p += n;
	}
	return 0;
}

int mws_rundir(const char *base, unsigned uid, unsigned jobid, const char *host, char *out,
	       size_t len)
{
	char job[16];
	snprintf(job, sizeof(job), "%u", jobid);
	return mw_rundir_path(out, len, base, uid, job, host);
}
