/* nhd_udp.c - answering UDP liveness probes, in batches (recvmmsg/sendmmsg). */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "nhd.h"

#define BATCH 64
#define MAX_BATCHES 16 /* per call, so signals and the unix socket are not starved */

int nhd_udp_open(const struct nhd_conf *c)
{
	struct addrinfo hints, *res = NULL;
	char port[8];
	int fd = -1, rc, sz = 4 << 20;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_DGRAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV;
	snprintf(port, sizeof(port), "%ld", c->port);
	rc = getaddrinfo(c->listen, port, &hints, &res);
	if (rc != 0) {
		mw_err("listen address '%s': %s", c->listen, gai_strerror(rc));
		errno = EINVAL;
		return -1;
	}
	fd = socket(res->ai_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		goto fail;
	/* Room for bursts of probes from many collectors: FORCE works while we
	 * still have CAP_NET_ADMIN (start-up), plain SO_RCVBUF (capped by
	 * net.core.rmem_max) after a reload. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	if (res->ai_family == AF_INET6) {
		int off = 0; /* "::" also takes IPv4 */
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
	}
	/* No SO_REUSEADDR (nor SO_REUSEPORT): with it, any local user could
	 * bind the node's own address on this port and receive the probes. */
	if (bind(fd, res->ai_addr, res->ai_addrlen) < 0)
		goto fail;
	freeaddrinfo(res);
	return fd;
fail: {
	int e = errno;
	mw_err("cannot listen on udp %s port %ld: %s", c->listen, c->port, strerror(e));
	if (fd >= 0)
		close(fd);
	freeaddrinfo(res);
	errno = e;
	return -1;
}
}

/* The source port of a datagram (host order), 0 if not IP. */
static unsigned src_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)(const void *)ss)->sin_port);
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)(const void *)ss)->sin6_port);
	return 0;
}

/* Buffers live outside the stack: 64 x 1.5 KiB each way. */
static uint8_t rbuf[BATCH][MW_PROBE_MAX_SIZE + 1];
static uint8_t sbuf[BATCH][MW_PROBE_MIN_SIZE > MW_PROBE_MAX_SIZE ? MW_PROBE_MIN_SIZE : MW_PROBE_MAX_SIZE];
static struct sockaddr_storage from[BATCH];
static struct mmsghdr in[BATCH], out[BATCH];
static struct iovec iov_in[BATCH], iov_out[BATCH];

struct snapshot {
	int state, failed;
	uint32_t age;
	struct mw_probe_factors f;
	int mono_known; /* the checks ran: f holds something */
	int cal_known;  /* a calibration ran: cal holds its figures */
	struct mw_probe_calib cal;
	char summary[sizeof(((struct nhd_health *)0)->summary) + 64];
};

static void take_snapshot(struct nhd *d, double interval, struct snapshot *s)
{
	double now = mw_now(), stuck = interval * 3 > 30 ? interval * 3 : 30, mono;
	pthread_mutex_lock(&d->health_mu);
	mono = d->health.mono;
	s->mono_known = mono > 0;
	s->state = d->health.state;
	s->failed = d->health.failed;
	s->f = d->health.f;
	s->age = mono > 0 ? (uint32_t)(now - mono) : 0;
	snprintf(s->summary, sizeof(s->summary), "%s", d->health.summary);
	/* The calibration's figures ride along (protocol.md, flag bit 2):
	 * what a job's compute-phase flag may trust on this node. */
	s->cal_known = d->calib.ran > 0;
	s->cal.interval_ns = d->calib.r0_ns;
	s->cal.resolution_ns = d->calib.resolution_ns;
	s->cal.degraded = d->calib.degraded;
	pthread_mutex_unlock(&d->health_mu);
	if (mono > 0 && now - mono > stuck) {
		s->state = MW_PROBE_DEGRADED;
		s->failed = s->failed + 1;
		snprintf(s->summary, sizeof(s->summary), "health checks stuck for %u s", s->age);
	}
}

