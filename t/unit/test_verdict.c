/* Unit tests for collector/verdict.c: threshold logic and the verdict/cause
 * classification, with faked ranks and nodes. */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "verdict.h"

/* ------------------------------------------------------------ threshold */

static const struct {
	const char *in;
	int ok, percent;
	long nranks, need;
} thr_cases[] = {
	{"1", 1, 0, 10, 1},     {"5", 1, 0, 10, 5},      {"5", 1, 0, 0, 5},
	{"50%", 1, 1, 10, 5},   {"50%", 1, 1, 3, 2},     {"1%", 1, 1, 10, 1},
	{"100%", 1, 1, 7, 7},   {"33.4%", 1, 1, 3, 2},   {"25%", 1, 1, 0, 1},
	{"0", 0, 0, 0, 0},      {"-1", 0, 0, 0, 0},      {"1.5", 0, 0, 0, 0},
	{"abc", 0, 0, 0, 0},    {"", 0, 0, 0, 0},        {"0%", 0, 0, 0, 0},
	{"101%", 0, 0, 0, 0},   {"%", 0, 0, 0, 0},       {"10%%", 0, 0, 0, 0},
	{"5 ", 0, 0, 0, 0},     {"1e9", 0, 0, 0, 0},     {"nan", 0, 0, 0, 0},
};

START_TEST(test_threshold)
{
	struct col_threshold t;
	int rc = col_threshold_parse(thr_cases[_i].in, &t);
	if (!thr_cases[_i].ok) {
		ck_assert_msg(rc == -1, "'%s' should be refused", thr_cases[_i].in);
		ck_assert_int_eq(errno, EINVAL);
		return;
	}
	ck_assert_msg(rc == 0, "'%s' refused", thr_cases[_i].in);
	ck_assert_int_eq(t.percent, thr_cases[_i].percent);
	ck_assert_int_eq(col_threshold_need(&t, thr_cases[_i].nranks), thr_cases[_i].need);
}
END_TEST

START_TEST(test_suspicious_states)
{
	ck_assert(col_state_suspicious(MW_HB_S_IN_MPI));
	ck_assert(col_state_suspicious(MW_HB_S_EXITED));
	ck_assert(col_state_suspicious(MW_HB_S_VANISHED));
	ck_assert(!col_state_suspicious(MW_HB_S_COMPUTING));
	ck_assert(!col_state_suspicious(MW_HB_S_RESUMED));
	ck_assert(!col_state_suspicious(MW_HB_S_FINALIZED));
	ck_assert(!col_state_suspicious(0));
	ck_assert(!col_state_suspicious(MW_HB_S_IN_INIT)); /* MPI_Init is not judged by time */
}
END_TEST

/* -------------------------------------------------------- classification */

/* A rank spec: "node:state:call:kind:peer[:exit:signal]" with state one of
 * - (no heartbeat), M (in_mpi), P (computing), X (exited), V (vanished),
 * S (slow: in MPI, its transfer moves), k (exited, never seen stuck), I
 * (in_init: told in MPI_Init for the timeout), x (exited before MPI_Init).  M,
 * and X or V with a call, were seen stuck in MPI (stuck_seen).  An eighth
 * field "e": the MPI library printed its error line for it (lib_error). */
struct fake {
	const char *name;
	int nnodes;
	const char *dead;   /* node indexes judged dead, e.g. "1" */
	const char *degraded;
	int size;
	const char *ranks[8];
	const char *waits[8]; /* from dumps: "0,1" (NULL = unknown) */
	/* expectations */
	enum col_verdict verdict;
	const char *causes; /* "B:0-2;C:3" in cause order */
	int deadlock;
	const char *deadlock_ranks;
};

