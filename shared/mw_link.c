/* mw_link.c - framed TCP links between agents and the collector (mw_link.h). */
#include "mw_link.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "log.h"

#define LINK_OUT_MAX (64u << 20) /* queued bytes before sends fail */
#define LINK_READ_CHUNK 65536

struct mw_link {
	int fd;
	uint8_t *in;
	size_t inlen, incap;
	uint8_t *out;
	size_t outoff, outlen, outcap;
	size_t max_payload; /* frames above it are refused (0: MW_HB_MAX_PAYLOAD) */
	char peer[64];
	char local[64];
};

/* "ADDR:PORT" of an IPv4 address into buf ("?" otherwise). */
static void addr_text(const struct sockaddr *sa, char *buf, size_t len)
{
	if (sa && sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
		char a[INET_ADDRSTRLEN];
		inet_ntop(AF_INET, &in->sin_addr, a, sizeof a);
		snprintf(buf, len, "%s:%u", a, ntohs(in->sin_port));
	} else {
		snprintf(buf, len, "?");
	}
}

static struct mw_link *link_new(int fd, const struct sockaddr *sa)
{
	struct mw_link *l = calloc(1, sizeof *l);
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	int one = 1;
	if (!l)
		return NULL;
	l->fd = fd;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
	addr_text(sa, l->peer, sizeof l->peer);
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
		addr_text((struct sockaddr *)&ss, l->local, sizeof l->local);
	else
		snprintf(l->local, sizeof l->local, "?");
	return l;
}

const char *mw_link_local(const struct mw_link *l)
{
	return l->local;
}

long mw_link_preauth_victim(size_t n, const char *src, int pass, mw_link_conn_fn get, void *arg)
{
	size_t count = 0;
	long victim = -1;
	int vstage = 0;
	double vt = 0;
	for (size_t k = 0; k < n; k++) {
		const char *s;
		int authed, stage;
		double t;
		get(arg, k, &s, &authed, &stage, &t);
		if (authed || (pass == 0 && strcmp(s, src) != 0))
			continue;
		count++;
		if (victim < 0 || stage < vstage || (stage == vstage && t < vt)) {
			victim = (long)k;
			vstage = stage;
			vt = t;
		}
	}
	return count >= (size_t)(pass == 0 ? MW_LINK_PREAUTH_PER_SRC : MW_LINK_PREAUTH_CONNS) ? victim : -1;
}

void mw_link_set_max_payload(struct mw_link *l, size_t n)
{
	l->max_payload = n && n < MW_HB_MAX_PAYLOAD ? n : 0;
}

int mw_link_listen(uint16_t lo, int nports, uint16_t *bound)
{
	int err = EADDRINUSE;
	for (int i = 0; i < nports; i++) {
		struct sockaddr_in sa = {0};
		int one = 1;
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -1;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		sa.sin_family = AF_INET;
		sa.sin_addr.s_addr = htonl(INADDR_ANY);
		sa.sin_port = htons((uint16_t)(lo + i));
		if (bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(fd, 128) == 0) {
			*bound = (uint16_t)(lo + i);
			return fd;
		}
		err = errno;
		close(fd);
		if (err != EADDRINUSE && err != EACCES)
			break;
	}
	errno = err;
	return -1;
}

struct mw_link *mw_link_accept(int lfd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	int fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
	struct mw_link *l;
	if (fd < 0)
		return NULL;
	l = link_new(fd, (struct sockaddr *)&ss);
	if (!l) {
		close(fd);
		errno = ENOMEM;
	}
	return l;
}

int mw_link_connect_start(const struct sockaddr *sa, socklen_t salen)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), err;
	if (fd < 0)
		return -1;
	if (connect(fd, sa, salen) < 0 && errno != EINPROGRESS) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

struct mw_link *mw_link_connect_end(int fd, const struct sockaddr *sa)
{
	struct mw_link *l;
	socklen_t sl;
	int err = 0;
	sl = sizeof err;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &sl) < 0)
		err = errno;
	if (err) {
		errno = err;
		return NULL;
	}
	l = link_new(fd, sa);
	if (!l)
		errno = ENOMEM;
	return l;
}

struct mw_link *mw_link_connect(const char *host, uint16_t port, double timeout_s)
{
	struct addrinfo hints = {0}, *ai = NULL;
	struct pollfd p = {-1, POLLOUT, 0};
	struct mw_link *l = NULL;
	char ps[8];
	int rc, err;

	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(ps, sizeof ps, "%u", port);
	rc = getaddrinfo(host, ps, &hints, &ai);
	if (rc || !ai) {
		if (ai)
			freeaddrinfo(ai);
		errno = ENOENT;
		return NULL;
	}
	p.fd = mw_link_connect_start(ai->ai_addr, ai->ai_addrlen);
	if (p.fd >= 0) {
		do
			rc = poll(&p, 1, (int)(timeout_s * 1000));
		while (rc < 0 && errno == EINTR);
		if (rc > 0)
			l = mw_link_connect_end(p.fd, ai->ai_addr);
		else if (rc == 0)
			errno = ETIMEDOUT;
		if (!l) {
			err = errno;
			close(p.fd);
			errno = err;
		}
	}
	err = errno;
	freeaddrinfo(ai);
	errno = err;
	return l;
}

