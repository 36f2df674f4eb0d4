/* Unit tests of the collector's decisions (collector/coleval.h) on a fake
 * clock in milliseconds: heartbeats and lost agents go in, the evaluation
 * runs when it asks to (col_eval_next, col_eval_tick), the probes and the
 * Slurm actions are the test's (struct col_env).  Each case asserts what
 * was decided: the verdict, the causes, the confirmation, the actions done
 * and the retries queued.  Nothing sleeps. */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "colact.h"
#include "colctx.h"
#include "coleval.h"
#include "log.h"
#include "col_unit.h"
#include "unit.h"

#define NNODES 3

struct fake {
	unsigned long long ms;              /* the clock */
	enum mw_probe_state probe[NNODES];  /* each node's answer: n1..n3 */
	int rounds;                         /* probe rounds asked */
	int slurm_up;                       /* Slurm answers, actions succeed */
	int refuse;                         /* actions refused while Slurm answers */
	int tried[4], done[4];              /* actions by enum col_act_kind */
	int last_drain;                     /* node index of the last drain tried */
};

static double f_now(void *arg)
{
	return (double)((struct fake *)arg)->ms / 1000.0;
}

static void f_probe(void *arg, const char *const *names, size_t n, struct mw_probe_result *out)
{
	struct fake *f = arg;
	f->rounds++;
	for (size_t i = 0; i < n; i++) {
		int k = atoi(names[i] + 1) - 1; /* "nK" */
		memset(&out[i], 0, sizeof out[i]);
		out[i].state = k >= 0 && k < NNODES ? f->probe[k] : MW_PROBE_DEAD;
		out[i].tries = out[i].state == MW_PROBE_DEAD ? 3 : 1;
		out[i].rtt_ms = out[i].state == MW_PROBE_DEAD ? -1 : 0.2;
	}
}

static int f_action(void *arg, struct collector *c, enum col_act_kind kind, int node, char *msg, size_t len)
{
	struct fake *f = arg;
	(void)c;
	f->tried[kind]++;
	if (kind == COL_DO_DRAIN)
		f->last_drain = node;
	if (!f->slurm_up || f->refuse) {
		snprintf(msg, len, "%s", f->refuse ? "refused" : "slurmctld does not answer");
		return 0;
	}
	f->done[kind]++;
	snprintf(msg, len, "done");
	return 1;
}

static int f_slurm(void *arg, const char *job)
{
	(void)job;
	return ((struct fake *)arg)->slurm_up;
}

static struct fake F;
static struct col_opts O;
static struct collector C;
static char dir[] = "/tmp/test_col_eval.XXXXXX";

/* A 6-rank job on n1..n3 (ranks 2k, 2k+1 on node k), timeout 10 s (hang
 * limit 100 s, settle 2.5 s), threshold 1, report only, drain and post. */
static void setup(void)
{
	struct col_env env = {.arg = &F, .now = f_now, .probe = f_probe, .action = f_action, .slurm_answers = f_slurm};

	memset(&F, 0, sizeof F);
	F.ms = 1000000; /* 1000 s */
	F.slurm_up = 1;
	F.last_drain = -1;
	for (int i = 0; i < NNODES; i++)
		F.probe[i] = MW_PROBE_ALIVE;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	col_opts_default(&O);
	snprintf(O.job, sizeof O.job, "4242");
	snprintf(O.nodes, sizeof O.nodes, "n[1-3]");
	mw_settings_reset(); /* hang_limit: none given (10 x the timeout) */
	mw_unit_set(MW_SET_DIR, dir);
	mw_unit_set(MW_SET_THRESHOLD, "1");
	mw_unit_set(MW_SET_TIMEOUT, "10");
	O.ranks = 6;
	mw_unit_set(MW_SET_JOB_CHECK, "0"); /* no Slurm: no job output file to read */
	mw_unit_set(MW_SET_ACTION, "report");
	mw_unit_set(MW_SET_DRAIN, "yes");
	mw_unit_set(MW_SET_POST, "yes");
	ck_assert_int_eq(col_ctx_init(&C, &O, &env), 0);
	ck_assert_int_eq((int)C.s.nnodes, NNODES);
}

static void teardown(void)
{
	char cmd[128];
	col_ctx_free(&C);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(dir, sizeof dir, "/tmp/test_col_eval.XXXXXX");
}

