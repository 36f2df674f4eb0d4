/* probe.c - UDP liveness probe: wire format and the parallel probe client. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/errqueue.h>
#include <netinet/icmp6.h>
#include <netinet/ip_icmp.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "probe.h"

#define MW_PROBE_MAX_TRIES 16

const char *mw_probe_state_name(enum mw_probe_state s)
{
	switch (s) {
	case MW_PROBE_DEAD: return "dead";
	case MW_PROBE_ALIVE: return "alive";
	case MW_PROBE_DEGRADED: return "degraded";
	case MW_PROBE_ERROR: return "error";
	case MW_PROBE_NODAEMON: return "no daemon";
	}
	return "unknown";
}

const char *mw_probe_err_name(enum mw_probe_err e)
{
	static const char *const names[MW_PROBE_E_NCODES] = {
		"ok", "short", "long", "magic", "version", "type", "format",
	};
	if ((unsigned)e < MW_PROBE_E_NCODES)
		return names[e];
	return "unknown";
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static void put_header(uint8_t *buf, int type, uint16_t flags, const uint8_t *nonce)
{
	put32(buf, MW_PROBE_MAGIC);
	buf[4] = MW_PROBE_VERSION;
	buf[5] = (uint8_t)type;
	put16(buf + 6, flags);
	memcpy(buf + 8, nonce, MW_PROBE_NONCE_LEN);
}

static enum mw_probe_err check_header(const uint8_t *buf, size_t len, size_t min, int type)
{
	if (len > MW_PROBE_MAX_SIZE)
		return MW_PROBE_E_LONG;
	if (len < 8)
		return MW_PROBE_E_SHORT;
	if (get32(buf) != MW_PROBE_MAGIC)
		return MW_PROBE_E_MAGIC;
	if (buf[4] != MW_PROBE_VERSION)
		return MW_PROBE_E_VERSION;
	if (buf[5] != type)
		return MW_PROBE_E_TYPE;
	if (len < min)
		return MW_PROBE_E_SHORT;
	return MW_PROBE_OK;
}

int mw_probe_encode_probe(uint8_t *buf, size_t len, const uint8_t nonce[MW_PROBE_NONCE_LEN])
{
	if (!buf || len < MW_PROBE_MIN_SIZE) {
		errno = EINVAL;
		return -1;
	}
	memset(buf, 0, MW_PROBE_MIN_SIZE);
	put_header(buf, MW_PROBE_TYPE_PROBE, 0, nonce);
	return MW_PROBE_MIN_SIZE;
}

enum mw_probe_err mw_probe_decode_probe(const uint8_t *buf, size_t len,
					uint8_t nonce[MW_PROBE_NONCE_LEN])
{
	enum mw_probe_err e = check_header(buf, len, MW_PROBE_MIN_SIZE, MW_PROBE_TYPE_PROBE);
	if (e != MW_PROBE_OK)
		return e;
	if (get16(buf + 6) != 0)
		return MW_PROBE_E_FORMAT;
	memcpy(nonce, buf + 8, MW_PROBE_NONCE_LEN);
	return MW_PROBE_OK;
}

/* Copy at most max bytes of s into dst, printable ASCII only; return count. */
static size_t copy_text(uint8_t *dst, const char *s, size_t max)
{
	size_t i;
	for (i = 0; s && s[i] && i < max; i++) {
		unsigned char c = (unsigned char)s[i];
		dst[i] = (c >= 0x20 && c < 0x7f) ? c : '?';
	}
	return i;
}

static uint32_t milli_or_unknown(double v, double scale)
{
	if (!(v >= 0))
		return 0xffffffffu;
	v *= scale;
	return v >= 4294967294.0 ? 0xfffffffeu : (uint32_t)(v + 0.5);
}

/* A non-negative figure in whole units, rounded up (0 stays 0: none). */
static uint32_t ceil_u32(double v)
{
	if (!(v > 0))
		return 0;
	if (v >= 4294967295.0)
		return 0xffffffffu;
	uint32_t u = (uint32_t)v;
	return (double)u < v ? u + 1 : u;
}

