/* agap.c - the agent's auxiliary processes (agap.h). */
#include "agap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apconf.h"
#include "log.h"
#include "uvcmd.h"

struct ag_ap {
	struct mw_apconf conf;
	char node[MW_HB_STR_MAX + 1];
	uv_loop_t *loop;
	struct mw_uvcmd *cmd;  /* the running round's command, or NULL */
	size_t next;           /* the round's next command */
	int running;           /* a round runs */
	int dying;             /* ag_ap_destroy came while a command ran: freed at its end */
	uint32_t round;        /* its round */
	int rounds;            /* rounds started */
	double last_start;
	struct mw_hb_msg *q;   /* results to send */
	size_t nq;
};

struct ag_ap *ag_ap_create(uv_loop_t *loop, const char *path, long owner_uid, const char *node)
{
	struct ag_ap *ap = calloc(1, sizeof *ap);
	if (!ap || mw_apconf_init(&ap->conf) < 0) {
		free(ap);
		return NULL;
	}
	ap->loop = loop;
	snprintf(ap->node, sizeof ap->node, "%s", node ? node : "");
	mw_apconf_load_logged(&ap->conf, path, owner_uid, mw_log);
	return ap;
}

static void free_ap(struct ag_ap *ap)
{
	for (size_t i = 0; i < ap->nq; i++)
		mw_hb_msg_free(&ap->q[i]);
	free(ap->q);
	mw_apconf_free(&ap->conf);
	free(ap);
}

void ag_ap_destroy(struct ag_ap *ap)
{
	if (!ap)
		return;
	if (ap->cmd) { /* its end comes on the loop: ap goes then */
		ap->dying = 1;
		mw_uvcmd_kill(ap->cmd);
		return;
	}
	free_ap(ap);
}

size_t ag_ap_ncommands(const struct ag_ap *ap)
{
	return ap ? ap->conf.ncmd : 0;
}

int ag_ap_running(const struct ag_ap *ap)
{
	return ap && ap->running;
}

/* A result joins the queue (at most 2 x MW_AP_MAX_COMMANDS wait), logged. */
static void enqueue(struct ag_ap *ap, struct mw_hb_msg *m)
{
	const struct mw_hb_apout *p = &m->u.apout;
	struct mw_hb_msg *q;
	if (ap->nq >= 2 * MW_AP_MAX_COMMANDS) {
		/* the collector has not been reachable for two rounds */
		mw_warn("auxiliary process %s: result dropped (%zu unsent)", p->name, ap->nq);
		mw_hb_msg_free(m);
		return;
	}
	mw_info("auxiliary process %s: %s%s%s (status %d, signal %d, %llu bytes, %.1f s)", p->name,
		p->error[0] ? p->error : "ran", p->timed_out ? ", killed at the time bound" : "",
		p->truncated ? ", output cut at the size bound" : "", p->status, p->signal,
		(unsigned long long)p->bytes, p->elapsed_s);
	q = realloc(ap->q, (ap->nq + 1) * sizeof *q);
	if (!q) {
		mw_hb_msg_free(m);
		return;
	}
	ap->q = q;
	ap->q[ap->nq++] = *m;
}

/* The APOUT of command x of the round (the runner's result r, or NULL when
 * it could not be started: errno tells); owns r->output. */
static void result(struct ag_ap *ap, const struct mw_ap_cmd *x, struct mw_runcmd_result *r)
{
	struct mw_hb_msg m = {0};
	struct mw_hb_apout *p = &m.u.apout;

	m.type = MW_HB_APOUT;
	p->round = ap->round;
	snprintf(p->node, sizeof p->node, "%s", ap->node);
	snprintf(p->name, sizeof p->name, "%s", x->name);
	if (!r) {
		snprintf(p->error, sizeof p->error, "cannot start: %s", strerror(errno));
		p->status = -1;
		p->output = strdup("");
	} else {
		mw_hb_ap_sanitize(r->output, r->len);
		p->status = r->status;
		p->signal = r->signal;
		p->timed_out = r->timed_out;
		p->truncated = r->truncated;
		p->bytes = r->len;
		p->elapsed_s = r->elapsed_s;
		p->output = r->output; /* the message's now */
		r->output = NULL;
		if (r->exec_errno)
			snprintf(p->error, sizeof p->error, "cannot run %.80s: %s", x->argv[0],
				 strerror(r->exec_errno));
	}
	if (!p->output) {
		mw_warn("auxiliary process %s: out of memory: result dropped", x->name);
		return;
	}
	enqueue(ap, &m);
}

static void start_next(struct ag_ap *ap);

