/* nhd_unix.c - the unix socket: drain and status requests, served one at a
 * time on the loop (each step of a drain is a child or a probe round the
 * loop watches: the probe socket is never kept waiting for Slurm). */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "drainreq.h"
#include "log.h"
#include "nhd.h"
#include "uvslurm.h"

/* Open path's directory (created 0755 if missing) and check it: a
 * directory, not a symlink, owned by us or root, and writable by nobody
 * else (or sticky: then no one else can move our entry).  Return its fd
 * (O_PATH), or -1 (errno; EPERM for a directory others could swap our
 * socket in). */
static int open_socket_dir(const char *path, const char **base)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const char *slash = strrchr(path, '/');
	struct stat st;
	int dfd;

	if (!slash) {
		snprintf(dir, sizeof(dir), ".");
		*base = path;
	} else {
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
		*base = slash + 1;
		if (slash != path && mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -1;
	}
	if (!**base) {
		errno = EINVAL;
		return -1;
	}
	dfd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	if (fstat(dfd, &st) < 0 || (st.st_uid != geteuid() && st.st_uid != 0) ||
	    ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))) {
		mw_err("socket directory %s must be owned by root (or us) and writable by no one else", dir);
		close(dfd);
		errno = EPERM;
		return -1;
	}
	return dfd;
}

int nhd_unix_open(const char *path)
{
	struct sockaddr_un sun;
	const char *base;
	struct stat st;
	int fd, dfd, e;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sun.sun_path, path);
	dfd = open_socket_dir(path, &base);
	if (dfd < 0)
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		goto fail;
	/* A socket file left by a dead daemon: remove it (but never a live one). */
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0) {
		close(fd);
		errno = EADDRINUSE;
		goto fail;
	}
	close(fd);
	/* Only ever remove a socket: a mistyped path must not delete a file. */
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISSOCK(st.st_mode)) {
		errno = EEXIST;
		goto fail;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		goto fail;
	unlinkat(dfd, base, 0);
	/* Bound through the checked directory's fd when /proc allows (no
	 * component of the path can be swapped in between), and made 0666
	 * there, by name in a directory no one else can write. */
	{
		struct sockaddr_un via = sun;
		int n = snprintf(via.sun_path, sizeof(via.sun_path), "/proc/self/fd/%d/%s", dfd, base);
		if (n <= 0 || (size_t)n >= sizeof(via.sun_path) || access("/proc/self/fd", X_OK) < 0)
			via = sun;
		if (bind(fd, (struct sockaddr *)&via, sizeof(via)) < 0 || fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISSOCK(st.st_mode) || fchmodat(dfd, base, 0666, 0) < 0 || listen(fd, SOMAXCONN) < 0) {
			e = errno;
			close(fd);
			close(dfd);
			errno = e;
			return -1;
		}
	}
	close(dfd);
	return fd;
fail:
	e = errno;
	close(dfd);
	errno = e;
	return -1;
}

static void send_all(int fd, const char *s)
{
	size_t len = strlen(s), off = 0;
	while (off < len) {
		ssize_t w = send(fd, s + off, len - off, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		off += (size_t)w;
	}
}

static void reply(int fd, int ok, const char *result, const char *text)
{
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "ok", json_object_new_boolean(ok));
	if (ok && result)
		json_object_object_add(o, "result", json_object_new_string(result));
	json_object_object_add(o, ok ? "message" : "error", json_object_new_string(text));
	send_all(fd, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	send_all(fd, "\n");
	json_object_put(o);
}

/* Connections of uid queued or being served (under q_mu). */
static int uid_load(const struct nhd *d, uid_t uid)
{
	int k = d->serving && d->serving_uid == uid;
	for (int i = 0; i < d->q_len; i++)
		k += d->q_uid[(d->q_head + i) % NHD_QUEUE] == uid;
	return k;
}

static void reply_busy(int fd)
{
	send_all(fd, "{\"ok\":false,\"error\":\"nodehealthd is busy, try again later\",\"retry\":true}\n");
}

static void serve_next(struct nhd *d);

/* Accept what waits, at most 64 connections a call.  Fairness: one uid has
 * at most NHD_UID_SHARE connections queued or served at once; one more is
 * answered "busy" (retry) and closed at once, so a user holding silent
 * connections holds no more than its share of the queue and none of our
 * descriptors, and delays another user's request by at most
 * NHD_UID_SHARE x NHD_READ_TIMEOUT seconds. */
void nhd_unix_accept(struct nhd *d)
{
	for (int i = 0; i < 64; i++) {
		int fd = accept4(d->unix_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		struct ucred cred;
		socklen_t clen = sizeof(cred);
		if (fd < 0)
			break;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0) {
			close(fd);
			continue;
		}
		if (d->q_len < NHD_QUEUE && uid_load(d, cred.uid) < NHD_UID_SHARE) {
			int at = (d->q_head + d->q_len) % NHD_QUEUE;
			d->q[at] = fd;
			d->q_uid[at] = cred.uid;
			d->q_len++;
			fd = -1;
		}
		if (fd >= 0) {
			NHD_INC(d, busy);
			reply_busy(fd);
			close(fd);
		}
	}
	serve_next(d);
}

static void add_u64(struct json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_int64((int64_t)v));
}

