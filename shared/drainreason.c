/* drainreason.c - the Slurm reason of mpiwatch's drains (drainreason.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "drainreason.h"

#define JOB_WORD " job "

int mw_drain_reason_format(char *buf, size_t len, const char *job, const char *summary)
{
	if (!buf || len == 0)
		return -1;
	return snprintf(buf, len, "%s%s%s: %s", MW_DRAIN_REASON_PREFIX, JOB_WORD, job ? job : "",
			summary ? summary : "");
}

int mw_drain_reason_ours(const char *reason)
{
	return reason && !strncmp(reason, MW_DRAIN_REASON_PREFIX, strlen(MW_DRAIN_REASON_PREFIX));
}

int mw_drain_reason_parse(const char *reason, char *job, size_t joblen, const char **summary)
{
	const char *p, *end;
	size_t n;

	if (job && joblen)
		job[0] = '\0';
	if (!mw_drain_reason_ours(reason)) {
		if (summary)
			*summary = NULL;
		errno = ENOENT;
		return -1;
	}
	p = reason + strlen(MW_DRAIN_REASON_PREFIX);
	if (summary) {
		const char *s = p;
		while (*s == ' ')
			s++;
		*summary = s;
	}
	if (strncmp(p, JOB_WORD, strlen(JOB_WORD)))
		goto bad;
	p += strlen(JOB_WORD);
	end = strchr(p, ':');
	if (!end || end[1] != ' ')
		goto bad;
	n = (size_t)(end - p);
	{
		char id[sizeof(((struct mw_drainreq *)0)->job)];
		if (n == 0 || n >= sizeof(id))
			goto bad;
		memcpy(id, p, n);
		id[n] = '\0';
		if (!mw_drainreq_valid_job(id))
			goto bad;
		if (job && joblen)
			snprintf(job, joblen, "%s", id);
	}
	if (summary)
		*summary = end + 2;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}
