/* Unit tests for shared/mw_link.c, the framed TCP link between the agents
 * and the collector. */
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mw_link.h"
#include "unit.h"

/* Frames over loopback: a heartbeat arrives intact; garbage is refused. */
START_TEST(test_link_loopback)
{
	uint16_t port = 0;
	int lfd = mw_link_listen(27300, 50, &port);
	struct mw_link *c, *s = NULL;
	struct mw_hb_msg m = {0}, got;
	enum mw_hb_err e;
	ck_assert_int_ge(lfd, 0);
	c = mw_link_connect("127.0.0.1", port, 2.0);
	ck_assert_ptr_nonnull(c);
	for (int i = 0; i < 200 && !s; i++) {
		s = mw_link_accept(lfd);
		if (!s)
			usleep(10000);
	}
	ck_assert_ptr_nonnull(s);
	m.type = MW_HB_HEARTBEAT;
	m.u.beat.rank = 3;
	m.u.beat.size = 8;
	m.u.beat.state = MW_HB_S_IN_MPI;
	m.u.beat.peer_world = 2;
	m.u.beat.root_world = -1;
	m.u.beat.tag = 1;
	m.u.beat.exit_code = -1;
	snprintf(m.u.beat.call, sizeof m.u.beat.call, "MPI_Recv");
	snprintf(m.u.beat.kind, sizeof m.u.beat.kind, "recv");
	ck_assert_int_eq(mw_link_send(c, &m), 0);
	ck_assert_int_eq(mw_link_recv_wait(s, &got, &e, 5.0), 1);
	ck_assert_int_eq(got.type, MW_HB_HEARTBEAT);
	ck_assert_int_eq(got.u.beat.rank, 3);
	ck_assert_str_eq(got.u.beat.call, "MPI_Recv");
	mw_hb_msg_free(&got);
	/* Before authentication a small cap: a frame announcing more is refused
	 * on its header (without waiting for the payload); after, the protocol's. */
	mw_link_set_max_payload(s, MW_HB_PREAUTH_MAX);
	{
		uint8_t hdr[12] = {'M', 'W', 'H', 'B', 1, MW_HB_HELLO, 0, 0, 0, 0, 0x20, 0x01}; /* 8193 bytes */
		ck_assert_int_eq(write(mw_link_fd(c), hdr, sizeof hdr), 12);
		ck_assert_int_eq(mw_link_recv_wait(s, &got, &e, 5.0), -2);
		ck_assert_int_eq(e, MW_HB_E_LONG);
	}
	mw_link_close(s);
	s = NULL;
	mw_link_close(c);
	c = mw_link_connect("127.0.0.1", port, 2.0);
	ck_assert_ptr_nonnull(c);
	for (int i = 0; i < 200 && !s; i++) {
		s = mw_link_accept(lfd);
		if (!s)
			usleep(10000);
	}
	ck_assert_ptr_nonnull(s);
	/* this end's address: what the peer connected to */
	ck_assert_str_eq(mw_link_local(s), mw_link_peer(c));
	/* Garbage on the stream: -2 with a reason. */
	ck_assert_int_eq(write(mw_link_fd(c), "GET / HTTP/1.0\r\n\r\n", 18), 18);
	ck_assert_int_eq(mw_link_recv_wait(s, &got, &e, 5.0), -2);
	ck_assert_int_eq(e, MW_HB_E_MAGIC);
	/* Orderly close: -1 with errno 0. */
	mw_link_close(c);
	mw_link_close(s);
	close(lfd);
}
END_TEST

/* Connections for mw_link_preauth_victim: 32 from 10.0.0.9 (one welcomed),
 * the agent's own among them. */
struct conn {
	const char *src;
	int authed, stage;
	double t;
};
static struct conn conns[40];

static void conn_get(void *arg, size_t k, const char **src, int *authed, int *stage, double *t)
{
	const struct conn *c = (const struct conn *)arg + k;
	*src = c->src;
	*authed = c->authed;
	*stage = c->stage;
	*t = c->t;
}

