/* coleval.c - the collector's evaluation (coleval.h), a state machine on
 * the collector's clock (c->env.now): heartbeats, dumps and lost agents
 * move the per-rank state; crossing the threshold schedules an evaluation
 * after the settle time; an evaluation probes (colprobe.c), classifies
 * (verdict.c), and then decides, waits (for the other ranks' ends, the MPI
 * library's line, the hang limit: each by scheduling itself again), or
 * notes a long computation; a verdict is acted on (colact.c) and written
 * (colreports.c).  Every wait is a time on the clock (c->eval_at, the
 * retries' times) that the loop turns into a timer (col_eval_next).
 */
#include "coleval.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "colact.h"
#include "collinks.h"
#include "colprobe.h"
#include "colreports.h"
#include "coltree.h"
#include "fsutil.h"
#include "log.h"
#include "settings.h"

static struct mw_ratelimit peer_rl = MW_RATELIMIT_INIT(1, 10);

long col_eval_suspicious(const struct col_state *s)
{
	long n = 0;
	for (size_t i = 0; i < s->size; i++)
		n += col_state_suspicious(s->ranks[i].state);
	return n;
}

static long job_ranks(const struct collector *c)
{
	return c->s.expected_ranks > 0 ? c->s.expected_ranks : (long)c->s.size;
}

void col_eval_schedule(struct collector *c, double delay)
{
	double at = col_now(c) + delay;
	if (c->s.decided)
		return;
	if (!c->pending || at < c->eval_at)
		c->eval_at = at;
	c->pending = 1;
}

/* Whether everything an evaluation waits for after the threshold is in:
 * every rank of the job known, stuck in MPI, with its dump (no other rank
 * can still cross the timeout, no dump can still come). */
static int all_in(const struct collector *c)
{
	long n = job_ranks(c);
	if (n <= 0 || (size_t)n > c->s.size)
		return 0;
	for (long i = 0; i < n; i++)
		if (c->s.ranks[i].state != MW_HB_S_IN_MPI || !c->s.ranks[i].has_dump)
			return 0;
	return 1;
}

static void check_threshold(struct collector *c)
{
	long n = col_eval_suspicious(&c->s), need = col_threshold_setting_need(job_ranks(c));
	if (c->s.decided || n < need || c->gen == c->eval_gen)
		return;
	if (!c->pending) {
		if (c->s.threshold_mono <= 0)
			c->s.threshold_mono = col_now(c);
		col_state_event(&c->s, "threshold", "%ld suspicious rank(s) >= threshold %s (%ld needed)",
				n, mw_setting_str(MW_SET_THRESHOLD), need);
		col_links_dumpreq(c);
		col_links_apreq(c, "threshold crossed");
	}
	{
		/* Only exits so far: their peers need the timeout to be seen
		 * stuck, so wait for that (C instead of nothing).  Ranks stuck:
		 * the probe round begins now, beside the dumps, and the
		 * evaluation runs when both are in (all_in), at the latest
		 * after the settle time. */
		int stuck = 0;
		for (size_t i = 0; i < c->s.size; i++)
			stuck |= c->s.ranks[i].state == MW_HB_S_IN_MPI;
		col_eval_schedule(c, stuck ? mw_settings_settle() : mw_setting_double(MW_SET_TIMEOUT) + 1.0);
		if (stuck && c->s.stuck_since_mono <= 0)
			col_probe_early(c);
		if (stuck && all_in(c))
			col_eval_schedule(c, 0);
	}
}

/* Whether the software verdict just reached may be acted on, and why
 * (s->confirmed_by).  A hardware verdict is confirmed by the probes. */
