/* verdict.h - from what the collector knows about ranks and nodes to a
 * verdict (none / software / hardware) and causes A-D (seed 000).
 *
 * Pure functions over plain structs: no I/O, so the classification is unit
 * tested with faked neighbours (t/unit/test_verdict.c).
 */
#ifndef COL_VERDICT_H
#define COL_VERDICT_H

#include <stddef.h>

#include "heartbeat.h"
#include "probe.h"

enum col_verdict {
	COL_V_NONE = 0,
	COL_V_SOFTWARE = 1,
	COL_V_HARDWARE = 2,
};

/* What the collector knows about one rank. */
struct col_rank {
	int known;              /* the rank was announced or sent a heartbeat */
	int node;               /* index into the node table, -1 unknown */
	int state;              /* enum mw_hb_state of the latest heartbeat, 0 = none */
	char call[MW_HB_STR_MAX + 1];
	char kind[16];
	char comm[MW_HB_STR_MAX + 1];
	int peer_world, root_world, tag;
	int count;                /* the call's element count (heartbeat "count"), 0 none */
	char datatype[24];        /* its datatype ("MPI_INT"), "" unknown */
	unsigned long long bytes; /* count x its size, 0 unknown */
	int exit_code, exit_signal;
	double idle_s;
	char moving[32];          /* slow: what moved (heartbeat "moving") */
	char *site;               /* the call's site (heartbeat "site", malloc'd), NULL none */
	/* Ranks this one may wait for beyond peer_world (from its dump: the
	 * communicator's members for a collective or MPI_ANY_SOURCE, the peers
	 * of pending requests for wait/test).  NULL = not known. */
	int *waits;
	size_t nwaits;
	int waits_known;        /* waits[] is meaningful (even if empty) */
	int has_dump;
	int pid;                /* its process id on its node (RANK, heartbeat), 0 unknown */
	int stuck_seen;         /* a heartbeat said it was stuck in MPI (IN_MPI) and no
				 * later one that it moved on (RESUMED, FINALIZED) */
	int lib_error;          /* the MPI library printed its own error line for it:
				 * the library ended it, whatever signal followed */
	/* The cause-A state a heartbeat told of (MW_HB_S_SLOW, else the last
	 * MW_HB_S_COMPUTING; 0 none) and the call and movement it told: a rank
	 * that has moved on since keeps its cause A in a verdict of no failure
	 * (the suspected hang was its slow transfer). */
	int was_state;
	char was_call[MW_HB_STR_MAX + 1];
	char was_moving[32];
	/* Computing outside MPI (MW_HB_S_COMPUTING): since when, on the
	 * collector's clock (meaningful in that state only); for how long at the last
	 * evaluation; and whether that is past the hang limit (both set by the
	 * evaluation before it classifies).  A rank past the hang limit that
	 * stuck ranks wait for is the program's own fault (cause B), they its
	 * cascade (C). */
	double computing_since;
	double computed_s;
	int overdue;
	int preinit;            /* it ended before its first MPI call (MPI_Init) */
};

struct col_node {
	char name[64];
	char addr[64];
	enum mw_probe_state state; /* after probing; MW_PROBE_ALIVE before */
	double rtt_ms;             /* -1 unknown */
	int probed;
	char summary[MW_PROBE_SUMMARY_MAX + 1];
	char probed_by[64];        /* tree: the node of the CP that probed it ("" the collector) */
};

struct col_cause {
	char cause;      /* 'A', 'B', 'C' or 'D' */
	int *ranks;      /* sorted */
	size_t n;
	char detail[256];
	int cycle;       /* B because the ranks' waits form a cycle (the
			  * deadlock analysis of the dumps says whether it is one) */
	int deadlock;    /* B: the ranks of the deadlock the analysis found */
};

/* The collector's own view from the heartbeats: stuck ranks whose waits
 * form a cycle.  Only a hint: the report's deadlock answer comes from the
 * analysis of the dumps (analyze/), never from this. */
struct col_cycle {
	int found;
	int collective;  /* a rank of the cycle is in a collective */
	int *ranks;
	size_t n;
};

struct col_result {
	enum col_verdict verdict;
	struct col_cause *causes;
	size_t ncauses;
	struct col_cycle cycle;
	int *dead_nodes;  /* indexes into the node table */
	size_t ndead;
	int partition;    /* so many nodes silent at once (COL_PARTITION_RULE) that a network
			   * partition is likelier than dead nodes: nothing is drained */
	char *rank_cause; /* per rank: 0 none, 'A'..'D' */
	size_t size;
	/* Every rank of the job vanished with no exit status or was killed by
	 * SIGTERM, SIGINT or SIGHUP, no node dead: the launcher
	 * (mpirun, srun) was killed or the job ended from outside, not a
	 * failure of the program.  The verdict is then none, no causes. */
	int launcher_killed;
};

