/* mw_slot.h - the per-rank shared-memory slot of libmpiwatch (version 3).
 *
 * Every monitored MPI rank maps one fixed-size file,
 *   SLOT_DIR/rank-<world rank> (the settings' slot_dir, mw_slot_default_dir)
 *   (default /dev/shm/mpiwatch.<uid>.<jobid or "nojob-<ppid>">.<hostname>/rank-<N>),
 * and keeps its counters and current MPI call there.  The node agent, the
 * SPANK plugin and the CLI read it with the functions below.
 *
 * Writers:
 *  - the rank's main thread (the only writer of the "live" block, guarded by
 *    the seqlock `seq`: odd while a write is in progress; the exception is a
 *    test-family call that repeats the call record as it stands (same op,
 *    site, frame, arguments and requests): it stores the entry time, `polls`
 *    + 1 and `state` in_mpi, then `state` computing if it completed nothing,
 *    each with one store and no write section, so that a copy holds each
 *    field as it was at some instant; mw_slot_snapshot() adds `polls` to
 *    `calls` and `tests`.  An MPI_Test* or MPI_Iprobe/MPI_Improbe poll within
 *    the same tick of the watcher's clock as the last one so published
 *    writes nothing: the next published poll adds it to `polls`, so the
 *    counts and the record are at most one tick stale, doc/monitor.md);
 *  - the monitor's watcher thread (coarse clock, the "resolved" block guarded
 *    by `seq2`, dump path, dump count);
 *  - the agent (dump_request) and the SPANK plugin (exit status), via
 *    mw_slot_request_dump() and mw_slot_set_exit().
 * All multi-byte fields are native-endian; the file never leaves the node.
 */
#ifndef MW_SLOT_H
#define MW_SLOT_H

#include <stddef.h>
#include <stdint.h>

#define MW_SLOT_MAGIC 0x31544f4c53574d4dULL /* "MMWSLOT1" little-endian */
/* 2: the call record's name, kind, mode and absent arguments are derived by
 * the reader; 3: a repeated poll counts itself in `polls` (issue 34) */
#define MW_SLOT_VERSION 3
#define MW_SLOT_SIZE 4096
#define MW_SLOT_NCOMMS 16  /* communicators the slot translates (names block) */
#define MW_SLOT_NDTYPES 56 /* predefined datatypes the slot names (names block) */

enum mw_slot_state {
	MW_STATE_INIT = 0,      /* library loaded, MPI_Init not called yet */
	MW_STATE_COMPUTING = 1, /* outside MPI */
	MW_STATE_IN_MPI = 2,    /* inside a wrapped MPI call */
	MW_STATE_FINALIZED = 3, /* MPI_Finalize returned */
	MW_STATE_EXITED = 4,    /* the process exited (exit status valid) */
};

enum mw_op_kind {
	MW_KIND_OTHER = 0,
	MW_KIND_SEND = 1,
	MW_KIND_RECV = 2,
	MW_KIND_SENDRECV = 3,
	MW_KIND_PROBE = 4,
	MW_KIND_WAIT = 5,
	MW_KIND_TEST = 6,
	MW_KIND_COLLECTIVE = 7,
	MW_KIND_RMA_SYNC = 8,
	MW_KIND_IO = 9,
	MW_KIND_NONBLOCKING = 10, /* Isend, Irecv, Ibarrier, Start... (returns at once) */
};

enum mw_send_mode { MW_MODE_NONE = 0, MW_MODE_STANDARD, MW_MODE_SYNC, MW_MODE_BUFFERED, MW_MODE_READY };

#define MW_RANK_NONE (-1)  /* MPI_PROC_NULL or not applicable */
#define MW_RANK_ANY (-2)   /* MPI_ANY_SOURCE */
#define MW_TAG_NONE INT32_MIN /* the call has no tag */