/* A heartbeat of rank (on node rank / 2). */
static void beat(int rank, enum mw_hb_state st, const char *call, int peer, int code, int sig)
{
	struct mw_hb_beat b;
	memset(&b, 0, sizeof b);
	b.rank = rank;
	b.size = 6;
	b.pid = 100 + rank;
	b.state = st;
	snprintf(b.call, sizeof b.call, "%s", call);
	snprintf(b.kind, sizeof b.kind, "%s", call[0] ? "p2p" : "");
	snprintf(b.comm, sizeof b.comm, "%s", call[0] ? "world" : "");
	b.peer_world = peer;
	b.root_world = -1;
	b.tag = -1;
	b.idle_s = 10;
	b.exit_code = code;
	b.exit_signal = sig;
	col_eval_beat(&C, rank / 2, &b);
}

/* Let the clock run ms milliseconds, doing whatever falls due on the way. */
static void run(unsigned long long ms)
{
	unsigned long long end = F.ms + ms;
	for (int guard = 0; guard < 100000; guard++) {
		double next = col_eval_next(&C);
		unsigned long long at;
		if (next < 0)
			break;
		at = (unsigned long long)(next * 1000.0 + 0.999);
		if (at > end)
			break;
		if (at > F.ms)
			F.ms = at;
		col_eval_tick(&C);
	}
	F.ms = end;
}

/* The timeline has an event of kind ev whose detail contains what. */
static int said(const char *ev, const char *what)
{
	return col_unit_said(&C.s, ev, what);
}

/* The number of recorded actions what ("drain", "comment"...) that were ok. */
static int acted(const char *what, int ok)
{
	int n = 0;
	for (size_t i = 0; i < C.s.nacts; i++)
		n += !strcmp(C.s.acts[i].what, what) && C.s.acts[i].ok == ok;
	return n;
}

/* Ranks 0 and 1 (node n1) wait for each other: a cycle of receives. */
static void cycle(void)
{
	beat(0, MW_HB_S_IN_MPI, "MPI_Recv", 1, -1, 0);
	beat(1, MW_HB_S_IN_MPI, "MPI_Recv", 0, -1, 0);
}

START_TEST(test_healthy)
{
	/* A slow transfer and a long computation alone: nothing suspicious. */
	beat(3, MW_HB_S_SLOW, "MPI_Recv", 2, -1, 0);
	run(300000);
	ck_assert_int_eq(C.pending, 0);
	ck_assert_uint_eq(C.s.st.evaluations, 0);
	ck_assert_int_eq(F.rounds, 0);
	ck_assert_int_eq(C.s.decided, 0);
	ck_assert_int_eq((int)C.s.nacts, 0);
	ck_assert(said("note", "slow, not stuck"));
}
END_TEST

START_TEST(test_threshold)
{
	/* threshold 3: two stuck ranks are not enough, the third is. */
	mw_unit_set(MW_SET_THRESHOLD, "3");
	cycle();
	run(30000);
	ck_assert_uint_eq(C.s.st.evaluations, 0);
	ck_assert(!said("threshold", ""));
	beat(2, MW_HB_S_IN_MPI, "MPI_Recv", 0, -1, 0);
	ck_assert(said("threshold", "3 suspicious rank(s) >= threshold 3"));
	run(2000); /* the settle time is 2.5 s: not yet */
	ck_assert_uint_eq(C.s.st.evaluations, 0);
	run(1000);
	ck_assert_uint_eq(C.s.st.evaluations, 1);
	ck_assert_int_eq(F.rounds, 1);
}
END_TEST

START_TEST(test_deadlock_hang_limit)
{
	/* A software verdict is a suspected hang until the hang limit. */
	cycle();
	run(5000);
	ck_assert_int_eq(F.rounds, 1);
	ck_assert(C.s.have_res);
	ck_assert_int_eq(C.s.res.verdict, COL_V_SOFTWARE);
	ck_assert_int_eq(C.s.decided, 0);
	ck_assert(said("note", "suspected hang, not confirmed"));
	ck_assert_int_eq((int)C.s.nacts, 0);
	run(90000); /* 95 s after the threshold */
	ck_assert_int_eq(C.s.decided, 0);
	run(10000); /* past 100 s */
	ck_assert_int_eq(C.s.decided, 1);
	ck_assert_int_eq(C.s.res.verdict, COL_V_SOFTWARE);
	ck_assert(C.s.confirmed);
	ck_assert_ptr_nonnull(strstr(C.s.confirmed_by, "hang limit"));
	ck_assert_int_eq(C.s.res.rank_cause[0], 'B');
	ck_assert_int_eq(C.s.res.rank_cause[1], 'B');
	ck_assert_int_eq(acted("comment", 1), 1);
	ck_assert_int_eq(F.tried[COL_DO_DRAIN], 0);
	ck_assert(said("verdict", ""));
	ck_assert_int_eq((int)C.nretry, 0);
}
END_TEST