START_TEST(test_link_preauth_victim)
{
	size_t n = 0;
	for (int i = 0; i < MW_LINK_PREAUTH_PER_SRC; i++)
		conns[n++] = (struct conn){"10.0.0.9", 0, 2, 10.0 + i}; /* all past VERIFY */
	conns[n++] = (struct conn){"10.0.0.9", 1, 4, 1.0};          /* welcomed: never a victim */
	conns[n++] = (struct conn){"10.0.0.7", 0, 0, 0.5};          /* another source */
	/* full from 10.0.0.9: its oldest unauthenticated one goes */
	ck_assert_int_eq(mw_link_preauth_victim(n, "10.0.0.9", 0, conn_get, conns), 0);
	/* a silent one (not past VERIFY) goes before it, however young */
	conns[5].stage = 0;
	conns[5].t = 99;
	ck_assert_int_eq(mw_link_preauth_victim(n, "10.0.0.9", 0, conn_get, conns), 5);
	/* room for another source, and in all (33 < MW_LINK_PREAUTH_CONNS) */
	ck_assert_int_eq(mw_link_preauth_victim(n, "10.0.0.7", 0, conn_get, conns), -1);
	ck_assert_int_eq(mw_link_preauth_victim(n, "10.0.0.7", 1, conn_get, conns), -1);
	/* one fewer from 10.0.0.9: room */
	ck_assert_int_eq(mw_link_preauth_victim(MW_LINK_PREAUTH_PER_SRC - 1, "10.0.0.9", 0, conn_get, conns), -1);
}
END_TEST

static int sockopt(int fd, int level, int name)
{
	int v = -1;
	socklen_t l = sizeof v;
	ck_assert_int_eq(getsockopt(fd, level, name, &v, &l), 0);
	return v;
}

/* The liveness setting (issue 34: one end watches, the other answers).
 * The watching end: keepalive after max(1, s/5) s of silence, every as
 * much, TCP_USER_TIMEOUT 0.6 s (at least two intervals); the answering
 * end: no keepalive probes of its own, TCP_USER_TIMEOUT s for its data; off
 * (both): keepalive at the kernel's defaults and no user timeout. */
START_TEST(test_link_liveness)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(mw_link_liveness_watch_fd(fd, 5), 0); /* the default */
	ck_assert_int_eq(sockopt(fd, SOL_SOCKET, SO_KEEPALIVE), 1);
	ck_assert_int_eq(sockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE), 1);
	ck_assert_int_eq(sockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL), 1);
	ck_assert_int_eq(sockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT), 3000);
	ck_assert_int_eq(mw_link_liveness_watch_fd(fd, 30), 0);
	ck_assert_int_eq(sockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE), 6);
	ck_assert_int_eq(sockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL), 6);
	ck_assert_int_eq(sockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT), 18000);
	ck_assert_int_eq(mw_link_liveness_watch_fd(fd, 0.5), 0); /* at least 1 s, two of them */
	ck_assert_int_eq(sockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE), 1);
	ck_assert_int_eq(sockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL), 1);
	ck_assert_int_eq(sockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT), 2000);
	ck_assert_double_eq_tol(mw_link_silence_limit(5), 5.0, 1e-9);   /* the answering end waits s */
	ck_assert_double_eq_tol(mw_link_silence_limit(0.5), 3.0, 1e-9); /* but outlives the watcher's probes */
	ck_assert_int_eq(mw_link_liveness_fd(fd, 5), 0); /* the answering end */
	ck_assert_int_eq(sockopt(fd, SOL_SOCKET, SO_KEEPALIVE), 0);
	ck_assert_int_eq(sockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT), 5000);
	ck_assert_int_eq(mw_link_liveness_fd(fd, 0), 0); /* off */
	ck_assert_int_eq(sockopt(fd, SOL_SOCKET, SO_KEEPALIVE), 1);
	ck_assert_int_eq(sockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT), 0);
	ck_assert_int_eq(mw_link_liveness_watch_fd(fd, 0), 0);
	ck_assert_int_eq(sockopt(fd, SOL_SOCKET, SO_KEEPALIVE), 1);
	ck_assert_int_eq(sockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT), 0);
	close(fd);
}
END_TEST

/* Connect errors are told as what they mean: a port nothing listens on, a
 * name that does not resolve. */
START_TEST(test_link_connect_errors)
{
	uint16_t port = 0;
	int lfd = mw_link_listen(27400, 50, &port);
	char path[64];
	ck_assert_int_ge(lfd, 0);
	close(lfd); /* now nothing listens there */
	ck_assert_ptr_null(mw_link_connect("127.0.0.1", port, 2.0));
	ck_assert_int_eq(errno, ECONNREFUSED);
	ck_assert_ptr_nonnull(strstr(mw_link_connect_hint(errno), "nothing listens on the port"));
	ck_assert_ptr_null(mw_link_connect("no-such-host.invalid", port, 2.0));
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_ptr_nonnull(strstr(mw_link_connect_hint(errno), "does not resolve"));
	ck_assert_int_eq(mw_link_error_path(path, sizeof path, "/r", "n2"), 0);
	ck_assert_str_eq(path, "/r/logs/link-error-n2.txt");
	ck_assert_int_eq(mw_link_error_path(path, 8, "/r", "n2"), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("link");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_link_loopback);
	tcase_add_test(tc, test_link_liveness);
	tcase_add_test(tc, test_link_connect_errors);
	tcase_add_test(tc, test_link_preauth_victim);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
