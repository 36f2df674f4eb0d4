/* colctx.h - the collector's shared context (internal to collector/): what
 * the loop (core.c), the links (collinks.c), the evaluation (coleval.c),
 * the probe round (colprobe.c), the actions (colact.c) and the reports
 * (colreports.c) all see, and the seams its unit tests replace: the clock,
 * the probes and the Slurm actions (struct col_env).
 */
#ifndef COL_CTX_H
#define COL_CTX_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "colstate.h"
#include "core.h"
#include "heartbeat.h"
#include "probe.h"
#include "slurm.h"
#include "uvprobe.h"

struct collector;
struct col_fuzzy;
struct mw_link;
struct mwt_factors;

/* The kinds of actions on Slurm (colact.c). */
enum col_act_kind { COL_DO_DRAIN, COL_DO_COMMENT, COL_DO_CANCEL, COL_DO_REQUEUE };

/* What the collector does to the world, replaceable by a test.  Every
 * member may be NULL: the real thing is used (the monotonic clock, UDP
 * probes, scontrol/slurmrestd/nodehealthd). */
struct col_env {
	void *arg; /* passed to each member */
	/* The clock, in seconds (monotonic in production). */
	double (*now)(void *arg);
	/* Probe the n nodes now (names[i], addrs[i] or NULL), results into
	 * out[i]; a test's answer instead of the UDP round. */
	void (*probe)(void *arg, const char *const *names, size_t n, struct mw_probe_result *out);
	/* Do one action (the node index for COL_DO_DRAIN, else -1); msg
	 * (len bytes) says what happened.  Return 1 if done, 0 if not. */
	int (*action)(void *arg, struct collector *c, enum col_act_kind kind, int node, char *msg, size_t len);
	/* Whether Slurm answers about job now (a refused action is then a
	 * final answer, not a retry).  Return 1 or 0. */
	int (*slurm_answers)(void *arg, const char *job);
};

/* Where a connection is in the handshake (doc/protocol.md "Handshake"). */
enum col_au {
	AU_VERIFY,   /* waiting for the agent's nonce */
	AU_PROVING,  /* our proof is being made (authq) */
	AU_HELLO,    /* challenge sent, waiting for the HELLO */
	AU_CHECKING, /* the HELLO's credential is being checked (authq) */
	AU_DONE,     /* welcomed, or refused and closing */
};

struct col_client {
	struct mw_link *l;
	int node;      /* index into the node table, -1 before hello */
	int hello;     /* welcomed */
	int closing;   /* close once flushed */
	double t_conn;
	char nonce[MW_HB_NONCE_LEN + 1]; /* this connection's challenge */
	uint64_t id;               /* its authq jobs name it */
	enum col_au au;
	char src[64];              /* the peer's address, without the port */
	struct mw_hb_hello *hello_wait; /* the HELLO under check (AU_CHECKING) */
	void *watch;               /* the loop's watcher of its socket (core.c), or NULL */
};

/* An action on Slurm to retry (colact.c). */
struct col_retry {
	enum col_act_kind kind;
	int node; /* COL_DO_DRAIN: index into the node table */
	int tries;
	double backoff, at;
	int last; /* the last try at shutdown: no retry, no "does Slurm answer?" */
};

/* Our own probe round of the nodes the CPs did not report on, under way
 * while the event loop goes on (agents attach, heartbeats count): begun by
 * an evaluation, which resumes when it is over (colprobe.c). */
struct col_own_probe {
	int active;
	struct mw_uvprobe *round; /* under way on the loop; NULL: over, nothing to probe, or it could not start */
	int start_errno;
	int done;        /* the results are in: rc, rc_errno (own[] filled) */
	int rc, rc_errno;
	size_t nn, nown, ncp;
	const char **names, **addrs;
	char (*nodes)[64], (*hosts)[64]; /* what names and addrs point to: the node
					   table may grow while the round goes on */
	struct mw_probe_result *out, *own;
	char *covered;
	char (*by)[MW_HB_STR_MAX + 1];
	size_t *idx;
	int early;       /* begun at the threshold (col_probe_early), no evaluation waits on it yet */
	double began;    /* when it began (col_now) */
	struct col_nodaemon *nd; /* Slurm asked about nodes up without nodehealthd (colnodaemon.c) */
	int nd_asked;
	struct col_resolve *resolve; /* the names without an address looked up (colresolve.c) */
};

