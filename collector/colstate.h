/* colstate.h - what the collector knows about one job, and the report
 * writers (report.json, report.txt, collector-stats.json, the Slurm comment).
 */
#ifndef COL_STATE_H
#define COL_STATE_H

#include <stddef.h>
#include <stdio.h>

#include <json-c/json.h>

#include "verdict.h"

#define COL_MAX_RANKS 262144

struct col_tree; /* the tree overlay (coltree.h) */

struct col_event {
	double t_unix;
	char event[24];   /* first_heartbeat, threshold, probe_start, probe_end, verdict,
			     drain, comment, action, agent_lost, note, shutdown */
	char detail[720];
};

/* The deadlock analysis' answer (analyze/): kinds as in
 * doc/schemas/deadlock.schema.json. */
struct col_deadlock {
	int found;
	char kind[32];
	char what[48];    /* its short name: "cycle", "wrong tag", "collective mismatch"... */
	int *ranks;
	size_t n;
	int *waiting; /* of ranks, those that only wait for the others */
	size_t nwaiting;
	char detail[256];
};

#define COL_LINK_ERRORS_MAX 32

struct col_agent {
	int hello;        /* an agent said hello from this node */
	int connected;    /* currently connected */
	int bye;          /* left on purpose */
	int vanished;     /* connection lost without a goodbye */
	char addr[64];    /* address its connection came from */
};

struct col_action {
	char what[16];    /* "drain", "comment", "cancel", "requeue" */
	char target[64];  /* node name, job id */
	int ok;
	char message[256];
	double t_unix;
};

struct col_stats {
	unsigned long heartbeats;  /* HEARTBEAT frames received */
	unsigned long beats_by_state[MW_HB_NSTATES];
	unsigned long rank_announcements;
	unsigned long dumps;
	unsigned long malformed;
	unsigned long connections;
	unsigned long hellos_rejected;
	unsigned long hellos_unauthenticated; /* of those: no or a bad MUNGE credential */
	unsigned long unauth_evicted; /* connections without a HELLO closed to make room */
	unsigned long agents_vanished;
	unsigned long probe_rounds;
	unsigned long probes_sent;
	unsigned long probe_answers;   /* probes answered (a reply, or the node's port-unreachable) */
	unsigned long probe_requests;  /* tree: PROBEREQ frames sent */
	unsigned long probe_summaries; /* tree: PROBESUM frames received */
	unsigned long drain_requests;
	unsigned long drains_ok;
	unsigned long comments;
	unsigned long evaluations;
};

struct col_ap; /* collector/colap.h */

struct col_state {
	char job[32];
	double t_start_unix;

	struct col_node *nodes;
	struct col_agent *agents; /* parallel to nodes */
	size_t nnodes;

	struct col_rank *ranks;   /* world ranks 0..size-1 */
	char **dumps;             /* per rank: dump JSON text or NULL */
	size_t size;
	long expected_ranks;      /* --ranks, 0 unknown */

	struct col_event *tl;
	size_t ntl;
	struct col_action *acts;
	size_t nacts;

	int decided;              /* a software/hardware verdict was reached */
	struct col_result res;    /* the last classification */
	int have_res;
	double t_verdict_unix;
	double first_beat_mono, threshold_mono, verdict_mono; /* for latency stats */
	json_object *analysis;    /* deadlock analysis of the dumps (analyze/), or NULL */
	struct col_deadlock dl;   /* its answer: the report's only deadlock answer */
	int dl_dumps;             /* dumps it analysed (0: none yet) */
	/* A software verdict is acted on (comment, cancel, requeue, the end of
	 * the program under "mpiwatch run") only when confirmed: a dead node,
	 * a rank that failed, a deadlock the analysis finds, or ranks still
	 * stuck after the hang limit.  Until then it is a suspected hang. */
	int confirmed;
	char confirmed_by[128];
	double stuck_since_mono;  /* a suspected hang was first seen, 0 = none */
	struct col_stats st;
	/* The MPI library's own error lines (OUTDIR/mpi-errors.txt, written by
	 * "mpiwatch run" from the launcher's output): "RANK<TAB>LINE" per line,
	 * NUL-terminated, or NULL. */
	char *mpi_errors;
	/* Where crashed ranks died (OUTDIR/crash-stacks.txt, written by
	 * "mpiwatch run" from Open MPI's own crash report): "RANK<TAB>FRAME<TAB>
	 * FRAME..." per line, innermost frame first, or NULL. */
	char *crash_stacks;
	/* The auxiliary processes' rounds and output (collector/colap.h), or
	 * NULL; owned by the collector's core. */
	struct col_ap *ap;
	/* The tree overlay in use (coltree.h), or NULL (the flat star). */
	const struct col_tree *tree;
	/* Link errors (issue 13): an agent that could not reach or was
	 * refused by the collector (its OUTDIR/logs/link-error-NODE.txt, or
	 * the collector's own refusal), one per node name, the last one. */
	struct col_link_error {
		char node[64];
		char source[12]; /* "agent" | "collector" */
		char error[400];
	} link_errors[COL_LINK_ERRORS_MAX];
	size_t nlink_errors;
};