int mw_link_error_path(char *buf, size_t len, const char *outdir, const char *node)
{
	int n = snprintf(buf, len, "%s/logs/" MW_LINK_ERROR_PREFIX "%s" MW_LINK_ERROR_SUFFIX, outdir, node);
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int mw_link_error_parse(const char *name, const char *text, size_t len, char *node, size_t nodelen,
			char *line, size_t linelen)
{
	const size_t pl = strlen(MW_LINK_ERROR_PREFIX), sl = strlen(MW_LINK_ERROR_SUFFIX);
	size_t n = strlen(name), nl, ll = 0;

	if (nodelen)
		node[0] = 0;
	if (linelen)
		line[0] = 0;
	if (!nodelen || !linelen || n <= pl + sl || strncmp(name, MW_LINK_ERROR_PREFIX, pl) ||
	    strcmp(name + n - sl, MW_LINK_ERROR_SUFFIX))
		return -1;
	nl = n - pl - sl;
	if (nl >= nodelen || memchr(name + pl, '/', nl))
		return -1;
	memcpy(node, name + pl, nl);
	node[nl] = 0;
	while (ll < len && ll < linelen - 1 && text[ll] && text[ll] != '\n')
		ll++;
	memcpy(line, text, ll);
	line[ll] = 0;
	if (!ll) {
		node[0] = 0;
		return -1;
	}
	return 0;
}

int mw_link_error_read(const char *dir, const char *name, char *node, size_t nodelen, char *line,
		       size_t linelen)
{
	char path[4600], buf[1024];
	ssize_t n = 0;
	int fd;

	/* The name first: no file is opened for other names. */
	if (mw_link_error_parse(name, "x", 1, node, nodelen, line, linelen) < 0)
		return -1;
	if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
		return -1;
	/* Not a regular file (a FIFO, a folder): read as empty. */
	fd = mw_open_regular(path);
	if (fd < 0 && errno != EINVAL)
		return -1;
	if (fd >= 0) {
		n = read(fd, buf, linelen < sizeof buf ? linelen : sizeof buf);
		close(fd);
	}
	return mw_link_error_parse(name, buf, n > 0 ? (size_t)n : 0, node, nodelen, line, linelen);
}

const char *mw_link_connect_hint(int err)
{
	switch (err) {
	case ENOENT:
		return "the name does not resolve on this node (short name vs FQDN vs Slurm's NodeAddr? "
		       "check /etc/hosts or DNS)";
	case ECONNREFUSED:
		return "nothing listens on the port (the collector did not start, or a firewall rejects "
		       "the port)";
	case ETIMEDOUT:
		return "no answer within the connect timeout (a firewall drops the port, or the node is "
		       "unreachable)";
	case EHOSTUNREACH:
	case ENETUNREACH:
		return "no route to the collector's node";
	default:
		return strerror(err);
	}
}

int mw_link_keepidle(double s)
{
	int v = (int)(s / 5 + 0.5);
	return v < 1 ? 1 : v;
}

int mw_link_keepintvl(double s)
{
	return mw_link_keepidle(s);
}

double mw_link_user_timeout(double s)
{
	double ut = 0.6 * s, least = 2.0 * mw_link_keepintvl(s);
	return ut < least ? least : ut;
}

double mw_link_silence_limit(double s)
{
	double least = mw_link_user_timeout(s) + mw_link_keepintvl(s);
	return s < least ? least : s;
}

/* Off (s <= 0): the kernel's keepalive defaults, no user timeout. */
static int liveness_off(int fd)
{
	int one = 1, zero = 0;
	if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one) < 0)
		return -1;
	return setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &zero, sizeof zero);
}

int mw_link_liveness_fd(int fd, double s)
{
	int zero = 0;
	unsigned int ut = (unsigned int)(s * 1000 + 0.5);
	if (s <= 0)
		return liveness_off(fd);
	if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &zero, sizeof zero) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ut, sizeof ut) < 0)
		return -1;
	return 0;
}

int mw_link_liveness_watch_fd(int fd, double s)
{
	int one = 1, idle, intvl, cnt;
	unsigned int ut;
	if (s <= 0)
		return liveness_off(fd);
	idle = mw_link_keepidle(s);
	intvl = mw_link_keepintvl(s);
	ut = (unsigned int)(mw_link_user_timeout(s) * 1000 + 0.5);
	cnt = (int)(mw_link_user_timeout(s) / intvl + 0.999) + 1;
	if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ut, sizeof ut) < 0)
		return -1;
	return 0;
}

int mw_link_set_liveness(struct mw_link *l, double s)
{
	return mw_link_liveness_fd(l->fd, s);
}

int mw_link_set_liveness_watch(struct mw_link *l, double s)
{
	return mw_link_liveness_watch_fd(l->fd, s);
}

int mw_link_fd(const struct mw_link *l)
{
	return l->fd;
}

const char *mw_link_peer(const struct mw_link *l)
{
	return l->peer;
}

