/* nhd_drain.c - confirmed drains: the rules a drain request must pass (the
 * procedure that applies them on the loop is nhd_drainop.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "drainreason.h"
#include "hostlist.h"
#include "nhd_drain.h"

size_t nhd_storm_recent(struct nhd_storm *s, double now, double window)
{
	size_t j = 0;
	for (size_t i = 0; i < s->n; i++)
		if (now - s->t[i] < window)
			s->t[j++] = s->t[i];
	s->n = j;
	return j;
}

void nhd_storm_add(struct nhd_storm *s, double now)
{
	if (s->n == NHD_STORM_MAX) {
		memmove(s->t, s->t + 1, (NHD_STORM_MAX - 1) * sizeof(s->t[0]));
		s->n--;
	}
	s->t[s->n++] = now;
}

int nhd_storm_allow(const struct nhd_conf *c, size_t local_recent, size_t cluster_drained,
		    size_t cluster_total, char *why, size_t whylen)
{
	size_t frac_max = (size_t)(c->storm_max_fraction * (double)cluster_total);
	if (frac_max < 1)
		frac_max = 1;
	if (local_recent + 1 > (size_t)c->storm_max_per_window) {
		snprintf(why, whylen,
			 "storm guard: this daemon already drained %zu node(s) in the last %.0f s "
			 "(storm_max_per_window = %ld)",
			 local_recent, c->storm_window, c->storm_max_per_window);
		return 0;
	}
	if (cluster_drained + 1 > (size_t)c->storm_max_drained) {
		snprintf(why, whylen,
			 "storm guard: %zu node(s) are already drained by mpiwatch "
			 "(storm_max_drained = %ld)",
			 cluster_drained, c->storm_max_drained);
		return 0;
	}
	if (cluster_drained + 1 > frac_max) {
		snprintf(why, whylen,
			 "storm guard: %zu of %zu nodes are already drained by mpiwatch; one more "
			 "exceeds storm_max_fraction = %g",
			 cluster_drained, cluster_total, c->storm_max_fraction);
		return 0;
	}
	return 1;
}

static int state_in(const char *state, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(state, *list))
			return 1;
	return 0;
}

int nhd_job_eligible(const struct mw_slurm_job *j, time_t now, long grace, char *why, size_t whylen)
{
	static const char *const running[] = {"RUNNING", "COMPLETING", "SUSPENDED", "CONFIGURING", NULL};
	static const char *const ended[] = {"FAILED",        "NODE_FAIL", "TIMEOUT",   "CANCELLED",
					    "COMPLETED",     "DEADLINE",  "BOOT_FAIL", "OUT_OF_MEMORY",
					    NULL};
	if (state_in(j->state, running))
		return 1;
	if (state_in(j->state, ended)) {
		if (j->end_time > 0 && now - j->end_time <= grace)
			return 1;
		snprintf(why, whylen, "job ended (%s) more than job_grace = %ld s ago", j->state, grace);
		return 0;
	}
	snprintf(why, whylen, "job is %s, neither running nor just ended", j->state[0] ? j->state : "in an unknown state");
	return 0;
}

int nhd_nodelist_has(const char *nodelist, const char *node)
{
	struct mw_hostlist hl = {0};
	int found = 0;
	if (mw_hostlist_expand(nodelist, 65536, &hl) < 0)
		return -1;
	for (size_t i = 0; i < hl.n && !found; i++)
		found = !strcmp(hl.host[i], node);
	mw_hostlist_free(&hl);
	return found;
}

int nhd_reason_ours(const char *reason)
{
	return mw_drain_reason_ours(reason);
}

