/* Unit tests for shared/probe.c: the probe wire format and the probe client. */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "probe.h"

static const uint8_t N1[MW_PROBE_NONCE_LEN] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

/* ---- probe decoding: table of mutations of a valid probe ---- */
static const struct {
	const char *what;
	size_t len;     /* datagram length */
	int off, val;   /* byte to overwrite (off < 0: none) */
	enum mw_probe_err want;
} probe_cases[] = {
	{"valid", MW_PROBE_MIN_SIZE, -1, 0, MW_PROBE_OK},
	{"valid, larger", 1000, -1, 0, MW_PROBE_OK},
	{"valid, largest", MW_PROBE_MAX_SIZE, -1, 0, MW_PROBE_OK},
	{"empty", 0, -1, 0, MW_PROBE_E_SHORT},
	{"header only", MW_PROBE_HDR_LEN, -1, 0, MW_PROBE_E_SHORT},
	{"one short", MW_PROBE_MIN_SIZE - 1, -1, 0, MW_PROBE_E_SHORT},
	{"too long", MW_PROBE_MAX_SIZE + 1, -1, 0, MW_PROBE_E_LONG},
	{"magic", MW_PROBE_MIN_SIZE, 0, 'X', MW_PROBE_E_MAGIC},
	{"magic last byte", MW_PROBE_MIN_SIZE, 3, 0, MW_PROBE_E_MAGIC},
	{"version 0", MW_PROBE_MIN_SIZE, 4, 0, MW_PROBE_E_VERSION},
	{"version 2", MW_PROBE_MIN_SIZE, 4, 2, MW_PROBE_E_VERSION},
	{"type reply", MW_PROBE_MIN_SIZE, 5, MW_PROBE_TYPE_REPLY, MW_PROBE_E_TYPE},
	{"type 0", MW_PROBE_MIN_SIZE, 5, 0, MW_PROBE_E_TYPE},
	{"flags", MW_PROBE_MIN_SIZE, 7, 1, MW_PROBE_E_FORMAT},
	{"padding not checked", MW_PROBE_MIN_SIZE, 100, 0xff, MW_PROBE_OK},
	{"short, bad magic: magic wins", 10, 0, 'X', MW_PROBE_E_MAGIC},
};

START_TEST(test_probe_decode)
{
	uint8_t buf[MW_PROBE_MAX_SIZE + 8], nonce[MW_PROBE_NONCE_LEN];
	memset(buf, 0, sizeof(buf));
	ck_assert_int_eq(mw_probe_encode_probe(buf, sizeof(buf), N1), MW_PROBE_MIN_SIZE);
	if (probe_cases[_i].off >= 0)
		buf[probe_cases[_i].off] = (uint8_t)probe_cases[_i].val;
	ck_assert_msg(mw_probe_decode_probe(buf, probe_cases[_i].len, nonce) == probe_cases[_i].want, "%s: got %s",
		      probe_cases[_i].what, mw_probe_err_name(mw_probe_decode_probe(buf, probe_cases[_i].len, nonce)));
	if (probe_cases[_i].want == MW_PROBE_OK)
		ck_assert_mem_eq(nonce, N1, MW_PROBE_NONCE_LEN);
}
END_TEST

