/* authq.c - the collector's credential work off its event loop (authq.h). */
#include "authq.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

struct col_authq {
	struct mw_auth a;
	uv_loop_t *loop;
	void (*ready)(void *arg);
	void *arg;
	struct col_authq_job *head, *tail; /* finished, oldest first */
};

/* On a pool thread: the job's own fields and the queue's settings only. */
static void work(uv_work_t *w)
{
	struct col_authq_job *j = w->data;
	const struct mw_auth *a = &j->q->a;
	if (j->kind == COL_AQ_PROVE)
		j->rc = mw_auth_sign(a, j->payload, j->cred, sizeof j->cred, j->err, sizeof j->err);
	else
		j->rc = mw_auth_verify(a, j->cred, j->payload, j->err, sizeof j->err);
}

static void done(uv_work_t *w, int status)
{
	struct col_authq_job *j = w->data;
	struct col_authq *q = j->q;
	if (status < 0) {
		j->rc = -1;
		snprintf(j->err, sizeof j->err, "%s", uv_strerror(status));
	}
	j->next = NULL;
	if (q->tail)
		q->tail->next = j;
	else
		q->head = j;
	q->tail = j;
	if (q->ready)
		q->ready(q->arg);
}

struct col_authq *col_authq_create(uv_loop_t *loop, const struct mw_auth *a, void (*ready)(void *arg),
				   void *arg)
{
	struct col_authq *q = calloc(1, sizeof *q);
	if (!q)
		return NULL;
	q->a = *a;
	q->loop = loop;
	q->ready = ready;
	q->arg = arg;
	return q;
}

int col_authq_submit(struct col_authq *q, struct col_authq_job *j)
{
	int rc;
	j->q = q;
	j->w.data = j;
	rc = uv_queue_work(q->loop, &j->w, work, done);
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	return 0;
}

struct col_authq_job *col_authq_done(struct col_authq *q)
{
	struct col_authq_job *j = q->head;
	if (j) {
		q->head = j->next;
		if (!q->head)
			q->tail = NULL;
	}
	return j;
}

void col_authq_destroy(struct col_authq *q)
{
	if (!q)
		return;
	while (q->head) {
		struct col_authq_job *n = q->head->next;
		free(q->head);
		q->head = n;
	}
	free(q);
}