/* The last calibration as the status object's "calibration" member. */
static struct json_object *calib_json(struct nhd *d, double now)
{
	struct json_object *o = json_object_new_object();
	struct nhd_calib k;
	pthread_mutex_lock(&d->health_mu);
	k = d->calib;
	pthread_mutex_unlock(&d->health_mu);
	json_object_object_add(o, "runs", json_object_new_int(k.ran));
	if (k.skipped[0])
		json_object_object_add(o, "skipped", json_object_new_string(k.skipped));
	if (!k.ran)
		return o;
	json_object_object_add(o, "state", json_object_new_string(k.degraded ? "degraded" : "ok"));
	json_object_object_add(o, "detail", json_object_new_string(k.detail));
	add_u64(o, "age_s", (uint64_t)(now - k.mono));
	json_object_object_add(o, "seconds", json_object_new_double(k.seconds));
	json_object_object_add(o, "cpu_seconds", json_object_new_double(k.cpu_seconds));
	json_object_object_add(o, "truncated", json_object_new_boolean(k.truncated));
	add_u64(o, "backward_steps", (uint64_t)k.obs.backward_steps);
	json_object_object_add(o, "tsc_ghz", json_object_new_double(k.obs.tsc_ghz_end));
	json_object_object_add(o, "rate_diff", json_object_new_double(k.rate_diff));
	json_object_object_add(o, "interval_ns", k.obs.found ? json_object_new_double(k.r0_ns) : NULL);
	json_object_object_add(o, "resolution_ns", k.obs.noise >= 0 ? json_object_new_double(k.resolution_ns) : NULL);
	json_object_object_add(o, "noise", k.obs.noise >= 0 ? json_object_new_double(k.obs.noise) : NULL);
	return o;
}