START_TEST(test_stalled_node)
{
	/* n3 stops answering: its link breaks by liveness, it answers no
	 * probe; ranks on n1 wait for its rank 4. */
	F.probe[2] = MW_PROBE_DEAD;
	beat(0, MW_HB_S_IN_MPI, "MPI_Recv", 4, -1, 0);
	C.s.agents[2].hello = C.s.agents[2].connected = 1;
	col_eval_agent_lost(&C, 2, strerror(ETIMEDOUT));
	ck_assert(said("agent_lost", "node n3"));
	run(600); /* probed at once after the loss, before the settle time */
	ck_assert_int_eq(F.rounds, 1);
	ck_assert_int_eq(C.s.decided, 1);
	ck_assert_int_eq(C.s.res.verdict, COL_V_HARDWARE);
	ck_assert_int_eq(C.s.res.partition, 0);
	ck_assert_int_eq((int)C.s.res.ndead, 1);
	ck_assert_int_eq(C.s.res.dead_nodes[0], 2);
	ck_assert_int_eq(C.s.nodes[2].state, MW_PROBE_DEAD);
	ck_assert_int_eq(C.s.res.rank_cause[0], 'D');
	ck_assert_ptr_nonnull(strstr(C.s.confirmed_by, "does not answer the probes"));
	ck_assert_int_eq(F.last_drain, 2);
	ck_assert_int_eq(acted("drain", 1), 1);
	ck_assert_int_eq(acted("comment", 1), 1);
	/* Decided: later heartbeats change nothing. */
	beat(1, MW_HB_S_IN_MPI, "MPI_Recv", 4, -1, 0);
	run(60000);
	ck_assert_int_eq(F.rounds, 1);
	ck_assert_int_eq(acted("drain", 1), 1);
}
END_TEST

/* Issue 34: a link the liveness setting broke is the node's own alarm:
 * its probe round starts at once (the same instant on the clock), not
 * after a wait, and the dead node is named. */
START_TEST(test_lost_link_probed_at_once)
{
	F.probe[2] = MW_PROBE_DEAD;
	C.s.agents[2].hello = C.s.agents[2].connected = 1;
	col_eval_agent_lost(&C, 2, strerror(ETIMEDOUT));
	ck_assert(C.pending);
	ck_assert(col_eval_next(&C) <= f_now(&F));
	col_eval_tick(&C); /* no time passed */
	ck_assert_int_eq(F.rounds, 1);
	ck_assert_int_eq(C.s.decided, 1);
	ck_assert_int_eq(C.s.res.verdict, COL_V_HARDWARE);
	ck_assert_int_eq(C.s.res.dead_nodes[0], 2);
}
END_TEST

/* A rank's dump, as its agent sends it (a minimal one: the rank waits). */
static void dump(int rank)
{
	struct mw_hb_msg m;
	char json[96];
	memset(&m, 0, sizeof m);
	m.type = MW_HB_DUMP;
	m.u.dump.rank = rank;
	snprintf(json, sizeof json, "{\"rank\":%d,\"size\":6}", rank);
	m.u.dump.json = strdup(json);
	col_eval_dump(&C, &m);
	free(m.u.dump.json); /* NULL once the state took it */
}

/* Issue 34: once every rank of the job is stuck in MPI and every dump is
 * in, nothing more can come: the evaluation runs at once (its probe round
 * started at the threshold, beside the dumps), not after the settle time.
 * While one rank is not stuck, it waits for the settle time as before. */
START_TEST(test_all_in_evaluates_at_once)
{
	for (int r = 0; r < 5; r++)
		beat(r, MW_HB_S_IN_MPI, "MPI_Recv", (r + 1) % 6, -1, 0);
	for (int r = 0; r < 5; r++)
		dump(r);
	ck_assert(said("threshold", ""));
	col_eval_tick(&C); /* no time passed */
	ck_assert_uint_eq(C.s.st.evaluations, 0); /* rank 5 is not stuck: the settle time */
	beat(5, MW_HB_S_IN_MPI, "MPI_Recv", 0, -1, 0);
	col_eval_tick(&C);
	ck_assert_uint_eq(C.s.st.evaluations, 0); /* its dump is not in yet */
	dump(5);
	ck_assert(col_eval_next(&C) <= f_now(&F));
	col_eval_tick(&C);
	ck_assert_uint_eq(C.s.st.evaluations, 1);
	ck_assert_int_eq(F.rounds, 1);
	ck_assert(C.s.have_res);
	ck_assert_int_eq(C.s.res.verdict, COL_V_SOFTWARE);
}
END_TEST

