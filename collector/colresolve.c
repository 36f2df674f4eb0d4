/* colresolve.c - node names made addresses on the loop (colresolve.h). */
#include "colresolve.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

struct lookup {
	uv_getaddrinfo_t req;
	struct col_resolve *q;
	size_t k;
	int busy;
};

struct col_resolve {
	const char **names, **addrs;
	char (*hosts)[64];
	size_t n, pending;
	int orphan; /* col_resolve_free was called: the last look-up frees us */
	void (*then)(void *arg);
	void *arg;
	struct lookup *l;
	char (*err)[160]; /* per name: why it did not resolve, "" */
};

static void release(struct col_resolve *q)
{
	free(q->l);
	free(q->err);
	free(q);
}

/* The address to probe from a look-up's answer: IPv4 first, else IPv6.
 * Return 0 (numeric text in buf), or -1. */
static int pick(const struct addrinfo *res, char *buf, size_t len)
{
	for (int fam = 0; fam < 2; fam++)
		for (const struct addrinfo *ai = res; ai; ai = ai->ai_next) {
			if (fam == 0 && ai->ai_family == AF_INET)
				return uv_ip4_name((const struct sockaddr_in *)ai->ai_addr, buf, len) == 0 ? 0 : -1;
			if (fam == 1 && ai->ai_family == AF_INET6)
				return uv_ip6_name((const struct sockaddr_in6 *)ai->ai_addr, buf, len) == 0 ? 0 : -1;
		}
	return -1;
}

static void looked_up(uv_getaddrinfo_t *req, int status, struct addrinfo *res)
{
	struct lookup *l = req->data;
	struct col_resolve *q = l->q;
	size_t k = l->k;

	l->busy = 0;
	q->pending--;
	if (!q->orphan) {
		if (status == 0 && pick(res, q->hosts[k], sizeof q->hosts[k]) == 0) {
			q->addrs[k] = q->hosts[k];
		} else {
			snprintf(q->err[k], sizeof q->err[k], "cannot resolve '%.64s': %s", q->names[k],
				 status ? uv_strerror(status) : "no IPv4/IPv6 address");
			q->names[k] = "";
		}
	}
	uv_freeaddrinfo(res);
	if (q->pending)
		return;
	if (q->orphan)
		release(q);
	else
		q->then(q->arg);
}

struct col_resolve *col_resolve_start(uv_loop_t *loop, const char **names, const char **addrs, char (*hosts)[64],
				      size_t n, void (*then)(void *arg), void *arg)
{
	struct addrinfo hints;
	struct col_resolve *q;
	size_t todo = 0;

	for (size_t k = 0; k < n; k++)
		todo += !addrs[k] && names[k] && names[k][0];
	if (!todo)
		return NULL;
	q = calloc(1, sizeof *q);
	if (!q || !(q->l = calloc(n, sizeof *q->l)) || !(q->err = calloc(n, sizeof *q->err))) {
		if (q)
			release(q);
		errno = ENOMEM;
		return NULL;
	}
	q->names = names;
	q->addrs = addrs;
	q->hosts = hosts;
	q->n = n;
	q->then = then;
	q->arg = arg;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_DGRAM;
	q->pending = 1; /* our own hold while starting: no end before all have started */
	for (size_t k = 0; k < n; k++) {
		int rc;
		if (addrs[k] || !names[k] || !names[k][0])
			continue;
		q->l[k].q = q;
		q->l[k].k = k;
		q->l[k].req.data = &q->l[k];
		rc = uv_getaddrinfo(loop, &q->l[k].req, looked_up, names[k], NULL, &hints);
		if (rc < 0) {
			snprintf(q->err[k], sizeof q->err[k], "cannot resolve '%.64s': %s", names[k], uv_strerror(rc));
			names[k] = "";
			continue;
		}
		q->l[k].busy = 1;
		q->pending++;
	}
	q->pending--; /* 0: none could start, all are errors, over now */
	return q;
}

int col_resolve_busy(const struct col_resolve *q)
{
	return q && q->pending > 0;
}

void col_resolve_summaries(const struct col_resolve *q, struct mw_probe_result *out, size_t n)
{
	if (!q)
		return;
	for (size_t k = 0; k < n && k < q->n; k++)
		if (q->err[k][0] && out[k].state == MW_PROBE_ERROR)
			snprintf(out[k].summary, sizeof out[k].summary, "%s", q->err[k]);
}

void col_resolve_free(struct col_resolve *q)
{
	if (!q)
		return;
	if (!q->pending) {
		release(q);
		return;
	}
	q->orphan = 1;
	for (size_t k = 0; k < q->n; k++)
		if (q->l[k].busy)
			uv_cancel((uv_req_t *)&q->l[k].req); /* may fail when already running: it ends anyway */
}
