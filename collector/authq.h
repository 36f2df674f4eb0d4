/* authq.h - the collector's credential work off its event loop.
 *
 * Making the collector's proof and checking an agent's HELLO talk to munged
 * (auth.h), which may be slow or stuck; the loop never waits for it.  One
 * worker thread runs the jobs in order; each finished job comes back
 * through a pipe the loop polls.  (Issue 31 moves this to libuv's
 * uv_queue_work.) */
#ifndef COL_AUTHQ_H
#define COL_AUTHQ_H

#include <stdint.h>

#include "auth.h"
#include "heartbeat.h"

enum col_authq_kind {
	COL_AQ_PROVE, /* sign payload into cred */
	COL_AQ_CHECK, /* verify cred over payload */
};

struct col_authq_job {
	enum col_authq_kind kind;
	uint64_t id;                    /* the caller's: which connection */
	char payload[400];
	char cred[MW_HB_CRED_MAX + 1];  /* in (CHECK) or out (PROVE) */
	int rc;                         /* out: 0 or -1 */
	char err[200];                  /* out: why, when rc is -1 */
	struct col_authq_job *next;
};

struct col_authq;

/* Start the worker, which signs and checks with a.  a's strings must live
 * as long as the queue.  Return the queue, or NULL (errno set). */
struct col_authq *col_authq_create(const struct mw_auth *a);

/* The fd to poll for POLLIN: finished jobs are waiting. */
int col_authq_fd(const struct col_authq *q);

/* Queue j (malloc'd; the queue owns it until col_authq_done gives it
 * back).  Return 0. */
int col_authq_submit(struct col_authq *q, struct col_authq_job *j);

/* A finished job (the caller frees it), or NULL when none is waiting. */
struct col_authq_job *col_authq_done(struct col_authq *q);

/* Stop the worker (after its current job) and free the queue and every
 * job still in it (NULL is fine). */
void col_authq_destroy(struct col_authq *q);

#endif