static const struct fake cases[] = {
	{"ring deadlock", 1, "", "", 3,
	 {"0:M:MPI_Recv:recv:2", "0:M:MPI_Recv:recv:0", "0:M:MPI_Recv:recv:1"}, {0},
	 COL_V_SOFTWARE, "B:0-2", 1, "0-2"},
	{"crash, peers wait", 2, "", "", 3,
	 {"0:M:MPI_Recv:recv:1", "1:X:::-1:-1:11", "1:M:MPI_Barrier:collective:-1"}, {0},
	 COL_V_SOFTWARE, "B:1;C:0,2", 0, ""},
	{"exit 3, peers wait", 2, "", "", 4,
	 {"0:M:MPI_Recv:recv:1", "1:X:::-1:3:0", "1:-", "0:M:MPI_Recv:recv:0"}, {0},
	 COL_V_SOFTWARE, "B:1;C:0,3", 0, ""},
	{"cascade: killed while waiting", 2, "", "", 3,
	 {"0:V:MPI_Recv:recv:1", "1:X:::-1:-1:11", "0:X:MPI_Barrier:collective:-1:-1:9"}, {0},
	 COL_V_SOFTWARE, "B:1;C:0,2", 0, ""},
	{"long computation", 2, "", "", 3,
	 {"0:P", "0:P", "1:P"}, {0},
	 COL_V_NONE, "A:0-2", 0, ""},
	{"waiting for a computing rank", 2, "", "", 3,
	 {"0:P", "0:M:MPI_Recv:recv:0", "1:M:MPI_Bcast:collective:-1"}, {0},
	 COL_V_NONE, "A:0;A:1-2", 0, ""},
	{"stuck while peer runs", 2, "", "", 2,
	 {"0:M:MPI_Recv:recv:1", "1:-"}, {0},
	 COL_V_SOFTWARE, "B:0", 0, ""},
	{"collective mismatch", 1, "", "", 3,
	 {"0:M:MPI_Barrier:collective:-1", "0:M:MPI_Barrier:collective:-1", "0:M:MPI_Recv:recv:0"}, {0},
	 COL_V_SOFTWARE, "B:0,2;C:1", 1, "0,2"},
	{"dead node", 2, "1", "", 4,
	 {"0:M:MPI_Recv:recv:2", "0:M:MPI_Allreduce:collective:-1", "1:-", "1:-"}, {0},
	 COL_V_HARDWARE, "D:0-1;D:2-3", 0, ""},
	{"dead node, computing rank stays A", 3, "2", "", 3,
	 {"0:P", "1:M:MPI_Recv:recv:2", "2:-"}, {0},
	 COL_V_HARDWARE, "A:0;D:1;D:2", 0, ""},
	{"degraded node is alive", 2, "", "1", 2,
	 {"0:M:MPI_Recv:recv:1", "1:M:MPI_Recv:recv:0"}, {0},
	 COL_V_SOFTWARE, "B:0-1", 1, "0-1"},
	{"nothing", 1, "", "", 4, {"0:-", "0:-", "0:-", "0:-"}, {0}, COL_V_NONE, "", 0, ""},
	{"sub-communicator collective from dumps", 1, "", "", 4,
	 {"0:M:MPI_Bcast:collective:-1", "0:M:MPI_Bcast:collective:-1", "0:M:MPI_Recv:recv:3", "0:P"},
	 {"0,1", "0,1", NULL, NULL},
	 COL_V_SOFTWARE, "A:2;A:3;B:0-1", 0, ""},
	{"any-source receive waits for all", 1, "", "", 3,
	 {"0:M:MPI_Recv:recv:-2", "0:X:::-1:1:0", "0:-"}, {0},
	 COL_V_SOFTWARE, "B:1;C:0", 0, ""},
	/* One case for each way a rank gets its cause (A-D). */
	{"A: a slow rank, and a rank waiting on it", 1, "", "", 2,
	 {"0:S:MPI_Wait:wait:-1", "0:M:MPI_Recv:recv:0"}, {0},
	 COL_V_NONE, "A:0;A:1", 0, ""},
	{"A: waiting on a slow and a computing rank (the first blocker counts)", 1, "", "", 3,
	 {"0:M:MPI_Recv:recv:-2", "0:S:MPI_Wait:wait:-1", "0:P"}, {0},
	 COL_V_NONE, "A:0;A:1;A:2", 0, ""},
	{"B: ranks that ended blocked on each other", 1, "", "", 2,
	 {"0:X:MPI_Recv:recv:1:-1:9", "0:X:MPI_Recv:recv:0:-1:9"}, {0},
	 COL_V_SOFTWARE, "B:0-1", 0, ""},
	{"C: a cascade of ranks that ended, and a rank stuck behind it", 1, "", "", 4,
	 {"0:X:MPI_Recv:recv:1:-1:15", "0:X:::-1:-1:11", "0:V:MPI_Recv:recv:0", "0:M:MPI_Recv:recv:2"},
	 {0},
	 COL_V_SOFTWARE, "B:1;C:0,2;C:3", 0, ""},
	{"C: stuck behind a cycle", 1, "", "", 3,
	 {"0:M:MPI_Recv:recv:1", "0:M:MPI_Recv:recv:0", "0:M:MPI_Recv:recv:0"}, {0},
	 COL_V_SOFTWARE, "B:0-1;C:2", 1, "0-1"},
	/* The launcher is not the program. */
	{"launcher killed: every rank vanished, no status", 1, "", "", 3,
	 {"0:V:MPI_Recv:recv:1", "0:V", "0:V:MPI_Barrier:collective:-1"}, {0},
	 COL_V_NONE, "", 0, ""},
	{"job ended from outside: every rank SIGTERM, or vanished", 2, "", "", 3,
	 {"0:X:::-1:-1:15", "1:X:MPI_Recv:recv:0:-1:15", "1:V"}, {0},
	 COL_V_NONE, "", 0, ""},
	{"not the launcher: one rank SIGSEGV, the others killed", 1, "", "", 3,
	 {"0:X:MPI_Recv:recv:1:-1:9", "0:X:::-1:-1:11", "0:V"}, {0},
	 COL_V_SOFTWARE, "B:1;B:2;C:0", 0, ""},
	/* The MPI library ended rank 1 inside a collective (exit status 2); the
	 * launcher then killed ranks 0 and 2, blocked in it with rank 1. */
	{"exit inside a collective, the others killed from outside", 3, "", "", 3,
	 {"0:X:MPI_Bcast:collective:-1:-1:9", "1:X:MPI_Bcast:collective:-1:2:0",
	  "2:X:MPI_Bcast:collective:-1:-1:9"}, {0},
	 COL_V_SOFTWARE, "B:1;C:0,2", 0, ""},
	{"killed from outside inside a collective, none on its own: all B", 1, "", "", 2,
	 {"0:X:MPI_Bcast:collective:-1:-1:9", "0:X:MPI_Bcast:collective:-1:-1:9"}, {0},
	 COL_V_SOFTWARE, "B:0-1", 0, ""},
	/* srun killed: slurmstepd kills its tasks with SIGKILL, while they run */
	{"srun killed: every rank SIGKILL, none seen stuck", 2, "", "", 3,
	 {"0:k:::-1:-1:9", "0:k:MPI_Allreduce:collective:-1:-1:9", "1:k:::-1:-1:9"}, {0},
	 COL_V_NONE, "", 0, ""},
	{"not the launcher: SIGKILL while some were stuck", 1, "", "", 2,
	 {"0:k:::-1:-1:9", "0:X:MPI_Recv:recv:0:-1:9"}, {0},
	 COL_V_SOFTWARE, "B:0;C:1", 0, ""},
	/* MPICH under srun: the library's abort makes srun kill every task */
	{"not the launcher: the MPI library ended rank 1, then all SIGKILL", 2, "", "", 2,
	 {"0:k:MPI_Bcast:collective:-1:-1:9", "1:k:MPI_Bcast:collective:-1:-1:9:e"}, {0},
	 COL_V_SOFTWARE, "B:1;C:0", 0, ""},
	/* the same, rank 0 (the root) had gone on to MPI_Finalize (t/0605) */
	{"the MPI library ended rank 1; rank 0 killed in MPI_Finalize", 2, "", "", 2,
	 {"0:k:MPI_Finalize::-1:-1:9", "1:k:MPI_Bcast:collective:0:-1:9:e"}, {0},
	 COL_V_SOFTWARE, "B:1;C:0", 0, ""},
	{"not the launcher: one rank exited with a status", 1, "", "", 2,
	 {"0:X:::-1:1:0", "0:V"}, {0},
	 COL_V_SOFTWARE, "B:0;B:1", 0, ""},
	/* MPI_Init is never judged by time on its own; the ranks left in it
	 * once a rank ended before or inside it are its cascade. */
	{"in MPI_Init for the timeout, no rank ended: nothing", 2, "", "", 3,
	 {"0:I:MPI_Init:collective:-1", "0:I:MPI_Init:collective:-1", "1:-"}, {0},
	 COL_V_NONE, "", 0, ""},
	{"C: ranks left in MPI_Init by a rank that died before it", 2, "", "", 4,
	 {"0:x:::-1:-1:11", "0:I:MPI_Init:collective:-1", "1:I:MPI_Init:collective:-1", "1:-"}, {0},
	 COL_V_SOFTWARE, "B:0;C:1-2", 0, ""},
	{"C: ranks left in MPI_Init by a rank that died inside it", 2, "", "", 3,
	 {"0:I:MPI_Init_thread:collective:-1", "1:X:MPI_Init_thread:collective:-1:-1:6",
	  "1:I:MPI_Init_thread:collective:-1"}, {0},
	 COL_V_SOFTWARE, "B:1;C:0,2", 0, ""},
	{"D: a rank that ended after the node failure; slow stays A", 2, "1", "", 3,
	 {"0:X:::-1:1:0", "0:S:MPI_Wait:wait:-1", "1:-"}, {0},
	 COL_V_HARDWARE, "A:1;D:0;D:2", 0, ""},
};

