/* authq.h - the collector's credential work off its event loop.
 *
 * Making the collector's proof and checking an agent's HELLO talk to munged
 * (auth.h), which may be slow or stuck; the loop never waits for it.  Each
 * job runs on libuv's thread pool (uv_queue_work); a finished job comes
 * back on the loop, where ready is called and col_authq_done gives it. */
#ifndef COL_AUTHQ_H
#define COL_AUTHQ_H

#include <stdint.h>

#include <uv.h>

#include "auth.h"
#include "heartbeat.h"

enum col_authq_kind {
	COL_AQ_PROVE, /* sign payload into cred */
	COL_AQ_CHECK, /* verify cred over payload */
};

struct col_authq;

struct col_authq_job {
	enum col_authq_kind kind;
	uint64_t id;                    /* the caller's: which connection */
	char payload[400];
	char cred[MW_HB_CRED_MAX + 1];  /* in (CHECK) or out (PROVE) */
	int rc;                         /* out: 0 or -1 */
	char err[200];                  /* out: why, when rc is -1 */
	struct col_authq_job *next;
	uv_work_t w;                    /* the queue's */
	struct col_authq *q;
};

/* A queue on loop that signs and checks with a (its strings must live as
 * long as the queue); ready(arg) is called on the loop after each job
 * finishes.  Return the queue, or NULL (errno set). */
struct col_authq *col_authq_create(uv_loop_t *loop, const struct mw_auth *a, void (*ready)(void *arg),
				   void *arg);

/* Queue j (malloc'd; the queue owns it until col_authq_done gives it
 * back).  Return 0, or -1 (the pool refused it: j is still the caller's). */
int col_authq_submit(struct col_authq *q, struct col_authq_job *j);

/* A finished job, oldest first (the caller frees it), or NULL when none is
 * waiting. */
struct col_authq_job *col_authq_done(struct col_authq *q);

/* Free the queue and the finished jobs (NULL is fine).  Jobs still on the
 * pool must be over first: the loop run until it has no more work. */
void col_authq_destroy(struct col_authq *q);

#endif