/* The current (or last) MPI call.  The main thread writes only what varies
 * from call to call: the op id and language, the arguments that op has, the
 * call site, frame and entry time.  A reader's mw_slot_snapshot() fills in
 * the rest from the op id (mw_slot_ops[]): the name, kind, blocking flag and
 * send mode, and the "none" value of every argument the op does not have.
 * (A writer may also fill the name itself; the snapshot then keeps it and
 * derives nothing.) */
struct mw_slot_call {
	char name[32];       /* "MPI_Recv" (C name, NUL-terminated): derived */
	uint32_t op_id;      /* index in the op table (mw_slot_ops) */
	uint32_t lang;       /* 0 = C, 1 = Fortran (written with op_id as one word) */
	uint32_t kind;       /* enum mw_op_kind: derived */
	uint32_t blocking;   /* 1 if counters A/B moved for this call: derived */
	uint64_t comm;       /* raw communicator handle (0 = none) */
	int32_t peer;        /* raw rank in comm as passed (source/dest); INT32_MIN = none */
	int32_t tag;         /* raw tag, MW_TAG_NONE if none */
	int32_t root;        /* raw root; INT32_MIN = none */
	int32_t count;       /* element count, -1 if none */
	int32_t send_peer;   /* Sendrecv: destination; INT32_MIN = none */
	int32_t send_tag;    /* Sendrecv: send tag */
	uint64_t datatype;   /* raw datatype handle */
	uint64_t op;         /* raw reduction op handle */
	uint32_t mode;       /* enum mw_send_mode: derived */
	int32_t nreqs;       /* wait/test: number of requests */
	uint64_t site;       /* return address into the caller */
	uint64_t frame;      /* frame address of the wrapper (stack scan start) */
	uint64_t enter_ns;   /* CLOCK_MONOTONIC ns at entry (coarse: watcher tick;
				a repeated poll stores its own) */
	uint64_t buf;        /* receive buffer (recv and sendrecv kinds only; not
				reset by other calls: read it only for those kinds) */
};

/* The arguments an op's wrapper stores (struct mw_slot_op.args). */
#define MW_ARG_COMM 0x001u
#define MW_ARG_PEER 0x002u
#define MW_ARG_TAG 0x004u
#define MW_ARG_ROOT 0x008u
#define MW_ARG_COUNT 0x010u
#define MW_ARG_SEND_PEER 0x020u
#define MW_ARG_SEND_TAG 0x040u
#define MW_ARG_DATATYPE 0x080u
#define MW_ARG_OP 0x100u
#define MW_ARG_NREQS 0x200u

/* What the op table says of one op id: generated from monitor/mpi.spec
 * (build/gen/monitor/ops.c) into the shared library, so that every reader of
 * a slot derives from the op id what the writer no longer copies. */
struct mw_slot_op {
	char name[32];    /* "MPI_Send" */
	uint8_t kind;     /* enum mw_op_kind */
	uint8_t blocking; /* counters A/B move */
	uint8_t mode;     /* enum mw_send_mode */
	uint8_t pad;
	uint32_t args;    /* MW_ARG_* bits */
};
extern const struct mw_slot_op mw_slot_ops[];
extern const int mw_slot_nops;

/* Fill in a copied call record from its op id: name, kind, blocking, mode and
 * the "none" value of each argument the op does not have.  A record whose
 * name is already set, or whose op id is out of range, is left as it is. */
void mw_slot_call_derive(struct mw_slot_call *c);

struct mw_slot {
	/* header: written once, before magic */
	uint64_t magic;
	uint32_t version;
	uint32_t size;        /* sizeof(struct mw_slot) as written */
	int32_t world_rank;
	int32_t world_size;
	int32_t pid;
	int32_t uid;
	char host[64];
	char job_id[32];
	char step_id[32];
	char mpi[48];         /* "openmpi 4.1.4" / "mpich 4.0.2" */
	uint64_t start_ns;    /* CLOCK_MONOTONIC at MPI_Init */
	double timeout_s;     /* the watcher's timeout */