static void set_rank(struct col_rank *r, const char *spec, const char *waits)
{
	char buf[256], *f[8] = {0}, *save = NULL;
	int n = 0;
	snprintf(buf, sizeof buf, "%s", spec);
	/* strsep keeps empty fields */
	for (char *p = buf, *tok; (tok = strsep(&p, ":")) && n < 8;)
		f[n++] = tok;
	(void)save;
	memset(r, 0, sizeof *r);
	r->node = atoi(f[0]);
	r->peer_world = r->root_world = r->tag = -1;
	r->exit_code = -1;
	switch (f[1][0]) {
	case 'M': r->state = MW_HB_S_IN_MPI; break;
	case 'P': r->state = MW_HB_S_COMPUTING; break;
	case 'X': r->state = MW_HB_S_EXITED; break;
	case 'k': r->state = MW_HB_S_EXITED; break;
	case 'V': r->state = MW_HB_S_VANISHED; break;
	case 'S': r->state = MW_HB_S_SLOW; break;
	case 'I': r->state = MW_HB_S_IN_INIT; break;
	case 'x': r->state = MW_HB_S_EXITED; r->preinit = 1; break;
	default: r->state = 0;
	}
	if (n > 2 && f[2])
		snprintf(r->call, sizeof r->call, "%s", f[2]);
	if (n > 3 && f[3])
		snprintf(r->kind, sizeof r->kind, "%s", f[3]);
	if (n > 4 && f[4] && *f[4])
		r->peer_world = atoi(f[4]);
	if (n > 5 && f[5] && *f[5])
		r->exit_code = atoi(f[5]);
	if (n > 6 && f[6] && *f[6])
		r->exit_signal = atoi(f[6]);
	r->lib_error = n > 7 && f[7] && !strcmp(f[7], "e");
	r->stuck_seen = r->state == MW_HB_S_IN_MPI ||
			((r->state == MW_HB_S_EXITED || r->state == MW_HB_S_VANISHED) && f[1][0] != 'k' && r->call[0]);
	snprintf(r->comm, sizeof r->comm, "world");
	if (waits) {
		int *v = NULL;
		long k = mw_ranges_parse(waits, 100, &v);
		ck_assert(k > 0);
		r->waits = v;
		r->nwaits = (size_t)k;
		r->waits_known = 1;
	}
}

