/* nhd_worker.c - the unix socket: drain and status requests, served one at a
 * time by a worker thread so the probe loop never waits for Slurm. */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <poll.h>
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
			return;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0) {
			close(fd);
			continue;
		}
		pthread_mutex_lock(&d->q_mu);
		if (d->q_len < NHD_QUEUE && uid_load(d, cred.uid) < NHD_UID_SHARE) {
			int at = (d->q_head + d->q_len) % NHD_QUEUE;
			d->q[at] = fd;
			d->q_uid[at] = cred.uid;
			d->q_len++;
			fd = -1;
			pthread_cond_signal(&d->q_cv);
		}
		pthread_mutex_unlock(&d->q_mu);
		if (fd >= 0) {
			NHD_INC(d, busy);
			reply_busy(fd);
			close(fd);
		}
	}
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

/* Read one request: up to a newline or EOF, at most MW_DRAINREQ_MAX + 1
 * bytes, within NHD_READ_TIMEOUT s in total (a client trickling bytes, or
 * silent, cannot hold the worker longer; a real client writes its request
 * as soon as it is connected). */
static ssize_t read_request(int fd, char *buf, size_t cap)
{
	double deadline = mw_now() + NHD_READ_TIMEOUT;
	size_t got = 0;
	while (got < cap) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		double left = deadline - mw_now();
		ssize_t r;
		if (left <= 0 || poll(&p, 1, (int)(left * 1e3) + 1) <= 0) {
			if (left > 0 && errno == EINTR)
				continue;
			return -1;
		}
		r = recv(fd, buf + got, cap - got, MSG_DONTWAIT);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
		if (memchr(buf + got - (size_t)r, '\n', (size_t)r))
			break;
	}
	return (ssize_t)got;
}

/* Ask the checker thread for a calibration (req as d->calib_req) and wait
 * for it, at most 8 s (the checks before it may hang on a dead mount).  An
 * unforced request within calibrate_min_interval of the last calibration
 * gets that one: a user cannot keep a node's core busy. */
static void wait_calibration(struct nhd *d, int req)
{
	struct nhd_conf *c = nhd_conf_get(d);
	double min_interval = c->calibrate_min_interval;
	struct timespec until;
	unsigned long gen;

	nhd_conf_put(d, c);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 8;
	pthread_mutex_lock(&d->health_mu);
	if (req == 1 && d->calib.ran && mw_now() - d->calib.mono < min_interval) {
		pthread_mutex_unlock(&d->health_mu);
		return;
	}
	gen = d->calib.gen;
	if (d->calib_req < req)
		d->calib_req = req;
	pthread_cond_signal(&d->health_cv);
	while (!d->stop && d->calib.gen == gen)
		if (pthread_cond_timedwait(&d->calib_cv, &d->health_mu, &until) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&d->health_mu);
}

static void serve(struct nhd *d, int fd, char *buf)
{
	struct timeval tv = {.tv_sec = 5};
	int fl = fcntl(fd, F_GETFL);
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	struct mw_drainreq req;
	char err[256], msg[1024];
	ssize_t len;

	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK); /* accepted non-blocking for the busy reply */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0) {
		mw_warn("unix socket: no peer credentials: %s", strerror(errno));
		reply(fd, 0, NULL, "no peer credentials");
		return;
	}
	len = read_request(fd, buf, MW_DRAINREQ_MAX + 1);
	if (len <= 0) {
		NHD_INC(d, bad_requests);
		reply(fd, 0, NULL, len < 0 ? "no request received (timeout)" : "empty request");
		return;
	}
	if (mw_drainreq_parse(buf, (size_t)len, &req, err, sizeof(err)) < 0) {
		NHD_INC(d, bad_requests);
		mw_warn("bad request from pid %d uid %u: %s", (int)cred.pid, (unsigned)cred.uid, err);
		reply(fd, 0, NULL, err);
		return;
	}
	if (req.op == MW_DRAINREQ_STATUS) {
		char *st;
		NHD_INC(d, status_requests);
		if (req.force && cred.uid != 0) {
			reply(fd, 0, NULL, "only root may calibrate while job steps run (--force)");
			mw_drainreq_free(&req);
			return;
		}
		if (req.calibrate)
			wait_calibration(d, req.force ? 2 : 1);
		st = nhd_status_json(d);
		if (st) {
			send_all(fd, "{\"ok\":true,\"status\":");
			send_all(fd, st);
			send_all(fd, "}\n");
		}
		free(st);
	} else {
		struct nhd_conf *c = nhd_conf_get(d);
		char self[sizeof(d->self)];
		struct nhd_drain_ctx ctx = {.conf = c, .self = self, .storm = &d->storm};
		char *verdict = NULL;
		pthread_mutex_lock(&d->conf_mu);
		memcpy(self, d->self, sizeof(self));
		pthread_mutex_unlock(&d->conf_mu);
		NHD_INC(d, drain_requests);
		mw_info("drain request from uid %u pid %d: node %s job %s: %s", (unsigned)cred.uid, (int)cred.pid,
			req.node, req.job, req.summary);
		if (nhd_drain_handle(&ctx, cred.uid, &req, msg, sizeof(msg), &verdict) == 0) {
			NHD_INC(d, drains);
			mw_log(LOG_WARNING, "drain of %s for job %s (uid %u): %s", req.node, req.job,
			       (unsigned)cred.uid, msg);
			reply(fd, 1, verdict ? "drained" : "already-drained", msg);
		} else {
			NHD_INC(d, drains_refused);
			mw_log(LOG_WARNING, "refused drain of %s for job %s (uid %u): %s", req.node, req.job,
			       (unsigned)cred.uid, msg);
			reply(fd, 0, NULL, msg);
		}
		/* The client has its answer; now the admin hooks. */
		shutdown(fd, SHUT_RDWR);
		if (verdict)
			nhd_drain_run_hooks(c, verdict);
		free(verdict);
		nhd_conf_put(d, c);
	}
	mw_drainreq_free(&req);
}

void *nhd_worker_main(void *arg)
{
	struct nhd *d = arg;
	char *buf = malloc(MW_DRAINREQ_MAX + 1);

	for (;;) {
		int fd;
		pthread_mutex_lock(&d->q_mu);
		while (!d->stop && d->q_len == 0)
			pthread_cond_wait(&d->q_cv, &d->q_mu);
		if (d->stop) {
			pthread_mutex_unlock(&d->q_mu);
			break;
		}
		fd = d->q[d->q_head];
		d->serving = 1;
		d->serving_uid = d->q_uid[d->q_head];
		d->q_head = (d->q_head + 1) % NHD_QUEUE;
		d->q_len--;
		pthread_mutex_unlock(&d->q_mu);
		if (buf)
			serve(d, fd, buf);
		else
			reply(fd, 0, NULL, "out of memory");
		close(fd);
		pthread_mutex_lock(&d->q_mu);
		d->serving = 0;
		pthread_mutex_unlock(&d->q_mu);
	}
	free(buf);
	return NULL;
}