	/* live block: written by the main thread only, seqlock seq */
	uint64_t seq;
	uint64_t a;           /* seed 002 counter A: blocking calls entered */
	uint64_t b;           /* counter B: = A on return of a blocking call */
	uint64_t completions; /* blocking calls returned + requests completed */
	uint64_t calls;       /* wrapped MPI calls made */
	uint64_t tests;       /* test-family calls (MPI_Test*, MPI_Iprobe) */
	uint64_t polls;       /* repeated polls, and the polls skipped within a
				 tick before the last published one (not in
				 calls nor tests here: a snapshot's calls and
				 tests include them) */
	uint32_t state;       /* enum mw_slot_state */
	uint32_t pending;     /* pending requests (sends + receives) */
	uint64_t last_progress_ns; /* CLOCK_MONOTONIC (coarse) of the last completion */
	struct mw_slot_call call;

	/* watcher block: written by the watcher thread, seqlock seq2 */
	uint64_t seq2;
	uint64_t now_ns;      /* the watcher's last tick (CLOCK_MONOTONIC ns) */
	uint64_t resolved_a;  /* value of A the fields below describe */
	uint64_t resolved_calls; /* value of calls the fields below describe */
	int32_t comm_id;      /* per-rank communicator id, -1 unknown/none */
	int32_t comm_size;
	int32_t peer_world;   /* MW_RANK_NONE / MW_RANK_ANY or a world rank */
	int32_t root_world;
	int32_t send_peer_world;
	int32_t dumps;        /* number of dumps written */
	char comm_gid[128];
	char dump_path[512];  /* last dump written, "" if none */

	/* written by others */
	uint32_t dump_request; /* set non-zero by the agent: "please dump now" */
	uint32_t exit_flags;   /* bit 0: exit_status valid; bit 1: killed by a signal */
	int32_t exit_status;   /* exit code, or the signal number */
	int32_t reserved;

	/* motion block: written by the watcher thread, seqlock seq2.  While the
	 * rank sits in a blocking call or polls without a completion, the
	 * watcher samples signs that its transfer still moves (monitor/motion.c);
	 * `motion` counts the samples that saw a change. */
	uint64_t motion;      /* samples that saw movement (only grows) */
	uint64_t motion_ns;   /* watcher clock of the last one */
	uint32_t motion_src;  /* MW_MOTION_* bits that moved in the last one */
	uint32_t reserved2;

	/* program block: written once at MPI_Init, before magic.  Where the
	 * main program is mapped, so that a reader names a call site
	 * (call.site) of a rank that died before any dump: mw_slot_site(). */
	uint64_t exe_base;    /* its load base (dladdr's dli_fbase): offset = site - exe_base */
	uint64_t exe_lo, exe_hi; /* the range its PT_LOAD segments span */
	char exe[256];        /* its absolute path ("" unknown) */
	uint64_t comm_world;  /* the raw MPI_COMM_WORLD handle: a call on it names
				 world ranks before the watcher resolved it (mw_slot_world_peer) */

	/* names block (issue 35): what a reader needs to describe the call of a
	 * rank that ended before its watcher resolved it (an MPI error ends a
	 * rank at once, inside the call), written by the main thread off the
	 * fast path.  dtypes: the predefined datatypes (name without "MPI_",
	 * size in bytes), written once at MPI_Init, before magic.  comms: the
	 * communicators (other than MPI_COMM_WORLD) whose rank r is world rank
	 * first + stride * r (a dup, a split that keeps or reverses the order, a
	 * cartesian one without reordering...), written when one is created or
	 * freed under the seqlock seq3, handle last (0 = a free entry). */
	uint64_t seq3;
	struct mw_slot_comm {
		uint64_t handle; /* raw MPI_Comm, 0 = free */
		int32_t first, stride, size, pad;
	} comms[MW_SLOT_NCOMMS];
	struct mw_slot_dtype {
		uint64_t handle; /* raw MPI_Datatype, 0 = end of the table */
		int32_t size;    /* bytes, -1 unknown */
		char name[20];   /* "INT" for MPI_INT */
	} dtypes[MW_SLOT_NDTYPES];
};

