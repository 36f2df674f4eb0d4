/* dl_int.h - internal model of the deadlock analysis (analyze/ only). */
#ifndef MW_DL_INT_H
#define MW_DL_INT_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "dl.h"

#define DL_ANY_SOURCE (-2)
#define DL_PROC_NULL (-1)
#define DL_ANY_TAG (-1)
#define DL_NO_TAG INT32_MIN

/* ---- interned strings (live as long as the pool) ---- */
struct dl_pool;
struct dl_pool *dl_pool_create(void);
void dl_pool_destroy(struct dl_pool *p);
/* Return the interned copy of s (NULL for NULL), or NULL if out of memory. */
const char *dl_intern(struct dl_pool *p, const char *s);

/* ---- model ---- */
enum dl_kind {
	DLK_OTHER = 0,
	DLK_SEND,
	DLK_RECV,
	DLK_SENDRECV,
	DLK_PROBE,
	DLK_WAIT,
	DLK_TEST,
	DLK_COLLECTIVE,
	DLK_RMA,
	DLK_IO,
};

enum dl_state { DLS_IN_MPI = 0, DLS_COMPUTING, DLS_FINALIZED, DLS_EXITED };
enum dl_mode { DLM_NONE = 0, DLM_STANDARD, DLM_SYNC, DLM_BUFFERED, DLM_READY };

struct dl_frame {
	const char *addr, *symbol, *file, *object, *offset;
	const char *build_id; /* the object's build-id at the run, or NULL */
	const char *nosrc;    /* why there is no source line, or NULL (no debug info) */
	int line;
};

/* A message: a pending/recent request, or an unexpected message. */
struct dl_msg {
	long req;
	const char *op;
	int comm; /* global comm index, or -1 */
	int peer, peer_world;
	int tag; /* DL_NO_TAG when absent */
	long count, bytes;
	const char *datatype;
	enum dl_mode mode;
	unsigned persistent : 1, active : 1;
	int root; /* a nonblocking rooted collective's root (comm rank), else -1 */
	const char *reduce_op; /* a nonblocking reduction's MPI_Op, or NULL */
	struct dl_frame site; /* where a request was posted (addr NULL: unknown) */
	long seq; /* a nonblocking collective's number on its comm (1, 2...), 0 unknown */
};

struct dl_call {
	const char *name;
	enum dl_kind kind;
	int comm; /* global comm index, or -1 */
	int peer, peer_world, tag;
	int send_peer, send_peer_world, send_tag;
	int root, root_world;
	const char *op, *datatype;
	long count, bytes;
	enum dl_mode mode;
	long *requests;
	int nrequests;
	int nrequests_total; /* "nrequests": all waited on, tracked or not; -1 unknown */
	int any;
	int fortran;
	struct dl_frame site;
};

struct dl_rank {
	int rank;
	const char *file; /* basename */
	const char *host;
	long pid;
	enum dl_state state;
	const char *reason;
	double in_call_s, dump_unix, enter_unix; /* enter_unix 0 = unknown */
	int has_call;
	struct dl_call call;
	struct dl_frame *stack;
	int nstack;
	struct dl_msg *psend, *precv, *recent, *unexp;
	int npsend, nprecv, nrecent, nunexp;
	struct dl_msg *bsend; /* buffered sends since the last MPI_Buffer_detach, newest first */
	int nbsend;
	long nbsend_total;    /* how many (bsend lists the newest); 0 when the dump has none */
	long unexp_count; /* -1 = unknown */
	int *comms; /* global comm indices this rank knows */
	int *crank; /* this rank's rank in each of them (-1 unknown) */
	long *nbc_started; /* nonblocking collectives started on each of them (0 unknown) */
	int ncomms;
};

struct dl_comm {
	const char *gid, *name, *how;
	int size;
	int *group; /* world ranks by comm rank; NULL = identity (world) or unknown */
	int identity;
	int inter;
	int known; /* group known */
};

