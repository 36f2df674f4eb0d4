/* reqtab.h - pending-request table and recent-send ring of one rank.
 *
 * Written only by the rank's main thread (inside MPI wrappers); read by the
 * watcher thread while the main thread may be running.  Each entry carries a
 * generation count (odd while being written) so the reader can copy a
 * consistent entry or skip it; the table never moves or frees its storage.
 * No allocation after mwm_reqtab_init(), no lock, no system call.
 */
#ifndef MWM_REQTAB_H
#define MWM_REQTAB_H

#include <stdint.h>

#define MWM_REQ_FREE 0
#define MWM_REQ_USED 1
#define MWM_REQ_TOMB 2

#define MWM_TABLE_SEND 0
#define MWM_TABLE_RECV 1

struct mwm_req {
	uint32_t gen;       /* odd while the main thread writes the entry */
	uint8_t used;       /* MWM_REQ_FREE / USED / TOMB */
	uint8_t table;      /* MWM_TABLE_SEND or MWM_TABLE_RECV */
	uint8_t persistent; /* created by *_init */
	uint8_t active;     /* started (always 1 for non-persistent) */
	uint8_t mode;       /* enum mw_send_mode */
	uint8_t lang;
	uint16_t op;        /* op id of the creating call */
	uint64_t handle;    /* the MPI_Request (C handle) */
	int64_t id;         /* rank-unique request id */
	uint64_t comm;      /* raw communicator handle */
	int32_t peer, tag, root, count;
	uint64_t datatype;
	uint64_t rop;       /* raw reduction op handle of a nonblocking collective, 0 = none */
	uint64_t buf;       /* receive buffer (table recv), for the motion probe */
	uint64_t site;      /* return address of the creating call (issue 35 item 4) */
	uint32_t seq;       /* a nonblocking collective: its number on comm (1, 2...), else 0 */
};

struct mwm_reqtab {
	uint32_t seq;   /* bumped (odd/even) around a rehash */
	uint32_t cap;   /* power of two */
	uint32_t nused, ntomb;
	int64_t next_id;
	uint64_t overflow; /* requests not recorded because the table was full */
	struct mwm_req *e;
};

/* Ring of the last sends that completed locally, newest last. */
#define MWM_RING 16
struct mwm_ring {
	uint64_t head; /* number of pushes so far */
	struct mwm_req e[MWM_RING];
};

/* The buffered sends (MPI_Bsend, MPI_Ibsend and MPI_Bsend_init requests once
 * complete) since the last MPI_Buffer_detach: the library keeps each in the
 * attached buffer until it is received, and MPI_Buffer_detach and
 * MPI_Finalize wait for that (issue 35 item 11: a hang there says which
 * send was never received).  A ring of the newest MWM_RING, written by the
 * main thread outside the fast path, read by the watcher. */
struct mwm_bsends {
	struct mwm_ring ring;
	uint64_t since; /* ring.head at the last MPI_Buffer_detach */
};

/* Allocate a table of cap entries (rounded up to a power of two, >= 16).
 * Return 0 on success, or -1 on error (with errno set). */
int mwm_reqtab_init(struct mwm_reqtab *t, uint32_t cap);
void mwm_reqtab_destroy(struct mwm_reqtab *t);

/* Insert or replace the entry for tmpl->handle (id assigned here unless
 * keep_id and an entry exists).  Return the entry, or NULL if the table is
 * full (overflow counted). */
struct mwm_req *mwm_reqtab_put(struct mwm_reqtab *t, const struct mwm_req *tmpl);

/* Return the entry for handle, or NULL. */
struct mwm_req *mwm_reqtab_find(const struct mwm_reqtab *t, uint64_t handle);

/* Remove an entry returned by put/find. */
void mwm_reqtab_del(struct mwm_reqtab *t, struct mwm_req *r);

/* Set a persistent entry's active flag (writer side, generation-guarded). */
void mwm_reqtab_set_active(struct mwm_req *r, int active);

/* Copy up to max consistent used entries into out (reader side, any
 * thread).  Return the number copied. */
int mwm_reqtab_snapshot(const struct mwm_reqtab *t, struct mwm_req *out, int max);

/* Push a completed send into the ring (writer side). */
void mwm_ring_push(struct mwm_ring *ring, const struct mwm_req *r);

/* Copy the ring, newest first, into out[MWM_RING].  Return the count. */
int mwm_ring_snapshot(const struct mwm_ring *ring, struct mwm_req *out);

/* A buffered send was posted (or an MPI_Ibsend/MPI_Bsend_init request
 * completed): remember it (writer side). */
void mwm_bsends_push(struct mwm_bsends *b, const struct mwm_req *r);

/* MPI_Buffer_detach returned: every buffered send so far was delivered
 * (writer side). */
void mwm_bsends_detached(struct mwm_bsends *b);

/* Copy the buffered sends since the last detach, newest first, into
 * out[MWM_RING] (reader side, any thread); *total gets how many there were
 * (the ring keeps the newest MWM_RING).  Return the count copied. */
int mwm_bsends_snapshot(const struct mwm_bsends *b, struct mwm_req *out, uint64_t *total);

#endif