/* Longest "OBJECT+0xOFFSET" mw_slot_site() writes (and the heartbeat's
 * "site" carries), without the NUL. */
#define MW_SLOT_SITE_MAX 287

/* What moved (slot motion_src; the heartbeat's "moving" names them). */
#define MW_MOTION_RECVBUF 1u /* bytes in a pending receive buffer changed */
#define MW_MOTION_IO 2u      /* the MPI thread's read/write byte counts grew */

/* Names of the bits set in src, comma-separated ("recv_buffer,io"), into
 * buf ("" for none).  Return buf. */
char *mw_motion_names(uint32_t src, char *buf, size_t len);

#define MW_SLOT_EXIT_VALID 1u
#define MW_SLOT_EXIT_SIGNALED 2u

/* A consistent copy of one slot (what a reader works with). */
struct mw_slot_snap {
	struct mw_slot s;
	int live_ok;     /* 1 if the live block is a consistent snapshot */
	int resolved_ok; /* 1 if the resolved block is consistent */
};

/* Map an existing slot file.  writable != 0 maps it read-write (to request a
 * dump or record an exit status).  Return the mapping, or NULL on error with
 * errno set (EPROTO: wrong magic/version/size; EAGAIN: not initialised yet). */
struct mw_slot *mw_slot_map(const char *path, int writable);

/* Unmap a slot returned by mw_slot_map or mw_slot_create. */
void mw_slot_unmap(struct mw_slot *slot);

/* Create (or reuse) the slot file dir/rank-<rank>, size MW_SLOT_SIZE, map it
 * read-write and zero it; the caller fills the header and sets magic last
 * with mw_slot_publish().  The directory is created (mode 0700) if missing;
 * an existing one must be a directory owned by the caller or root (else
 * EPERM).
 * path (may be NULL) receives the file name.  Return the mapping, or NULL on
 * error with errno set. */
struct mw_slot *mw_slot_create(const char *dir, int rank, char *path, size_t pathlen);

/* Make a filled-in header visible to readers (stores magic last). */
void mw_slot_publish(struct mw_slot *slot);

/* Copy a slot consistently (seqlock read of the live and resolved blocks,
 * retried a bounded number of times).  The copy's calls and tests count
 * every call, repeated polls (`polls`) included, and its resolved_calls is
 * made to match calls when the watcher resolved the call record as it
 * stands (a repeated poll does not change the record).  Return 0 on success, or -1 with errno
 * EAGAIN if a block never became consistent (the *_ok flags tell which). */
int mw_slot_snapshot(const struct mw_slot *slot, struct mw_slot_snap *out);

/* Ask the rank to write a dump now ("request" reason).  Return 0. */
int mw_slot_request_dump(struct mw_slot *slot);

/* Record a task's wait status (as from waitpid) in the slot and mark it
 * exited, unless an exit status is already recorded: the first one wins (the
 * monitor records the rank's own exit() code; a launcher that then kills the
 * exiting process must not turn "exit 3" into "SIGKILL").  Return 0 on
 * success (also when a status was already there), or -1 with errno EINVAL for
 * a status that is neither exited nor signaled. */
int mw_slot_set_exit(struct mw_slot *slot, int wait_status);

/* The node's short name (the host name up to its first dot, "localhost" if
 * there is none), which is its Slurm NodeName on a usual cluster: the one
 * name the plugin, the monitor, the agent and nodehealthd use for a node. */
void mw_node_name(char *buf, size_t len);

/* Copy path to buf, with every "%h" replaced by host (the node's short
 * name).  The plugin writes the settings' slot_dir and dump_dir with "%h"
 * so that one value is right on every node, whichever launcher (srun, Open
 * MPI's orted, MPICH's hydra) carried the settings file's name there.  Return 0, or -1 with errno
 * ENAMETOOLONG. */