int mw_probe_encode_reply_ex(uint8_t *buf, size_t len, size_t probe_len,
			     const uint8_t nonce[MW_PROBE_NONCE_LEN], int state, int failed,
			     uint32_t age_s, const char *name, const char *summary,
			     const struct mw_probe_factors *f, const struct mw_probe_calib *cal)
{
	size_t cap = len < probe_len ? len : probe_len;
	size_t nlen, slen, room;
	uint16_t flags = 0;
	uint8_t *x;

	if (!buf || cap < MW_PROBE_REPLY_HDR_LEN) {
		errno = EINVAL;
		return -1;
	}
	if (cap > MW_PROBE_MAX_SIZE)
		cap = MW_PROBE_MAX_SIZE;
	room = cap - MW_PROBE_REPLY_HDR_LEN;
	if (f && room >= MW_PROBE_FACTORS_LEN) {
		flags |= MW_PROBE_FLAG_FACTORS;
		room -= MW_PROBE_FACTORS_LEN;
	}
	if (cal && room >= MW_PROBE_CALIB_LEN) {
		flags |= MW_PROBE_FLAG_CALIB;
		room -= MW_PROBE_CALIB_LEN;
	}
	nlen = copy_text(buf + MW_PROBE_REPLY_HDR_LEN, name, room < MW_PROBE_NAME_MAX ? room : MW_PROBE_NAME_MAX);
	room -= nlen;
	if (room > MW_PROBE_SUMMARY_MAX)
		room = MW_PROBE_SUMMARY_MAX;
	slen = copy_text(buf + MW_PROBE_REPLY_HDR_LEN + nlen, summary, room);
	if (summary && summary[slen])
		flags |= MW_PROBE_FLAG_TRUNCATED;
	put_header(buf, MW_PROBE_TYPE_REPLY, flags, nonce);
	buf[24] = (uint8_t)(state == MW_PROBE_DEGRADED ? MW_PROBE_DEGRADED : MW_PROBE_ALIVE);
	buf[25] = (uint8_t)(failed < 0 ? 0 : failed > 255 ? 255 : failed);
	buf[26] = (uint8_t)nlen;
	buf[27] = 0;
	put16(buf + 28, (uint16_t)slen);
	put16(buf + 30, 0);
	put32(buf + 32, age_s);
	x = buf + MW_PROBE_REPLY_HDR_LEN + nlen + slen;
	if (flags & MW_PROBE_FLAG_FACTORS) {
		put32(x, milli_or_unknown(f->load, 1000));
		put32(x + 4, milli_or_unknown(f->mem_free_mb, 1));
		put16(x + 8, (uint16_t)(f->cores < 0 ? 0 : f->cores > 65535 ? 65535 : f->cores));
		put16(x + 10, 0);
		x += MW_PROBE_FACTORS_LEN;
	}
	if (flags & MW_PROBE_FLAG_CALIB) {
		put32(x, ceil_u32(cal->interval_ns));
		put32(x + 4, ceil_u32(cal->resolution_ns));
		x[8] = cal->degraded ? 1 : 0;
		x[9] = 0;
		put16(x + 10, 0);
		x += MW_PROBE_CALIB_LEN;
	}
	return (int)(x - buf);
}

int mw_probe_encode_reply_factors(uint8_t *buf, size_t len, size_t probe_len,
				  const uint8_t nonce[MW_PROBE_NONCE_LEN], int state, int failed,
				  uint32_t age_s, const char *name, const char *summary,
				  const struct mw_probe_factors *f)
{
	return mw_probe_encode_reply_ex(buf, len, probe_len, nonce, state, failed, age_s, name, summary, f,
					NULL);
}

int mw_probe_encode_reply(uint8_t *buf, size_t len, size_t probe_len,
			  const uint8_t nonce[MW_PROBE_NONCE_LEN], int state, int failed,
			  uint32_t age_s, const char *name, const char *summary)
{
	return mw_probe_encode_reply_factors(buf, len, probe_len, nonce, state, failed, age_s, name, summary,
					     NULL);
}

static int text_ok(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] < 0x20 || p[i] >= 0x7f)
			return 0;
	return 1;
}

