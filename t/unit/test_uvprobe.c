/* Unit tests for shared/uvprobe.c: a probe round driven by a real libuv
 * loop, against a responder on the same loop (a uv_udp_t on loopback), a
 * silent port and a closed one (the kernel's "port unreachable", read from
 * the error queue through uv_poll).  As root, the probes come from a
 * privileged source port (MW_PROBE_F_PRIVSRC). */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "probe_responder.h"
#include "unit.h"
#include "uvprobe.h"

struct outcome {
	int calls, rc;
	uv_udp_t *stop; /* the responder to close when the round is over */
};

static void round_done(void *arg, int rc)
{
	struct outcome *o = arg;
	o->calls++;
	o->rc = rc;
	if (o->stop)
		uv_close((uv_handle_t *)o->stop, NULL);
}

START_TEST(test_answered)
{
	const char *names[] = {"n9"}, *addrs[] = {"127.0.0.1"};
	struct mw_probe_result res[1];
	struct probe_responder r;
	struct outcome o = {0};
	uv_loop_t loop;
	ck_assert_int_eq(uv_loop_init(&loop), 0);
	probe_responder_start_at(&loop, &r, "127.0.0.1", 0, 1, NULL, NULL);
	o.stop = &r.udp;
	ck_assert_ptr_nonnull(mw_uvprobe_start(&loop, names, addrs, 1, (uint16_t)r.port, 2.0, 3, MW_PROBE_F_PRIVSRC,
					       res, round_done, &o));
	ck_assert_int_eq(o.calls, 0); /* never from start */
	uv_run(&loop, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
	ck_assert_int_eq(o.calls, 1);
	ck_assert_int_eq(o.rc, 1);
	ck_assert_int_eq(res[0].state, MW_PROBE_ALIVE);
	ck_assert_str_eq(res[0].name, "n9");
	ck_assert_int_eq(r.probes, 1);
	if (geteuid() == 0) {
		ck_assert_uint_ge(r.src_port, MW_PROBE_PRIV_PORT_MIN);
		ck_assert_uint_le(r.src_port, 1023);
	}
}
END_TEST

START_TEST(test_silent_every_try)
{
	const char *names[] = {"n9"}, *addrs[] = {"127.0.0.1"};
	struct mw_probe_result res[1];
	struct probe_responder r;
	struct outcome o = {0};
	uv_loop_t loop;
	ck_assert_int_eq(uv_loop_init(&loop), 0);
	probe_responder_start_at(&loop, &r, "127.0.0.1", 0, 0, NULL, NULL);
	o.stop = &r.udp;
	ck_assert_ptr_nonnull(mw_uvprobe_start(&loop, names, addrs, 1, (uint16_t)r.port, 0.3, 3, 0, res, round_done,
					       &o));
	uv_run(&loop, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
	ck_assert_int_eq(o.rc, 0);
	ck_assert_int_eq(res[0].state, MW_PROBE_DEAD);
	ck_assert_int_eq(res[0].tries, 3);
	ck_assert_ptr_nonnull(strstr(res[0].summary, "no reply to 3 probes"));
}
END_TEST

/* One round over two nodes on one port: a (answering at once) on
 * 127.0.0.1 and b on 127.0.0.2 (answering b_delay_ms late, or silent when
 * b_answers is 0), budget_s, 3 tries, flags; the responders closed after.
 * Return the round's rc; res[] filled, a->probes and b->probes counted. */
static int run_pair(struct probe_responder *a, struct probe_responder *b, int b_answers, uint64_t b_delay_ms,
		    double budget_s, unsigned flags, struct mw_probe_result res[2])
{
	const char *names[] = {"n8", "n9"}, *addrs[] = {"127.0.0.1", "127.0.0.2"};
	struct outcome o = {0};
	uv_loop_t loop;
	ck_assert_int_eq(uv_loop_init(&loop), 0);
	probe_responder_start_at(&loop, a, "127.0.0.1", 0, 1, NULL, NULL);
	probe_responder_start_at(&loop, b, "127.0.0.2", a->port, b_answers, NULL, NULL); /* the same port, another address */
	b->delay_ms = b_delay_ms;
	ck_assert_ptr_nonnull(mw_uvprobe_start(&loop, names, addrs, 2, (uint16_t)a->port, budget_s, 3, flags, res,
					       round_done, &o));
	while (!o.calls)
		uv_run(&loop, UV_RUN_ONCE);
	probe_responder_stop(a);
	probe_responder_stop(b);
	uv_run(&loop, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
	return o.rc;
}

/* A dead node among live ones (issue 34): the live node's answer gives the
 * round trip, and the silent node's tries follow it (mw_probe_spacing) with
 * its floor, instead of being spread over the whole budget: with a 60 s
 * budget (twice the case's time limit) the round is over, the silent node
 * judged dead after its 3 tries within the span its summary tells, far
 * less than the budget, and the live one alive after one try. */
START_TEST(test_dead_among_live)
{
	struct mw_probe_result res[2];
	struct probe_responder live, silent;
	double span = -1;
	const char *in;
	ck_assert_int_eq(run_pair(&live, &silent, 0, 0, 60.0, 0, res), 1);
	ck_assert_int_eq(res[0].state, MW_PROBE_ALIVE);
	ck_assert_int_eq(res[0].tries, 1);
	ck_assert_int_eq(res[1].state, MW_PROBE_DEAD);
	ck_assert_int_eq(res[1].tries, 3);
	ck_assert_int_eq(silent.probes, 3);
	ck_assert_ptr_nonnull(strstr(res[1].summary, "no reply to 3 probes in "));
	in = strstr(res[1].summary, " in ") + 4;
	span = strtod(in, NULL);
	ck_assert(span > 0 && span < 60.0);
}
END_TEST

/* MW_PROBE_F_FIRST (nodehealthd's re-probe: the target, then the nodes it
 * measures the round trip on): node 0's answer ends the round at once; a
 * silent node beside it got its first try only, not the rest of its
 * schedule (60 s of budget: the round would outlast the case). */
START_TEST(test_first_answer_ends_round)
{
	struct mw_probe_result res[2];
	struct probe_responder live, silent;
	ck_assert_int_eq(run_pair(&live, &silent, 0, 0, 60.0, MW_PROBE_F_FIRST, res), 1);
	ck_assert_int_eq(res[0].state, MW_PROBE_ALIVE);
	ck_assert_int_eq(res[1].state, MW_PROBE_DEAD);
	ck_assert_int_eq(res[1].tries, 1);
	ck_assert_int_eq(silent.probes, 1);
}
END_TEST

/* A slow node among fast ones (issue 34): the fast node's round trip sets
 * the tries' spacing, but its floor leaves a node that answers 50 ms late
 * (a loaded node, 50 ms more on its link) its time: alive, not dead. */
START_TEST(test_slow_node_alive)
{
	struct mw_probe_result res[2];
	struct probe_responder fast, slow;
	ck_assert_int_eq(run_pair(&fast, &slow, 1, 50, 3.0, 0, res), 2);
	ck_assert_int_eq(res[0].state, MW_PROBE_ALIVE);
	ck_assert_int_eq(res[1].state, MW_PROBE_ALIVE);
}
END_TEST

START_TEST(test_closed_port_no_daemon)
{
	const char *names[] = {"n9"}, *addrs[] = {"127.0.0.1"};
	struct mw_probe_result res[1];
	struct outcome o = {0};
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	uv_loop_t loop;
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	getsockname(fd, (struct sockaddr *)&a, &al);
	close(fd); /* free again: the kernel refuses it */
	ck_assert_int_eq(uv_loop_init(&loop), 0);
	ck_assert_ptr_nonnull(mw_uvprobe_start(&loop, names, addrs, 1, ntohs(a.sin_port), 5.0, 3, 0, res, round_done,
					       &o));
	uv_run(&loop, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
	ck_assert_int_eq(o.calls, 1);
	ck_assert_int_eq(res[0].state, MW_PROBE_NODAEMON);
}
END_TEST

START_TEST(test_stop)
{
	const char *names[] = {"n9"}, *addrs[] = {"127.0.0.1"};
	struct mw_probe_result res[1];
	struct probe_responder r;
	struct outcome o = {0};
	struct mw_uvprobe *p;
	uv_loop_t loop;
	ck_assert_int_eq(uv_loop_init(&loop), 0);
	probe_responder_start_at(&loop, &r, "127.0.0.1", 0, 0, NULL, NULL);
	p = mw_uvprobe_start(&loop, names, addrs, 1, (uint16_t)r.port, 30.0, 2, 0, res, round_done, &o);
	ck_assert_ptr_nonnull(p);
	uv_run(&loop, UV_RUN_NOWAIT); /* the first try goes out */
	o.stop = &r.udp;
	mw_uvprobe_stop(p);
	ck_assert_int_eq(o.calls, 1); /* told before stop returns */
	uv_run(&loop, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
	ck_assert_int_eq(res[0].state, MW_PROBE_DEAD);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("uvprobe");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_answered);
	tcase_add_test(tc, test_silent_every_try);
	tcase_add_test(tc, test_dead_among_live);
	tcase_add_test(tc, test_slow_node_alive);
	tcase_add_test(tc, test_first_answer_ends_round);
	tcase_add_test(tc, test_closed_port_no_daemon);
	tcase_add_test(tc, test_stop);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