/* The partition rule: 2 or more nodes and at least half of the job's nodes
 * silent at once is a suspected partition, not dead hardware. */
static const struct {
	int nnodes, ndead, partition;
} partition_cases[] = {
	{1, 1, 0}, {2, 1, 0}, {3, 1, 0}, {3, 2, 1}, {4, 2, 1}, {5, 2, 0}, {4, 3, 1}, {4, 0, 0},
};

START_TEST(test_partition_rule)
{
	struct col_node nodes[8];
	struct col_rank ranks[2];
	struct col_result res;

	memset(nodes, 0, sizeof nodes);
	memset(ranks, 0, sizeof ranks);
	for (int i = 0; i < partition_cases[_i].nnodes; i++) {
		snprintf(nodes[i].name, sizeof nodes[i].name, "n%d", i + 1);
		nodes[i].probed = 1;
		nodes[i].state = i < partition_cases[_i].ndead ? MW_PROBE_DEAD : MW_PROBE_NODAEMON;
	}
	ck_assert_int_eq(col_classify(ranks, 2, nodes, (size_t)partition_cases[_i].nnodes, &res), 0);
	ck_assert_uint_eq(res.ndead, (size_t)partition_cases[_i].ndead); /* "no daemon" is not dead */
	ck_assert_msg(res.partition == partition_cases[_i].partition, "%d of %d nodes dead: partition %d",
		      partition_cases[_i].ndead, partition_cases[_i].nnodes, res.partition);
	col_result_free(&res);
}
END_TEST