START_TEST(test_partition)
{
	/* Two of three nodes silent at once: a partition, nothing drained. */
	F.probe[1] = F.probe[2] = MW_PROBE_DEAD;
	mw_unit_set(MW_SET_ACTION, "cancel");
	beat(0, MW_HB_S_IN_MPI, "MPI_Recv", 2, -1, 0);
	col_eval_agent_lost(&C, 1, "Connection reset by peer");
	col_eval_agent_lost(&C, 2, "Connection reset by peer");
	run(1000);
	ck_assert_int_eq(C.s.res.verdict, COL_V_HARDWARE);
	ck_assert_int_eq(C.s.res.partition, 1);
	ck_assert(said("note", "network partition suspected"));
	ck_assert_int_eq(F.tried[COL_DO_DRAIN], 0);
	ck_assert_int_eq(F.tried[COL_DO_CANCEL], 0);
	ck_assert_int_eq(acted("comment", 1), 1);
}
END_TEST

START_TEST(test_probe_broken)
{
	/* No node answers at all, not even ours: no node is judged dead. */
	for (int i = 0; i < NNODES; i++)
		F.probe[i] = MW_PROBE_DEAD;
	beat(0, MW_HB_S_IN_MPI, "MPI_Recv", 4, -1, 0);
	col_eval_agent_lost(&C, 2, "Connection reset by peer");
	run(1000);
	ck_assert(said("probe_end", "no node answered"));
	ck_assert_int_ne(C.s.res.verdict, COL_V_HARDWARE);
	ck_assert_int_eq(F.tried[COL_DO_DRAIN], 0);
}
END_TEST

START_TEST(test_crash)
{
	/* Rank 2 segfaults; ranks 0 and 1 wait for it. */
	mw_unit_set(MW_SET_ACTION, "cancel");
	beat(2, MW_HB_S_EXITED, "", -1, -1, SIGSEGV);
	beat(0, MW_HB_S_IN_MPI, "MPI_Recv", 2, -1, 0);
	beat(1, MW_HB_S_IN_MPI, "MPI_Recv", 2, -1, 0);
	run(3000);
	ck_assert_int_eq(C.s.decided, 1);
	ck_assert_int_eq(C.s.res.verdict, COL_V_SOFTWARE);
	ck_assert_ptr_nonnull(strstr(C.s.confirmed_by, "rank 2 ended before MPI_Finalize"));
	ck_assert_int_eq(C.s.res.rank_cause[2], 'B');
	ck_assert_int_eq(C.s.res.rank_cause[0], 'C');
	ck_assert_int_eq(acted("comment", 1), 1);
	ck_assert_int_eq(acted("cancel", 1), 1);
	ck_assert_int_eq(F.tried[COL_DO_DRAIN], 0);
}
END_TEST

START_TEST(test_killed_settles)
{
	/* A rank killed from outside (SIGKILL) while others run: the verdict
	 * waits (once, 2 s) for the other ranks' ends. */
	beat(3, MW_HB_S_EXITED, "", -1, -1, SIGKILL);
	beat(0, MW_HB_S_IN_MPI, "MPI_Recv", 3, -1, 0);
	run(2600); /* the settle time */
	ck_assert_uint_eq(C.s.st.evaluations, 1);
	ck_assert(said("note", "killed by signal 9"));
	ck_assert_int_eq(C.s.decided, 0);
	beat(5, MW_HB_S_EXITED, "", 139, 0, 0);
	run(2500);
	ck_assert_int_eq(C.s.decided, 1);
	ck_assert_int_eq(C.s.res.rank_cause[5], 'B');
}
END_TEST