char *nhd_status_json(struct nhd *d)
{
	struct nhd_conf *c = nhd_conf_get(d);
	struct json_object *o = json_object_new_object(), *cnt = json_object_new_object(),
			   *mal = json_object_new_object(), *checks = json_object_new_array();
	struct nhd_health *h = malloc(sizeof(*h));
	uint64_t mal_total = 0;
	double now = mw_now();
	char *s;

	if (h) {
		pthread_mutex_lock(&d->health_mu);
		*h = d->health;
		pthread_mutex_unlock(&d->health_mu);
	}
	pthread_mutex_lock(&d->conf_mu);
	json_object_object_add(o, "node", json_object_new_string(d->self));
	json_object_object_add(o, "socket", json_object_new_string(d->unix_path));
	pthread_mutex_unlock(&d->conf_mu);
	json_object_object_add(o, "version", json_object_new_string(MW_VERSION));
	json_object_object_add(o, "pid", json_object_new_int((int)getpid()));
	add_u64(o, "uptime_s", (uint64_t)(now - d->started));
	json_object_object_add(o, "config", json_object_new_string(c->path ? c->path : ""));
	json_object_object_add(o, "port", json_object_new_int((int)c->port));
	if (h) {
		json_object_object_add(o, "state", json_object_new_string(mw_probe_state_name(h->state)));
		json_object_object_add(o, "failed_checks", json_object_new_int(h->failed));
		json_object_object_add(o, "summary", json_object_new_string(h->summary));
		add_u64(o, "health_age_s", h->mono > 0 ? (uint64_t)(now - h->mono) : 0);
		for (int i = 0; i < h->n; i++) {
			struct json_object *r = json_object_new_object();
			json_object_object_add(r, "check", json_object_new_string(h->r[i].name));
			json_object_object_add(r, "ok", json_object_new_boolean(h->r[i].ok));
			json_object_object_add(r, "detail", json_object_new_string(h->r[i].detail));
			json_object_array_add(checks, r);
		}
	}
	json_object_object_add(o, "checks", checks);
	json_object_object_add(o, "calibration", calib_json(d, now));
	add_u64(cnt, "probes_received", NHD_GET(d, rx));
	add_u64(cnt, "replies_sent", NHD_GET(d, replies));
	for (int e = 1; e < MW_PROBE_E_NCODES; e++) {
		uint64_t v = NHD_GET(d, malformed[e]);
		mal_total += v;
		add_u64(mal, mw_probe_err_name((enum mw_probe_err)e), v);
	}
	add_u64(cnt, "malformed", mal_total);
	json_object_object_add(cnt, "malformed_by_reason", mal);
	add_u64(cnt, "rate_limited", NHD_GET(d, rate_limited));
	add_u64(cnt, "privileged_probes", NHD_GET(d, privileged));
	add_u64(cnt, "privileged_rate_limited", NHD_GET(d, privileged_rate_limited));
	add_u64(cnt, "send_errors", NHD_GET(d, send_errors));
	add_u64(cnt, "drain_requests", NHD_GET(d, drain_requests));
	add_u64(cnt, "drains", NHD_GET(d, drains));
	add_u64(cnt, "drains_refused", NHD_GET(d, drains_refused));
	add_u64(cnt, "bad_requests", NHD_GET(d, bad_requests));
	add_u64(cnt, "status_requests", NHD_GET(d, status_requests));
	add_u64(cnt, "busy", NHD_GET(d, busy));
	add_u64(cnt, "checks_run", NHD_GET(d, checks_run));
	add_u64(cnt, "reloads", NHD_GET(d, reloads));
	add_u64(cnt, "reload_failures", NHD_GET(d, reload_failures));
	json_object_object_add(o, "counters", cnt);
	add_u64(o, "drains_in_window", nhd_storm_recent(&d->storm, now, c->storm_window));
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	free(h);
	nhd_conf_put(d, c);
	return s;
}

/* The connection served: read its request (NHD_READ_TIMEOUT s in all),
 * then answer it: at once, after a calibration, or after a drain's Slurm
 * commands and probe rounds; a drain's hooks run before the next
 * connection is served. */
struct nhd_conn {
	struct nhd *d;
	int fd;
	struct ucred cred;
	uv_poll_t watch;          /* fd readable */
	uv_timer_t timer;         /* the read deadline, then the calibration wait */
	int handles;              /* not yet closed */
	int ending;
	char *buf;
	size_t got;
	struct mw_drainreq req;
	int have_req;
	unsigned long calib_gen;  /* waiting for a calibration: the gen before it */
	int waiting_calib;
	/* a drain */
	struct nhd_conf *c;       /* the configuration it uses (a reference) */
	char self[sizeof(((struct nhd *)0)->self)];
	struct nhd_drain_ctx ctx;
	struct nhd_drain_op *op;
	struct nhd_hooks *hooks;
	int in_hooks;
	/* a collector's summary: its job as Slurm knows it */
	struct mw_slurm slurm;
	struct mw_slurm_job job;
	struct mw_uvslurm *scall;
};

static void conn_closed(uv_handle_t *h)
{
	struct nhd_conn *k = h->data;
	if (--k->handles > 0)
		return;
	free(k->buf);
	free(k);
}

/* The connection is over: close it, serve the next. */
static void end_conn(struct nhd_conn *k)
{
	struct nhd *d = k->d;
	if (k->ending)
		return;
	k->ending = 1;
	uv_poll_stop(&k->watch);
	uv_timer_stop(&k->timer);
	close(k->fd);
	uv_close((uv_handle_t *)&k->watch, conn_closed);
	uv_close((uv_handle_t *)&k->timer, conn_closed);
	if (k->have_req)
		mw_drainreq_free(&k->req);
	if (k->c)
		nhd_conf_put(d, k->c);
	d->conn = NULL;
	d->serving = 0;
	serve_next(d);
}

