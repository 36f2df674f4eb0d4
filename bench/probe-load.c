/* probe-load.c - load generator for mpiwatch-nodehealthd's UDP probe port.
 *
 *   probe-load [-a ADDR] [-p PORT] [-d SECONDS] [-w WINDOW]       valid probes
 *   probe-load [-a ADDR] [-p PORT] -g COUNT [-S SEED]              garbage
 *
 * Valid mode keeps WINDOW probes outstanding (sendmmsg/recvmmsg in batches
 * of 64) for SECONDS and prints the replies per second, checking every
 * reply's nonce and that it is no longer than its probe.  Garbage mode sends
 * COUNT malformed datagrams (random bytes, truncated and oversized probes,
 * bad magic/version/type/flags, replies sent as probes) and prints how many
 * of each kind; it counts any answer it gets (there must be none).
 * Output is one "key=value" line for scripts.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "probe.h"

#define BATCH 64
#define MAXLEN 9000

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int open_sock(const char *addr, int port, struct sockaddr_in *sa)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0), sz = 8 << 20;
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	if (fd < 0 || inet_pton(AF_INET, addr, &sa->sin_addr) != 1) {
		fprintf(stderr, "probe-load: bad address %s\n", addr);
		exit(2);
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	if (connect(fd, (struct sockaddr *)sa, sizeof(*sa)) < 0) {
		perror("probe-load: connect");
		exit(2);
	}
	return fd;
}

static uint8_t sbuf[BATCH][MAXLEN], rbuf[BATCH][MW_PROBE_MAX_SIZE + 1];
static struct mmsghdr smsg[BATCH], rmsg[BATCH];
static struct iovec siov[BATCH], riov[BATCH];

static unsigned long recv_batch(int fd, uint64_t prefix, unsigned long *bad, unsigned long *oversize)
{
	unsigned long got = 0;
	for (;;) {
		int n;
		for (int i = 0; i < BATCH; i++) {
			riov[i].iov_base = rbuf[i];
			riov[i].iov_len = sizeof(rbuf[i]);
			memset(&rmsg[i].msg_hdr, 0, sizeof(rmsg[i].msg_hdr));
			rmsg[i].msg_hdr.msg_iov = &riov[i];
			rmsg[i].msg_hdr.msg_iovlen = 1;
		}
		n = recvmmsg(fd, rmsg, BATCH, MSG_DONTWAIT, NULL);
		if (n <= 0)
			break;
		for (int i = 0; i < n; i++) {
			struct mw_probe_reply r;
			uint64_t p;
			if (rmsg[i].msg_len > MW_PROBE_MIN_SIZE)
				(*oversize)++;
			if (mw_probe_decode_reply(rbuf[i], rmsg[i].msg_len, &r) != MW_PROBE_OK) {
				(*bad)++;
				continue;
			}
			memcpy(&p, r.nonce, 8);
			if (p != prefix)
				(*bad)++;
			else
				got++;
		}
	}
	return got;
}

static int run_valid(int fd, double seconds, unsigned long window)
{
	uint8_t nonce[MW_PROBE_NONCE_LEN];
	uint64_t prefix, seq = 0;
	unsigned long sent = 0, got = 0, bad = 0, oversize = 0;
	double start, end, last_progress;

	mw_probe_nonce(nonce);
	memcpy(&prefix, nonce, 8);
	start = mw_now();
	end = start + seconds;
	last_progress = start;
	while (mw_now() < end) {
		unsigned long outstanding = sent - got;
		int k = 0;
		/* Lost datagrams would pin the window: forget them after 50 ms
		 * without progress. */
		if (outstanding >= window && mw_now() - last_progress > 0.05)
			sent = got;
		while (k < BATCH && sent - got + (unsigned long)k < window) {
			seq++;
			memcpy(nonce, &prefix, 8);
			memcpy(nonce + 8, &seq, 8);
			mw_probe_encode_probe(sbuf[k], sizeof(sbuf[k]), nonce);
			siov[k].iov_base = sbuf[k];
			siov[k].iov_len = MW_PROBE_MIN_SIZE;
			memset(&smsg[k].msg_hdr, 0, sizeof(smsg[k].msg_hdr));
			smsg[k].msg_hdr.msg_iov = &siov[k];
			smsg[k].msg_hdr.msg_iovlen = 1;
			k++;
		}
		if (k) {
			int s = sendmmsg(fd, smsg, (unsigned)k, 0);
			if (s > 0)
				sent += (unsigned long)s;
		}
		{
			unsigned long g = recv_batch(fd, prefix, &bad, &oversize);
			if (!g) {
				/* Nothing waiting: sleep until a reply (at most 1 ms). */
				struct pollfd p = {.fd = fd, .events = POLLIN};
				poll(&p, 1, 1);
				g = recv_batch(fd, prefix, &bad, &oversize);
			}
			if (g)
				last_progress = mw_now();
			got += g;
		}
	}
	{
		double el = mw_now() - start;
		unsigned long total = got;
		printf("mode=valid seconds=%.2f replies=%lu replies_per_s=%.0f bad_replies=%lu oversize_replies=%lu "
		       "window=%lu\n",
		       el, total, (double)total / el, bad, oversize, window);
	}
	return bad || oversize ? 1 : 0;
}