START_TEST(test_long_computation)
{
	/* Rank 0 waits for rank 1, which computes: cause A, no failure. */
	beat(1, MW_HB_S_COMPUTING, "", -1, -1, 0);
	beat(0, MW_HB_S_IN_MPI, "MPI_Recv", 1, -1, 0);
	run(5000);
	ck_assert_uint_eq(C.s.st.evaluations, 1);
	ck_assert_int_eq(C.s.res.verdict, COL_V_NONE);
	ck_assert_int_eq(C.s.res.rank_cause[0], 'A');
	ck_assert(said("note", "cause A: not an alarm"));
	ck_assert(said("note", "no failure: 2 rank(s) in a long computation"));
	ck_assert_int_eq(C.s.decided, 0);
	run(80000); /* 95 s since rank 1 left MPI: within the hang limit (100 s) */
	ck_assert_int_eq(C.s.decided, 0);
	ck_assert_int_eq((int)C.s.nacts, 0);
}
END_TEST

START_TEST(test_computing_past_hang_limit)
{
	/* Issue 35 item 2: rank 1 computes and never comes back to MPI while
	 * rank 0 waits for it.  Past the hang limit (100 s since rank 1 left
	 * MPI) it is a hang: rank 1 B, rank 0 C, confirmed, acted on. */
	beat(1, MW_HB_S_COMPUTING, "", -1, -1, 0);
	beat(0, MW_HB_S_IN_MPI, "MPI_Recv", 1, -1, 0);
	run(5000);
	ck_assert_int_eq(C.s.res.verdict, COL_V_NONE);
	ck_assert(said("note", "a hang if these have not come back to MPI"));
	run(86000); /* 101 s since it left MPI */
	ck_assert_int_eq(C.s.decided, 1);
	ck_assert_int_eq(C.s.res.verdict, COL_V_SOFTWARE);
	ck_assert_int_eq(C.s.res.rank_cause[1], 'B');
	ck_assert_int_eq(C.s.res.rank_cause[0], 'C');
	ck_assert(C.s.confirmed);
	ck_assert_ptr_nonnull(strstr(C.s.confirmed_by, "rank 1 computed outside MPI"));
	ck_assert(said("verdict", "hang: rank 1 has computed outside MPI for 10"));
	ck_assert(said("verdict", "rank 0 waits for it in MPI_Recv"));
	ck_assert_int_eq(acted("comment", 1), 1);
	ck_assert_int_eq(F.tried[COL_DO_DRAIN], 0);
}
END_TEST

START_TEST(test_computing_nobody_waits)
{
	/* Ranks that compute with nobody waiting for them are never a hang. */
	beat(1, MW_HB_S_COMPUTING, "", -1, -1, 0);
	beat(2, MW_HB_S_COMPUTING, "", -1, -1, 0);
	run(300000);
	ck_assert_int_eq(C.s.decided, 0);
	ck_assert_int_eq((int)C.s.nacts, 0);
}
END_TEST

START_TEST(test_retry_slurm_down)
{
	/* slurmctld is down at the verdict: the drain and the comment are
	 * retried with backoff (2, 4, 8 s...) until Slurm answers. */
	F.slurm_up = 0;
	F.probe[2] = MW_PROBE_DEAD;
	beat(0, MW_HB_S_IN_MPI, "MPI_Recv", 4, -1, 0);
	col_eval_agent_lost(&C, 2, strerror(ETIMEDOUT));
	run(600);
	ck_assert_int_eq(C.s.decided, 1);
	ck_assert_int_eq(F.tried[COL_DO_DRAIN], 1);
	ck_assert_int_eq(F.tried[COL_DO_COMMENT], 1);
	ck_assert_int_eq((int)C.nretry, 2);
	ck_assert(said("note", "drain of n3 failed and Slurm does not answer: retry 2 in 2 s"));
	ck_assert(said("note", "comment of 4242 failed and Slurm does not answer: retry 2 in 2 s"));
	run(2000);
	ck_assert_int_eq(F.tried[COL_DO_DRAIN], 2);
	ck_assert(said("note", "retry 3 in 4 s"));
	run(4000);
	ck_assert_int_eq(F.tried[COL_DO_DRAIN], 3);
	F.slurm_up = 1; /* back */
	run(8000);
	ck_assert_int_eq(F.tried[COL_DO_DRAIN], 4);
	ck_assert_int_eq(acted("drain", 1), 1);
	ck_assert_int_eq(acted("comment", 1), 1);
	ck_assert_int_eq(acted("drain", 0), 3);
	ck_assert_int_eq((int)C.nretry, 0);
	ck_assert_double_lt(col_eval_next(&C), 0);
}
END_TEST