int mw_path_host(char *buf, size_t len, const char *path, const char *host);

/* The per-node slot directory:
 *   slot_dir if not NULL nor "" (the settings' slot_dir, "%h" replaced by
 *   host), else the run directory (fsutil.h: mw_rundir_path) in /dev/shm,
 *   /dev/shm/mpiwatch.<uid>.<jobid or "nojob-<ppid>">.<host>
 * jobid may be NULL or "" (then ppid is used).  Return 0 on success, or -1
 * with errno ENAMETOOLONG (EINVAL for a jobid or host with a '/'). */
int mw_slot_default_dir(char *buf, size_t len, const char *slot_dir, unsigned uid, const char *jobid, long ppid,
			const char *host);

/* Call cb(path, rank, arg) for every rank-<N> file in dir, in rank order.
 * A non-zero return from cb stops the scan and is returned.  Return 0 when
 * done, or -1 on error (errno set, e.g. ENOENT). */
int mw_slot_scan_dir(const char *dir, int (*cb)(const char *path, int rank, void *arg), void *arg);

/* A code address addr of the slot's process (a call site) as
 * "OBJECT+0xOFFSET" into buf (at most MW_SLOT_SITE_MAX + 1 bytes), the
 * offset from the object's load base, as a dump's frames have it: for an
 * address in the main program (the slot's program block).  Return 1, or 0
 * with buf "" when it is not there, the block is empty or the path is not
 * printable ASCII. */
int mw_slot_site(const struct mw_slot *s, uint64_t addr, char *buf, size_t len);

/* The world rank the current call of s names as its peer (the source of a
 * receive, the destination of a send), read from the raw call record: for a
 * rank that ended inside a call before its watcher resolved the call (an
 * MPI error ends it at once).  Known on MPI_COMM_WORLD, whose ranks are
 * world ranks, and on the communicators of the slot's names block.  Return
 * the rank, or -1 if not known (another communicator, no peer,
 * MPI_ANY_SOURCE, MPI_PROC_NULL). */
int mw_slot_world_peer(const struct mw_slot *s);

/* The world rank of rank r of communicator comm, from the slot's names
 * block (slotnames.c).  Return it, or -1 if not known. */
int mw_slot_comm_world_rank(const struct mw_slot *s, uint64_t comm, int32_t r);

/* The name of datatype handle h ("MPI_INT", into buf) and its size in bytes
 * (*size, -1 unknown), from the slot's names block.  Return buf, or NULL
 * (buf "") when h is not a predefined datatype the block names. */
const char *mw_slot_dtype_name(const struct mw_slot *s, uint64_t h, char *buf, size_t len, int *size);

/* Writer side of the names block (the monitor's main thread).  Record
 * communicator handle, whose group is world_ranks[0..n-1], if its ranks map
 * to world ranks as first + stride * rank (else, or when the block is full,
 * record nothing).  Return 1 if recorded, else 0. */
int mw_slot_comm_add(struct mw_slot *s, uint64_t handle, const int *world_ranks, int n);
/* Forget communicator handle (freed). */
void mw_slot_comm_remove(struct mw_slot *s, uint64_t handle);
/* Record predefined datatype h ("MPI_INT", size bytes) before the slot is
 * published.  Return 1, or 0 when the block is full or the name too long. */
int mw_slot_dtype_add(struct mw_slot *s, uint64_t h, const char *name, int size);

/* Split a site mw_slot_site() wrote into the object (into obj) and the
 * offset.  Return 0, or -1 if site is not of that form. */
int mw_slot_site_parse(const char *site, char *obj, size_t objlen, unsigned long long *offset);

/* Names for enum values ("in_mpi", "recv", ...); "unknown" if out of range. */
const char *mw_slot_state_name(uint32_t state);
const char *mw_slot_kind_name(uint32_t kind);
const char *mw_slot_mode_name(uint32_t mode); /* NULL for MW_MODE_NONE */

#endif
