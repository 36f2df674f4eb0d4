/* Unit tests of the agent's connection tries on its loop (agent/agconnect.c,
 * agent/aghs.c, issue 31): a try goes through its candidates (the
 * collector's ports, or in the tree the parent CP and then each ancestor,
 * or a move into the tree) one handshake at a time, and the loop serves its
 * other handles meanwhile.  The parents are real sockets on loopback: a
 * listener that accepts but never answers, a port where nothing listens
 * (refused), and a fake collector or CP (a thread) that does the real
 * handshake of doc/protocol.md with the run's token. */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agstate.h"
#include "agtree.h"
#include "auth.h"
#include "log.h"
#include "unit.h"

#define JOB "77"
#define TOKEN "abc123"

/* ------------------------------------------------------------ the parents */

/* A fake parent (collector or CP): on lfd, one agent's handshake, answered
 * as the collector does; then it reads what comes until the link closes
 * or a BYE comes. */
struct fake {
	int lfd;
	pthread_t th;
	/* what it saw */
	int verified;             /* a VERIFY came */
	int hello_ok;             /* a HELLO of job 77 whose proof is the token's */
	char node[64];            /* the HELLO's node */
	char bye[128];            /* a BYE's reason, if one came */
	char err[200];
	int over;                 /* the thread is over (atomic) */
};