START_TEST(test_classify)
{
	const struct fake *c = &cases[_i];
	struct col_rank ranks[8];
	struct col_node nodes[4];
	struct col_result res;
	char got[512] = "", buf[128];

	memset(nodes, 0, sizeof nodes);
	for (int i = 0; i < c->nnodes; i++) {
		snprintf(nodes[i].name, sizeof nodes[i].name, "n%d", i + 1);
		nodes[i].probed = 1;
		nodes[i].state = MW_PROBE_ALIVE;
		if (strchr(c->dead, '0' + i))
			nodes[i].state = MW_PROBE_DEAD;
		if (strchr(c->degraded, '0' + i))
			nodes[i].state = MW_PROBE_DEGRADED;
	}
	for (int i = 0; i < c->size; i++)
		set_rank(&ranks[i], c->ranks[i], c->waits[i]);
	ck_assert_int_eq(col_classify(ranks, (size_t)c->size, nodes, (size_t)c->nnodes, &res), 0);
	for (size_t i = 0; i < res.ncauses; i++) {
		mw_ranges_format(res.causes[i].ranks, res.causes[i].n, buf, sizeof buf);
		snprintf(got + strlen(got), sizeof got - strlen(got), "%s%c:%s", i ? ";" : "",
			 res.causes[i].cause, buf);
	}
	ck_assert_msg(strcmp(got, c->causes) == 0, "%s: causes '%s', want '%s'", c->name, got,
		      c->causes);
	ck_assert_msg(res.verdict == c->verdict, "%s: verdict %s, want %s", c->name,
		      col_verdict_name(res.verdict), col_verdict_name(c->verdict));
	ck_assert_msg(res.cycle.found == c->deadlock, "%s: deadlock %d", c->name, res.cycle.found);
	if (c->deadlock) {
		mw_ranges_format(res.cycle.ranks, res.cycle.n, buf, sizeof buf);
		ck_assert_str_eq(buf, c->deadlock_ranks);
	}
	if (c->verdict == COL_V_HARDWARE)
		ck_assert_uint_ge(res.ndead, 1);
	for (int i = 0; i < c->size; i++)
		free(ranks[i].waits);
	col_result_free(&res);
}
END_TEST

/* Details name the signal, the status and the culprit ranks. */
START_TEST(test_details)
{
	struct col_rank ranks[3];
	struct col_node node = {.name = "n1", .probed = 1, .state = MW_PROBE_ALIVE};
	struct col_result res;
	set_rank(&ranks[0], "0:M:MPI_Recv:recv:1", NULL);
	set_rank(&ranks[1], "0:X:::-1:-1:11", NULL);
	set_rank(&ranks[2], "0:X:::-1:3:0", NULL);
	ck_assert_int_eq(col_classify(ranks, 3, &node, 1, &res), 0);
	ck_assert_uint_eq(res.ncauses, 3);
	ck_assert_msg(strstr(res.causes[0].detail, "signal 11 (SIGSEGV)"), "%s", res.causes[0].detail);
	ck_assert_msg(strstr(res.causes[1].detail, "status 3"), "%s", res.causes[1].detail);
	ck_assert_int_eq(res.causes[2].cause, 'C');
	ck_assert_msg(strstr(res.causes[2].detail, "by rank(s) 1 "), "%s", res.causes[2].detail);
	ck_assert_int_eq(res.rank_cause[0], 'C');
	ck_assert_int_eq(res.rank_cause[1], 'B');
	col_result_free(&res);
}
END_TEST

