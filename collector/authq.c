/* authq.c - the collector's credential work off its event loop (authq.h). */
#include "authq.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

struct col_authq {
	struct mw_auth a;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct col_authq_job *head, *tail; /* waiting */
	struct col_authq_job *done;        /* finished, newest first */
	int stop;
	int pfd[2]; /* the worker writes a byte per finished job */
};

static void *worker(void *arg)
{
	struct col_authq *q = arg;
	pthread_mutex_lock(&q->mu);
	for (;;) {
		struct col_authq_job *j;
		while (!q->head && !q->stop)
			pthread_cond_wait(&q->cv, &q->mu);
		if (q->stop)
			break;
		j = q->head;
		q->head = j->next;
		if (!q->head)
			q->tail = NULL;
		pthread_mutex_unlock(&q->mu);
		if (j->kind == COL_AQ_PROVE)
			j->rc = mw_auth_sign(&q->a, j->payload, j->cred, sizeof j->cred, j->err, sizeof j->err);
		else
			j->rc = mw_auth_verify(&q->a, j->cred, j->payload, j->err, sizeof j->err);
		pthread_mutex_lock(&q->mu);
		j->next = q->done;
		q->done = j;
		{
			char b = 1;
			ssize_t n = write(q->pfd[1], &b, 1); /* full pipe: the loop wakes anyway */
			(void)n;
		}
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

struct col_authq *col_authq_create(const struct mw_auth *a)
{
	struct col_authq *q = calloc(1, sizeof *q);
	int err;
	if (!q)
		return NULL;
	q->a = *a;
	if (pipe2(q->pfd, O_CLOEXEC | O_NONBLOCK) < 0) {
		free(q);
		return NULL;
	}
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	err = pthread_create(&q->th, NULL, worker, q);
	if (err) {
		close(q->pfd[0]);
		close(q->pfd[1]);
		free(q);
		errno = err;
		return NULL;
	}
	return q;
}

int col_authq_fd(const struct col_authq *q)
{
	return q->pfd[0];
}

int col_authq_submit(struct col_authq *q, struct col_authq_job *j)
{
	j->next = NULL;
	pthread_mutex_lock(&q->mu);
	if (q->tail)
		q->tail->next = j;
	else
		q->head = j;
	q->tail = j;
	pthread_cond_signal(&q->cv);
	pthread_mutex_unlock(&q->mu);
	return 0;
}

struct col_authq_job *col_authq_done(struct col_authq *q)
{
	struct col_authq_job *j;
	char b[64];
	while (read(q->pfd[0], b, sizeof b) > 0)
		;
	pthread_mutex_lock(&q->mu);
	j = q->done;
	if (j)
		q->done = j->next;
	pthread_mutex_unlock(&q->mu);
	return j;
}

static void free_list(struct col_authq_job *j)
{
	while (j) {
		struct col_authq_job *n = j->next;
		free(j);
		j = n;
	}
}

void col_authq_destroy(struct col_authq *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->mu);
	q->stop = 1;
	pthread_cond_signal(&q->cv);
	pthread_mutex_unlock(&q->mu);
	pthread_join(q->th, NULL);
	free_list(q->head);
	free_list(q->done);
	close(q->pfd[0]);
	close(q->pfd[1]);
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
	free(q);
}