/* The partition rule: at least 2 nodes and at least half of the job's
 * nodes silent at once is a suspected partition (the collector's node may
 * be the one cut off), not a hardware failure to act on. */
#define COL_PARTITION_RULE(ndead, nnodes) ((ndead) >= 2 && 2 * (ndead) >= (nnodes))

/* Static name of a verdict: "none", "software", "hardware". */
const char *col_verdict_name(enum col_verdict v);

/* The deadlock the analysis of the dumps found (analyze/): its ranks and
 * what it is ("cycle", "wrong tag", "collective mismatch"...).  The one
 * classification takes it in, so the causes say what the analysis says. */
struct col_dl_input {
	const int *ranks; /* sorted world ranks of the deadlock */
	size_t n;
	const int *waiting; /* of them, those that only wait for the others (cause C) */
	size_t nwaiting;
	const char *what; /* short name of the deadlock, e.g. "wrong tag" */
};

/* Classify.  ranks has size entries (world ranks), nodes nnodes entries.
 * A dead node makes it hardware (cause D); else every rank vanished with no
 * exit status is the launcher killed (res->launcher_killed, verdict none);
 * else causes A-C as in verdict.c's header.
 * Return 0 and fill res (release with col_result_free), or -1 (ENOMEM). */
int col_classify(const struct col_rank *ranks, size_t size, const struct col_node *nodes,
		 size_t nnodes, struct col_result *res);

/* The same, knowing the deadlock the analysis of the dumps found (dl may be
 * NULL: as col_classify).  The stuck ranks of the deadlock are cause B,
 * "deadlocked (WHAT)", whatever the collector's own wait graph says, except
 * those the analysis says only wait for the others (a barrier the others
 * never reach): C, as are stuck ranks that wait for them. */
int col_classify_dl(const struct col_rank *ranks, size_t size, const struct col_node *nodes,
		    size_t nnodes, const struct col_dl_input *dl, struct col_result *res);

void col_result_free(struct col_result *res);

/* Threshold: a count of ranks, or a percentage of the job's ranks. */
struct col_threshold {
	int percent; /* 1 = value is a percentage */
	double value;
};

/* Parse "N" (1..16777216) or "P%" (0 < P <= 100).
 * Return 0, or -1 (errno EINVAL). */
int col_threshold_parse(const char *s, struct col_threshold *t);

/* Number of suspicious ranks that crosses the threshold for a job of nranks
 * ranks (nranks 0 = unknown: a percentage then needs 1). Always >= 1. */
long col_threshold_need(const struct col_threshold *t, long nranks);

/* col_threshold_need of the threshold setting (MW_SET_THRESHOLD, read
 * through shared/settings.h, never copied; the collector checks it once at
 * its start, col_ctx_init): one that does not parse needs 1. */
long col_threshold_setting_need(long nranks);

/* Return 1 if rank x ended killed by a signal a launcher or Slurm sends to
 * the remaining ranks of a job once one rank failed (SIGKILL, SIGTERM): most
 * often not the first failure; 0 otherwise, and 0 for a rank the MPI
 * library ended (x->lib_error: the kill followed the library's abort). */
int col_killed_from_outside(const struct col_rank *x);

/* Whether a rank other than those in the sorted set skip[0..n) may still
 * run: no heartbeat (not stuck), computing, slow or going on again.  Ranks
 * stuck in MPI (or told in MPI_Init), ended or finalized do not.  Issue 35 item 12: a stuck rank
 * is said to wait "while its peers still run" only when one does. */
int col_others_run(const struct col_rank *ranks, size_t size, const int *skip, size_t n);

/* Whether rank i of res is cause B for computing outside MPI past the hang
 * limit while stuck ranks wait for it (ranks[i].overdue, issue 35 item 2):
 * the one test the confirmation, the evaluation and the answer share. */
int col_overdue(const struct col_rank *ranks, const struct col_result *res, size_t i);

/* Return 1 if a rank in this heartbeat state counts towards the threshold
 * (stuck in MPI, exited, vanished), 0 if not (computing, resumed...). */
int col_state_suspicious(int state);

#endif
