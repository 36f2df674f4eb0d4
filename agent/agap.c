/* agap.c - the agent's auxiliary processes (agap.h). */
#include "agap.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apconf.h"
#include "log.h"
#include "runcmd.h"

struct ag_ap {
	struct mw_apconf conf;
	char node[MW_HB_STR_MAX + 1];
	pid_t runner;          /* running round's runner, or 0 */
	int fd;                /* its pipe, or -1 */
	uint32_t round;        /* its round */
	int rounds;            /* rounds started */
	double last_start;
	uint8_t *in;           /* bytes read from the pipe, not yet a whole frame */
	size_t inlen, incap;
	struct mw_hb_msg *q;   /* results to send */
	size_t nq;
};

struct ag_ap *ag_ap_create(const char *path, long owner_uid, const char *node)
{
	struct ag_ap *ap = calloc(1, sizeof *ap);
	if (!ap || mw_apconf_init(&ap->conf) < 0) {
		free(ap);
		return NULL;
	}
	ap->fd = -1;
	snprintf(ap->node, sizeof ap->node, "%s", node ? node : "");
	mw_apconf_load_logged(&ap->conf, path, owner_uid, mw_log);
	return ap;
}

static void stop_runner(struct ag_ap *ap)
{
	if (ap->runner > 0) {
		kill(ap->runner, SIGKILL);
		while (waitpid(ap->runner, NULL, 0) < 0 && errno == EINTR)
			;
	}
	ap->runner = 0;
	if (ap->fd >= 0)
		close(ap->fd);
	ap->fd = -1;
	ap->inlen = 0;
}

void ag_ap_destroy(struct ag_ap *ap)
{
	if (!ap)
		return;
	stop_runner(ap);
	for (size_t i = 0; i < ap->nq; i++)
		mw_hb_msg_free(&ap->q[i]);
	free(ap->q);
	free(ap->in);
	mw_apconf_free(&ap->conf);
	free(ap);
}

size_t ag_ap_ncommands(const struct ag_ap *ap)
{
	return ap ? ap->conf.ncmd : 0;
}

int ag_ap_fd(const struct ag_ap *ap)
{
	return ap ? ap->fd : -1;
}