enum mw_probe_err mw_probe_decode_reply(const uint8_t *buf, size_t len, struct mw_probe_reply *out)
{
	enum mw_probe_err e = check_header(buf, len, MW_PROBE_REPLY_HDR_LEN, MW_PROBE_TYPE_REPLY);
	size_t nlen, slen;

	if (e != MW_PROBE_OK)
		return e;
	uint16_t flags;
	size_t flen;

	nlen = buf[26];
	slen = get16(buf + 28);
	flags = get16(buf + 6);
	flen = (flags & MW_PROBE_FLAG_FACTORS ? MW_PROBE_FACTORS_LEN : 0) +
	       (flags & MW_PROBE_FLAG_CALIB ? MW_PROBE_CALIB_LEN : 0);
	if (buf[24] != MW_PROBE_ALIVE && buf[24] != MW_PROBE_DEGRADED)
		return MW_PROBE_E_FORMAT;
	if (nlen > MW_PROBE_NAME_MAX || slen > MW_PROBE_SUMMARY_MAX ||
	    MW_PROBE_REPLY_HDR_LEN + nlen + slen + flen != len)
		return MW_PROBE_E_FORMAT;
	if (!text_ok(buf + MW_PROBE_REPLY_HDR_LEN, nlen + slen))
		return MW_PROBE_E_FORMAT;
	memset(out, 0, sizeof(*out));
	memcpy(out->nonce, buf + 8, MW_PROBE_NONCE_LEN);
	out->state = buf[24];
	out->failed = buf[25];
	out->truncated = (get16(buf + 6) & MW_PROBE_FLAG_TRUNCATED) != 0;
	out->age_s = get32(buf + 32);
	memcpy(out->name, buf + MW_PROBE_REPLY_HDR_LEN, nlen);
	memcpy(out->summary, buf + MW_PROBE_REPLY_HDR_LEN + nlen, slen);
	out->f.load = out->f.mem_free_mb = -1;
	const uint8_t *x = buf + MW_PROBE_REPLY_HDR_LEN + nlen + slen;
	if (flags & MW_PROBE_FLAG_FACTORS) {
		uint32_t l = get32(x), m = get32(x + 4);
		out->has_factors = 1;
		out->f.load = l == 0xffffffffu ? -1 : l / 1000.0;
		out->f.mem_free_mb = m == 0xffffffffu ? -1 : (double)m;
		out->f.cores = get16(x + 8);
		x += MW_PROBE_FACTORS_LEN;
	}
	if (flags & MW_PROBE_FLAG_CALIB) {
		out->has_calib = 1;
		out->cal.interval_ns = get32(x);
		out->cal.resolution_ns = get32(x + 4);
		out->cal.degraded = x[8] & 1;
	}
	return MW_PROBE_OK;
}

int mw_probe_nonce(uint8_t nonce[MW_PROBE_NONCE_LEN])
{
	size_t got = 0;
	while (got < MW_PROBE_NONCE_LEN) {
		ssize_t r = getrandom(nonce + got, MW_PROBE_NONCE_LEN - got, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		got += (size_t)r;
	}
	return 0;
}

/* ---- client ---- */

struct target {
	struct sockaddr_storage sa;
	socklen_t salen;
	int ok;          /* address resolved */
	int done;        /* answered, or refused by the node's kernel */
	int sent;
	uint8_t nonce[MW_PROBE_MAX_TRIES][MW_PROBE_NONCE_LEN];
	double t_sent[MW_PROBE_MAX_TRIES];
};

static int resolve(const char *host, uint16_t port, struct target *t, char *numeric, size_t numlen,
		   char *err, size_t errlen)
{
	struct addrinfo hints, *res = NULL, *ai, *pick = NULL;
	char portstr[8];
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_DGRAM;
	hints.ai_flags = AI_NUMERICSERV;
	snprintf(portstr, sizeof(portstr), "%u", (unsigned)port);
	rc = getaddrinfo(host, portstr, &hints, &res);
	if (rc != 0) {
		snprintf(err, errlen, "cannot resolve '%s': %s", host, gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next)
		if (ai->ai_family == AF_INET) {
			pick = ai;
			break;
		}
	if (!pick)
		for (ai = res; ai; ai = ai->ai_next)
			if (ai->ai_family == AF_INET6) {
				pick = ai;
				break;
			}
	if (!pick || pick->ai_addrlen > sizeof(t->sa)) {
		freeaddrinfo(res);
		snprintf(err, errlen, "no IPv4/IPv6 address for '%s'", host);
		return -1;
	}
	memcpy(&t->sa, pick->ai_addr, pick->ai_addrlen);
	t->salen = pick->ai_addrlen;
	getnameinfo(pick->ai_addr, pick->ai_addrlen, numeric, (socklen_t)numlen, NULL, 0, NI_NUMERICHOST);
	freeaddrinfo(res);
	t->ok = 1;
	return 0;
}

static int same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return 0;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
		return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;
		return x->sin6_port == y->sin6_port &&
		       !memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr));
	}
	return 0;
}