static void reply_status(struct nhd_conn *k)
{
	char *st = nhd_status_json(k->d);
	if (st) {
		send_all(k->fd, "{\"ok\":true,\"status\":");
		send_all(k->fd, st);
		send_all(k->fd, "}\n");
	}
	free(st);
	end_conn(k);
}

void nhd_unix_calibrated(struct nhd *d)
{
	struct nhd_conn *k = d->conn;
	unsigned long gen;
	if (!k || !k->waiting_calib)
		return;
	pthread_mutex_lock(&d->health_mu);
	gen = d->calib.gen;
	pthread_mutex_unlock(&d->health_mu);
	if (gen != k->calib_gen) {
		k->waiting_calib = 0;
		reply_status(k);
	}
}

static void calib_timeout(uv_timer_t *t)
{
	struct nhd_conn *k = t->data;
	k->waiting_calib = 0;
	reply_status(k);
}

/* Ask the checker for a calibration (req as d->calib_req) and answer the
 * status when it has run, at most 8 s later (the checks before it may hang
 * on a dead mount).  An unforced request within calibrate_min_interval of
 * the last calibration gets that one: a user cannot keep a node's core
 * busy. */
static void wait_calibration(struct nhd_conn *k, int req)
{
	struct nhd *d = k->d;
	struct nhd_conf *c = nhd_conf_get(d);
	double min_interval = c->calibrate_min_interval;

	nhd_conf_put(d, c);
	pthread_mutex_lock(&d->health_mu);
	if (req == 1 && d->calib.ran && mw_now() - d->calib.mono < min_interval) {
		pthread_mutex_unlock(&d->health_mu);
		reply_status(k);
		return;
	}
	k->calib_gen = d->calib.gen;
	if (d->calib_req < req)
		d->calib_req = req;
	pthread_mutex_unlock(&d->health_mu);
	k->waiting_calib = 1;
	uv_timer_start(&k->timer, calib_timeout, 8000, 0);
	nhd_checker_kick(d);
}

static void hooks_done(void *arg)
{
	struct nhd_conn *k = arg;
	k->in_hooks = 0;
	k->hooks = NULL;
	end_conn(k);
}

static void drain_done(void *arg, int rv, const char *msg, char *verdict)
{
	struct nhd_conn *k = arg;
	struct nhd *d = k->d;
	struct nhd_hooks *h;

	k->op = NULL;
	if (rv == 0) {
		if (!verdict)
			d->mx.already_drained++;
		NHD_INC(d, drains);
		mw_log(LOG_WARNING, "drain of %s for job %s (uid %u): %s", k->req.node, k->req.job,
		       (unsigned)k->cred.uid, msg);
		reply(k->fd, 1, verdict ? "drained" : "already-drained", msg);
	} else {
		NHD_INC(d, drains_refused);
		mw_log(LOG_WARNING, "refused drain of %s for job %s (uid %u): %s", k->req.node, k->req.job,
		       (unsigned)k->cred.uid, msg);
		reply(k->fd, 0, NULL, msg);
	}
	nhd_mexport_changed(d);
	/* The client has its answer; now the admin hooks. */
	shutdown(k->fd, SHUT_RDWR);
	if (!verdict) {
		end_conn(k);
		return;
	}
	k->in_hooks = 1;
	h = nhd_hooks_start(d->loop, k->c, verdict, hooks_done, k);
	free(verdict);
	if (k->in_hooks)
		k->hooks = h;
}

/* A summary's job as squeue tells it: counted if the caller owns it (or
 * is root) and it ran on this node. */