struct collector {
	struct col_opts *o;
	struct col_env env;
	uv_loop_t *loop;      /* the event loop (core.c); NULL: probes block (no loop) */
	/* The loop's hook, called as client cl is about to be closed (its
	 * socket's watcher goes first), or NULL. */
	void (*link_closing)(struct collector *c, struct col_client *cl);
	struct col_state s;
	int lfd;
	uint16_t port;
	struct col_client *c;
	size_t nc;
	int stop;
	double stopping_until; /* told to stop: until then, wait for the agents' last words (0 = not told) */
	int pending;          /* an evaluation is scheduled */
	double eval_at;       /* when (on the clock) */
	unsigned long gen;    /* bumps with every suspicious change */
	unsigned long eval_gen;
	int computing_noted;
	int overdue_noted; /* "a hang if these have not come back to MPI" written */
	int slow_notes; /* "slow, not stuck" notes written (at most 16) */
	int after_notes;
	int status_dirty;     /* agents or ranks changed: refresh report.json (mpiwatch status --job) */
	struct col_tree *tree;   /* the tree overlay (coltree.c), NULL in the flat star */
	int dumpreq_due;         /* tree: ranks got stuck after the threshold: ask for their dumps */
	struct col_retry *retry; /* actions to retry (Slurm did not answer) */
	size_t nretry;
	struct col_retry *todo;  /* actions waiting for the one under way on the loop's pool */
	size_t ntodo;
	int act_busy;            /* an action is under way on the pool */
	double status_at;     /* when it was last refreshed for that */
	double links_read_at; /* when the agents' link errors were last read */
	int write_busy;       /* a report write is under way on the loop's pool */
	int write_again;      /* ... and the report changed since it was made */
	int writes_inline;    /* the run is over: write in line */
	double mpierr_grace_until; /* waiting (once) for the MPI library's line, 0 = not yet */
	double settle_until;  /* waiting (once) for the other ranks' ends, 0 = not yet */
	uint32_t tprobe_round;  /* tree: the probe round asked of the CPs, 0 none */
	uint32_t tprobe_seq;    /* the last round's number */
	double tprobe_until;    /* ... the collector waits for their summaries until then */
	int final_eval;         /* the last evaluation at shutdown: no waiting for CPs */
	char joblog[4200];    /* the batch job's output file (joblog.h), "" not known */
	int joblog_asked;     /* Slurm was asked for it */
	int joblog_busy;      /* on the loop: squeue or the file's read under way */
	char *joblog_text;    /* ... the file's tail read on the pool, not yet applied */
	struct mw_slurm_job joblog_j; /* squeue's answer (on the loop) */
	struct col_own_probe pr; /* our probe round, when one is under way */
	struct col_fuzzy *fuzzy; /* the fuzzy placement's start-up probe under way (colprobe.c), or NULL */
	struct col_authq *aq; /* MUNGE work off the loop */
	uint64_t next_id;
};

/* The collector's clock (env.now, else mw_now), in seconds. */
double col_now(const struct collector *c);

/* The probe budget in effect: the probe_budget setting, at most 1.5 s in
 * the evaluation at shutdown (final_eval). */
double col_probe_budget(const struct collector *c);

/* The probe port and the probes per node of a round (the settings
 * probe_port and probe_tries), typed for the probe calls. */
uint16_t col_probe_port(void);
int col_probe_tries(void);

/* The action in effect: the action setting, or report only in the
 * evaluation at shutdown (the job is ending anyway). */
enum mw_jc_action col_action(const struct collector *c);

/* Set up c for the options o and the settings (shared/settings.h: the
 * state with the timeout, hang limit and threshold, the nodes of --nodes
 * and the tree's plan, the auxiliary processes) with env (copied; NULL:
 * the real one).  No socket is opened.  Return 0, or -1 (logged). */
int col_ctx_init(struct collector *c, struct col_opts *o, const struct col_env *env);

/* Plan c's tree overlay (c->tree, c->s.tree: NULL in the star) from its
 * nodes and options, with the fuzzy placement's factors f (one per node),
 * or NULL for the average placement. */
void col_ctx_plan_tree(struct collector *c, const struct mwt_factors *f);

/* Free what c holds (the links are closed).  c may be half set up. */
void col_ctx_free(struct collector *c);

#endif