/* The ranks left in MPI_Init are named as such, with the rank they wait
 * for; "stuck ... while its peers still run" does not count them as running. */
START_TEST(test_details_in_init)
{
	struct col_rank ranks[3];
	struct col_node node = {.name = "n1", .probed = 1, .state = MW_PROBE_ALIVE};
	struct col_result res;
	int me = 2;
	set_rank(&ranks[0], "0:x:::-1:-1:11", NULL);
	set_rank(&ranks[1], "0:I:MPI_Init:collective:-1", NULL);
	set_rank(&ranks[2], "0:I:MPI_Init:collective:-1", NULL);
	ck_assert_int_eq(col_classify(ranks, 3, &node, 1, &res), 0);
	ck_assert_uint_eq(res.ncauses, 2);
	ck_assert_msg(strstr(res.causes[0].detail, "signal 11 (SIGSEGV) before MPI_Init"), "%s",
		      res.causes[0].detail);
	ck_assert_int_eq(res.causes[1].cause, 'C');
	ck_assert_str_eq(res.causes[1].detail,
			 "left in MPI_Init by rank(s) 0 that ended before or inside MPI_Init (cascade)");
	ck_assert(!col_others_run(ranks, 3, &me, 1));
	col_result_free(&res);
}
END_TEST

/* A rank seen slow that has moved on (finalized) keeps its cause A in a
 * verdict of no failure, saying the transfer completed; one that is stuck
 * now takes its present cause; with a failure, past slowness is not listed. */
START_TEST(test_moved_on_keeps_cause_a)
{
	struct col_rank ranks[3];
	struct col_node node = {.name = "n1", .probed = 1, .state = MW_PROBE_ALIVE};
	struct col_result res;

	set_rank(&ranks[0], "0:-", NULL);
	ranks[0].state = MW_HB_S_RESUMED;
	set_rank(&ranks[1], "0:-", NULL);
	ranks[1].state = MW_HB_S_FINALIZED;
	ranks[1].was_state = MW_HB_S_SLOW;
	snprintf(ranks[1].was_call, sizeof ranks[1].was_call, "MPI_Wait");
	snprintf(ranks[1].was_moving, sizeof ranks[1].was_moving, "recv_buffer");
	set_rank(&ranks[2], "0:-", NULL);
	ranks[2].state = MW_HB_S_FINALIZED;
	ranks[2].was_state = MW_HB_S_COMPUTING;
	ck_assert_int_eq(col_classify(ranks, 3, &node, 1, &res), 0);
	ck_assert_int_eq(res.verdict, COL_V_NONE);
	ck_assert_uint_eq(res.ncauses, 2);
	ck_assert_int_eq(res.rank_cause[0], 0);
	ck_assert_int_eq(res.rank_cause[1], 'A');
	ck_assert_int_eq(res.rank_cause[2], 'A');
	for (size_t i = 0; i < 2; i++) {
		ck_assert_int_eq(res.causes[i].cause, 'A');
		ck_assert_uint_eq(res.causes[i].n, 1);
		if (res.causes[i].ranks[0] == 1)
			ck_assert_str_eq(res.causes[i].detail,
					 "in MPI_Wait, its transfer moves (its receive buffer is filling): "
					 "slow, not stuck; the transfer completed");
		else
			ck_assert_msg(strstr(res.causes[i].detail, "computed outside MPI"), "%s",
				      res.causes[i].detail);
	}
	col_result_free(&res);

	/* Rank 0 ended by a signal: a failure; the past slowness is not a cause. */
	set_rank(&ranks[0], "0:X:::-1:-1:11", NULL);
	ck_assert_int_eq(col_classify(ranks, 3, &node, 1, &res), 0);
	ck_assert_int_eq(res.verdict, COL_V_SOFTWARE);
	ck_assert_int_eq(res.rank_cause[1], 0);
	col_result_free(&res);
}
END_TEST