START_TEST(test_probe_encode_small_buffer)
{
	uint8_t buf[MW_PROBE_MIN_SIZE - 1];
	errno = 0;
	ck_assert_int_eq(mw_probe_encode_probe(buf, sizeof(buf), N1), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* ---- replies: never longer than the probe, summary cut, text cleaned ---- */
static const struct {
	size_t probe_len;
	const char *name, *summary;
	int state;
	const char *want_name, *want_summary;
	int truncated;
} reply_cases[] = {
	{256, "n1", "ok", MW_PROBE_ALIVE, "n1", "ok", 0},
	{256, "n1", "", MW_PROBE_DEGRADED, "n1", "", 0},
	{256, "node\x01x", "bad\ttab", MW_PROBE_ALIVE, "node?x", "bad?tab", 0},
	{40, "n1", "long summary", MW_PROBE_ALIVE, "n1", "lo", 1},
	{36, "n1", "x", MW_PROBE_ALIVE, "", "", 1},
	{256, NULL, NULL, MW_PROBE_ALIVE, "", "", 0},
	{256, "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij0123456789", "s", MW_PROBE_ALIVE,
	 "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij012", "s", 0},
	{1472, "n1", NULL /* 300 x: see test */, MW_PROBE_ALIVE, "n1", NULL, 1},
};

START_TEST(test_reply_roundtrip)
{
	uint8_t buf[2048];
	struct mw_probe_reply r;
	char big[301];
	const char *summary = reply_cases[_i].summary;
	int len;

	if (!reply_cases[_i].want_summary) { /* an oversized summary */
		memset(big, 'x', 300);
		big[300] = 0;
		summary = big;
	}
	len = mw_probe_encode_reply(buf, sizeof(buf), reply_cases[_i].probe_len, N1, reply_cases[_i].state, 2, 77,
				    reply_cases[_i].name, summary);
	ck_assert_int_ge(len, MW_PROBE_REPLY_HDR_LEN);
	ck_assert_int_le(len, (int)reply_cases[_i].probe_len);
	ck_assert_int_eq(mw_probe_decode_reply(buf, (size_t)len, &r), MW_PROBE_OK);
	ck_assert_mem_eq(r.nonce, N1, MW_PROBE_NONCE_LEN);
	ck_assert_int_eq(r.state, reply_cases[_i].state);
	ck_assert_int_eq(r.failed, 2);
	ck_assert_uint_eq(r.age_s, 77);
	ck_assert_str_eq(r.name, reply_cases[_i].want_name);
	if (reply_cases[_i].want_summary)
		ck_assert_str_eq(r.summary, reply_cases[_i].want_summary);
	else
		ck_assert_uint_eq(strlen(r.summary), MW_PROBE_SUMMARY_MAX);
	ck_assert_int_eq(r.truncated, reply_cases[_i].truncated);
}
END_TEST

START_TEST(test_reply_too_small)
{
	uint8_t buf[64];
	ck_assert_int_eq(mw_probe_encode_reply(buf, sizeof(buf), 35, N1, 1, 0, 0, "n", "s"), -1);
	ck_assert_int_eq(mw_probe_encode_reply(buf, 20, 256, N1, 1, 0, 0, "n", "s"), -1);
}
END_TEST

static const struct {
	const char *what;
	int off, val, dlen; /* overwrite byte off with val; change length by dlen */
	enum mw_probe_err want;
} bad_reply_cases[] = {
	{"state 0", 24, 0, 0, MW_PROBE_E_FORMAT},
	{"state 3", 24, 3, 0, MW_PROBE_E_FORMAT},
	{"name_len too big", 26, 64, 0, MW_PROBE_E_FORMAT},
	{"lengths disagree", 29, 9, 0, MW_PROBE_E_FORMAT},
	{"trailing byte", -1, 0, 1, MW_PROBE_E_FORMAT},
	{"missing byte", -1, 0, -1, MW_PROBE_E_FORMAT},
	{"control char in name", 36, 0x07, 0, MW_PROBE_E_FORMAT},
	{"probe type", 5, MW_PROBE_TYPE_PROBE, 0, MW_PROBE_E_TYPE},
	{"bad version", 4, 9, 0, MW_PROBE_E_VERSION},
};

START_TEST(test_reply_bad)
{
	uint8_t buf[512];
	struct mw_probe_reply r;
	int len = mw_probe_encode_reply(buf, sizeof(buf), 256, N1, 1, 0, 0, "n1", "ok");
	memset(buf + len, 'z', 8);
	if (bad_reply_cases[_i].off >= 0)
		buf[bad_reply_cases[_i].off] = (uint8_t)bad_reply_cases[_i].val;
	ck_assert_msg(mw_probe_decode_reply(buf, (size_t)(len + bad_reply_cases[_i].dlen), &r) == bad_reply_cases[_i].want,
		      "%s", bad_reply_cases[_i].what);
}
END_TEST

/* The factors block (flags bit 1): load, free memory, cores round-trip;
 * the summary is cut to make room, never the block; unknown values stay
 * unknown; a reply without it (an older daemon) decodes with none; a
 * block whose length disagrees is refused. */
START_TEST(test_reply_factors)
{
	uint8_t buf[512];
	struct mw_probe_reply r;
	struct mw_probe_factors f = {1.25, 15872, 16}, u = {-1, -1, 0};
	char big[301];
	int len;
	memset(big, 'x', 300);
	big[300] = 0;
	len = mw_probe_encode_reply_factors(buf, sizeof(buf), 256, N1, 1, 0, 3, "n1", "ok", &f);
	ck_assert_int_eq(len, MW_PROBE_REPLY_HDR_LEN + 2 + 2 + MW_PROBE_FACTORS_LEN);
	ck_assert_int_eq(mw_probe_decode_reply(buf, (size_t)len, &r), MW_PROBE_OK);
	ck_assert_int_eq(r.has_factors, 1);
	ck_assert(r.f.load == 1.25 && r.f.mem_free_mb == 15872 && r.f.cores == 16);
	ck_assert_str_eq(r.summary, "ok");
	/* a long summary: cut, the block kept, still within the probe */
	len = mw_probe_encode_reply_factors(buf, sizeof(buf), 256, N1, 2, 1, 3, "n1", big, &f);
	ck_assert_int_eq(len, 256);
	ck_assert_int_eq(mw_probe_decode_reply(buf, (size_t)len, &r), MW_PROBE_OK);
	ck_assert(r.has_factors && r.truncated && r.f.cores == 16);
	ck_assert_uint_eq(strlen(r.summary), 256 - MW_PROBE_REPLY_HDR_LEN - 2 - MW_PROBE_FACTORS_LEN);
	/* unknown values */
	len = mw_probe_encode_reply_factors(buf, sizeof(buf), 256, N1, 1, 0, 3, "n1", "ok", &u);
	ck_assert_int_eq(mw_probe_decode_reply(buf, (size_t)len, &r), MW_PROBE_OK);
	ck_assert(r.has_factors && r.f.load < 0 && r.f.mem_free_mb < 0 && r.f.cores == 0);
	/* no block: none, and unknown */
	len = mw_probe_encode_reply(buf, sizeof(buf), 256, N1, 1, 0, 3, "n1", "ok");
	ck_assert_int_eq(mw_probe_decode_reply(buf, (size_t)len, &r), MW_PROBE_OK);
	ck_assert(!r.has_factors && r.f.load < 0 && r.f.mem_free_mb < 0 && r.f.cores == 0);
	/* the flag without the block, or the block without the flag: refused */
	len = mw_probe_encode_reply_factors(buf, sizeof(buf), 256, N1, 1, 0, 3, "n1", "ok", &f);
	ck_assert_int_eq(mw_probe_decode_reply(buf, (size_t)len - 1, &r), MW_PROBE_E_FORMAT);
	buf[7] &= (uint8_t)~MW_PROBE_FLAG_FACTORS;
	ck_assert_int_eq(mw_probe_decode_reply(buf, (size_t)len, &r), MW_PROBE_E_FORMAT);
	/* a reply too small for the block goes without it */
	len = mw_probe_encode_reply_factors(buf, sizeof(buf), MW_PROBE_REPLY_HDR_LEN + 4, N1, 1, 0, 3, "n1", "ok", &f);
	ck_assert_int_eq(len, MW_PROBE_REPLY_HDR_LEN + 4);
	ck_assert_int_eq(mw_probe_decode_reply(buf, (size_t)len, &r), MW_PROBE_OK);
	ck_assert_int_eq(r.has_factors, 0);
}
END_TEST

/* The calibration block (flags bit 2, issue 32): the interval and the
 * resolution round up to whole ns, the degraded bit round-trips, with the
 * factors block before it; a 256-byte probe with a 63-byte name and a long
 * summary keeps both blocks (the summary is cut), never longer than the
 * probe; a block whose length disagrees is refused. */
START_TEST(test_reply_calib)
{
	uint8_t buf[512];
	struct mw_probe_reply r;
	struct mw_probe_factors f = {1.25, 15872, 16};
	struct mw_probe_calib k = {2294.2, 24.5, 0}, d = {0, 0, 1};
	char big[301], name[64];
	int len;
	memset(big, 'x', 300);
	big[300] = 0;
	memset(name, 'n', 63);
	name[63] = 0;
	len = mw_probe_encode_reply_ex(buf, sizeof(buf), 256, N1, 1, 0, 3, "n1", "ok", &f, &k);
	ck_assert_int_eq(len, MW_PROBE_REPLY_HDR_LEN + 2 + 2 + MW_PROBE_FACTORS_LEN + MW_PROBE_CALIB_LEN);
	ck_assert_int_eq(mw_probe_decode_reply(buf, (size_t)len, &r), MW_PROBE_OK);
	ck_assert(r.has_factors && r.f.cores == 16);
	ck_assert_int_eq(r.has_calib, 1);
	ck_assert(r.cal.interval_ns == 2295 && r.cal.resolution_ns == 25 && !r.cal.degraded);
	/* without the factors, degraded, nothing found */
	len = mw_probe_encode_reply_ex(buf, sizeof(buf), 256, N1, 2, 1, 3, "n1", "calibration: noisy", NULL, &d);
	ck_assert_int_eq(mw_probe_decode_reply(buf, (size_t)len, &r), MW_PROBE_OK);
	ck_assert(!r.has_factors && r.has_calib && r.cal.degraded && r.cal.interval_ns == 0 &&
		  r.cal.resolution_ns == 0);
	/* the longest name and summary: both blocks kept, the summary cut */
	len = mw_probe_encode_reply_ex(buf, sizeof(buf), 256, N1, 1, 0, 3, name, big, &f, &k);
	ck_assert_int_eq(len, 256);
	ck_assert_int_eq(mw_probe_decode_reply(buf, (size_t)len, &r), MW_PROBE_OK);
	ck_assert(r.has_factors && r.has_calib && r.truncated && r.cal.interval_ns == 2295);
	ck_assert_str_eq(r.name, name);
	ck_assert_uint_eq(strlen(r.summary), 256 - MW_PROBE_REPLY_HDR_LEN - 63 - MW_PROBE_FACTORS_LEN -
						     MW_PROBE_CALIB_LEN);
	/* no block (an older daemon, or no calibration yet): none */
	len = mw_probe_encode_reply_factors(buf, sizeof(buf), 256, N1, 1, 0, 3, "n1", "ok", &f);
	ck_assert_int_eq(mw_probe_decode_reply(buf, (size_t)len, &r), MW_PROBE_OK);
	ck_assert_int_eq(r.has_calib, 0);
	/* the flag without the block: refused */
	len = mw_probe_encode_reply_ex(buf, sizeof(buf), 256, N1, 1, 0, 3, "n1", "ok", NULL, &k);
	ck_assert_int_eq(mw_probe_decode_reply(buf, (size_t)len - 1, &r), MW_PROBE_E_FORMAT);
	buf[7] &= (uint8_t)~MW_PROBE_FLAG_CALIB;
	ck_assert_int_eq(mw_probe_decode_reply(buf, (size_t)len, &r), MW_PROBE_E_FORMAT);
}
END_TEST

START_TEST(test_nonce_random)
{
	uint8_t a[MW_PROBE_NONCE_LEN], b[MW_PROBE_NONCE_LEN];
	ck_assert_int_eq(mw_probe_nonce(a), 0);
	ck_assert_int_eq(mw_probe_nonce(b), 0);
	ck_assert(memcmp(a, b, sizeof(a)) != 0);
}
END_TEST

/* ---- the client against a fake responder on loopback ---- */
enum fake_mode { FAKE_GOOD, FAKE_WRONG_NONCE, FAKE_SILENT_FIRST, FAKE_DEGRADED };
struct fake {
	int fd;
	uint16_t port;
	enum fake_mode mode;
	int seen;
	unsigned from_port; /* source port of the last probe */
	volatile int stop;
};

static void *fake_main(void *arg)
{
	struct fake *f = arg;
	while (!f->stop) {
		struct pollfd p = {.fd = f->fd, .events = POLLIN};
		uint8_t buf[2048], out[512], nonce[MW_PROBE_NONCE_LEN];
		struct sockaddr_storage from;
		socklen_t fl = sizeof(from);
		ssize_t n;
		int len;
		if (poll(&p, 1, 50) <= 0)
			continue;
		n = recvfrom(f->fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
		if (n < 0 || mw_probe_decode_probe(buf, (size_t)n, nonce) != MW_PROBE_OK)
			continue;
		f->seen++;
		f->from_port = ntohs(((struct sockaddr_in *)&from)->sin_port);
		if (f->mode == FAKE_SILENT_FIRST && f->seen == 1)
			continue;
		if (f->mode == FAKE_WRONG_NONCE)
			nonce[0] ^= 1;
		len = mw_probe_encode_reply(out, sizeof(out), (size_t)n, nonce,
					    f->mode == FAKE_DEGRADED ? MW_PROBE_DEGRADED : MW_PROBE_ALIVE,
					    f->mode == FAKE_DEGRADED ? 1 : 0, 3, "fake", f->mode == FAKE_DEGRADED ? "load high" : "ok");
		sendto(f->fd, out, (size_t)len, 0, (struct sockaddr *)&from, fl);
	}
	return NULL;
}

static pthread_t fake_start(struct fake *f, enum fake_mode mode)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof(sa);
	pthread_t t;
	memset(f, 0, sizeof(*f));
	f->mode = mode;
	f->fd = socket(AF_INET, SOCK_DGRAM, 0);
	ck_assert_int_ge(f->fd, 0);
	ck_assert_int_eq(bind(f->fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	getsockname(f->fd, (struct sockaddr *)&sa, &sl);
	f->port = ntohs(sa.sin_port);
	pthread_create(&t, NULL, fake_main, f);
	return t;
}

static void fake_stop(struct fake *f, pthread_t t)
{
	f->stop = 1;
	pthread_join(t, NULL);
	close(f->fd);
}

static const struct {
	enum fake_mode mode;
	int tries;
	enum mw_probe_state want;
	int want_tries;
} client_cases[] = {
	{FAKE_GOOD, 3, MW_PROBE_ALIVE, 1},
	{FAKE_DEGRADED, 3, MW_PROBE_DEGRADED, 1},
	{FAKE_WRONG_NONCE, 2, MW_PROBE_DEAD, 2},   /* forged replies are ignored */
	{FAKE_SILENT_FIRST, 3, MW_PROBE_ALIVE, 2}, /* the retry gets through */
	{FAKE_SILENT_FIRST, 1, MW_PROBE_DEAD, 1},
};

START_TEST(test_client)
{
	struct fake f;
	pthread_t t = fake_start(&f, client_cases[_i].mode);
	const char *names[1] = {"127.0.0.1"};
	struct mw_probe_result r;
	int n = mw_probe_nodes(names, NULL, 1, f.port, 0.6, client_cases[_i].tries, &r);
	fake_stop(&f, t);
	ck_assert_int_eq(n, client_cases[_i].want == MW_PROBE_DEAD ? 0 : 1);
	ck_assert_int_eq(r.state, client_cases[_i].want);
	ck_assert_int_eq(r.tries, client_cases[_i].want_tries);
	ck_assert_str_eq(r.addr, "127.0.0.1");
	if (r.state == MW_PROBE_DEAD) {
		ck_assert(r.rtt_ms < 0);
	} else {
		ck_assert(r.rtt_ms >= 0);
		ck_assert_str_eq(r.name, "fake");
	}
	if (r.state == MW_PROBE_DEGRADED)
		ck_assert_str_eq(r.summary, "load high");
}
END_TEST

/* MW_PROBE_F_PRIVSRC: the probes go out from a port in 512..1023 when we
 * may bind one (root with CAP_NET_BIND_SERVICE), else from an ephemeral
 * one; the node answers alike.  Without the flag: ephemeral. */
START_TEST(test_client_privsrc)
{
	struct fake f;
	pthread_t t = fake_start(&f, FAKE_GOOD);
	const char *names[1] = {"127.0.0.1"};
	struct mw_probe_result r;
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(1023)};
	int can = bind(s, (struct sockaddr *)&a, sizeof(a)) == 0 || errno == EADDRINUSE;
	close(s);
	ck_assert_int_eq(mw_probe_nodes_ex(names, NULL, 1, f.port, 0.6, 2, MW_PROBE_F_PRIVSRC, &r), 1);
	ck_assert_int_eq(r.state, MW_PROBE_ALIVE);
	if (can)
		ck_assert_msg(f.from_port >= MW_PROBE_PRIV_PORT_MIN && f.from_port < 1024, "from port %u", f.from_port);
	else
		ck_assert_uint_ge(f.from_port, 1024);
	ck_assert_int_eq(mw_probe_nodes_ex(names, NULL, 1, f.port, 0.6, 2, 0, &r), 1);
	ck_assert_uint_ge(f.from_port, 1024);
	fake_stop(&f, t);
}
END_TEST

/* The round in the caller's own event loop: another fd (a pipe, written
 * before the round starts) is served while the round waits for the retry
 * (the fake ignores the first probe); the round ends alive on its second
 * try.  Then a round nobody answers properly ends dead after its tries. */
START_TEST(test_round_in_event_loop)
{
	struct fake f;
	pthread_t t = fake_start(&f, FAKE_SILENT_FIRST);
	const char *names[1] = {"127.0.0.1"};
	struct mw_probe_result r;
	int pp[2], rc, steps = 0, served_while_probing = 0;
	char c = 'x';
	ck_assert_int_eq(pipe(pp), 0);
	ck_assert_int_eq(write(pp[1], &c, 1), 1);
	struct mw_probe_round *round = mw_probe_round_start(names, NULL, 1, f.port, 0.6, 3, &r);
	ck_assert_ptr_nonnull(round);
	while ((rc = mw_probe_round_step(round)) == 0) {
		struct pollfd pfd[3];
		int np = mw_probe_round_fds(round, pfd, 2);
		ck_assert_int_ge(np, 1);
		pfd[np++] = (struct pollfd){.fd = pp[0], .events = POLLIN};
		ck_assert_int_ge(poll(pfd, (nfds_t)np, mw_probe_round_timeout_ms(round)), 0);
		if (pfd[np - 1].revents & POLLIN) {
			ck_assert_int_eq(read(pp[0], &c, 1), 1);
			served_while_probing++;
		}
		steps++;
	}
	ck_assert_int_eq(rc, 1);
	ck_assert_int_eq(mw_probe_round_finish(round), 1);
	fake_stop(&f, t);
	ck_assert_int_eq(served_while_probing, 1);
	ck_assert_int_ge(steps, 2);
	ck_assert_int_eq(r.state, MW_PROBE_ALIVE);
	ck_assert_int_eq(r.tries, 2);

	t = fake_start(&f, FAKE_WRONG_NONCE);
	round = mw_probe_round_start(names, NULL, 1, f.port, 0.3, 2, &r);
	ck_assert_ptr_nonnull(round);
	while ((rc = mw_probe_round_step(round)) == 0) {
		struct pollfd pfd[2];
		int np = mw_probe_round_fds(round, pfd, 2);
		ck_assert_int_ge(poll(pfd, (nfds_t)np, mw_probe_round_timeout_ms(round)), 0);
	}
	ck_assert_int_eq(rc, 1);
	ck_assert_int_eq(mw_probe_round_finish(round), 0);
	fake_stop(&f, t);
	ck_assert_int_eq(r.state, MW_PROBE_DEAD);
	ck_assert_int_eq(r.tries, 2);
	ck_assert_str_eq(r.summary, "no reply to 2 probes in 0.3s");
	/* nothing to probe: done at once */
	round = mw_probe_round_start(names, NULL, 0, f.port, 0.3, 2, &r);
	ck_assert_ptr_nonnull(round);
	ck_assert_int_eq(mw_probe_round_step(round), 1);
	ck_assert_int_eq(mw_probe_round_finish(round), 0);
	close(pp[0]);
	close(pp[1]);
}
END_TEST

START_TEST(test_client_many_and_unresolvable)
{
	struct fake f;
	pthread_t t = fake_start(&f, FAKE_GOOD);
	const char *names[4] = {"a", "b", "no-such-host.invalid", "c"};
	const char *addrs[4] = {"127.0.0.1", "localhost", NULL, "127.0.0.1"};
	struct mw_probe_result r[4];
	int n = mw_probe_nodes(names, addrs, 4, f.port, 0.5, 2, r);
	fake_stop(&f, t);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(r[0].state, MW_PROBE_ALIVE);
	ck_assert_int_eq(r[1].state, MW_PROBE_ALIVE);
	ck_assert_int_eq(r[2].state, MW_PROBE_ERROR);
	ck_assert_int_eq(r[3].state, MW_PROBE_ALIVE);
	ck_assert_ptr_nonnull(strstr(r[2].summary, "cannot resolve"));
}
END_TEST

START_TEST(test_client_empty_and_invalid)
{
	struct mw_probe_result r;
	const char *names[1] = {"x"};
	ck_assert_int_eq(mw_probe_nodes(names, NULL, 0, 7171, 1, 1, &r), 0);
	errno = 0;
	ck_assert_int_eq(mw_probe_nodes(NULL, NULL, 1, 7171, 1, 1, &r), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(mw_probe_nodes(names, NULL, 1, 0, 1, 1, &r), -1);
}
END_TEST

/* A port nobody listens on: the kernel answers ICMP port unreachable, so the
 * node is up without a daemon ("no daemon"), told within the budget, not dead. */
START_TEST(test_client_nodaemon)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	const char *names[2] = {"closed", "also-closed"};
	const char *addrs[2] = {"127.0.0.1", "127.0.0.1"};
	struct mw_probe_result r[2];
	uint16_t port;
	int n;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	port = ntohs(a.sin_port);
	close(fd); /* the port is free now: nothing listens */
	n = mw_probe_nodes(names, addrs, 1, port, 2.0, 3, r);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(r[0].state, MW_PROBE_NODAEMON);
	ck_assert_str_eq(mw_probe_state_name(r[0].state), "no daemon");
	ck_assert_ptr_nonnull(strstr(r[0].summary, "no mpiwatch-nodehealthd"));
	ck_assert_int_eq(r[0].tries, 1); /* known at the first try: no retry needed */
}
END_TEST

/* The retry schedule (issue 34): the budget shared while nobody answered;
 * after answers, 10 x the slowest round trip, between the floor (1 s over
 * the tries, or the budget if smaller) and the budget's share. */
START_TEST(test_spacing)
{
	ck_assert_double_eq_tol(mw_probe_spacing(3.0, 3, -1), 1.0, 1e-9);         /* nobody answered yet */
	ck_assert_double_eq_tol(mw_probe_spacing(3.0, 3, 0.0002), 1.0 / 3, 1e-9); /* a LAN: the floor */
	ck_assert_double_eq_tol(mw_probe_spacing(3.0, 3, 0.05), 0.5, 1e-9);       /* 50 ms: 10 x the round trip */
	ck_assert_double_eq_tol(mw_probe_spacing(3.0, 3, 0.5), 1.0, 1e-9);        /* slower: the budget's share */
	ck_assert_double_eq_tol(mw_probe_spacing(0.3, 3, 0.0002), 0.1, 1e-9);     /* a budget under the floor */
	ck_assert_double_eq_tol(mw_probe_spacing(3.0, 0, -1), 3.0, 1e-9);         /* at least one try */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("probe");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_probe_decode, 0, sizeof(probe_cases) / sizeof(probe_cases[0]));
	tcase_add_test(tc, test_probe_encode_small_buffer);
	tcase_add_loop_test(tc, test_reply_roundtrip, 0, sizeof(reply_cases) / sizeof(reply_cases[0]));
	tcase_add_test(tc, test_reply_too_small);
	tcase_add_loop_test(tc, test_reply_bad, 0, sizeof(bad_reply_cases) / sizeof(bad_reply_cases[0]));
	tcase_add_test(tc, test_reply_factors);
	tcase_add_test(tc, test_reply_calib);
	tcase_add_test(tc, test_nonce_random);
	tcase_add_loop_test(tc, test_client, 0, sizeof(client_cases) / sizeof(client_cases[0]));
	tcase_add_test(tc, test_round_in_event_loop);
	tcase_add_test(tc, test_client_privsrc);
	tcase_add_test(tc, test_client_many_and_unresolvable);
	tcase_add_test(tc, test_client_empty_and_invalid);
	tcase_add_test(tc, test_client_nodaemon);
	tcase_add_test(tc, test_spacing);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