/* Record (or replace) node's link error.  More than COL_LINK_ERRORS_MAX
 * nodes: the rest are dropped (the logs keep them). */
void col_state_link_error(struct col_state *s, const char *node, const char *source,
			  const char *error);

/* Initialise an empty state for job (copied).  Return 0 or -1 (ENOMEM). */
int col_state_init(struct col_state *s, const char *job);
void col_state_free(struct col_state *s);

/* Find or add a node by name.  Return its index, or -1 (ENOMEM, EINVAL). */
int col_state_node(struct col_state *s, const char *name);

/* Make room for ranks 0..size-1.  Return 0 or -1 (ENOMEM, E2BIG). */
int col_state_grow(struct col_state *s, size_t size);

/* Append a timeline event (printf-style detail). */
void col_state_event(struct col_state *s, const char *event, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record an action's outcome (also a timeline event). */
void col_state_action(struct col_state *s, const char *what, const char *target, int ok,
		      const char *message);

/* Store a rank's dump (takes ownership of json) and derive its waits from
 * it (communicator members, pending request peers). */
void col_state_set_dump(struct col_state *s, int rank, char *json);

/* What the analysis of the dumps (s->analysis) says when it finds no
 * deadlock, into buf (len bytes), for the answer, the report and the
 * timeline: "the analysis of the dumps finds no deadlock", with
 * " (a slow transfer?)" when guess; or, when a rank's dump could not be read,
 * "the analysis of the dumps is incomplete: <its incomplete_reason>" (issue
 * 35 item 6).  Return buf. */
const char *col_dl_none(const struct col_state *s, int guess, char *buf, size_t len);

/* Derive what rank r waits for from its dump text (see dump-format.md):
 * collectives and MPI_ANY_SOURCE wait for the communicator's members,
 * wait/test calls for the peers of the pending requests, sendrecv for both
 * peers.  Return 0 (r->waits set, r->waits_known = 1) or -1 if the dump gives
 * nothing usable. */
int col_dump_waits(const char *json, struct col_rank *r);

/* Keep a heartbeat's call site in r->site (a copy; "" or NULL: none).
 * Return 0, or -1 if out of memory (r->site is then NULL). */
int col_rank_set_site(struct col_rank *r, const char *site);

/* Whether the analysis' deadlock is explained away by a rank that ended: it
 * found one, but a rank it had no dump of ended before MPI_Finalize (an
 * abort inside a call...), so the others wait for an ended rank, which the
 * analysis could not know.  Return that rank, or -1. */
int col_deadlock_ended_rank(const struct col_state *s);

/* Whether the analysis' deadlock holds whatever the ranks it has no dump of
 * do next: a cycle among the dumped ranks does; a collective mismatch with
 * ranks still running (computing, or never stuck) may yet be released. */
int col_deadlock_certain(const struct col_state *s);

/* The line of rank r ("RANK<TAB>..." lines) in text, without "RANK<TAB>",
 * into buf.  Return 1 if there is one, else 0 (also for text NULL). */
int col_rank_line(const char *text, int r, char *buf, size_t len);

/* The MPI library's error line for rank r (s->mpi_errors) into buf.
 * Return 1 if there is one, else 0. */
int col_mpi_error(const struct col_state *s, int r, char *buf, size_t len);

/* The report as JSON (doc/schemas/report.schema.json); a new reference. */
json_object *col_report_json(const struct col_state *s);

/* The readable report. */
void col_report_text(const struct col_state *s, FILE *f);

/* The Slurm job comment (at most len - 1 bytes): the user's own comment old
 * (NULL or "" if none) kept, then the first sentence of the answer and the
 * path of report.txt (report, may be NULL); see col_answer_comment. */
void col_report_comment(const struct col_state *s, const char *old, const char *report, char *buf,
			size_t len);

/* Counters as JSON; a new reference. */
json_object *col_stats_json(const struct col_state *s);

/* Write dir/report.json (or report_path), dir/report.txt, dir/report.html
 * and dir/collector-stats.json, each through a temporary file and rename:
 * col_report_render then col_report_files_write.  Return 0, or -1 (errno
 * set) if a file could not be made or written. */
int col_report_write(const struct col_state *s, const char *dir, const char *report_path);

/* The report's files as col_report_write writes them, made in memory. */
#define COL_REPORT_NFILES 5
struct col_report_files {
	size_t n;
	struct {
		char path[4096];
		char *text; /* malloc'd, NUL-terminated */
	} f[COL_REPORT_NFILES];
};

/* Make the files of s's report (out set; release it with
 * col_report_files_free), in the order they are to be written: report.json
 * last, so that once it holds a verdict the other files already do.
 * Return 0, or -1 (errno set) if one could not be made: the others are
 * still there. */
int col_report_render(const struct col_state *s, const char *dir, const char *report_path,
		      struct col_report_files *out);

/* Write r's files (through a temporary file and rename each; no access to
 * the state: any thread).  Return 0, or -1 (errno: the first failure's). */
int col_report_files_write(const struct col_report_files *r);

/* Free r's texts. */
void col_report_files_free(struct col_report_files *r);

#endif