/* Issue 35 item 12: a rank stuck with nobody to wait for is said to wait
 * "while its peers still run" only when a peer runs. */
START_TEST(test_classify_peers_run)
{
	struct col_rank ranks[2];
	struct col_node node = {.name = "n1", .probed = 1, .state = MW_PROBE_ALIVE};
	struct col_result res;
	set_rank(&ranks[0], "0:M:MPI_Wait:wait:-1", NULL);
	set_rank(&ranks[1], "0:P", NULL);
	ck_assert_int_eq(col_classify(ranks, 2, &node, 1, &res), 0);
	ck_assert_int_eq(res.rank_cause[0], 'B');
	ck_assert_uint_eq(res.ncauses, 2);
	ck_assert_str_eq(res.causes[res.causes[0].cause == 'B' ? 0 : 1].detail,
			 "stuck in MPI_Wait while its peers still run (a message that never matches?)");
	col_result_free(&res);
	set_rank(&ranks[1], "0:M:MPI_Wait:wait:-1", NULL);
	ck_assert_int_eq(col_classify(ranks, 2, &node, 1, &res), 0);
	ck_assert_int_eq(res.rank_cause[0], 'B');
	ck_assert_str_eq(res.causes[0].detail,
			 "stuck in MPI_Wait while every other rank is stuck or ended too (what it waits for never comes)");
	col_result_free(&res);
	for (int i = 0; i < 2; i++)
		free(ranks[i].waits);
}
END_TEST

/* Issue 35 item 8: the analysis' deadlock is a cycle of ranks 0-1; ranks
 * 2-3 only wait for them in a barrier (its waiting_ranks).  The pair is B,
 * the bystanders C, naming the pair. */
START_TEST(test_classify_bystanders)
{
	struct col_rank ranks[5];
	struct col_node node = {.name = "n1", .probed = 1, .state = MW_PROBE_ALIVE};
	struct col_result res;
	static const int dl[] = {0, 1, 2, 3}, waiting[] = {2, 3};
	struct col_dl_input in = {.ranks = dl, .n = 4, .waiting = waiting, .nwaiting = 2, .what = "cycle"};
	char buf[64];
	set_rank(&ranks[0], "0:M:MPI_Recv:recv:1", NULL);
	set_rank(&ranks[1], "0:M:MPI_Recv:recv:0", NULL);
	set_rank(&ranks[2], "0:M:MPI_Barrier:collective:-1", "0,1");
	set_rank(&ranks[3], "0:M:MPI_Barrier:collective:-1", "0,1");
	set_rank(&ranks[4], "0:M:MPI_Recv:recv:2", NULL); /* waits on a bystander */
	ck_assert_int_eq(col_classify_dl(ranks, 5, &node, 1, &in, &res), 0);
	ck_assert_uint_eq(res.ncauses, 3);
	ck_assert_int_eq(res.causes[0].cause, 'B');
	mw_ranges_format(res.causes[0].ranks, res.causes[0].n, buf, sizeof buf);
	ck_assert_str_eq(buf, "0-1");
	ck_assert_str_eq(res.causes[0].detail, "deadlocked (cycle)");
	ck_assert_int_eq(res.causes[1].cause, 'C');
	mw_ranges_format(res.causes[1].ranks, res.causes[1].n, buf, sizeof buf);
	ck_assert_str_eq(buf, "2-3");
	ck_assert_str_eq(res.causes[1].detail,
			 "waiting in MPI_Barrier for deadlocked rank(s) 0-1 (cascade)");
	ck_assert_int_eq(res.rank_cause[4], 'C'); /* through the bystander: a cascade too */
	ck_assert_int_eq(res.verdict, COL_V_SOFTWARE);
	col_result_free(&res);
	for (int i = 0; i < 5; i++)
		free(ranks[i].waits);
}
END_TEST

