/* dump.h - build the JSON state dump (doc/dump-format.md) of one rank. */
#ifndef MWM_DUMP_H
#define MWM_DUMP_H

#include <json-c/json.h>

#include "mwm.h"
#include "runtime.h"

struct mwm_dumpin {
	const char *reason;             /* "stuck", "polling", "request" */
	const struct mw_slot *slot;     /* a consistent snapshot */
	const struct mwm_callx *x;      /* wait/test request handles */
	const struct mwm_req *pending;  /* pending requests (both tables) */
	int npending;
	const struct mwm_req *recent;   /* recent sends, newest first */
	int nrecent;
	const struct mwm_req *bsends;   /* buffered sends since the last detach, newest first */
	int nbsends;
	uint64_t bsends_total;          /* how many there were (bsends: the newest MWM_RING) */
	const struct mwm_frame *frames; /* symbolised stack, innermost first */
	int nframes;
	const char *stack_method;       /* "frame_pointers", "scan", "site" (NULL: guess) */
	const char *unexp_source;       /* "mpi_t" or "none" */
	long unexp_count;               /* -1 = unknown */
	uint64_t unexp_comm;            /* the communicator the count is for */
	const long *unexp_per_peer;     /* per peer of unexp_comm (may be NULL) */
	int unexp_npeers;
	double now_unix;                /* wall clock at the dump */
	uint64_t now_ns;                /* CLOCK_MONOTONIC at the dump */
};

/* Build the dump object, resolving communicators through mwm.comms and
 * names through mwm's tables.  Return a new reference, or NULL on error
 * (with errno set). */
struct json_object *mwm_dump_build(const struct mwm_dumpin *in);

/* Write obj as dir/rank-<rank>.json (temp name + rename); path receives the
 * final name.  Return 0 on success, or -1 on error (with errno set). */
int mwm_dump_save(struct json_object *obj, const char *dir, int rank, char *path, size_t len);

#endif