/* Bind fd to a random free privileged port (MW_PROBE_PRIV_PORT_MIN..1023,
 * except avoid, the probe port).  Return 0, or -1 (errno: EACCES or
 * EPERM without CAP_NET_BIND_SERVICE, EADDRINUSE if no port was free). */
static int bind_privileged(int fd, int family, uint16_t avoid)
{
	const unsigned span = 1024 - MW_PROBE_PRIV_PORT_MIN;
	uint16_t start;
	if (getrandom(&start, sizeof(start), GRND_NONBLOCK) != sizeof(start))
		start = (uint16_t)getpid();
	for (unsigned k = 0; k < span; k++) {
		uint16_t port = (uint16_t)(MW_PROBE_PRIV_PORT_MIN + (start + k) % span);
		struct sockaddr_storage ss;
		socklen_t len;
		if (port == avoid)
			continue;
		memset(&ss, 0, sizeof(ss));
		if (family == AF_INET6) {
			struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
			a->sin6_family = AF_INET6;
			a->sin6_addr = in6addr_any;
			a->sin6_port = htons(port);
			len = sizeof(*a);
		} else {
			struct sockaddr_in *a = (struct sockaddr_in *)&ss;
			a->sin_family = AF_INET;
			a->sin_addr.s_addr = htonl(INADDR_ANY);
			a->sin_port = htons(port);
			len = sizeof(*a);
		}
		if (bind(fd, (struct sockaddr *)&ss, len) == 0)
			return 0;
		if (errno != EADDRINUSE)
			return -1;
	}
	errno = EADDRINUSE;
	return -1;
}

static int open_sock(int family, unsigned flags, uint16_t port)
{
	int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int sz = 1 << 20;
	int on = 1;
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on));
	/* A source port below 1024: the answering daemon tells a root
	 * process's probe from a user's by it (doc/security.md).  Without the
	 * capability (a daemon run by a user, "mpiwatch run") an ephemeral port. */
	if ((flags & MW_PROBE_F_PRIVSRC) && bind_privileged(fd, family, port) < 0) {
		static int told;
		if (!told++)
			mw_warn("probes go out from an unprivileged port: cannot bind one below 1024 (%s)",
				strerror(errno));
	}
	/* ICMP errors on the error queue: a node whose kernel says "port
	 * unreachable" is up without a daemon, not dead. */
	if (family == AF_INET6) {
		setsockopt(fd, IPPROTO_IPV6, IPV6_RECVERR, &on, sizeof(on));
	} else {
		setsockopt(fd, IPPROTO_IP, IP_RECVERR, &on, sizeof(on));
	}
	return fd;
}

/* Nonce index: the first 8 bytes of every nonce sent (random, so they hash
 * themselves) -> (node, try), open addressing.  Replies are matched in O(1)
 * however many nodes are probed. */
struct nonce_ent {
	uint64_t key;
	uint32_t node;
	uint8_t try_;
	uint8_t used;
};
struct nonce_idx {
	struct nonce_ent *e;
	size_t mask;
};

static uint64_t nonce_key(const uint8_t *nonce)
{
	uint64_t k;
	memcpy(&k, nonce, sizeof(k));
	return k;
}

