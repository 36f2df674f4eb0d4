/* stall.c - the one stall rule (stall.h). */
#include "stall.h"

#include <string.h>

enum mw_stall_class mw_stall_rule(struct mw_stall *st, const struct mw_slot *s, double now,
				  double timeout_s)
{
	double T = timeout_s;
	int stuck, polling;

	if (!st->init) {
		st->init = 1;
		st->a = s->a;
		st->completions = s->completions;
		st->calls = s->calls;
		st->motion = s->motion;
		st->tests_at_completion = s->tests;
		st->t_a = st->t_completion = st->t_call = now;
		st->t_motion = -1e300; /* no movement seen yet */
	}
	if (s->a != st->a) {
		st->a = s->a;
		st->t_a = now;
	}
	if (s->completions != st->completions) {
		st->completions = s->completions;
		st->t_completion = now;
		st->tests_at_completion = s->tests;
	}
	if (s->calls != st->calls) {
		st->calls = s->calls;
		st->t_call = now;
	}
	if (s->motion != st->motion) {
		st->motion = s->motion;
		st->t_motion = now;
	}
	stuck = s->state == MW_STATE_IN_MPI && s->call.blocking && s->a != s->b &&
		now - st->t_a >= T && now - st->t_completion >= T;
	polling = !stuck && (s->pending > 0 || s->call.kind == MW_KIND_TEST) &&
		  s->tests >= st->tests_at_completion + 2 && now - st->t_completion >= T &&
		  now - st->t_call < T;
	if (stuck || polling)
		return now - st->t_motion < T ? MW_STALL_SLOW : stuck ? MW_STALL_STUCK : MW_STALL_POLLING;
	if (s->state == MW_STATE_COMPUTING && now - mw_stall_t_outside(st) >= T)
		return MW_STALL_COMPUTING;
	return MW_STALL_FINE;
}

double mw_stall_t_outside(const struct mw_stall *st)
{
	/* A blocking call's return counts as a completion; any other call
	 * returns about when it starts. */
	return st->t_call > st->t_completion ? st->t_call : st->t_completion;
}

const char *mw_stall_name(int cls)
{
	static const char *const n[] = {"fine", "stuck", "polling", "slow", "computing"};
	return cls >= 0 && cls < (int)(sizeof(n) / sizeof(n[0])) ? n[cls] : "?";
}

int mw_stall_init_call(const char *call)
{
	return call && (!strcmp(call, "MPI_Init") || !strcmp(call, "MPI_Init_thread"));
}