/* A message that a send side offers, for matching. */
struct dl_offer {
	int src, dst; /* world ranks */
	int comm, tag;
	int how; /* DLO_BLOCKED, DLO_PENDING, DLO_RECENT, DLO_UNEXPECTED */
	const char *op;
};
enum { DLO_BLOCKED = 0, DLO_PENDING, DLO_RECENT, DLO_UNEXPECTED };

/* One requirement of a blocked rank: an OR over targets (nodes) and whole
 * communicators (any member but the owner). */
struct dl_clause {
	int owner; /* node */
	int sat;
	int t0, nt; /* targets: c->tgt[t0 .. t0+nt) */
	int a0, na; /* whole comms: c->anyc[a0 .. a0+na) */
	/* what it stands for, for reports */
	int what; /* DLW_RECV, DLW_SEND, DLW_COLL, DLW_MEMBER */
	int comm, tag, peer_world;
	const char *op;
};
enum { DLW_RECV = 0, DLW_SEND, DLW_COLL, DLW_MEMBER };

/* A collective "instance": the ranks of one comm in one collective signature. */
struct dl_vnode {
	int comm;
	const char *name;
	int root; /* comm rank or -1 */
	long seq; /* nonblocking collectives: their number on the comm, 0 for blocking ones */
	int nmembers_in; /* ranks of the comm in this signature */
	int first_rank;
};

enum dl_node_state { DLN_FREE = 0, DLN_BLOCKED, DLN_TERMINAL, DLN_UNKNOWN };

struct dl_finding {
	const char *kind, *cause;
	int *ranks; /* deadlocked ranks, sorted */
	int nranks;
	int *waiting; /* of ranks, those that only wait for the others (sorted; dl_core.c) */
	int nwaiting;
	int *terminal; /* finalized/exited ranks it waits on */
	int nterminal;
	int *missing; /* missing ranks it involves (should be none) */
	int comm;     /* for a collective mismatch */
	int *path;    /* a wait-for path (nodes), ending in a repeat or terminal */
	int npath;
	int path_cycle; /* 1 if path[npath-1] waits on path[loop_at] */
	int loop_at;
	struct json_object *diag; /* array of diagnosis objects */
	int ndiag_omitted;
	int unconfirmed; /* dumps not from one moment: maybe stale */
	char stale_msg[400];
};

struct dl_ctx {
	struct dl_options opt;
	struct dl_pool *pool;
	int size;
	struct dl_rank **ranks; /* by world rank; NULL = no valid dump */
	int ndumps;
	struct json_object *invalid; /* array of {file, error} */
	/* per world rank: "rank-N.json: why" (interned) when the rank's file is
	 * there but could not be read as a dump of this job, else NULL; NULL
	 * array = none (issue 35 item 6: the analysis is then incomplete) */
	const char **unreadable;
	int nunreadable;
	int nfiles;
	const char *job_id;
	/* comms */
	struct dl_comm *comms;
	int ncomm, capcomm;
	void *comm_index; /* gid -> index hash */
	/* graph */
	int nnodes; /* size + nv */
	struct dl_vnode *v;
	int nv;
	struct dl_clause *cl;
	int ncl, capcl;
	int *tgt, ntgt, captgt;
	int *anyc, nanyc, capanyc;
	int *rank_vnode; /* per rank: vnode of its blocking collective, or -1 */
	int *comm_vhead; /* per comm: first vnode, chained by vnext */
	int *vnext;
	int world; /* index of the world comm, or -1 */
	unsigned char *nstate; /* per node: enum dl_node_state */
	unsigned char *released;
	int *unsat; /* per node: unsatisfied clauses */
	int *why;   /* per node: the node whose release let it go on, or -1 */
	int *node_first_clause, *node_nclauses; /* clauses are contiguous per node */
	/* offers by destination world rank (CSR) */
	struct dl_offer *offers;
	int noffers;
	int *offer_start; /* size + 1 */
	/* results */
	struct dl_finding *findings; /* confirmed ones first */
	int nfindings;
	int nconfirmed;
	int *deadlocked; /* per node: finding index + 1, or 0 */
	const char **desc_abs, **desc_rel; /* per rank: interned call descriptions, lazily */
	struct json_object *report;
	struct json_object *notes; /* array of strings */
};