static void nonce_add(struct nonce_idx *x, const uint8_t *nonce, size_t node, int try_)
{
	uint64_t k = nonce_key(nonce);
	size_t i = (size_t)k & x->mask;
	while (x->e[i].used)
		i = (i + 1) & x->mask;
	x->e[i] = (struct nonce_ent){.key = k, .node = (uint32_t)node, .try_ = (uint8_t)try_, .used = 1};
}

/* Is this queued error an ICMP "port unreachable" sent by dst itself? */
static int port_refused(const struct sock_extended_err *ee, const struct sockaddr_storage *dst)
{
	const struct sockaddr *off = SO_EE_OFFENDER(ee);
	if (ee->ee_origin == SO_EE_ORIGIN_ICMP && ee->ee_type == ICMP_DEST_UNREACH &&
	    ee->ee_code == ICMP_PORT_UNREACH && off->sa_family == AF_INET && dst->ss_family == AF_INET)
		return ((const struct sockaddr_in *)(const void *)off)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)(const void *)dst)->sin_addr.s_addr;
	if (ee->ee_origin == SO_EE_ORIGIN_ICMP6 && ee->ee_type == ICMP6_DST_UNREACH &&
	    ee->ee_code == ICMP6_DST_UNREACH_NOPORT && off->sa_family == AF_INET6 &&
	    dst->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)(const void *)off)->sin6_addr,
			       &((const struct sockaddr_in6 *)(const void *)dst)->sin6_addr,
			       sizeof(struct in6_addr));
	return 0;
}

/* Read fd's error queue: a target whose own kernel refused the probe port is
 * up without a daemon (MW_PROBE_NODAEMON).  A blind forger would have to
 * guess our ephemeral port, and could only make a node look alive (fail
 * safe: nothing is drained).  Return the number of targets so resolved. */
