/* mwt_agg.h - the tree overlay's messages (seed 003, doc/tree.md,
 * doc/protocol.md "Tree aggregates"): per-origin sequence numbers and a
 * communication process's aggregate of many heartbeats into one upward
 * message.
 *
 * Every heartbeat in the tree is named by its origin (the agent's node) and
 * that origin's sequence number (struct mw_hb_beat.seq, 1, 2, ...).  A
 * receiver keeps the numbers it has counted (struct mwt_seq) and counts an
 * event only once, whichever path, or how many paths, brought it.
 *
 * An aggregate holds equivalence classes of (state, call, peer): for each,
 * how many events, the first and last time, the ranks (sent as "0-3,8"),
 * and which events it covers (origin -> its sequence numbers), so that a
 * parent merging aggregates from its children drops exactly the events it
 * has already counted.  Merging is idempotent: merging the same aggregate
 * twice counts nothing the second time.  It travels as one MW_HB_AGG frame
 * of shared/heartbeat.h.  No function here prints or exits.
 */
#ifndef MWT_AGG_H
#define MWT_AGG_H

#include <stddef.h>
#include <stdint.h>

#include "heartbeat.h"

#define MWT_SEQ_WINDOW 4096    /* numbers an origin may run ahead of its oldest uncounted one */
#define MWT_AGG_MAX_EVENTS (1u << 24) /* events one decoded aggregate may cover */

/* ------------------------------------------------ per-origin sequence numbers */

struct mwt_seq;

/* A new, empty table.  Return it, or NULL (ENOMEM). */
struct mwt_seq *mwt_seq_create(void);

/* Free the table (NULL is fine). */
void mwt_seq_destroy(struct mwt_seq *s);

/* Count event (origin, seq) if it is new.  Every number up to the
 * origin's newest minus MWT_SEQ_WINDOW counts as seen (an event that late
 * is dropped as a duplicate).  Return 1 if new (now recorded), 0 if already
 * seen, -1 with errno EINVAL (seq 0 or above INT32_MAX, origin not a node
 * name) or ENOMEM. */
int mwt_seq_accept(struct mwt_seq *s, const char *origin, uint32_t seq);

/* Return 1 if (origin, seq) has been counted, else 0 (no change). */
int mwt_seq_seen(const struct mwt_seq *s, const char *origin, uint32_t seq);

/* The number of origins in the table. */
size_t mwt_seq_origins(const struct mwt_seq *s);

/* ------------------------------------------------------------ aggregates */

/* One equivalence class of an aggregate (read only).  Its key is
 * (state, call, peer) and the rest of a heartbeat that the collector's
 * verdict reads (kind, communicator, root, tag, exit status, what moved,
 * the world size), so that the collector rebuilds each rank's heartbeat
 * exactly (mwt_class_beat); ranks in the same state share one class. */
struct mwt_class {
	enum mw_hb_state state;
	char call[MW_HB_STR_MAX + 1]; /* "" when not in MPI */
	int32_t peer;                 /* peer_world: -1 none, -2 any source */
	char kind[16];                /* as struct mw_hb_beat */
	char comm[MW_HB_STR_MAX + 1];
	int32_t root, tag, exit_code, exit_signal, size;
	char moving[32];
	uint64_t count;               /* events in the class */
	double first, last;           /* their earliest and latest time (s) */
	double idle;                  /* the largest idle_s of its events (not in the key) */
};

struct mwt_agg;

/* A new, empty aggregate sent by from (the CP's node).  Return it, or NULL
 * (errno EINVAL: from is not a node name; ENOMEM). */
struct mwt_agg *mwt_agg_create(const char *from);

/* Free the aggregate (NULL is fine). */
void mwt_agg_destroy(struct mwt_agg *a);

/* Empty the aggregate (after sending it); its sender stays. */
void mwt_agg_reset(struct mwt_agg *a);

/* Add the heartbeat b (b->seq its number, >= 1) of origin, received at time
 * t (s), unless seen says it was counted already (then nothing changes);
 * seen records it.  Return 1 if added, 0 if a duplicate, -1 with errno
 * EINVAL (bad origin, seq, state or time) or ENOMEM. */
int mwt_agg_add(struct mwt_agg *a, struct mwt_seq *seen, const char *origin, const struct mw_hb_beat *b,
		double t);

/* Merge the aggregate child (from a child CP) into a: per class, only the
 * events seen has not counted (seen records them); a class with no new
 * event changes nothing.  Return the number of events newly counted, or -1
 * (ENOMEM; a is then partly merged). */
long mwt_agg_merge(struct mwt_agg *a, struct mwt_seq *seen, const struct mwt_agg *child);

/* Accessors: the sender; the events, their first and last time (0 when
 * empty); the classes in the order they appeared; the origins covered. */
const char *mwt_agg_from(const struct mwt_agg *a);
uint64_t mwt_agg_events(const struct mwt_agg *a);
double mwt_agg_first(const struct mwt_agg *a);
double mwt_agg_last(const struct mwt_agg *a);
size_t mwt_agg_nclasses(const struct mwt_agg *a);
const struct mwt_class *mwt_agg_class(const struct mwt_agg *a, size_t i);
size_t mwt_agg_norigins(const struct mwt_agg *a);

/* The events of class i: how many; event j's origin (valid while a
 * lives), sequence number and rank.  Return 0, or -1 when out of range. */
size_t mwt_agg_class_nevents(const struct mwt_agg *a, size_t i);
int mwt_agg_class_event(const struct mwt_agg *a, size_t i, size_t j, const char **origin, uint32_t *seq,
			int32_t *rank);

/* The heartbeat of one event of class c: rank, its sequence number seq, the
 * class's fields (idle_s is the class's idle, pid and counters 0). */
void mwt_class_beat(const struct mwt_class *c, int32_t rank, uint32_t seq, struct mw_hb_beat *b);

/* Class i's ranks compressed ("0-3,8") into buf.  Return the length it
 * needed (like snprintf), or 0 when i is out of range. */
size_t mwt_agg_class_ranks(const struct mwt_agg *a, size_t i, char *buf, size_t len);

/* The payload object as compact JSON text (malloc'd, free it), or NULL
 * (ENOMEM). */
char *mwt_agg_to_json(const struct mwt_agg *a);

/* Encode a as one MW_HB_AGG frame into *buf (malloc'd).  Return 0, or -1
 * (errno ENOMEM, E2BIG when above MW_HB_MAX_PAYLOAD). */
int mwt_agg_encode(const struct mwt_agg *a, uint8_t **buf, size_t *len);

/* Parse an aggregate's payload (the JSON text of an MW_HB_AGG message,
 * m->u.agg.json).  Nothing is trusted: every field is checked, the counts
 * must equal the events the classes cover, no event twice, at most
 * MWT_AGG_MAX_EVENTS.  Return a new aggregate, or NULL with a reason in err
 * (if errlen > 0) and errno EINVAL or ENOMEM. */
struct mwt_agg *mwt_agg_from_json(const char *json, size_t len, char *err, size_t errlen);

#endif