void nhd_udp_serve(struct nhd *d)
{
	static struct mw_ratelimit bad_log = MW_RATELIMIT_INIT(1, 5);
	struct nhd_conf *c = nhd_conf_get(d);
	struct snapshot snap;
	int have_snap = 0;

	for (int b = 0; b < MAX_BATCHES; b++) {
		int n, k = 0;
		double now;
		for (int i = 0; i < BATCH; i++) {
			iov_in[i].iov_base = rbuf[i];
			iov_in[i].iov_len = sizeof(rbuf[i]);
			memset(&in[i].msg_hdr, 0, sizeof(in[i].msg_hdr));
			in[i].msg_hdr.msg_name = &from[i];
			in[i].msg_hdr.msg_namelen = sizeof(from[i]);
			in[i].msg_hdr.msg_iov = &iov_in[i];
			in[i].msg_hdr.msg_iovlen = 1;
		}
		n = recvmmsg(d->udp_fd, in, BATCH, MSG_DONTWAIT, NULL);
		if (n <= 0)
			break;
		now = mw_now();
		NHD_ADD(d, rx, (uint64_t)n);
		if (!have_snap) {
			take_snapshot(d, c->check_interval, &snap);
			have_snap = 1;
		}
		for (int i = 0; i < n; i++) {
			uint8_t nonce[MW_PROBE_NONCE_LEN];
			size_t len = in[i].msg_len;
			enum mw_probe_err e;
			int rl;
			if (in[i].msg_hdr.msg_flags & MSG_TRUNC)
				len = MW_PROBE_MAX_SIZE + 1;
			e = mw_probe_decode_probe(rbuf[i], len, nonce);
			if (e != MW_PROBE_OK) {
				NHD_INC(d, malformed[e]);
				mw_log_limited(&bad_log, LOG_INFO, "dropped malformed probe (%s, %zu bytes)",
					       mw_probe_err_name(e), len);
				continue;
			}
			/* A privileged source port is a root process (another
			 * daemon's re-probe): its own buckets, which no user's
			 * flood from the same address can empty. */
			if (src_port(&from[i]) > 0 && src_port(&from[i]) < 1024) {
				NHD_INC(d, privileged);
				if (!nhd_rl_allow(&d->rl_priv, (struct sockaddr *)&from[i], now)) {
					NHD_INC(d, privileged_rate_limited);
					continue;
				}
			} else if (!nhd_rl_allow(&d->rl, (struct sockaddr *)&from[i], now)) {
				NHD_INC(d, rate_limited);
				continue;
			}
			rl = mw_probe_encode_reply_ex(sbuf[k], sizeof(sbuf[k]), len, nonce, snap.state, snap.failed,
						      snap.age, d->self, snap.summary, snap.mono_known ? &snap.f : NULL,
						      snap.cal_known ? &snap.cal : NULL);
			if (rl < 0)
				continue;
			iov_out[k].iov_base = sbuf[k];
			iov_out[k].iov_len = (size_t)rl;
			memset(&out[k].msg_hdr, 0, sizeof(out[k].msg_hdr));
			out[k].msg_hdr.msg_name = &from[i];
			out[k].msg_hdr.msg_namelen = in[i].msg_hdr.msg_namelen;
			out[k].msg_hdr.msg_iov = &iov_out[k];
			out[k].msg_hdr.msg_iovlen = 1;
			k++;
		}
		for (int off = 0; off < k;) {
			int s = sendmmsg(d->udp_fd, out + off, (unsigned)(k - off), MSG_DONTWAIT);
			if (s <= 0) {
				/* This message fails (unreachable source, full buffer): skip it. */
				NHD_INC(d, send_errors);
				off++;
				continue;
			}
			NHD_ADD(d, replies, (uint64_t)s);
			off += s;
		}
		if (n < BATCH)
			break;
	}
	nhd_conf_put(d, c);
}