/* One classification: the deadlock the analysis found (here a wrong tag:
 * rank 0 in MPI_Recv from 1, ranks 1-2 in a barrier) makes all its ranks B,
 * deadlocked (wrong tag): ranks in the same barrier are not split into B and
 * C as the collector's own wait graph alone would; a rank waiting on them is C. */
START_TEST(test_classify_with_analysis)
{
	struct col_rank ranks[4];
	struct col_node node = {.name = "n1", .probed = 1, .state = MW_PROBE_ALIVE};
	struct col_result res;
	static const int dl[] = {0, 1, 2};
	struct col_dl_input in = {.ranks = dl, .n = 3, .what = "wrong tag"};
	char buf[64];
	set_rank(&ranks[0], "0:M:MPI_Recv:recv:1", NULL);
	set_rank(&ranks[1], "0:M:MPI_Barrier:collective:-1", "0,2");
	set_rank(&ranks[2], "0:M:MPI_Barrier:collective:-1", "0,1");
	set_rank(&ranks[3], "0:M:MPI_Recv:recv:2", NULL);
	/* Without the analysis: the barrier's ranks are split (B and C). */
	ck_assert_int_eq(col_classify(ranks, 4, &node, 1, &res), 0);
	ck_assert_int_ne(res.rank_cause[1], 0);
	ck_assert_int_ne(res.rank_cause[1], res.rank_cause[2]);
	col_result_free(&res);
	ck_assert_int_eq(col_classify_dl(ranks, 4, &node, 1, &in, &res), 0);
	ck_assert_uint_eq(res.ncauses, 2);
	ck_assert_int_eq(res.causes[0].cause, 'B');
	mw_ranges_format(res.causes[0].ranks, res.causes[0].n, buf, sizeof buf);
	ck_assert_str_eq(buf, "0-2");
	ck_assert_str_eq(res.causes[0].detail, "deadlocked (wrong tag)");
	ck_assert(res.causes[0].deadlock);
	ck_assert_int_eq(res.causes[1].cause, 'C');
	ck_assert_int_eq(res.causes[1].ranks[0], 3);
	ck_assert_msg(strstr(res.causes[1].detail, "by rank(s) 2 "), "%s", res.causes[1].detail);
	ck_assert_int_eq(res.verdict, COL_V_SOFTWARE);
	col_result_free(&res);
	for (int i = 0; i < 4; i++)
		free(ranks[i].waits);
}
END_TEST

/* A large job: a ring deadlock of 2000 ranks is found without blowing up. */
START_TEST(test_large_ring)
{
	size_t n = 2000;
	struct col_rank *ranks = calloc(n, sizeof *ranks);
	struct col_node node = {.name = "n1", .probed = 1, .state = MW_PROBE_ALIVE};
	struct col_result res;
	for (size_t i = 0; i < n; i++) {
		char spec[64];
		snprintf(spec, sizeof spec, "0:M:MPI_Recv:recv:%zu", (i + n - 1) % n);
		set_rank(&ranks[i], spec, NULL);
	}
	ck_assert_int_eq(col_classify(ranks, n, &node, 1, &res), 0);
	ck_assert_uint_eq(res.ncauses, 1);
	ck_assert_uint_eq(res.causes[0].n, n);
	ck_assert(res.cycle.found);
	col_result_free(&res);
	free(ranks);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("verdict");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_threshold, 0, sizeof(thr_cases) / sizeof(thr_cases[0]));
	tcase_add_test(tc, test_suspicious_states);
	tcase_add_loop_test(tc, test_partition_rule, 0, sizeof partition_cases / sizeof partition_cases[0]);
	tcase_add_loop_test(tc, test_classify, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, test_details);
	tcase_add_test(tc, test_details_in_init);
	tcase_add_test(tc, test_large_ring);
	tcase_add_test(tc, test_classify_with_analysis);
	tcase_add_test(tc, test_classify_bystanders);
	tcase_add_test(tc, test_classify_peers_run);
	tcase_add_test(tc, test_moved_on_keeps_cause_a);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
