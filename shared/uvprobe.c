/* uvprobe.c - a probe round driven by a libuv loop (uvprobe.h). */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>

#include "uvprobe.h"

struct mw_uvprobe {
	struct mw_probe_round *r;
	uv_poll_t watch[2];
	int nwatch;
	uv_timer_t timer;
	int handles;   /* not yet closed */
	int over;      /* done was called */
	mw_uvprobe_fn done;
	void *arg;
};

static void on_close(uv_handle_t *h)
{
	struct mw_uvprobe *p = h->data;
	if (--p->handles == 0)
		free(p);
}

static void finish(struct mw_uvprobe *p)
{
	int rc, e;
	if (p->over)
		return;
	p->over = 1;
	for (int i = 0; i < p->nwatch; i++) {
		uv_poll_stop(&p->watch[i]);
		uv_close((uv_handle_t *)&p->watch[i], on_close); /* before finish closes the fds */
	}
	uv_timer_stop(&p->timer);
	uv_close((uv_handle_t *)&p->timer, on_close);
	rc = mw_probe_round_finish(p->r);
	e = errno;
	p->r = NULL;
	errno = e;
	p->done(p->arg, rc);
}

static void on_timer(uv_timer_t *t);

static void arm(struct mw_uvprobe *p)
{
	uv_timer_start(&p->timer, on_timer, (uint64_t)mw_probe_round_timeout_ms(p->r), 0);
}

static void on_timer(uv_timer_t *t)
{
	struct mw_uvprobe *p = t->data;
	if (p->over)
		return;
	if (mw_probe_round_step(p->r) != 0)
		finish(p);
	else
		arm(p);
}

static void on_readable(uv_poll_t *w, int status, int events)
{
	struct mw_uvprobe *p = w->data;
	(void)events;
	if (p->over)
		return;
	/* POLLERR (an ICMP error queued: libuv says UV_EBADF and stops the
	 * watch): the step reads the error queue; then watch again. */
	if (mw_probe_round_step(p->r) != 0) {
		finish(p);
		return;
	}
	if (status < 0)
		uv_poll_start(w, UV_READABLE, on_readable);
	arm(p);
}

struct mw_uvprobe *mw_uvprobe_start(uv_loop_t *loop, const char *const *names, const char *const *addrs,
				    size_t n, uint16_t port, double budget_s, int tries, unsigned flags,
				    struct mw_probe_result *out, mw_uvprobe_fn done, void *arg)
{
	struct mw_uvprobe *p = calloc(1, sizeof(*p));
	struct pollfd pfd[2];
	int np;

	if (!p)
		return NULL;
	p->done = done;
	p->arg = arg;
	p->r = mw_probe_round_start_ex(names, addrs, n, port, budget_s, tries, flags, out);
	if (!p->r) {
		int e = errno;
		free(p);
		errno = e;
		return NULL;
	}
	uv_timer_init(loop, &p->timer);
	p->timer.data = p;
	p->handles = 1;
	np = mw_probe_round_fds(p->r, pfd, 2);
	for (int i = 0; i < np; i++) {
		int rc = uv_poll_init_socket(loop, &p->watch[p->nwatch], pfd[i].fd);
		if (rc < 0)
			continue; /* the timer still ends the round */
		p->watch[p->nwatch].data = p;
		p->handles++;
		uv_poll_start(&p->watch[p->nwatch], UV_READABLE, on_readable);
		p->nwatch++;
	}
	/* Stepped on the loop's next turn (a done round, n == 0, too): done is
	 * never called from here. */
	uv_timer_start(&p->timer, on_timer, 0, 0);
	return p;
}

void mw_uvprobe_stop(struct mw_uvprobe *p)
{
	finish(p);
}