START_TEST(test_refused_no_retry)
{
	/* Refused while Slurm answers: a final answer, not retried. */
	F.refuse = 1;
	mw_unit_set(MW_SET_ACTION, "cancel");
	beat(2, MW_HB_S_EXITED, "", -1, -1, SIGSEGV);
	run(12000);
	ck_assert_int_eq(C.s.decided, 1);
	ck_assert_int_eq(F.tried[COL_DO_CANCEL], 1);
	ck_assert_int_eq((int)C.nretry, 0);
	ck_assert_int_eq(acted("cancel", 0), 1);
}
END_TEST

START_TEST(test_retry_at_shutdown)
{
	/* Slurm still down at shutdown: one last try each, then noted. */
	F.slurm_up = 0;
	mw_unit_set(MW_SET_POST, "no");
	F.probe[2] = MW_PROBE_DEAD;
	col_eval_agent_lost(&C, 2, "Connection reset by peer");
	run(600);
	ck_assert_int_eq((int)C.nretry, 1);
	col_act_last_tries(&C);
	ck_assert_int_eq(F.tried[COL_DO_DRAIN], 2);
	ck_assert(said("note", "drain not done: Slurm did not answer in 2 tries"));
	ck_assert_int_eq((int)C.nretry, 0);
}
END_TEST

START_TEST(test_final_evaluation)
{
	/* The job ends right after a rank crashed, before the timeout: the
	 * evaluation at shutdown decides, and only reports (no cancel). */
	mw_unit_set(MW_SET_ACTION, "cancel");
	beat(2, MW_HB_S_EXITED, "", -1, -1, SIGSEGV);
	run(100);
	ck_assert_uint_eq(C.s.st.evaluations, 0);
	C.stopping_until = f_now(&F) + 2;
	col_eval_final(&C);
	ck_assert(said("note", "stopping with unevaluated heartbeats"));
	ck_assert_int_eq(C.s.decided, 1);
	ck_assert_int_eq(C.s.res.verdict, COL_V_SOFTWARE);
	ck_assert_int_eq(col_action(&C), MW_JC_REPORT);
	ck_assert_int_eq(F.tried[COL_DO_CANCEL], 0);
	ck_assert_int_eq(acted("comment", 1), 1);
}
END_TEST

START_TEST(test_final_computing_only)
{
	/* Only long computations seen: the report gets their causes. */
	beat(1, MW_HB_S_COMPUTING, "", -1, -1, 0);
	col_eval_final(&C);
	ck_assert(C.s.have_res);
	ck_assert_int_eq(C.s.res.verdict, COL_V_NONE);
	ck_assert_int_eq(C.s.decided, 0);
	ck_assert_int_eq(F.rounds, 0);
}
END_TEST

START_TEST(test_moved_on)
{
	/* A suspected hang whose ranks move on: over, never acted on. */
	cycle();
	run(5000);
	ck_assert(said("note", "suspected hang, not confirmed"));
	ck_assert(C.s.stuck_since_mono > 0);
	beat(0, MW_HB_S_RESUMED, "", -1, -1, 0);
	beat(1, MW_HB_S_RESUMED, "", -1, -1, 0);
	run(5000);
	ck_assert(said("note", "the suspected hang is over"));
	ck_assert(C.s.stuck_since_mono <= 0);
	ck_assert_int_eq(C.s.res.verdict, COL_V_NONE);
	run(200000); /* well past the hang limit */
	ck_assert_int_eq(C.s.decided, 0);
	ck_assert_int_eq((int)C.s.nacts, 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("col_eval");
	TCase *tc = tcase_create("decisions");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_healthy);
	tcase_add_test(tc, test_threshold);
	tcase_add_test(tc, test_deadlock_hang_limit);
	tcase_add_test(tc, test_stalled_node);
	tcase_add_test(tc, test_partition);
	tcase_add_test(tc, test_lost_link_probed_at_once);
	tcase_add_test(tc, test_all_in_evaluates_at_once);
	tcase_add_test(tc, test_probe_broken);
	tcase_add_test(tc, test_crash);
	tcase_add_test(tc, test_killed_settles);
	tcase_add_test(tc, test_long_computation);
	tcase_add_test(tc, test_computing_past_hang_limit);
	tcase_add_test(tc, test_computing_nobody_waits);
	tcase_add_test(tc, test_retry_slurm_down);
	tcase_add_test(tc, test_refused_no_retry);
	tcase_add_test(tc, test_retry_at_shutdown);
	tcase_add_test(tc, test_final_evaluation);
	tcase_add_test(tc, test_final_computing_only);
	tcase_add_test(tc, test_moved_on);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	mw_log_open("test_col_eval", MW_LOG_STDERR, LOG_ERR);
	return mw_unit_run(suite());
}