static int write_all(int fd, const uint8_t *b, size_t n)
{
	while (n) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

int ag_ap_run_round(const struct ag_ap *ap, uint32_t round, int fd)
{
	const struct mw_apconf *c = &ap->conf;
	struct mw_runcmd_opts o = {
		.timeout_s = c->timeout,
		.max_output = (size_t)c->max_output,
		.stop_at_max = 1,
		.own_group = 1,
		.nice = AG_AP_NICE,
	};
	int rv = 0;

	for (size_t i = 0; i < c->ncmd; i++) {
		const struct mw_ap_cmd *x = &c->cmd[i];
		struct mw_runcmd_result r;
		struct mw_hb_msg m = {0};
		struct mw_hb_apout *p = &m.u.apout;
		uint8_t *buf;
		size_t len;

		m.type = MW_HB_APOUT;
		p->round = round;
		snprintf(p->node, sizeof p->node, "%s", ap->node);
		snprintf(p->name, sizeof p->name, "%s", x->name);
		r.output = NULL;
		if (mw_run_command_ex(x->argv, NULL, &o, &r) < 0) {
			snprintf(p->error, sizeof p->error, "cannot start: %s", strerror(errno));
			p->status = -1;
			p->output = (char *)"";
		} else {
			mw_hb_ap_sanitize(r.output, r.len);
			p->status = r.status;
			p->signal = r.signal;
			p->timed_out = r.timed_out;
			p->truncated = r.truncated;
			p->bytes = r.len;
			p->elapsed_s = r.elapsed_s;
			p->output = r.output;
			if (r.exec_errno)
				snprintf(p->error, sizeof p->error, "cannot run %.80s: %s", x->argv[0],
					 strerror(r.exec_errno));
		}
		if (mw_hb_encode(&m, &buf, &len) == 0) {
			if (write_all(fd, buf, len) < 0)
				rv = -1;
			free(buf);
		} else {
			rv = -1;
		}
		free(r.output);
		if (rv < 0)
			break;
	}
	return rv;
}

int ag_ap_request(struct ag_ap *ap, const struct mw_hb_apreq *req)
{
	int p[2];
	pid_t pid;
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
	if (ap->runner > 0) {
		mw_info("auxiliary processes: round %u asked for while round %u runs: ignored", req->round,
			ap->round);
		return 0;
	}
	if (ap->rounds >= AG_AP_MAX_ROUNDS || (ap->rounds && now - ap->last_start < AG_AP_MIN_INTERVAL)) {
		mw_info("auxiliary processes: round %u refused (%d round(s) run, the last %.0f s ago)",
			req->round, ap->rounds, now - ap->last_start);
		return 0;
	}
	if (pipe2(p, O_CLOEXEC) < 0) {
		mw_warn("auxiliary processes: pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		mw_warn("auxiliary processes: fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		/* The runner: the agent is single-threaded, so fork is safe. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGCHLD, SIG_DFL);
		signal(SIGPIPE, SIG_IGN); /* a gone agent is a write error */
		close(p[0]);
		_exit(ag_ap_run_round(ap, req->round, p[1]) == 0 ? 0 : 1);
	}
	close(p[1]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	ap->runner = pid;
	ap->fd = p[0];
	ap->round = req->round;
	ap->rounds++;
	ap->last_start = now;
	mw_info("auxiliary processes: round %u: running %zu command(s) (runner pid %d)", req->round,
		ap->conf.ncmd, (int)pid);
	return 1;
}

static void take_frames(struct ag_ap *ap)
{
	size_t off = 0;
	while (off < ap->inlen) {
		size_t flen = 0;
		struct mw_hb_msg m, *q;
		enum mw_hb_err e = mw_hb_frame_check(ap->in + off, ap->inlen - off, &flen);
		if (e == MW_HB_E_AGAIN)
			break;
		if (e != MW_HB_OK || mw_hb_decode(ap->in + off, flen, &m) != MW_HB_OK ||
		    m.type != MW_HB_APOUT) {
			if (e == MW_HB_OK)
				mw_hb_msg_free(&m);
			mw_warn("auxiliary processes: bad output from the runner: dropped");
			ap->inlen = 0;
			return;
		}
		off += flen;
		if (ap->nq >= 2 * MW_AP_MAX_COMMANDS) {
			/* the collector has not been reachable for two rounds */
			mw_warn("auxiliary process %s: result dropped (%zu unsent)", m.u.apout.name, ap->nq);
			mw_hb_msg_free(&m);
			continue;
		}
		mw_info("auxiliary process %s: %s%s%s (status %d, signal %d, %llu bytes, %.1f s)",
			m.u.apout.name, m.u.apout.error[0] ? m.u.apout.error : "ran",
			m.u.apout.timed_out ? ", killed at the time bound" : "",
			m.u.apout.truncated ? ", output cut at the size bound" : "", m.u.apout.status,
			m.u.apout.signal, (unsigned long long)m.u.apout.bytes, m.u.apout.elapsed_s);
		q = realloc(ap->q, (ap->nq + 1) * sizeof *q);
		if (!q) {
			mw_hb_msg_free(&m);
			continue;
		}
		ap->q = q;
		ap->q[ap->nq++] = m;
	}
	if (off)
		memmove(ap->in, ap->in + off, ap->inlen - off);
	ap->inlen -= off;
}

void ag_ap_read(struct ag_ap *ap)
{
	if (!ap || ap->fd < 0)
		return;
	for (;;) {
		ssize_t n;
		if (ap->incap - ap->inlen < 65536) {
			size_t ncap = ap->incap ? ap->incap * 2 : 131072;
			uint8_t *nb;
			if (ncap > MW_HB_HDR_LEN + MW_HB_MAX_PAYLOAD + 131072) {
				mw_warn("auxiliary processes: runner output too large: stopped");
				stop_runner(ap);
				return;
			}
			nb = realloc(ap->in, ncap);
			if (!nb)
				return;
			ap->in = nb;
			ap->incap = ncap;
		}
		n = read(ap->fd, ap->in + ap->inlen, ap->incap - ap->inlen);
		if (n > 0) {
			ap->inlen += (size_t)n;
			take_frames(ap);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		/* end of the round */
		mw_info("auxiliary processes: round %u done", ap->round);
		stop_runner(ap);
		return;
	}
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