/* The monitor's doc/schemas/dump.schema.json, compiled in (build/gen/). */
extern const char dl_dump_schema_text[];

/* A hash of a pointer (an interned string), for open-addressing tables. */
static inline size_t dl_ptr_hash(const void *p)
{
	uintptr_t x = (uintptr_t)p;
	x ^= x >> 17;
	x *= 0xed5ad4bbU;
	x ^= x >> 11;
	return (size_t)x;
}

/* dl_comm.c: the communicator table (c->comms, c->comm_index) */
/* Give c an empty comm index.  Return 0, or -1 (ENOMEM). */
int dl_comms_init(struct dl_ctx *c);
/* Release c's communicators (their groups) and its comm index. */
void dl_comms_free(struct dl_ctx *c);
/* Append a communicator to c->comms, uninitialised.  Return its index, or
 * -1 (ENOMEM). */
int dl_comm_new(struct dl_ctx *c);
/* Return the index of the communicator with gid (interned in c->pool: found
 * by pointer), or -1 if c has none. */
int dl_comm_find(const struct dl_ctx *c, const char *gid);
/* Index communicator ci under gid (interned in c->pool).  Return 0, or -1
 * (ENOMEM). */
int dl_comm_put(struct dl_ctx *c, const char *gid, int ci);
/* Return the index of the communicator with gid (any string), or -1 if none
 * (or out of memory). */
int dl_comm_lookup(struct dl_ctx *c, const char *gid);
/* World rank of comm rank r in comm ci, or -1. */
int dl_comm_world(const struct dl_ctx *c, int ci, int r);
/* Comm rank of world rank w in comm ci, or -1. */
int dl_comm_rank_of(const struct dl_ctx *c, int ci, int w);

/* dl_load.c: read the dumps of dir into c's model (c->ranks, c->comms,
 * c->invalid, c->size, c->job_id).  A file that is not a valid dump of the
 * job is recorded in c->invalid, not an error.  Return 0, or -1 with errno
 * set (the directory cannot be read, ENOMEM). */
int dl_load_dir(struct dl_ctx *c, const char *dir);
/* The same over in-memory files (names like "rank-3.json"). */
int dl_load_buffers(struct dl_ctx *c, int n, const char *const *names, char *const *bufs,
		    const size_t *lens);
/* Release what dl_load_dir or dl_load_buffers put in c (also after a failed
 * load). */
void dl_ctx_free_model(struct dl_ctx *c);

/* dl_symbols.c: fill in symbol and file:line of frames that only have
 * object + offset, with libdw, when the objects are readable here.
 * Return the number of frames resolved (errors are not fatal). */
int dl_symbolize(struct dl_ctx *c);

/* dl_graph.c */
int dl_build_graph(struct dl_ctx *c);
int dl_solve(struct dl_ctx *c);

/* dl_diag.c */
int dl_diagnose(struct dl_ctx *c);
/* dl_core.c: split each cycle or knot finding into its core (ranks in a sink
 * strongly connected component of the wait-for graph) and the ranks that
 * only wait for it (f->waiting).  Return 0, or -1 (ENOMEM). */
int dl_find_cores(struct dl_ctx *c);
/* Whether rank r only waits for f's core (is in f->waiting). */
int dl_finding_waits(const struct dl_finding *f, int r);
/* Describe a rank's call in one line into buf ("MPI_Recv(src=3, tag=7, comm=row) at io.c:55"). */
void dl_describe_call(const struct dl_ctx *c, const struct dl_rank *r, int relative, char *buf,
		      size_t len);
const char *dl_comm_label(const struct dl_ctx *c, int ci);
char *dl_ranges_str(const int *v, size_t n);
void dl_site_str(const struct dl_frame *f, char *buf, size_t len);

/* dl_report.c */
int dl_build_report(struct dl_ctx *c);
int dl_dot(FILE *f, const struct dl_ctx *c);
int dl_text(FILE *f, const struct dl_ctx *c);

#endif