static void summary_checked(void *arg, long rc, const char *err)
{
	struct nhd_conn *k = arg;
	struct nhd *d = k->d;
	char msg[1024];
	int ok = 0;

	k->scall = NULL;
	if (d->stop)
		snprintf(msg, sizeof msg, "nodehealthd is stopping");
	else if (rc < 0)
		snprintf(msg, sizeof msg, "cannot verify job %s: %s", k->req.job, err);
	else if (k->cred.uid != 0 && (long)k->cred.uid != k->job.uid)
		snprintf(msg, sizeof msg, "uid %u does not own job %s (owner %s, uid %ld)", (unsigned)k->cred.uid,
			 k->req.job, k->job.user, k->job.uid);
	else if (nhd_nodelist_has(k->job.nodelist, k->self) <= 0)
		snprintf(msg, sizeof msg, "job %s did not run on this node %s (nodes: %s)", k->req.job, k->self,
			 k->job.nodelist[0] ? k->job.nodelist : "none");
	else
		ok = 1;
	if (ok) {
		enum nhd_summary_result r = nhd_mexport_summary(d, k->req.job, k->req.verdict);
		snprintf(msg, sizeof msg, "job %s: verdict %s %s", k->req.job, mw_summary_verdicts[k->req.verdict],
			 r == NHD_SUM_COUNTED ? "counted" : "was counted already");
		mw_info("summary from uid %u pid %d: %s", (unsigned)k->cred.uid, (int)k->cred.pid, msg);
		reply(k->fd, 1, r == NHD_SUM_COUNTED ? "counted" : "duplicate", msg);
	} else {
		nhd_mexport_refused(d);
		mw_warn("refused summary from uid %u pid %d: %s", (unsigned)k->cred.uid, (int)k->cred.pid, msg);
		reply(k->fd, 0, NULL, msg);
	}
	mw_slurm_job_free(&k->job);
	end_conn(k);
}

/* A collector's summary: its job is asked of Slurm (on the loop). */
static void serve_summary(struct nhd_conn *k)
{
	struct nhd *d = k->d;
	struct nhd_conf *c = nhd_conf_get(d);
	char why[512];

	pthread_mutex_lock(&d->conf_mu);
	memcpy(k->self, d->self, sizeof(k->self));
	pthread_mutex_unlock(&d->conf_mu);
	k->c = c; /* kept until the connection ends: the scontrol path lives there */
	k->slurm = (struct mw_slurm){c->scontrol, NHD_SLURM_TIMEOUT};
	k->scall = mw_uvslurm_job(d->loop, &k->slurm, k->req.job, &k->job, summary_checked, k, why, sizeof why);
	if (!k->scall) {
		char msg[1024];
		snprintf(msg, sizeof msg, "cannot verify job %s: %s", k->req.job, why);
		nhd_mexport_refused(d);
		reply(k->fd, 0, NULL, msg);
		end_conn(k);
	}
}

/* The request is read (len bytes, -1: none in time): answer it. */
static void serve(struct nhd_conn *k, ssize_t len)
{
	struct nhd *d = k->d;
	char err[256];

	if (len <= 0) {
		NHD_INC(d, bad_requests);
		reply(k->fd, 0, NULL, len < 0 ? "no request received (timeout)" : "empty request");
		end_conn(k);
		return;
	}
	if (mw_drainreq_parse(k->buf, (size_t)len, &k->req, err, sizeof(err)) < 0) {
		NHD_INC(d, bad_requests);
		nhd_mexport_changed(d);
		mw_warn("bad request from pid %d uid %u: %s", (int)k->cred.pid, (unsigned)k->cred.uid, err);
		reply(k->fd, 0, NULL, err);
		end_conn(k);
		return;
	}
	k->have_req = 1;
	if (k->req.op == MW_DRAINREQ_STATUS) {
		NHD_INC(d, status_requests);
		if (k->req.force && k->cred.uid != 0) {
			reply(k->fd, 0, NULL, "only root may calibrate while job steps run (--force)");
			end_conn(k);
		} else if (k->req.calibrate) {
			wait_calibration(k, k->req.force ? 2 : 1);
		} else {
			reply_status(k);
		}
		return;
	}
	if (k->req.op == MW_DRAINREQ_SUMMARY) {
		serve_summary(k);
		return;
	}
	k->c = nhd_conf_get(d);
	pthread_mutex_lock(&d->conf_mu);
	memcpy(k->self, d->self, sizeof(k->self));
	pthread_mutex_unlock(&d->conf_mu);
	k->ctx = (struct nhd_drain_ctx){.conf = k->c, .self = k->self, .storm = &d->storm};
	NHD_INC(d, drain_requests);
	mw_info("drain request from uid %u pid %d: node %s job %s: %s", (unsigned)k->cred.uid, (int)k->cred.pid,
		k->req.node, k->req.job, k->req.summary);
	k->op = nhd_drain_start(d->loop, &k->ctx, k->cred.uid, &k->req, drain_done, k);
	if (!k->op) {
		reply(k->fd, 0, NULL, "out of memory");
		end_conn(k);
	}
}