/* mw_uvcmd_done_fn: one command of the round is over; the next starts. */
static void cmd_done(struct mw_uvcmd *cmd, struct mw_runcmd_result *r, void *arg)
{
	struct ag_ap *ap = arg;
	(void)cmd;
	ap->cmd = NULL;
	if (ap->dying) {
		free(r->output);
		free_ap(ap);
		return;
	}
	result(ap, &ap->conf.cmd[ap->next++], r);
	free(r->output);
	start_next(ap);
}

/* Start the round's next command (one after the other, as the site wrote
 * them), or end the round. */
static void start_next(struct ag_ap *ap)
{
	const struct mw_apconf *c = &ap->conf;
	struct mw_runcmd_opts o = {
		.timeout_s = c->timeout,
		.max_output = (size_t)c->max_output,
		.stop_at_max = 1,
		.own_group = 1,
		.nice = AG_AP_NICE,
	};
	while (ap->next < c->ncmd) {
		ap->cmd = mw_uvcmd_start(ap->loop, c->cmd[ap->next].argv, NULL, &o, cmd_done, ap);
		if (ap->cmd)
			return;
		result(ap, &c->cmd[ap->next++], NULL);
	}
	ap->running = 0;
	mw_info("auxiliary processes: round %u done", ap->round);
}

/* Begin round on ap's loop. */
static void begin(struct ag_ap *ap, uint32_t round)
{
	ap->running = 1;
	ap->round = round;
	ap->next = 0;
	start_next(ap);
}

/* mw_hb_encode every queued result to fd.  Return 0, or -1. */
static int write_queue(const struct ag_ap *ap, int fd)
{
	for (size_t i = 0; i < ap->nq; i++) {
		uint8_t *buf, *b;
		size_t len;
		if (mw_hb_encode(&ap->q[i], &buf, &len) != 0)
			return -1;
		for (b = buf; len;) {
			ssize_t w = write(fd, b, len);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				free(buf);
				return -1;
			}
			b += w;
			len -= (size_t)w;
		}
		free(buf);
	}
	return 0;
}

int ag_ap_run_round(const struct ag_ap *ap, uint32_t round, int fd)
{
	uv_loop_t loop;
	struct ag_ap t;
	int rv;

	if (uv_loop_init(&loop) < 0)
		return -1;
	t = *ap; /* the same commands (read only), its own loop and queue */
	t.loop = &loop;
	t.cmd = NULL;
	t.q = NULL;
	t.nq = 0;
	t.dying = 0;
	begin(&t, round);
	uv_run(&loop, UV_RUN_DEFAULT);
	rv = write_queue(&t, fd);
	for (size_t i = 0; i < t.nq; i++)
		mw_hb_msg_free(&t.q[i]);
	free(t.q);
	uv_loop_close(&loop);
	return rv;
}

int ag_ap_request(struct ag_ap *ap, const struct mw_hb_apreq *req)
{
	double now = mw_now();

	if (!ap)
		return 0;
	if (req->n) {
		size_t i;
		for (i = 0; i < req->n && strcmp(req->nodes[i], ap->node) != 0; i++)
			;
		if (i == req->n)
			return 0; /* meant for other nodes */
	}
	if (!ap->conf.ncmd) {
		mw_info("auxiliary processes: round %u asked for, but none are configured", req->round);
		return 0;
	}
	if (ap->running) {
		mw_info("auxiliary processes: round %u asked for while round %u runs: ignored", req->round,
			ap->round);
		return 0;
	}
	if (ap->rounds >= AG_AP_MAX_ROUNDS || (ap->rounds && now - ap->last_start < AG_AP_MIN_INTERVAL)) {
		mw_info("auxiliary processes: round %u refused (%d round(s) run, the last %.0f s ago)",
			req->round, ap->rounds, now - ap->last_start);
		return 0;
	}
	if (!ap->loop) {
		mw_warn("auxiliary processes: round %u: no event loop", req->round);
		return -1;
	}
	ap->rounds++;
	ap->last_start = now;
	mw_info("auxiliary processes: round %u: running %zu command(s), one after the other", req->round,
		ap->conf.ncmd);
	begin(ap, req->round);
	return 1;
}

int ag_ap_flush(struct ag_ap *ap, int (*send)(const struct mw_hb_msg *m, void *arg), void *arg)
{
	size_t k = 0;
	if (!ap)
		return 0;
	while (k < ap->nq && send(&ap->q[k], arg) == 0) {
		mw_hb_msg_free(&ap->q[k]);
		k++;
	}
	if (k) /* (q is NULL while nothing was ever queued) */
		memmove(ap->q, ap->q + k, (ap->nq - k) * sizeof *ap->q);
	ap->nq -= k;
	return (int)k;
}
