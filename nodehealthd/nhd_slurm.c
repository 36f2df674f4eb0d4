/* nhd_slurm.c - what nodehealthd asks Slurm (through scontrol). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "drainreq.h"
#include "nhd_slurm.h"

#define SCONTROL_TIMEOUT 20.0

static void scopy(char *dst, size_t n, const char *s)
{
	size_t l = strnlen(s, n - 1);
	memcpy(dst, s, l);
	dst[l] = 0;
}

time_t nhd_slurm_time(const char *s)
{
	struct tm tm;
	const char *end;
	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end || *end)
		return 0;
	tm.tm_isdst = -1;
	return mktime(&tm);
}

void nhd_slurm_job_free(struct nhd_job *j)
{
	free(j->nodelist);
	j->nodelist = NULL;
}

int nhd_slurm_parse_job(const char *text, struct nhd_job *j)
{
	const char *line = text;
	char val[4096];
	size_t len = 0;
	int found = 0;

	memset(j, 0, sizeof(*j));
	j->uid = -1;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t ll = nl ? (size_t)(nl - line) : strlen(line);
		char *rec = strndup(line, ll);
		if (!rec)
			goto nomem;
		if (mw_drain_kv(rec, "JobId", val, sizeof(val)) >= 0) {
			if (!found) {
				char *paren;
				found = 1;
				if (mw_drain_kv(rec, "UserId", val, sizeof(val)) >= 0) {
					paren = strchr(val, '(');
					if (paren) {
						j->uid = strtol(paren + 1, NULL, 10);
						*paren = 0;
					}
					scopy(j->user, sizeof(j->user), val);
				}
				if (mw_drain_kv(rec, "JobState", val, sizeof(val)) >= 0)
					scopy(j->state, sizeof(j->state), val);
				if (mw_drain_kv(rec, "EndTime", val, sizeof(val)) >= 0)
					j->end_time = nhd_slurm_time(val);
			}
			if (mw_drain_kv(rec, "NodeList", val, sizeof(val)) >= 0 && strcmp(val, "(null)") &&
			    val[0]) {
				size_t vl = strlen(val);
				char *nb = realloc(j->nodelist, len + vl + 2);
				if (!nb) {
					free(rec);
					goto nomem;
				}
				j->nodelist = nb;
				if (len)
					j->nodelist[len++] = ',';
				memcpy(j->nodelist + len, val, vl + 1);
				len += vl;
			}
		}
		free(rec);
		line = nl ? nl + 1 : NULL;
	}
	if (!j->nodelist && !(j->nodelist = strdup("")))
		goto nomem;
	if (!found) {
		nhd_slurm_job_free(j);
		errno = EINVAL;
		return -1;
	}
	return 0;
nomem:
	nhd_slurm_job_free(j);
	errno = ENOMEM;
	return -1;
}

long nhd_slurm_parse_nodes(const char *text, struct nhd_node **nodes)
{
	struct nhd_node *v = NULL;
	size_t n = 0, cap = 0;
	const char *line = text;

	*nodes = NULL;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t ll = nl ? (size_t)(nl - line) : strlen(line);
		char *rec = strndup(line, ll);
		struct nhd_node x;
		if (!rec)
			goto nomem;
		memset(&x, 0, sizeof(x));
		if (mw_drain_kv(rec, "NodeName", x.name, sizeof(x.name)) > 0) {
			if (mw_drain_kv(rec, "NodeAddr", x.addr, sizeof(x.addr)) <= 0)
				snprintf(x.addr, sizeof(x.addr), "%s", x.name);
			mw_drain_kv(rec, "State", x.state, sizeof(x.state));
			mw_drain_kv(rec, "Reason", x.reason, sizeof(x.reason));
			if (!strcmp(x.reason, "(null)"))
				x.reason[0] = 0;
			if (n == cap) {
				struct nhd_node *nv = realloc(v, (cap ? cap * 2 : 16) * sizeof(*v));
				if (!nv) {
					free(rec);
					goto nomem;
				}
				v = nv;
				cap = cap ? cap * 2 : 16;
			}
			v[n++] = x;
		}
		free(rec);
		line = nl ? nl + 1 : NULL;
	}
	*nodes = v;
	return (long)n;
nomem:
	free(v);
	errno = ENOMEM;
	return -1;
}

/* Run scontrol with args; on failure put its first output line in err. */
static int run_scontrol(const struct nhd_conf *c, char *const args[], char **out, char *err, size_t errlen)
{
	char *argv[16];
	int i = 0, rc;
	argv[i++] = c->scontrol;
	for (int k = 0; args[k] && i < 15; k++)
		argv[i++] = args[k];
	argv[i] = NULL;
	rc = mw_drain_run(argv, NULL, SCONTROL_TIMEOUT, out);
	if (rc < 0) {
		snprintf(err, errlen, "cannot run %s: %s", c->scontrol, strerror(errno));
		return -1;
	}
	if (rc != 0) {
		char *o = out && *out ? *out : "";
		size_t l = strcspn(o, "\n");
		snprintf(err, errlen, "scontrol failed (status %d): %.*s", rc, (int)(l > 200 ? 200 : l), o);
		return -1;
	}
	return 0;
}

int nhd_slurm_job(const struct nhd_conf *c, const char *jobid, struct nhd_job *j, char *err, size_t errlen)
{
	char *out = NULL;
	char *args[] = {"show", "job", "-o", (char *)jobid, NULL};
	int rv = -1;

	memset(j, 0, sizeof(*j));
	if (run_scontrol(c, args, &out, err, errlen) < 0)
		goto fail;
	if (nhd_slurm_parse_job(out, j) < 0) {
		snprintf(err, errlen, "job %s: no job record in scontrol output", jobid);
		goto fail;
	}
	rv = 0;
fail:
	free(out);
	return rv;
}

long nhd_slurm_nodes(const struct nhd_conf *c, struct nhd_node **nodes, char *err, size_t errlen)
{
	char *out = NULL;
	char *args[] = {"show", "node", "-o", NULL};
	long n = -1;

	*nodes = NULL;
	if (run_scontrol(c, args, &out, err, errlen) == 0) {
		n = nhd_slurm_parse_nodes(out, nodes);
		if (n < 0)
			snprintf(err, errlen, "out of memory");
	}
	free(out);
	return n;
}

int nhd_slurm_drain(const struct nhd_conf *c, const char *node, const char *reason, char *err, size_t errlen)
{
	char a1[128], a3[512], *out = NULL;
	char *args[] = {"update", a1, "State=DRAIN", a3, NULL};
	int rv;

	snprintf(a1, sizeof(a1), "NodeName=%s", node);
	snprintf(a3, sizeof(a3), "Reason=%s", reason);
	rv = run_scontrol(c, args, &out, err, errlen);
	free(out);
	return rv;
}