static void *fake_run(void *arg)
{
	struct fake *f = arg;
	const struct mw_auth au = {NULL, TOKEN};
	struct pollfd p = {f->lfd, POLLIN, 0};
	struct mw_link *l = NULL;
	struct mw_hb_msg m = {0}, r;
	enum mw_hb_err e;
	char nonce[MW_HB_NONCE_LEN + 1], payload[400], cred[MW_HB_CRED_MAX + 1];
	if (poll(&p, 1, 30000) != 1 || !(l = mw_link_accept(f->lfd)))
		return NULL;
	if (mw_link_recv_wait(l, &r, &e, 30) != 1 || r.type != MW_HB_VERIFY)
		goto out;
	f->verified = 1;
	if (mw_auth_nonce(nonce, sizeof nonce) < 0 ||
	    mw_hb_proof_payload(JOB, mw_link_local(l), r.u.verify.nonce, nonce, payload, sizeof payload) < 0 ||
	    mw_auth_sign(&au, payload, cred, sizeof cred, f->err, sizeof f->err) < 0)
		goto out;
	mw_hb_msg_free(&r);
	mw_hb_challenge_make(&m, nonce, JOB, cred);
	if (mw_link_send(l, &m) < 0 || mw_link_recv_wait(l, &r, &e, 30) != 1 || r.type != MW_HB_HELLO)
		goto out;
	snprintf(f->node, sizeof f->node, "%s", r.u.hello.node);
	f->hello_ok = !strcmp(r.u.hello.job, JOB) &&
		      mw_hb_auth_payload(JOB, r.u.hello.node, mw_link_local(l), nonce, payload, sizeof payload) == 0 &&
		      mw_auth_verify(&au, r.u.hello.cred, payload, f->err, sizeof f->err) == 0;
	mw_hb_msg_free(&r);
	memset(&m, 0, sizeof m);
	m.type = MW_HB_WELCOME;
	m.u.welcome.ok = 1;
	if (mw_link_send(l, &m) < 0)
		goto out;
	while (mw_link_recv_wait(l, &r, &e, 30) == 1) {
		int bye = r.type == MW_HB_BYE;
		if (bye)
			snprintf(f->bye, sizeof f->bye, "%s", r.u.bye.reason);
		mw_hb_msg_free(&r);
		if (bye)
			break;
	}
out:
	mw_link_close(l);
	__atomic_store_n(&f->over, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void fake_start(struct fake *f, int lfd)
{
	memset(f, 0, sizeof *f);
	f->lfd = lfd;
	ck_assert_int_eq(pthread_create(&f->th, NULL, fake_run, f), 0);
}

static void fake_join(struct fake *f)
{
	pthread_join(f->th, NULL);
	close(f->lfd);
}

/* Three ports in a row: [0] a listener that never answers (the kernel
 * accepts for it), [1] nothing listens, [2] a listener (for a fake
 * parent).  Returns the first port; lfd[0] and lfd[2] are the listeners. */
static uint16_t three_ports(uint16_t base, int lfd[3])
{
	for (uint16_t b = base; b < base + 600; b += 3) {
		uint16_t got;
		lfd[0] = mw_link_listen(b, 1, &got);
		if (lfd[0] < 0)
			continue;
		lfd[1] = mw_link_listen((uint16_t)(b + 1), 1, &got);
		lfd[2] = mw_link_listen((uint16_t)(b + 2), 1, &got);
		if (lfd[1] >= 0 && lfd[2] >= 0) {
			close(lfd[1]); /* now nothing listens there */
			lfd[1] = -1;
			return b;
		}
		close(lfd[0]);
		if (lfd[1] >= 0)
			close(lfd[1]);
		if (lfd[2] >= 0)
			close(lfd[2]);
	}
	ck_abort_msg("no three free ports in a row");
	return 0;
}

/* What the silent listener got on its connection l (NULL: the next one
 * it accepts), until the agent closed it: VERIFY frames, others. */
static void silent_got(int lfd, struct mw_link *l, int *verify, int *others)
{
	struct pollfd p = {lfd, POLLIN, 0};
	struct mw_hb_msg r;
	enum mw_hb_err e;
	int rc;
	*verify = *others = 0;
	if (!l) {
		ck_assert_int_eq(poll(&p, 1, 10000), 1);
		l = mw_link_accept(lfd);
	}
	ck_assert_ptr_nonnull(l);
	while ((rc = mw_link_recv_wait(l, &r, &e, 10)) == 1) {
		if (r.type == MW_HB_VERIFY)
			(*verify)++;
		else
			(*others)++;
		mw_hb_msg_free(&r);
	}
	ck_assert_int_eq(rc, -1); /* then the agent closed it */
	mw_link_close(l);
}

/* ------------------------------------------------------------ the agent */

struct bench {
	uv_loop_t loop;
	struct ag_opts o;
	struct agent a;
	uv_timer_t tick;
	unsigned long ticks, ticks_busy; /* the loop's ticks, those while a try was under way */
	int until;                         /* stop when: 0 a link is up, 1 no try under way */
};

static void on_tick(uv_timer_t *t)
{
	struct bench *b = t->data;
	b->ticks++;
	if (ag_connect_busy(&b->a))
		b->ticks_busy++;
	if ((b->until == 0 && b->a.link && !ag_connect_busy(&b->a)) || (b->until == 1 && !ag_connect_busy(&b->a)))
		uv_stop(&b->loop);
	if (b->ticks > 6000) /* a guard: the test fails on what it finds */
		uv_stop(&b->loop);
}

static void bench_init(struct bench *b, uint16_t port, int nports)
{
	memset(b, 0, sizeof *b);
	ck_assert_int_eq(uv_loop_init(&b->loop), 0);
	ag_opts_default(&b->o);
	snprintf(b->o.job, sizeof b->o.job, JOB);
	snprintf(b->o.node, sizeof b->o.node, "n1");
	snprintf(b->o.host, sizeof b->o.host, "127.0.0.1");
	snprintf(b->o.auth_token, sizeof b->o.auth_token, TOKEN);
	b->o.port = port;
	mw_settings_reset();
	{
		char n[16];
		snprintf(n, sizeof n, "%d", nports);
		mw_unit_set(MW_SET_PORTS, n);
	}
	mw_unit_set(MW_SET_CONNECT_TIMEOUT, "2");
	mw_unit_set(MW_SET_HANDSHAKE_TIMEOUT, "0.3"); /* the silent listener's wait */
	mw_unit_set(MW_SET_LIVENESS, "0");
	b->a.o = &b->o;
	b->a.loop = &b->loop;
	uv_timer_init(&b->loop, &b->tick);
	b->tick.data = b;
	uv_timer_start(&b->tick, on_tick, 5, 5);
}

/* Run the loop until b->until holds. */
static void bench_run(struct bench *b, int until)
{
	b->until = until;
	uv_run(&b->loop, UV_RUN_DEFAULT);
}

/* Everything closed: the loop ends with no handle left. */
static void bench_end(struct bench *b)
{
	ag_connect_stop(&b->a);
	if (b->a.lpoll)
		uv_close((uv_handle_t *)b->a.lpoll, (uv_close_cb)free);
	mw_link_close(b->a.link);
	b->a.link = NULL;
	ag_tree_free(b->a.tree);
	uv_close((uv_handle_t *)&b->tick, NULL);
	uv_run(&b->loop, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(&b->loop), 0);
}

/* The collector's ports: the first accepts and never answers (its
 * handshake_timeout passes while the loop serves a timer), the second
 * refuses, the third is the collector: the agent attaches there.  The
 * silent one got our nonce and nothing else. */
START_TEST(test_ports_in_turn)
{
	int lfd[3], verify, others;
	uint16_t port = three_ports(27600, lfd);
	struct bench b;
	struct fake col;
	char peer[64];
	fake_start(&col, lfd[2]);
	bench_init(&b, port, 3);
	ag_connect_try(&b.a);
	ck_assert_int_eq(ag_connect_busy(&b.a), 1); /* begun, not waited for */
	ck_assert_ptr_null(b.a.link);
	bench_run(&b, 0);
	ck_assert_ptr_nonnull(b.a.link);
	snprintf(peer, sizeof peer, "127.0.0.1:%u", port + 2);
	ck_assert_str_eq(mw_link_peer(b.a.link), peer);
	ck_assert_uint_gt(b.ticks_busy, 0); /* the loop served its timer meanwhile */
	ck_assert_uint_eq(b.a.connects, 1);
	ck_assert_uint_eq(b.a.connect_failures, 0);
	bench_end(&b);
	fake_join(&col);
	ck_assert_int_eq(col.verified, 1);
	ck_assert_msg(col.hello_ok, "the hello's proof: %s", col.err);
	ck_assert_str_eq(col.node, "n1");
	silent_got(lfd[0], NULL, &verify, &others);
	ck_assert_int_eq(verify, 1);
	ck_assert_int_eq(others, 0);
	close(lfd[0]);
}
END_TEST

/* No port answers: the round fails (backoff, the silent port's reason
 * kept); the next try is given up at shutdown (ag_connect_stop) while its
 * handshake waits: its socket is closed and no handle is left. */
START_TEST(test_round_fails_then_stop)
{
	int lfd[3], verify, others;
	uint16_t port = three_ports(27700, lfd);
	struct bench b;
	close(lfd[2]);
	bench_init(&b, port, 2);
	ag_connect_try(&b.a);
	bench_run(&b, 1);
	ck_assert_ptr_null(b.a.link);
	ck_assert_uint_eq(b.a.connect_failures, 1);
	ck_assert_uint_eq(b.a.connects, 0);
	ck_assert_ptr_nonnull(strstr(b.a.try_why, "no valid challenge"));
	ck_assert(b.a.next_connect > 0);
	silent_got(lfd[0], NULL, &verify, &others); /* the first try's connection */
	ck_assert_int_eq(verify, 1);
	ck_assert_int_eq(others, 0);
	/* The next try, stopped once its nonce reached the silent port (it
	 * waits for the challenge). */
	mw_unit_set(MW_SET_HANDSHAKE_TIMEOUT, "60");
	ag_connect_try(&b.a);
	{
		struct mw_link *s = NULL;
		struct pollfd p = {-1, POLLIN, 0};
		while (b.ticks < 6000 && !(s && poll(&p, 1, 0) == 1)) {
			uv_run(&b.loop, UV_RUN_ONCE);
			if (!s && (s = mw_link_accept(lfd[0])))
				p.fd = mw_link_fd(s);
		}
		ck_assert_ptr_nonnull(s);
		ck_assert_ptr_nonnull(b.a.hs);
		ag_connect_stop(&b.a);
		ck_assert_int_eq(ag_connect_busy(&b.a), 0);
		ck_assert_uint_eq(b.a.connect_failures, 1); /* given up, not counted */
		silent_got(lfd[0], s, &verify, &others);
	}
	ck_assert_int_eq(verify, 1);
	ck_assert_int_eq(others, 0);
	bench_end(&b);
	close(lfd[0]);
}
END_TEST

/* In the tree: the parent CP does not answer, the next ancestor does: the
 * agent attaches to it.  Then the move: on the collector, a ROLE naming a
 * CP; the agent attaches to the CP, then says goodbye to the collector. */
START_TEST(test_tree_and_move)
{
	int lfd[3], lfd2[3], verify, others;
	uint16_t port = three_ports(27800, lfd), port2;
	struct bench b;
	struct fake cp, col, cp2;
	struct mw_hb_role role = {0};
	fake_start(&cp, lfd[2]);
	bench_init(&b, 9, 1); /* the collector is not tried */
	role.nup = 2;
	snprintf(role.up[0].node, sizeof role.up[0].node, "n5");
	snprintf(role.up[0].host, sizeof role.up[0].host, "127.0.0.1");
	role.up[0].port = port; /* never answers */
	snprintf(role.up[1].node, sizeof role.up[1].node, "n6");
	snprintf(role.up[1].host, sizeof role.up[1].host, "127.0.0.1");
	role.up[1].port = (uint16_t)(port + 2);
	ck_assert_int_eq(ag_tree_role(&b.a.tree, &b.loop, &b.o, &role, NULL, NULL), 0);
	ck_assert_int_eq(ag_tree_wants_move(b.a.tree), 1);
	ag_connect_try(&b.a);
	bench_run(&b, 0);
	ck_assert_ptr_nonnull(b.a.link);
	ck_assert_str_eq(ag_tree_parent_name(b.a.tree), "CP on n6");
	ck_assert_uint_gt(b.ticks_busy, 0);
	bench_end(&b);
	fake_join(&cp);
	ck_assert(cp.hello_ok);
	silent_got(lfd[0], NULL, &verify, &others);
	ck_assert_int_eq(verify, 1);
	ck_assert_int_eq(others, 0);
	close(lfd[0]);

	/* The move: attached to the collector (port2 + 2) first. */
	port2 = three_ports(27900, lfd2);
	close(lfd2[0]);
	fake_start(&col, lfd2[2]);
	bench_init(&b, (uint16_t)(port2 + 2), 1);
	ag_connect_try(&b.a);
	bench_run(&b, 0);
	ck_assert_ptr_nonnull(b.a.link);
	ck_assert_str_eq(ag_tree_parent_name(b.a.tree), "collector");
	{ /* a CP to move to: a new listener */
		uint16_t p3 = 0;
		int l3 = mw_link_listen(28100, 200, &p3);
		ck_assert_int_ge(l3, 0);
		fake_start(&cp2, l3);
		role.nup = 1;
		snprintf(role.up[0].node, sizeof role.up[0].node, "n7");
		role.up[0].port = p3;
	}
	ck_assert_int_eq(ag_tree_role(&b.a.tree, &b.loop, &b.o, &role, NULL, NULL), 0);
	ck_assert_int_eq(ag_tree_wants_move(b.a.tree), 1);
	ag_connect_move(&b.a);
	ck_assert_int_eq(ag_connect_moving(&b.a), 1);
	ck_assert_ptr_nonnull(b.a.link); /* still the collector's meanwhile */
	bench_run(&b, 0);
	ck_assert_ptr_nonnull(b.a.link);
	ck_assert_str_eq(ag_tree_parent_name(b.a.tree), "CP on n7");
	while (!__atomic_load_n(&col.over, __ATOMIC_ACQUIRE) && b.ticks < 6000) /* the goodbye flushed */
		uv_run(&b.loop, UV_RUN_ONCE);
	bench_end(&b);
	fake_join(&col);
	fake_join(&cp2);
	ck_assert(col.hello_ok && cp2.hello_ok);
	ck_assert_str_eq(col.bye, "moved into the tree: CP on n7");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("agconnect");
	TCase *tc = tcase_create("core");
	mw_log_open("test_agconnect", MW_LOG_STDERR, LOG_INFO);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_ports_in_turn);
	tcase_add_test(tc, test_round_fails_then_stop);
	tcase_add_test(tc, test_tree_and_move);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