enum kind { K_RANDOM, K_SHORT, K_LONG, K_MAGIC, K_VERSION, K_TYPE, K_FLAGS, K_REPLY, K_EMPTY, K_NKINDS };
static const char *const kind_names[K_NKINDS] = {"random", "short", "long", "magic", "version",
						  "type",   "flags", "reply", "empty"};

static size_t make_garbage(uint8_t *b, enum kind k)
{
	uint8_t nonce[MW_PROBE_NONCE_LEN];
	size_t len;
	for (int i = 0; i < MW_PROBE_NONCE_LEN; i++)
		nonce[i] = (uint8_t)rnd();
	mw_probe_encode_probe(b, MAXLEN, nonce);
	switch (k) {
	case K_RANDOM:
		len = rnd() % 2000;
		for (size_t i = 0; i < len; i++)
			b[i] = (uint8_t)rnd();
		if (len >= 6 && b[0] == 'M' && b[1] == 'W')
			b[0] = 0; /* never a valid probe by chance */
		return len;
	case K_SHORT: return rnd() % MW_PROBE_MIN_SIZE;
	case K_LONG:
		len = MW_PROBE_MAX_SIZE + 1 + rnd() % (MAXLEN - MW_PROBE_MAX_SIZE - 1);
		memset(b + MW_PROBE_MIN_SIZE, (int)(rnd() & 0xff), len - MW_PROBE_MIN_SIZE);
		return len;
	case K_MAGIC: b[rnd() % 4] ^= (uint8_t)(1 + rnd() % 255); return MW_PROBE_MIN_SIZE;
	case K_VERSION: b[4] = (uint8_t)(2 + rnd() % 254); return MW_PROBE_MIN_SIZE;
	case K_TYPE: b[5] = (uint8_t)(2 + rnd() % 254); return MW_PROBE_MIN_SIZE;
	case K_FLAGS: b[6] = (uint8_t)(1 + rnd() % 255); return MW_PROBE_MIN_SIZE;
	case K_REPLY:
		return (size_t)mw_probe_encode_reply(b, MAXLEN, MW_PROBE_MIN_SIZE, nonce, 1, 0, 0, "x", "ok");
	case K_EMPTY: return 0;
	default: return 0;
	}
}

static int run_garbage(int fd, unsigned long count)
{
	unsigned long sent = 0, per[K_NKINDS] = {0}, answers = 0, bad = 0, oversize = 0;
	while (sent < count) {
		int k = 0, s;
		for (; k < BATCH && sent + (unsigned long)k < count; k++) {
			enum kind kind = (enum kind)(rnd() % K_NKINDS);
			size_t len = make_garbage(sbuf[k], kind);
			per[kind]++;
			siov[k].iov_base = sbuf[k];
			siov[k].iov_len = len;
			memset(&smsg[k].msg_hdr, 0, sizeof(smsg[k].msg_hdr));
			smsg[k].msg_hdr.msg_iov = &siov[k];
			smsg[k].msg_hdr.msg_iovlen = 1;
		}
		s = sendmmsg(fd, smsg, (unsigned)k, 0);
		if (s < 0 && errno != EAGAIN && errno != ECONNREFUSED) {
			perror("probe-load: sendmmsg");
			return 2;
		}
		if (s > 0)
			sent += (unsigned long)s;
		/* Pace a little so the daemon's socket buffer is not the bottleneck. */
		{
			struct pollfd p = {.fd = fd, .events = POLLIN};
			poll(&p, 1, (sent % 4096) < BATCH ? 2 : 0);
		}
		answers += recv_batch(fd, 0, &bad, &oversize);
	}
	usleep(200000);
	answers += recv_batch(fd, 0, &bad, &oversize);
	printf("mode=garbage sent=%lu answers=%lu", sent, answers + bad);
	for (int i = 0; i < K_NKINDS; i++)
		printf(" %s=%lu", kind_names[i], per[i]);
	printf("\n");
	return answers + bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *addr = "127.0.0.1";
	int port = MW_PROBE_DEFAULT_PORT, opt, fd;
	double seconds = 5;
	unsigned long window = 256, garbage = 0;
	struct sockaddr_in sa;

	while ((opt = getopt(argc, argv, "a:p:d:w:g:S:h")) != -1) {
		switch (opt) {
		case 'a': addr = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'd': seconds = atof(optarg); break;
		case 'w': window = strtoul(optarg, NULL, 10); break;
		case 'g': garbage = strtoul(optarg, NULL, 10); break;
		case 'S': rng_state = strtoull(optarg, NULL, 10) | 1; break;
		default:
			fprintf(stderr, "usage: probe-load [-a ADDR] [-p PORT] [-d SECONDS] [-w WINDOW] | -g COUNT [-S SEED]\n");
			return 2;
		}
	}
	if (port < 1 || port > 65535 || window < 1 || seconds <= 0) {
		fprintf(stderr, "probe-load: bad arguments\n");
		return 2;
	}
	fd = open_sock(addr, port, &sa);
	return garbage ? run_garbage(fd, garbage) : run_valid(fd, seconds, window);
}