int mw_link_pending(const struct mw_link *l)
{
	return l->outlen > l->outoff;
}

int mw_link_flush(struct mw_link *l)
{
	while (l->outlen > l->outoff) {
		ssize_t w = send(l->fd, l->out + l->outoff, l->outlen - l->outoff, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 1;
			return -1;
		}
		l->outoff += (size_t)w;
	}
	l->outoff = l->outlen = 0;
	return 0;
}

int mw_link_send(struct mw_link *l, const struct mw_hb_msg *m)
{
	uint8_t *buf;
	size_t len;
	if (mw_hb_encode(m, &buf, &len))
		return -1;
	if (l->outoff) { /* compact */
		memmove(l->out, l->out + l->outoff, l->outlen - l->outoff);
		l->outlen -= l->outoff;
		l->outoff = 0;
	}
	if (l->outlen + len > LINK_OUT_MAX) {
		free(buf);
		errno = ENOBUFS;
		return -1;
	}
	if (l->outlen + len > l->outcap) {
		size_t cap = l->outcap ? l->outcap : 4096;
		uint8_t *p;
		while (cap < l->outlen + len)
			cap *= 2;
		p = realloc(l->out, cap);
		if (!p) {
			free(buf);
			errno = ENOMEM;
			return -1;
		}
		l->out = p;
		l->outcap = cap;
	}
	memcpy(l->out + l->outlen, buf, len);
	l->outlen += len;
	free(buf);
	return mw_link_flush(l) < 0 ? -1 : 0;
}

/* Try to decode a frame already in the input buffer. */
static int take_frame(struct mw_link *l, struct mw_hb_msg *m, enum mw_hb_err *err)
{
	size_t flen = 0;
	enum mw_hb_err e = mw_hb_frame_check(l->in, l->inlen, &flen);
	if ((e == MW_HB_OK || e == MW_HB_E_AGAIN) && l->max_payload && l->inlen >= MW_HB_HDR_LEN &&
	    ((uint32_t)l->in[8] << 24 | (uint32_t)l->in[9] << 16 | (uint32_t)l->in[10] << 8 | l->in[11]) >
		    l->max_payload)
		e = MW_HB_E_LONG; /* larger than this link takes yet */
	if (e == MW_HB_E_AGAIN)
		return 0;
	if (e == MW_HB_OK)
		e = mw_hb_decode(l->in, flen, m);
	if (e != MW_HB_OK) {
		if (err)
			*err = e;
		return -2;
	}
	memmove(l->in, l->in + flen, l->inlen - flen);
	l->inlen -= flen;
	return 1;
}

int mw_link_recv(struct mw_link *l, struct mw_hb_msg *m, enum mw_hb_err *err)
{
	int rc = take_frame(l, m, err);
	if (rc)
		return rc;
	for (;;) {
		ssize_t r;
		/* A link with a small frame cap reads and holds at most two
		 * frames' worth: no more memory than that before it is trusted. */
		size_t chunk = l->max_payload && l->max_payload + MW_HB_HDR_LEN < LINK_READ_CHUNK
				       ? l->max_payload + MW_HB_HDR_LEN
				       : LINK_READ_CHUNK;
		size_t maxp = l->max_payload ? l->max_payload : MW_HB_MAX_PAYLOAD;
		if (l->incap - l->inlen < chunk) {
			size_t cap = l->incap ? l->incap * 2 : chunk * 2;
			uint8_t *p;
			if (cap > MW_HB_HDR_LEN + maxp + 2 * chunk)
				cap = MW_HB_HDR_LEN + maxp + 2 * chunk;
			if (cap > l->incap) {
				p = realloc(l->in, cap);
				if (!p) {
					errno = ENOMEM;
					return -1;
				}
				l->in = p;
				l->incap = cap;
			}
		}
		if (l->incap == l->inlen)
			return take_frame(l, m, err); /* cannot happen: frames fit */
		r = recv(l->fd, l->in + l->inlen, l->incap - l->inlen, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -1;
		}
		if (r == 0) {
			errno = 0;
			return -1;
		}
		l->inlen += (size_t)r;
		rc = take_frame(l, m, err);
		if (rc)
			return rc;
	}
}

int mw_link_recv_wait(struct mw_link *l, struct mw_hb_msg *m, enum mw_hb_err *err,
		       double timeout_s)
{
	double end = mw_now() + timeout_s;
	for (;;) {
		int rc = mw_link_recv(l, m, err);
		double left;
		struct pollfd p = {l->fd, POLLIN, 0};
		if (rc)
			return rc;
		if (mw_link_pending(l) && mw_link_flush(l) < 0)
			return -1;
		left = end - mw_now();
		if (left <= 0)
			return 0;
		p.events |= mw_link_pending(l) ? POLLOUT : 0;
		if (poll(&p, 1, (int)(left * 1000) + 1) < 0 && errno != EINTR)
			return -1;
	}
}

void mw_link_close(struct mw_link *l)
{
	if (!l)
		return;
	if (l->fd >= 0)
		close(l->fd);
	free(l->in);
	free(l->out);
	free(l);
}