/* Read one request: up to a newline or EOF, at most MW_DRAINREQ_MAX + 1
 * bytes, within NHD_READ_TIMEOUT s in total (a client trickling bytes, or
 * silent, cannot hold the socket longer; a real client writes its request
 * as soon as it is connected). */
static void on_readable(uv_poll_t *w, int status, int events)
{
	struct nhd_conn *k = w->data;
	size_t cap = MW_DRAINREQ_MAX + 1;
	(void)events;
	while (k->got < cap) {
		ssize_t r = recv(k->fd, k->buf + k->got, cap - k->got, MSG_DONTWAIT);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN && status == 0)
			return; /* more to come */
		if (r < 0)
			goto failed;
		if (r == 0)
			break;
		k->got += (size_t)r;
		if (memchr(k->buf + k->got - (size_t)r, '\n', (size_t)r))
			break;
	}
	uv_poll_stop(&k->watch);
	uv_timer_stop(&k->timer);
	serve(k, (ssize_t)k->got);
	return;
failed:
	uv_poll_stop(&k->watch);
	uv_timer_stop(&k->timer);
	serve(k, -1);
}

static void read_timeout(uv_timer_t *t)
{
	struct nhd_conn *k = t->data;
	uv_poll_stop(&k->watch);
	serve(k, -1);
}

/* Serve the next queued connection, unless one is served. */
static void serve_next(struct nhd *d)
{
	struct nhd_conn *k;
	socklen_t clen;
	int fd;

	while (!d->serving && !d->stop && d->q_len > 0) {
		fd = d->q[d->q_head];
		d->serving_uid = d->q_uid[d->q_head];
		d->q_head = (d->q_head + 1) % NHD_QUEUE;
		d->q_len--;
		k = calloc(1, sizeof(*k));
		if (k && !(k->buf = malloc(MW_DRAINREQ_MAX + 1))) {
			free(k);
			k = NULL;
		}
		if (!k) {
			reply(fd, 0, NULL, "out of memory");
			close(fd);
			continue;
		}
		k->d = d;
		k->fd = fd;
		clen = sizeof(k->cred);
		if (uv_poll_init_socket(d->loop, &k->watch, fd) < 0) {
			reply(fd, 0, NULL, "out of memory");
			close(fd);
			free(k->buf);
			free(k);
			continue;
		}
		uv_timer_init(d->loop, &k->timer);
		k->watch.data = k->timer.data = k;
		k->handles = 2;
		d->serving = 1;
		d->conn = k;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &k->cred, &clen) < 0) {
			mw_warn("unix socket: no peer credentials: %s", strerror(errno));
			reply(fd, 0, NULL, "no peer credentials");
			end_conn(k);
			continue;
		}
		uv_poll_start(&k->watch, UV_READABLE, on_readable);
		uv_timer_start(&k->timer, read_timeout, NHD_READ_TIMEOUT * 1000, 0);
	}
}

void nhd_unix_stop(struct nhd *d)
{
	struct nhd_conn *k = d->conn;
	while (d->q_len > 0) {
		close(d->q[d->q_head]);
		d->q_head = (d->q_head + 1) % NHD_QUEUE;
		d->q_len--;
	}
	if (k && k->waiting_calib) {
		k->waiting_calib = 0;
		reply_status(k); /* with the calibration as it is */
	}
}

void nhd_unix_kill(struct nhd *d)
{
	struct nhd_conn *k = d->conn;
	if (!k)
		return;
	if (k->op)
		nhd_drain_cancel(k->op); /* its end (refused) ends the connection */
	else if (k->scall)
		mw_uvslurm_kill(k->scall); /* its end (refused) ends the connection */
	else if (k->hooks)
		nhd_hooks_cancel(k->hooks);
	else if (!k->in_hooks)
		end_conn(k);
}