static size_t read_errors(int fd, struct target *t, size_t n, uint16_t port, struct mw_probe_result *out)
{
	size_t resolved = 0;

	for (int k = 0; k < 1024; k++) {
		struct sockaddr_storage dst;
		uint8_t data[64], ctl[512];
		struct iovec iov = {data, sizeof(data)};
		struct msghdr mh = {.msg_name = &dst, .msg_namelen = sizeof(dst), .msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = ctl, .msg_controllen = sizeof(ctl)};
		const struct sock_extended_err *ee = NULL;
		if (recvmsg(fd, &mh, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			break;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if ((c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_RECVERR) ||
			    (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_RECVERR))
				ee = (const struct sock_extended_err *)(const void *)CMSG_DATA(c);
		if (!ee || !port_refused(ee, &dst))
			continue;
		for (size_t i = 0; i < n; i++) {
			if (!t[i].ok || t[i].done || !same_addr(&t[i].sa, &dst))
				continue;
			t[i].done = 1;
			out[i].state = MW_PROBE_NODAEMON;
			snprintf(out[i].summary, sizeof(out[i].summary),
				 "the node is up (its kernel refused udp port %u), but no mpiwatch-nodehealthd "
				 "listens there", port);
			resolved++;
		}
	}
	return resolved;
}

/* Drain replies from fd into the targets; *rtt_max: the slowest round trip
 * answered (s), raised by these.  Return the number newly answered. */
static size_t read_replies(int fd, struct target *t, const struct nonce_idx *x, struct mw_probe_result *out,
			   double *rtt_max)
{
	uint8_t buf[MW_PROBE_MAX_SIZE + 1];
	size_t answered = 0;

	for (;;) {
		struct sockaddr_storage from;
		socklen_t fromlen = sizeof(from);
		struct mw_probe_reply rep;
		ssize_t r = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fromlen);
		double now = mw_now();
		uint64_t k;
		if (r < 0) {
			if (errno == EINTR || errno == ECONNREFUSED || errno == EHOSTUNREACH ||
			    errno == ENETUNREACH || errno == EHOSTDOWN)
				continue; /* a queued ICMP error, told once: read on */
			break; /* EAGAIN: nothing more now */
		}
		if (mw_probe_decode_reply(buf, (size_t)r, &rep) != MW_PROBE_OK)
			continue;
		k = nonce_key(rep.nonce);
		for (size_t j = (size_t)k & x->mask; x->e[j].used; j = (j + 1) & x->mask) {
			size_t i = x->e[j].node;
			int try_ = x->e[j].try_;
			if (x->e[j].key != k || t[i].done || !same_addr(&t[i].sa, &from) ||
			    memcmp(t[i].nonce[try_], rep.nonce, MW_PROBE_NONCE_LEN))
				continue;
			t[i].done = 1;
			out[i].state = rep.state == MW_PROBE_DEGRADED ? MW_PROBE_DEGRADED : MW_PROBE_ALIVE;
			out[i].rtt_ms = (now - t[i].t_sent[try_]) * 1e3;
			if (now - t[i].t_sent[try_] > *rtt_max)
				*rtt_max = now - t[i].t_sent[try_];
			out[i].failed = rep.failed;
			snprintf(out[i].name, sizeof(out[i].name), "%s", rep.name);
			snprintf(out[i].summary, sizeof(out[i].summary), "%s", rep.summary);
			out[i].has_factors = rep.has_factors;
			out[i].f = rep.f;
			out[i].has_calib = rep.has_calib;
			out[i].cal = rep.cal;
			answered++;
			break;
		}
	}
	return answered;
}

/* Errors first (they name the targets the kernel refused), then replies. */
static size_t read_all(int fd4, int fd6, struct target *t, size_t n, uint16_t port, const struct nonce_idx *x,
		       struct mw_probe_result *out, double *rtt_max)
{
	size_t got = 0;
	if (fd4 >= 0)
		got += read_errors(fd4, t, n, port, out) + read_replies(fd4, t, x, out, rtt_max);
	if (fd6 >= 0)
		got += read_errors(fd6, t, n, port, out) + read_replies(fd6, t, x, out, rtt_max);
	return got;
}

double mw_probe_spacing(double budget_s, int tries, double rtt_s)
{
	double most, least, s;
	if (tries < 1)
		tries = 1;
	most = budget_s / tries;
	if (rtt_s < 0)
		return most;
	least = (MW_PROBE_MIN_ROUND_S < budget_s ? MW_PROBE_MIN_ROUND_S : budget_s) / tries;
	s = MW_PROBE_RTT_FACTOR * rtt_s;
	return s < least ? least : s > most ? most : s;
}

struct mw_probe_round {
	struct target *t;
	struct nonce_idx idx;
	struct mw_probe_result *out;
	size_t n, pending, answered;
	int fd4, fd6, tries, round; /* round: the tries sent so far to each target */
	unsigned flags;              /* MW_PROBE_F_* */
	uint16_t port;
	double budget_s, start, end, interval, round_end;
	double rtt_max, rtt_planned; /* the slowest answer's round trip (s, -1: none); the one interval follows */
	int done, failed;            /* failed: a local error (errno in err) */
	int err;
};

/* Every result a local error (errno e). */
static void round_fail(struct mw_probe_round *r, int e)
{
	r->failed = 1;
	r->done = 1;
	r->err = e;
	for (size_t i = 0; i < r->n; i++) {
		r->out[i].state = MW_PROBE_ERROR;
		snprintf(r->out[i].summary, sizeof(r->out[i].summary), "local error: %s", strerror(e));
	}
}

/* Send try r->round to every target not answered yet, reading what came
 * after each send; then r->round_end for it.  Return 0, or -1 (errno). */
static int round_send(struct mw_probe_round *r)
{
	r->round_end = r->round == r->tries - 1 ? r->end : r->start + r->interval * (r->round + 1);
	for (size_t i = 0; i < r->n; i++) {
		uint8_t pkt[MW_PROBE_MIN_SIZE];
		struct target *x = &r->t[i];
		if (!x->ok || x->done)
			continue;
		if (mw_probe_nonce(x->nonce[x->sent]) < 0)
			return -1;
		mw_probe_encode_probe(pkt, sizeof(pkt), x->nonce[x->sent]);
		nonce_add(&r->idx, x->nonce[x->sent], i, x->sent);
		x->t_sent[x->sent] = mw_now();
		/* Count the try even when sendto fails (EHOSTUNREACH...): it
		 * still used its share of the budget. */
		sendto(x->sa.ss_family == AF_INET ? r->fd4 : r->fd6, pkt, sizeof(pkt), MSG_NOSIGNAL,
		       (struct sockaddr *)&x->sa, x->salen);
		x->sent++;
		r->out[i].tries = x->sent;
		r->answered += read_all(r->fd4, r->fd6, r->t, r->n, r->port, &r->idx, r->out, &r->rtt_max);
	}
	r->round++;
	return 0;
}

/* The retry schedule from the round trips answered so far (mw_probe_spacing):
 * the interval, the end, and the time of the next tries. */
static void replan(struct mw_probe_round *r)
{
	if (r->rtt_max == r->rtt_planned)
		return;
	r->rtt_planned = r->rtt_max;
	r->interval = mw_probe_spacing(r->budget_s, r->tries, r->rtt_max);
	r->end = r->start + r->interval * r->tries;
	r->round_end = r->round >= r->tries ? r->end : r->start + r->interval * r->round;
}

/* MW_PROBE_F_FIRST: has node 0 answered (alive or degraded)? */
static int first_decided(const struct mw_probe_round *r)
{
	return (r->flags & MW_PROBE_F_FIRST) && r->n &&
	       (r->out[0].state == MW_PROBE_ALIVE || r->out[0].state == MW_PROBE_DEGRADED);
}

struct mw_probe_round *mw_probe_round_start(const char *const *names, const char *const *addrs, size_t n,
					    uint16_t port, double budget_s, int tries,
					    struct mw_probe_result *out)
{
	return mw_probe_round_start_ex(names, addrs, n, port, budget_s, tries, 0, out);
}

struct mw_probe_round *mw_probe_round_start_ex(const char *const *names, const char *const *addrs, size_t n,
					       uint16_t port, double budget_s, int tries, unsigned flags,
					       struct mw_probe_result *out)
{
	struct mw_probe_round *r;

	if (!out || (n && !names) || port == 0 || n > 0xffffffu) {
		errno = EINVAL;
		return NULL;
	}
	if (!(r = calloc(1, sizeof(*r))))
		return NULL;
	r->fd4 = r->fd6 = -1;
	r->out = out;
	r->n = n;
	r->port = port;
	r->flags = flags;
	r->tries = tries < 1 ? 1 : tries > MW_PROBE_MAX_TRIES ? MW_PROBE_MAX_TRIES : tries;
	r->budget_s = budget_s > 0 ? budget_s : 1.0;
	if (n == 0) {
		r->done = 1;
		return r;
	}
	memset(out, 0, n * sizeof(*out));
	r->t = calloc(n, sizeof(*r->t));
	if (!r->t) {
		free(r);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		const char *a = (addrs && addrs[i] && addrs[i][0]) ? addrs[i] : names[i];
		out[i].rtt_ms = -1;
		if (!a || !a[0]) {
			out[i].state = MW_PROBE_ERROR;
			snprintf(out[i].summary, sizeof(out[i].summary), "no name or address");
			continue;
		}
		if (resolve(a, port, &r->t[i], out[i].addr, sizeof(out[i].addr), out[i].summary,
			    sizeof(out[i].summary)) < 0) {
			out[i].state = MW_PROBE_ERROR;
			continue;
		}
		if ((r->t[i].sa.ss_family == AF_INET && r->fd4 < 0 && (r->fd4 = open_sock(AF_INET, flags, port)) < 0) ||
		    (r->t[i].sa.ss_family == AF_INET6 && r->fd6 < 0 && (r->fd6 = open_sock(AF_INET6, flags, port)) < 0)) {
			round_fail(r, errno);
			return r;
		}
		out[i].state = MW_PROBE_DEAD;
		r->pending++;
	}
	{
		size_t cap = 16;
		while (cap < 2 * r->pending * (size_t)r->tries + 1)
			cap <<= 1;
		r->idx.e = calloc(cap, sizeof(*r->idx.e));
		if (!r->idx.e) {
			round_fail(r, ENOMEM);
			return r;
		}
		r->idx.mask = cap - 1;
	}
	r->start = mw_now();
	r->end = r->start + r->budget_s;
	r->interval = mw_probe_spacing(r->budget_s, r->tries, -1);
	r->rtt_max = r->rtt_planned = -1;
	if (r->pending == 0 || first_decided(r))
		r->done = 1;
	else if (round_send(r) < 0)
		round_fail(r, errno);
	else if (first_decided(r))
		r->done = 1;
	return r;
}

int mw_probe_round_fds(const struct mw_probe_round *r, struct pollfd *pfd, int max)
{
	int np = 0;
	if (r->done)
		return 0;
	if (r->fd4 >= 0 && np < max)
		pfd[np++] = (struct pollfd){.fd = r->fd4, .events = POLLIN};
	if (r->fd6 >= 0 && np < max)
		pfd[np++] = (struct pollfd){.fd = r->fd6, .events = POLLIN};
	return np;
}

int mw_probe_round_timeout_ms(const struct mw_probe_round *r)
{
	double left;
	if (r->done || r->answered >= r->pending)
		return 0;
	left = r->round_end - mw_now();
	return left <= 0 ? 0 : (int)(left * 1e3) + 1;
}

int mw_probe_round_step(struct mw_probe_round *r)
{
	if (r->done)
		return r->failed ? -1 : 1;
	r->answered += read_all(r->fd4, r->fd6, r->t, r->n, r->port, &r->idx, r->out, &r->rtt_max);
	replan(r);
	if (first_decided(r)) {
		r->done = 1;
		return 1;
	}
	while (r->answered < r->pending && mw_now() >= r->round_end) {
		if (r->round >= r->tries) {
			r->done = 1;
			return 1;
		}
		if (round_send(r) < 0) {
			round_fail(r, errno);
			return -1;
		}
	}
	if (r->answered >= r->pending)
		r->done = 1;
	return r->done;
}

int mw_probe_round_finish(struct mw_probe_round *r)
{
	int rv = 0;
	if (!r)
		return -1;
	if (r->failed) {
		rv = -1;
	} else {
		for (size_t i = 0; i < r->n; i++)
			if (r->t && r->t[i].ok && !r->t[i].done)
				snprintf(r->out[i].summary, sizeof(r->out[i].summary), "no reply to %d probe%s in %.1fs",
					 r->t[i].sent, r->t[i].sent == 1 ? "" : "s", r->end - r->start);
		for (size_t i = 0; i < r->n; i++)
			rv += r->out[i].state == MW_PROBE_ALIVE || r->out[i].state == MW_PROBE_DEGRADED;
	}
	if (r->fd4 >= 0)
		close(r->fd4);
	if (r->fd6 >= 0)
		close(r->fd6);
	free(r->idx.e);
	free(r->t);
	if (rv < 0)
		errno = r->err;
	free(r);
	return rv;
}

int mw_probe_nodes(const char *const *names, const char *const *addrs, size_t n, uint16_t port,
		   double budget_s, int tries, struct mw_probe_result *out)
{
	return mw_probe_nodes_ex(names, addrs, n, port, budget_s, tries, 0, out);
}

int mw_probe_nodes_ex(const char *const *names, const char *const *addrs, size_t n, uint16_t port,
		      double budget_s, int tries, unsigned flags, struct mw_probe_result *out)
{
	struct mw_probe_round *r;
	int rc;

	if (n == 0)
		return 0;
	if (!(r = mw_probe_round_start_ex(names, addrs, n, port, budget_s, tries, flags, out)))
		return -1;
	while ((rc = mw_probe_round_step(r)) == 0) {
		struct pollfd pfd[2];
		int np = mw_probe_round_fds(r, pfd, 2);
		if (poll(pfd, (nfds_t)np, mw_probe_round_timeout_ms(r)) < 0 && errno != EINTR) {
			round_fail(r, errno);
			break;
		}
	}
	return mw_probe_round_finish(r);
}