static int confirm(struct collector *c)
{
	struct col_state *s = &c->s;
	const char *why = NULL;
	char buf[128];

	/* A rank that ended of its own fault (B) first, then any that ended. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; !why && i < s->size; i++)
			if ((s->ranks[i].state == MW_HB_S_EXITED || s->ranks[i].state == MW_HB_S_VANISHED) &&
			    (pass || (i < s->res.size && s->res.rank_cause[i] == 'B'))) {
				snprintf(buf, sizeof buf, "rank %zu ended before MPI_Finalize", i);
				why = buf;
			}
	for (size_t i = 0; !why && i < s->size; i++)
		if (col_overdue(s->ranks, &s->res, i)) {
			snprintf(buf, sizeof buf, "rank %zu computed outside MPI for %.0f s, past the hang limit", i,
				 s->ranks[i].computed_s);
			why = buf;
		}
	if (!why && col_deadlock_certain(s)) {
		snprintf(buf, sizeof buf, "the analysis of the dumps finds a deadlock (%s)", s->dl.kind);
		why = buf;
	}
	if (!why && s->stuck_since_mono > 0 && col_now(c) - s->stuck_since_mono >= mw_settings_hang_limit()) {
		snprintf(buf, sizeof buf, "ranks stuck for %.0f s, the hang limit",
			 col_now(c) - s->stuck_since_mono);
		why = buf;
	}
	if (!why)
		return 0;
	s->confirmed = 1;
	snprintf(s->confirmed_by, sizeof s->confirmed_by, "%s", why);
	return 1;
}

/* Whether the verdict waits a moment for the other ranks' ends: a rank was
 * killed from outside (SIGKILL, SIGTERM) while other ranks have not been
 * seen ending.  The launcher kills the survivors as soon as one rank fails,
 * and their ends may reach us before the first failure does (its node's
 * agent sees the end a few ticks later): deciding then would blame the
 * killed ranks and leave out the one that failed.  The wait is once and
 * bounded (SETTLE_S: the agent's three ticks, at most 0.5 s each, and the
 * way here). */
#define SETTLE_S 2.0
static int wait_for_settle(struct collector *c)
{
	struct col_state *s = &c->s;
	double now = col_now(c);
	long killed = -1, open = -1;
	if (c->settle_until > 0)
		return now < c->settle_until;
	for (size_t i = 0; i < s->size; i++) {
		const struct col_rank *x = &s->ranks[i];
		int ended = x->state == MW_HB_S_EXITED || x->state == MW_HB_S_VANISHED;
		if (killed < 0 && col_killed_from_outside(x)) /* ended, from outside */
			killed = (long)i;
		if (!ended && x->state != MW_HB_S_FINALIZED && open < 0)
			open = (long)i;
	}
	if (killed < 0 || open < 0)
		return 0;
	c->settle_until = now + SETTLE_S;
	col_state_event(s, "note", "rank %ld was killed by signal %d (%s), most often sent to the rest of "
				   "a job after one rank failed: waiting up to %.0f s for the other ranks' ends",
			killed, s->ranks[killed].exit_signal, s->ranks[killed].exit_signal == SIGKILL ? "SIGKILL" : "SIGTERM", SETTLE_S);
	return 1;
}

/* Whether the verdict waits a moment for the MPI library's own error line:
 * the launcher's output is read beside the report (OUTDIR/mpi-errors.txt
 * exists: "mpiwatch run") or the job's output file is (under Slurm), a rank
 * ended inside an MPI call without a signal (so the library may have ended
 * it) and no line of it was read yet.  Under Slurm, a rank killed by a
 * signal without a stack yet waits the same for its crash report.  The
 * line and the rank's end race each other through different paths; the wait
 * is once and bounded (MPIERR_GRACE_S). */
#define MPIERR_GRACE_S 1.0
static int wait_for_mpi_error(struct collector *c)
{
	struct col_state *s = &c->s;
	char path[4200], line[8];
	double now = col_now(c);
	if (c->mpierr_grace_until > 0)
		return now < c->mpierr_grace_until;
	if (c->joblog[0]) {
		/* Under Slurm: the crash report in the job's output file. */
		for (size_t i = 0; i < s->size; i++)
			if (s->ranks[i].exit_signal > 0 && !col_rank_line(s->crash_stacks, (int)i, line, sizeof line)) {
				c->mpierr_grace_until = now + MPIERR_GRACE_S;
				col_state_event(s, "note", "rank %zu killed by signal %d: waiting up to %.0f s for "
							   "the MPI library's crash report in the job's output",
						i, s->ranks[i].exit_signal, MPIERR_GRACE_S);
				return 1;
			}
	} else {
		if (!mw_setting_str(MW_SET_DIR)[0])
			return 0;
		snprintf(path, sizeof path, "%s/" MW_MPI_ERRORS_FILE, mw_setting_str(MW_SET_DIR));
		if (access(path, F_OK) != 0)
			return 0;
	}
	long first = -1;
	for (size_t i = 0; i < s->size; i++)
		if (s->ranks[i].exit_signal > 0 && !col_killed_from_outside(&s->ranks[i]))
			return 0; /* a rank killed by its own signal: a crash, not the library */
	for (size_t i = 0; i < s->size; i++) {
		const struct col_rank *x = &s->ranks[i];
		if ((x->state == MW_HB_S_EXITED || x->state == MW_HB_S_VANISHED) && x->call[0] &&
		    (x->exit_signal <= 0 || col_killed_from_outside(x))) {
			if (col_mpi_error(s, (int)i, line, sizeof line))
				return 0; /* one line tells it */
			if (first < 0)
				first = (long)i;
		}
	}
	if (first < 0)
		return 0;
	c->mpierr_grace_until = now + MPIERR_GRACE_S;
	col_state_event(s, "note", "rank %ld ended inside %s: waiting up to %.0f s for the MPI library's own "
				   "message%s", first, s->ranks[first].call, MPIERR_GRACE_S,
			c->joblog[0] ? " in the job's output" : "");
	return 1;
}

/* How long each computing rank has computed, and whether that is past the
 * hang limit (x->computed_s, x->overdue, for the classification).  Return
 * when the next one reaches the hang limit, or -1 if none will. */
static double mark_overdue(struct collector *c)
{
	struct col_state *s = &c->s;
	double now = col_now(c), at = -1;
	for (size_t i = 0; i < s->size; i++) {
		struct col_rank *x = &s->ranks[i];
		x->overdue = 0;
		x->computed_s = 0;
		if (x->state != MW_HB_S_COMPUTING)
			continue;
		x->computed_s = now - x->computing_since;
		x->overdue = x->computed_s >= mw_settings_hang_limit();
		if (!x->overdue && (at < 0 || x->computing_since + mw_settings_hang_limit() < at))
			at = x->computing_since + mw_settings_hang_limit();
	}
	return at;
}

/* Whether a rank is cause B for computing past the hang limit. */
static int has_overdue(const struct col_state *s, const struct col_result *res)
{
	for (size_t i = 0; i < s->size; i++)
		if (col_overdue(s->ranks, res, i))
			return 1;
	return 0;
}

void col_eval_run(struct collector *c)
{
	struct col_state *s = &c->s;
	struct col_result res;

	c->pending = 0;
	if (!c->pr.active && !col_probe_tree_ready(c))
		return; /* the CPs probe: back here when their summaries are in */
	if (!col_probe_own_ready(c))
		return; /* our own round: back here when it is over */
	if (!col_reports_job_output_ready(c))
		return; /* the job's output asked and read off the loop: back here then */
	c->eval_gen = c->gen;
	s->st.evaluations++;
	col_reports_read_mpi_errors(c);
	col_reports_read_job_output(c);
	for (size_t i = 0; i < s->size; i++) {
		char line[8];
		s->ranks[i].lib_error = col_mpi_error(s, (int)i, line, sizeof line);
	}
	double overdue_at = mark_overdue(c);
	if (col_classify(s->ranks, s->size, s->nodes, s->nnodes, &res) < 0) {
		mw_err("classification failed: %s", strerror(errno));
		return;
	}
	col_result_free(&s->res);
	s->res = res;
	s->have_res = 1;
	if (res.verdict == COL_V_SOFTWARE) {
		col_reports_analyse_dumps(c);
		/* One classification: the deadlock the analysis found feeds the
		 * causes (its ranks are B, deadlocked; those waiting on them C). */
		if (s->dl.found && col_deadlock_ended_rank(s) < 0 && !has_overdue(s, &res)) {
			struct col_dl_input in = {.ranks = s->dl.ranks, .n = s->dl.n, .waiting = s->dl.waiting, .nwaiting = s->dl.nwaiting, .what = s->dl.what};
			if (col_classify_dl(s->ranks, s->size, s->nodes, s->nnodes, &in, &res) == 0) {
				col_result_free(&s->res);
				s->res = res;
			}
		}
	}
	if (res.verdict == COL_V_NONE && s->stuck_since_mono > 0) {
		col_state_event(s, "note", "the suspected hang is over after %.0f s: the ranks moved on "
					   "(slow, not stuck)", col_now(c) - s->stuck_since_mono);
		s->stuck_since_mono = 0;
	}
	if (res.verdict == COL_V_SOFTWARE && wait_for_settle(c)) {
		col_eval_schedule(c, c->settle_until - col_now(c) + 0.05);
		return;
	}
	if ((res.verdict == COL_V_SOFTWARE || res.launcher_killed) && wait_for_mpi_error(c)) {
		col_eval_schedule(c, c->mpierr_grace_until - col_now(c) + 0.05);
		return;
	}
	if (res.verdict == COL_V_SOFTWARE && !confirm(c)) {
		double now = col_now(c);
		if (s->stuck_since_mono <= 0) {
			s->stuck_since_mono = s->threshold_mono > 0 ? s->threshold_mono : now;
			char none[1024];
			col_state_event(s, "note",
					"suspected hang, not confirmed: %s; the program runs on, and is "
					"acted on only if still stuck after the hang limit (%.0f s)",
					s->dl_dumps ? col_dl_none(s, 1, none, sizeof none) : "no dump to analyse yet",
					mw_settings_hang_limit());
		}
		col_eval_schedule(c, s->stuck_since_mono + mw_settings_hang_limit() - now + 0.1);
		col_reports_write(c);
		return;
	}
	if (res.verdict == COL_V_NONE && res.launcher_killed) {
		col_state_event(s, "note", "the launcher was killed: every rank ended at once with no exit "
					   "status; not a failure of the program or of a node");
		col_reports_write(c);
		return;
	}
	if (res.verdict == COL_V_NONE) {
		int a = 0;
		for (size_t i = 0; i < res.ncauses; i++)
			a += res.causes[i].cause == 'A' ? (int)res.causes[i].n : 0;
		col_state_event(s, "note", "no failure: %d rank(s) in a long computation or a slow transfer (cause A), all nodes answer",
				a);
		/* Ranks wait in MPI for one that computes: if it has not come
		 * back to MPI by the hang limit, it is a hang (look again then). */
		int waiting = 0;
		for (size_t i = 0; i < s->size; i++)
			waiting |= s->ranks[i].state == MW_HB_S_IN_MPI;
		if (waiting && overdue_at >= 0) {
			if (!c->overdue_noted) {
				c->overdue_noted = 1;
				col_state_event(s, "note", "ranks wait in MPI for ranks computing outside MPI: a hang if "
							   "these have not come back to MPI %.0f s after they left it (the hang limit)",
						mw_settings_hang_limit());
			}
			col_eval_schedule(c, overdue_at - col_now(c) + 0.1);
		}
		col_reports_write(c);
		return;
	}
	if (res.verdict == COL_V_HARDWARE && !res.partition) {
		s->confirmed = 1;
		snprintf(s->confirmed_by, sizeof s->confirmed_by, "a node does not answer the probes");
	}
	s->decided = 1;
	s->verdict_mono = col_now(c);
	{
		struct col_answer *ans = malloc(sizeof *ans);
		if (ans) {
			col_answer(s, ans);
			col_state_event(s, "verdict", "%s", ans->line[0]);
			free(ans);
		}
	}
	col_reports_write(c);
	col_act_verdict(c);
	col_reports_write(c);
	if (c->o->exit_on_verdict)
		c->stop = 1;
}

/* The agent of node is lost without a goodbye (its link, or its CP says
 * so): its node is a suspect, probed with the others at once (issue 34: a
 * dead node's round is the verdict's time; nothing is gained by waiting). */
void col_eval_agent_lost(struct collector *c, int node, const char *why)
{
	struct col_agent *g = &c->s.agents[node];
	g->connected = 0;
	if (!g->bye && !c->stop && !c->stopping_until) {
		g->vanished = 1;
		c->s.st.agents_vanished++;
		/* A link the liveness setting broke (ETIMEDOUT): the node
		 * stopped answering; the evaluation below probes it now, not
		 * after the stall timeout. */
		col_state_event(&c->s, "agent_lost", "agent of node %s: connection lost (%s)%s",
				c->s.nodes[node].name, why,
				!strcmp(why, strerror(ETIMEDOUT)) && mw_setting_double(MW_SET_LIVENESS) > 0
					? ": no answer within the link liveness time, probing the node now"
					: ": probing the node now");
		c->gen++;
		col_eval_schedule(c, 0);
	}
	c->status_dirty = 1;
}

int col_eval_rank_info(struct collector *c, int node, int rank, int size)
{
	struct col_rank *x;
	if (col_state_grow(&c->s, (size_t)size) < 0 || rank < 0 || (size_t)rank >= c->s.size) {
		mw_log_limited(&peer_rl, LOG_WARNING,
			       "agent of %s: rank %d of %d: %s", c->s.nodes[node].name, rank, size,
			       strerror(errno));
		return -1;
	}
	x = &c->s.ranks[rank];
	x->known = 1;
	x->node = node;
	c->status_dirty = 1;
	return 0;
}

/* The call a heartbeat tells into rank x: its name, kind, communicator,
 * peer, root, tag, count and datatype and time without progress. */
static void take_call(struct col_rank *x, const struct mw_hb_beat *b)
{
	snprintf(x->call, sizeof x->call, "%s", b->call);
	snprintf(x->kind, sizeof x->kind, "%s", b->kind);
	snprintf(x->comm, sizeof x->comm, "%s", b->comm);
	x->peer_world = b->peer_world;
	x->root_world = b->root_world;
	x->tag = b->tag;
	x->count = b->count;
	snprintf(x->datatype, sizeof x->datatype, "%s", b->datatype);
	x->bytes = (unsigned long long)b->bytes;
	x->idle_s = b->idle_s;
	x->preinit = b->preinit;
}

void col_eval_beat(struct collector *c, int node, const struct mw_hb_beat *b)
{
	struct col_state *s = &c->s;
	struct col_rank *x;
	int was;

	s->st.heartbeats++;
	s->st.beats_by_state[b->state]++;
	/* --verbose: when it counted, on the machine's monotonic clock
	 * (bench/tree-agents: leaf-to-collector latency). */
	mw_debug("heartbeat: rank %d seq %u counted at %.6f", b->rank, b->seq, col_now(c));
	if (s->decided && b->rank < (int32_t)s->size && s->ranks[b->rank].state == 0 &&
	    (b->state == MW_HB_S_IN_MPI || b->state == MW_HB_S_COMPUTING || b->state == MW_HB_S_IN_INIT)) {
		/* A rank not seen before that got stuck too (a crash's peers
		 * reach their timeout after the verdict; ranks left in MPI_Init
		 * by one that ended before it): fold it in. */
		struct col_result res;
		x = &s->ranks[b->rank];
		x->known = 1;
		x->node = node;
		x->state = b->state;
		take_call(x, b);
		if (col_classify(s->ranks, s->size, s->nodes, s->nnodes, &res) == 0) {
			col_result_free(&s->res);
			s->res = res;
		}
		if (s->res.verdict == COL_V_SOFTWARE)
			col_reports_analyse_dumps(c);
		col_reports_write(c);
		return;
	}
	if (s->decided && b->state == MW_HB_S_EXITED && b->rank < (int32_t)s->size &&
	    s->ranks[b->rank].state == MW_HB_S_VANISHED) {
		/* How a rank that vanished ended, learnt late (mpiwatch run
		 * reads it from the launcher's message): the same failure,
		 * better told. */
		struct col_result res;
		x = &s->ranks[b->rank];
		x->state = b->state;
		x->exit_code = b->exit_code;
		x->exit_signal = b->exit_signal;
		col_state_event(s, "note", "rank %d: its exit status is now known", b->rank);
		if (col_classify(s->ranks, s->size, s->nodes, s->nnodes, &res) == 0) {
			if (res.verdict == s->res.verdict) {
				col_result_free(&s->res);
				s->res = res;
			} else {
				col_result_free(&res);
			}
		}
		col_reports_write(c);
		return;
	}
	if (s->decided) {
		/* The verdict describes the failure as it was found; state
		 * changes after it (the launcher killing the stuck ranks...)
		 * are only noted.  Their tasks' marks are answered by it. */
		col_reports_pending_clear(c);
		if (c->after_notes++ < 32) {
			char how[48] = "";
			if (b->exit_signal > 0)
				snprintf(how, sizeof how, " (signal %d)", b->exit_signal);
			else if (b->exit_code >= 0 && b->state == MW_HB_S_EXITED)
				snprintf(how, sizeof how, " (status %d)", b->exit_code);
			col_state_event(s, "note", "after the verdict: rank %d %s%s", b->rank,
					mw_hb_state_name(b->state), how);
		}
		return;
	}
	if (col_eval_rank_info(c, node, b->rank, b->size))
		return;
	x = &s->ranks[b->rank];
	if (b->pid > 0)
		x->pid = b->pid;
	was = col_state_suspicious(x->state);
	if (b->state == MW_HB_S_COMPUTING && x->state != MW_HB_S_COMPUTING)
		x->computing_since = col_now(c) - (b->idle_s > 0 ? b->idle_s : 0);
	x->state = b->state;
	if (b->state == MW_HB_S_IN_MPI)
		x->stuck_seen = 1;
	else if (b->state == MW_HB_S_RESUMED || b->state == MW_HB_S_FINALIZED)
		x->stuck_seen = 0;
	take_call(x, b);
	col_rank_set_site(x, b->site);
	x->exit_code = b->exit_code;
	x->exit_signal = b->exit_signal;
	snprintf(x->moving, sizeof x->moving, "%s", b->moving);
	/* A slow transfer tells more than the computation after it. */
	if (b->state == MW_HB_S_SLOW || (b->state == MW_HB_S_COMPUTING && x->was_state != MW_HB_S_SLOW)) {
		x->was_state = b->state;
		snprintf(x->was_call, sizeof x->was_call, "%s", b->call);
		snprintf(x->was_moving, sizeof x->was_moving, "%s", b->moving);
	}
	if (b->state == MW_HB_S_RESUMED || b->state == MW_HB_S_FINALIZED) {
		/* A later dump would describe a new stall. */
		x->has_dump = 0;
		x->waits_known = 0;
	}
	if (s->st.heartbeats == 1 || s->first_beat_mono <= 0) {
		s->first_beat_mono = col_now(c);
		col_state_event(s, "first_heartbeat", "rank %d on %s: %s%s%s", b->rank,
				s->nodes[node].name, mw_hb_state_name(b->state), b->call[0] ? " in " : "",
				b->call);
	}
	if (b->state == MW_HB_S_SLOW && c->slow_notes < 16) {
		c->slow_notes++;
		col_state_event(s, "note", "rank %d slow, not stuck: in %s for %.1f s without a completion, "
					   "but its transfer moves (%s)", b->rank, b->call[0] ? b->call : "MPI",
				b->idle_s, b->moving[0] ? b->moving : "?");
	}
	if (b->state == MW_HB_S_COMPUTING && !c->computing_noted) {
		c->computing_noted = 1;
		col_state_event(s, "note", "rank %d computing outside MPI for %.1f s (cause A: not an alarm)",
				b->rank, b->idle_s);
	}
	/* In the tree dumps come on demand only: a rank seen stuck after the
	 * threshold's request is asked for its dump too. */
	if (c->tree && b->state == MW_HB_S_IN_MPI && s->threshold_mono > 0)
		c->dumpreq_due = 1;
	if (col_state_suspicious(b->state) || was) {
		c->gen++;
		check_threshold(c);
		/* A rank of a suspected hang moved on: look again (the hang may
		 * be over: a slow transfer that completed). */
		if (was && !col_state_suspicious(b->state) && s->stuck_since_mono > 0)
			col_eval_schedule(c, mw_settings_settle());
	}
}

void col_eval_dump(struct collector *c, struct mw_hb_msg *m)
{
	struct col_state *s = &c->s;
	char path[4200];
	FILE *f;
	int rank = m->u.dump.rank;

	s->st.dumps++;
	if (rank < 0 || (size_t)rank >= s->size)
		col_state_grow(s, (size_t)rank + 1);
	if (rank < 0 || (size_t)rank >= s->size)
		return;
	if (mw_setting_str(MW_SET_DIR)[0]) {
		snprintf(path, sizeof path, "%s/dumps", mw_setting_str(MW_SET_DIR));
		mw_mkdir_p(path, 0755);
		snprintf(path, sizeof path, "%s/dumps/rank-%d.json", mw_setting_str(MW_SET_DIR), rank);
		f = fopen(path, "we");
		if (f) {
			fprintf(f, "%s\n", m->u.dump.json);
			fclose(f);
		} else {
			mw_warn("cannot write %s: %s", path, strerror(errno));
		}
	}
	col_state_set_dump(s, rank, m->u.dump.json);
	m->u.dump.json = NULL; /* owned by the state now */
	mw_info("dump of rank %d received", rank);
	if (c->s.decided) {
		if (c->s.res.verdict == COL_V_SOFTWARE)
			col_reports_analyse_dumps(c);
		col_reports_write(c);
	} else if (c->s.stuck_since_mono > 0) {
		col_eval_schedule(c, 0.5); /* a suspected hang: the analysis may confirm it now */
	} else if (c->pending && all_in(c)) {
		col_eval_schedule(c, 0); /* the last dump after the threshold: nothing more to wait for */
	}
}

void col_eval_tick(struct collector *c)
{
	if (c->pending && col_now(c) >= c->eval_at)
		col_eval_run(c);
	if (c->nretry)
		col_act_retry_due(c);
}

double col_eval_next(const struct collector *c)
{
	double at = c->pending ? c->eval_at : -1, r = col_act_next(c);
	if (r >= 0 && (at < 0 || r < at))
		at = r;
	return at;
}

void col_eval_final(struct collector *c)
{
	/* Once more if the launcher was found killed: "mpiwatch run" may since
	 * have told that it exited with a failure of its own (item 7).  From
	 * now on the probe budget is at most 1.5 s and the action is report
	 * only: the job is ending anyway (col_probe_budget, col_action). */
	if (!c->s.decided && (c->pending || col_eval_suspicious(&c->s) > 0) &&
	    (c->gen != c->eval_gen || (c->s.have_res && c->s.res.launcher_killed))) {
		col_state_event(&c->s, "note", "stopping with unevaluated heartbeats: evaluating now");
		c->mpierr_grace_until = c->settle_until = 1; /* no more waiting: the job is over */
		c->final_eval = 1;
		col_reports_read_mpi_errors(c);
		col_eval_run(c);
	} else if (!c->s.have_res && c->s.st.heartbeats > 0) {
		/* Only long computations were seen: put them in the report. */
		struct col_result res;
		if (col_classify(c->s.ranks, c->s.size, c->s.nodes, c->s.nnodes, &res) == 0) {
			c->s.res = res;
			c->s.have_res = 1;
		}
	}
}
