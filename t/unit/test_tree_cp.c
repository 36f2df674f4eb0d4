/* Unit tests of tree/mwt_cp.c, the communication process role, over real
 * TCP on loopback: a child is welcomed only with a valid credential (here
 * the token of "mpiwatch run"; MUNGE goes through the same check as the
 * collector's), its heartbeats go up as one aggregate each counted once,
 * its RANK frames go up as they are, a DUMPREQ goes down, and after a new
 * parent link everything counted is sent again; APREQ down the subtrees
 * that hold its nodes, APOUT up from them only; probing down the tree. */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "heartbeat.h"
#include "log.h"
#include "auth.h"
#include "mw_link.h"
#include "mwt_agg.h"
#include "mwt_cp.h"
#include "mwt_probe.h"
#include "unit.h"

static struct mw_hb_msg up_msgs[64];
static char *up_json[64];
static int nup;
static int up_down; /* 1: the parent link is gone (up fails) */

static int up(void *arg, const struct mw_hb_msg *m)
{
	(void)arg;
	if (up_down)
		return -1;
	if (nup < 64) {
		up_msgs[nup] = *m;
		up_json[nup] = m->type == MW_HB_AGG ? strdup(m->u.agg.json)
			       : m->type == MW_HB_PROBESUM ? strdup(m->u.probesum.json)
			       : m->type == MW_HB_APOUT && m->u.apout.output ? strdup(m->u.apout.output) : NULL;
		nup++;
	}
	return 0;
}

static void up_reset(void)
{
	for (int i = 0; i < nup; i++)
		free(up_json[i]);
	nup = 0;
}

static int count_up(int type)
{
	int n = 0;
	for (int i = 0; i < nup; i++)
		n += up_msgs[i].type == (enum mw_hb_type)type;
	return n;
}

/* The loop the CPs run on (mwt_cp_create). */
static uv_loop_t *test_loop(void)
{
	static uv_loop_t l;
	static int ready;
	if (!ready && uv_loop_init(&l) == 0)
		ready = 1;
	return &l;
}

static void wake(uv_timer_t *t)
{
	(void)t;
}

/* Let the CP work for s seconds (it runs on the loop: waits of 10 ms at
 * most, as the poll loop this replaces). */
static void pump(struct mwt_cp *cp, double s)
{
	static uv_timer_t t;
	static int ready;
	double end = mw_now() + s;
	(void)cp;
	if (!ready) {
		uv_timer_init(test_loop(), &t);
		ready = 1;
	}
	/* Repeating, from the loop's time now: the loop never sleeps past
	 * 10 ms, also when it starts late (valgrind), when a one-shot timer
	 * would already have fired before the wait. */
	uv_update_time(test_loop());
	uv_timer_start(&t, wake, 10, 10);
	while (mw_now() < end)
		uv_run(test_loop(), UV_RUN_ONCE);
	uv_timer_stop(&t);
}

/* The next frame on l, letting the CP work meanwhile (at most 10 s: the
 * machine may be loaded).  Return 1 with m, or 0. */
static int recv_pumped(struct mwt_cp *cp, struct mw_link *l, struct mw_hb_msg *m)
{
	double end = mw_now() + 10;
	while (mw_now() < end) {
		enum mw_hb_err e;
		int rc;
		pump(cp, 0.01);
		rc = mw_link_recv(l, m, &e);
		if (rc != 0)
			return rc == 1;
	}
	return 0;
}

/* Connect to the CP and authenticate both ways: our nonce; the CP's
 * challenge, whose proof must be its token's (abc123) over its job, the
 * endpoint we reached and both nonces; then a hello with cred: "token:TOK"
 * is the proof TOK makes, anything else is sent as it is.  Return the link
 * and the welcome in *w. */
static struct mw_link *attach(struct mwt_cp *cp, uint16_t port, const char *node, const char *cred,
			      struct mw_hb_msg *w)
{
	struct mw_link *l = mw_link_connect("127.0.0.1", port, 1.0);
	struct mw_hb_msg m = {0}, r;
	char payload[400], err[200], na[MW_HB_NONCE_LEN + 1];
	ck_assert_ptr_nonnull(l);
	m.type = MW_HB_VERIFY;
	ck_assert_int_eq(mw_auth_nonce(na, sizeof na), 0);
	memcpy(m.u.verify.nonce, na, sizeof na);
	ck_assert_int_eq(mw_link_send(l, &m), 0);
	ck_assert_int_eq(recv_pumped(cp, l, &r), 1);
	ck_assert_int_eq(r.type, MW_HB_CHALLENGE);
	ck_assert_str_eq(r.u.challenge.job, "77");
	ck_assert_int_eq(mw_hb_proof_payload("77", mw_link_peer(l), na, r.u.challenge.nonce, payload, sizeof payload), 0);
	ck_assert_msg(mw_auth_token_check(r.u.challenge.cred, "abc123", payload, err, sizeof err) == 0, "%s", err);
	/* the same proof does not pass for another endpoint (a relay's) or token */
	ck_assert_int_eq(mw_hb_proof_payload("77", "127.0.0.1:1", na, r.u.challenge.nonce, payload, sizeof payload), 0);
	ck_assert_int_ne(mw_auth_token_check(r.u.challenge.cred, "abc123", payload, err, sizeof err), 0);
	memset(&m, 0, sizeof m);
	m.type = MW_HB_HELLO;
	snprintf(m.u.hello.job, sizeof m.u.hello.job, "77");
	snprintf(m.u.hello.node, sizeof m.u.hello.node, "%s", node);
	if (strncmp(cred, "token:", 6) == 0) {
		ck_assert_int_eq(mw_hb_auth_payload("77", node, mw_link_peer(l), r.u.challenge.nonce, payload,
						    sizeof payload), 0);
		ck_assert_int_eq(mw_auth_token_sign(cred + 6, payload, m.u.hello.cred, sizeof m.u.hello.cred), 0);
	} else {
		snprintf(m.u.hello.cred, sizeof m.u.hello.cred, "%s", cred);
	}
	ck_assert_int_eq(mw_link_send(l, &m), 0);
	ck_assert_int_eq(recv_pumped(cp, l, w), 1);
	ck_assert_int_eq(w->type, MW_HB_WELCOME);
	return l;
}

static struct mw_hb_msg beat_msg(int rank, uint32_t seq)
{
	struct mw_hb_msg m;
	memset(&m, 0, sizeof m);
	m.type = MW_HB_HEARTBEAT;
	m.u.beat.rank = rank;
	m.u.beat.size = 8;
	m.u.beat.state = MW_HB_S_IN_MPI;
	snprintf(m.u.beat.call, sizeof m.u.beat.call, "MPI_Barrier");
	snprintf(m.u.beat.kind, sizeof m.u.beat.kind, "collective");
	snprintf(m.u.beat.comm, sizeof m.u.beat.comm, "world");
	m.u.beat.peer_world = -1;
	m.u.beat.root_world = -1;
	m.u.beat.tag = -1;
	m.u.beat.exit_code = -1;
	m.u.beat.idle_s = 2.5;
	m.u.beat.seq = seq;
	return m;
}

START_TEST(test_cp_auth_aggregate_resend)
{
	struct mwt_cp_opts o = {"77", "cp1", NULL, "abc123", 0.5, 0};
	uint16_t port = 0;
	struct mwt_cp *cp = mwt_cp_create(test_loop(), &o, up, NULL, &port);
	struct mw_link *bad, *kid;
	struct mw_hb_msg w, m;
	struct mwt_agg *a;
	char err[128];
	ck_assert_ptr_nonnull(cp);
	ck_assert_uint_gt(port, 0);
	up_reset();

	/* A wrong token, and no credential at all: refused, nothing goes up. */
	bad = attach(cp, port, "n9", "token:wrong", &w);
	ck_assert_int_eq(w.u.welcome.ok, 0);
	ck_assert_msg(strstr(w.u.welcome.error, "not authenticated"), "%s", w.u.welcome.error);
	mw_link_close(bad);
	bad = attach(cp, port, "n9", "", &w);
	ck_assert_int_eq(w.u.welcome.ok, 0);
	mw_link_close(bad);
	pump(cp, 0.1);
	ck_assert_int_eq(count_up(MW_HB_CHILD), 0);

	/* The right token: welcomed, and its parent learns of it. */
	kid = attach(cp, port, "n2", "token:abc123", &w);
	ck_assert_int_eq(w.u.welcome.ok, 1);
	pump(cp, 0.05);
	ck_assert_int_eq(count_up(MW_HB_CHILD), 1);
	ck_assert_str_eq(up_msgs[0].u.child.node, "n2");
	ck_assert_str_eq(up_msgs[0].u.child.parent, "cp1");
	ck_assert_int_eq(up_msgs[0].u.child.up, 1);

	/* A RANK goes up as it is; two heartbeats and one sent again go up
	 * as one aggregate of 2 events; the CP's own heartbeat joins it. */
	memset(&m, 0, sizeof m);
	m.type = MW_HB_RANK;
	m.u.rank.rank = 3;
	m.u.rank.size = 8;
	snprintf(m.u.rank.host, sizeof m.u.rank.host, "n2");
	ck_assert_int_eq(mw_link_send(kid, &m), 0);
	m = beat_msg(3, 100);
	ck_assert_int_eq(mw_link_send(kid, &m), 0);
	m = beat_msg(4, 101);
	ck_assert_int_eq(mw_link_send(kid, &m), 0);
	m = beat_msg(3, 100);
	ck_assert_int_eq(mw_link_send(kid, &m), 0);
	m = beat_msg(0, 7);
	ck_assert_int_eq(mwt_cp_beat(cp, "cp1", &m.u.beat, mw_now()), 1);
	for (double end = mw_now() + 10; mw_now() < end && !count_up(MW_HB_AGG);)
		pump(cp, 0.05);
	pump(cp, 0.1); /* nothing more comes: the duplicate is not counted again */
	ck_assert_int_eq(count_up(MW_HB_RANK), 1);
	ck_assert_int_eq(count_up(MW_HB_AGG), 1);
	for (int i = 0; i < nup; i++)
		if (up_msgs[i].type == MW_HB_AGG) {
			char ranks[32];
			a = mwt_agg_from_json(up_json[i], strlen(up_json[i]), err, sizeof err);
			ck_assert_msg(a != NULL, "%s", err);
			ck_assert_uint_eq(mwt_agg_events(a), 3);
			ck_assert_uint_eq(mwt_agg_nclasses(a), 1);
			mwt_agg_class_ranks(a, 0, ranks, sizeof ranks);
			ck_assert_str_eq(ranks, "0,3-4");
			ck_assert_str_eq(mwt_agg_class(a, 0)->comm, "world");
			mwt_agg_destroy(a);
		}

	/* A DUMPREQ goes down to the child. */
	{
		int32_t want[1] = {3};
		struct mw_hb_msg d = {0}, r;
		enum mw_hb_err e;
		d.type = MW_HB_DUMPREQ;
		d.u.dumpreq.ranks = want;
		d.u.dumpreq.n = 1;
		mwt_cp_dumpreq(cp, &d);
		ck_assert_int_eq(mw_link_recv_wait(kid, &r, &e, 10.0), 1);
		ck_assert_int_eq(r.type, MW_HB_DUMPREQ);
		ck_assert_int_eq(r.u.dumpreq.ranks[0], 3);
		mw_hb_msg_free(&r);
	}

	/* A new parent link: the RANK, the child and all 3 events again. */
	up_reset();
	mwt_cp_uplink(cp);
	ck_assert_int_eq(count_up(MW_HB_RANK), 1);
	ck_assert_int_eq(count_up(MW_HB_CHILD), 1);
	ck_assert_int_eq(count_up(MW_HB_AGG), 1);
	for (int i = 0; i < nup; i++)
		if (up_msgs[i].type == MW_HB_AGG) {
			a = mwt_agg_from_json(up_json[i], strlen(up_json[i]), err, sizeof err);
			ck_assert_ptr_nonnull(a);
			ck_assert_uint_eq(mwt_agg_events(a), 3);
			mwt_agg_destroy(a);
		}

	/* The child leaves without a goodbye: its parent learns it is lost. */
	up_reset();
	mw_link_close(kid);
	for (double end = mw_now() + 10; mw_now() < end && !count_up(MW_HB_CHILD);)
		pump(cp, 0.05);
	ck_assert_int_eq(count_up(MW_HB_CHILD), 1);
	ck_assert_int_eq(up_msgs[0].u.child.up, 0);
	ck_assert_int_eq(up_msgs[0].u.child.bye, 0);
	up_reset();
	mwt_cp_destroy(cp);
}
END_TEST

/* The last PROBESUM that went up, decoded (NULL if none). */
static struct mwt_psum *last_psum(void)
{
	char err[200];
	for (int i = nup; i-- > 0;)
		if (up_msgs[i].type == MW_HB_PROBESUM) {
			struct mwt_psum *x = mwt_psum_from_json(up_json[i], strlen(up_json[i]), err, sizeof err);
			ck_assert_msg(x != NULL, "%s", err);
			return x;
		}
	return NULL;
}

static const char *result_of(const struct mwt_psum *x, const char *node, struct mw_probe_result *r)
{
	for (size_t i = 0; i < mwt_psum_n(x); i++) {
		const char *n, *by;
		mwt_psum_get(x, i, &n, &by, r);
		if (!strcmp(n, node))
			return by;
	}
	return NULL;
}

/* A free UDP port on loopback, nobody listening: the probe gets the
 * kernel's port unreachable (a node up without nodehealthd). */
static uint16_t closed_udp_port(void)
{
	struct sockaddr_in sa = {0};
	socklen_t sl = sizeof sa;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
	close(fd);
	return ntohs(sa.sin_port);
}

/* The CP's own probe round does not hold the agent's loop: the child's
 * node is probed on a port that takes the probes and never answers (a dead
 * node: the round lasts its whole budget); mwt_cp_probereq returns with the
 * round under way (its first probe sent, no node probed to the end, no
 * summary); meanwhile a new child attaches and is welcomed, and a heartbeat
 * of the first child goes up, before the summary (n2 dead), which goes up
 * only after the round.  Asserted on state and order, not on time: the
 * budget (3 s) only has to outlast the welcome and one heartbeat. */
START_TEST(test_cp_probe_does_not_block)
{
	struct mwt_cp_opts o = {"77", "cp1", NULL, "abc123", 0.05, 2.0};
	uint16_t port = 0;
	struct sockaddr_in sa = {0};
	socklen_t sl = sizeof sa;
	int silent = socket(AF_INET, SOCK_DGRAM, 0);
	struct mwt_cp *cp = mwt_cp_create(test_loop(), &o, up, NULL, &port);
	struct mw_link *be, *late;
	struct mw_hb_msg w, m;
	struct mw_probe_result res;
	struct mwt_psum *x;
	unsigned long rounds, probed;
	uint8_t probe[512];
	int first_beat = -1, sum_at = -1;
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(silent, (struct sockaddr *)&sa, sizeof sa), 0);
	ck_assert_int_eq(getsockname(silent, (struct sockaddr *)&sa, &sl), 0);
	struct mw_hb_probereq req = {1, ntohs(sa.sin_port), 2, 3.0, 5.0};
	ck_assert_ptr_nonnull(cp);
	up_reset();
	be = attach(cp, port, "n2", "token:abc123", &w);
	ck_assert_int_eq(w.u.welcome.ok, 1);
	pump(cp, 0.1);
	up_reset();
	mwt_cp_probereq(cp, &req, mw_now());
	/* returned with the round under way: its first probe is out, no node
	 * is probed to the end, no summary went up */
	ck_assert_int_gt(recv(silent, probe, sizeof probe, MSG_DONTWAIT), 0);
	mwt_cp_probe_stats(cp, &rounds, &probed);
	ck_assert_uint_eq(rounds, 1);
	ck_assert_uint_eq(probed, 0);
	ck_assert_int_eq(count_up(MW_HB_PROBESUM), 0);
	late = attach(cp, port, "n9", "token:abc123", &w);
	ck_assert_int_eq(w.u.welcome.ok, 1);
	m = beat_msg(3, 1);
	ck_assert_int_eq(mw_link_send(be, &m), 0);
	for (double end = mw_now() + 10; mw_now() < end && !count_up(MW_HB_AGG) && !count_up(MW_HB_HEARTBEAT);)
		pump(cp, 0.02);
	ck_assert_int_eq(count_up(MW_HB_PROBESUM), 0); /* the round is still under way */
	ck_assert_int_ge(count_up(MW_HB_AGG) + count_up(MW_HB_HEARTBEAT), 1);
	for (double end = mw_now() + 10; mw_now() < end && !count_up(MW_HB_PROBESUM);)
		pump(cp, 0.02);
	/* the order upward: the heartbeat first, then the one summary */
	for (int i = 0; i < nup; i++) {
		if (first_beat < 0 && (up_msgs[i].type == MW_HB_AGG || up_msgs[i].type == MW_HB_HEARTBEAT))
			first_beat = i;
		if (sum_at < 0 && up_msgs[i].type == MW_HB_PROBESUM)
			sum_at = i;
	}
	ck_assert_int_ge(first_beat, 0);
	ck_assert_int_gt(sum_at, first_beat);
	ck_assert_int_eq(count_up(MW_HB_PROBESUM), 1);
	mwt_cp_probe_stats(cp, &rounds, &probed);
	ck_assert_uint_eq(rounds, 1);
	ck_assert_uint_eq(probed, 1); /* n2, probed to the end of its tries */
	x = last_psum();
	ck_assert_ptr_nonnull(x);
	ck_assert_str_eq(result_of(x, "n2", &res), "cp1");
	ck_assert_int_eq(res.state, MW_PROBE_DEAD);
	ck_assert_int_eq(res.tries, 2);
	mwt_psum_destroy(x);
	up_reset();
	mw_link_close(be);
	mw_link_close(late);
	close(silent);
	mwt_cp_destroy(cp);
}
END_TEST

/* Probing down the tree: the CP probes its children's nodes itself (the
 * collector's probe code), passes the request to its child CP (known as
 * one by a CHILD frame naming it parent) with a shorter wait, merges that
 * CP's summary and sends ONE summary up; a summary not asked for is
 * dropped; a child CP that does not answer is listed missing when the wait
 * is over. */
START_TEST(test_cp_probe_down)
{
	struct mwt_cp_opts o = {"77", "cp1", NULL, "abc123", 0.05, 2.0};
	uint16_t port = 0, uport = closed_udp_port();
	struct mwt_cp *cp = mwt_cp_create(test_loop(), &o, up, NULL, &port);
	struct mw_link *be, *sub;
	struct mw_hb_msg w, m, r;
	struct mw_hb_probereq req = {1, uport, 2, 0.5, 2.0};
	struct mw_probe_result res;
	struct mwt_psum *x, *mine;
	enum mw_hb_err e;
	char *json;
	ck_assert_ptr_nonnull(cp);
	up_reset();
	be = attach(cp, port, "n2", "token:abc123", &w);
	ck_assert_int_eq(w.u.welcome.ok, 1);
	sub = attach(cp, port, "cp3", "token:abc123", &w);
	ck_assert_int_eq(w.u.welcome.ok, 1);
	memset(&m, 0, sizeof m);
	m.type = MW_HB_CHILD;
	snprintf(m.u.child.node, sizeof m.u.child.node, "n5");
	snprintf(m.u.child.parent, sizeof m.u.child.parent, "cp3");
	m.u.child.up = 1;
	ck_assert_int_eq(mw_link_send(sub, &m), 0);
	for (double end = mw_now() + 10; mw_now() < end && count_up(MW_HB_CHILD) < 3;)
		pump(cp, 0.02);
	ck_assert_int_eq(count_up(MW_HB_CHILD), 3);
	up_reset();

	/* Round 1: cp3 is asked (wait 0.3 s shorter), n2 is not. */
	mwt_cp_probereq(cp, &req, mw_now());
	ck_assert_int_eq(mw_link_recv_wait(sub, &r, &e, 10.0), 1);
	ck_assert_int_eq(r.type, MW_HB_PROBEREQ);
	ck_assert_uint_eq(r.u.probereq.round, 1);
	ck_assert_uint_eq(r.u.probereq.port, uport);
	ck_assert(r.u.probereq.wait_s > 1.6 && r.u.probereq.wait_s < 1.8);
	ck_assert_int_eq(mw_link_recv_wait(be, &r, &e, 0.2), 0);
	ck_assert_int_eq(count_up(MW_HB_PROBESUM), 0); /* waits for cp3 */

	/* n2 sends a summary nobody asked of it: dropped. */
	mine = mwt_psum_create(1, "n2");
	memset(&res, 0, sizeof res);
	res.state = MW_PROBE_DEAD;
	res.rtt_ms = -1;
	ck_assert_int_eq(mwt_psum_add(mine, "n7", "n2", &res), 1);
	json = mwt_psum_to_json(mine);
	memset(&m, 0, sizeof m);
	m.type = MW_HB_PROBESUM;
	m.u.probesum.json = json;
	ck_assert_int_eq(mw_link_send(be, &m), 0);
	free(json);
	mwt_psum_destroy(mine);
	pump(cp, 0.2);
	ck_assert_int_eq(count_up(MW_HB_PROBESUM), 0);

	/* cp3's summary: n5 dead.  The CP's one summary goes up at once. */
	mine = mwt_psum_create(1, "cp3");
	ck_assert_int_eq(mwt_psum_add(mine, "n5", "cp3", &res), 1);
	json = mwt_psum_to_json(mine);
	m.u.probesum.json = json;
	ck_assert_int_eq(mw_link_send(sub, &m), 0);
	free(json);
	mwt_psum_destroy(mine);
	for (double end = mw_now() + 10; mw_now() < end && !count_up(MW_HB_PROBESUM);)
		pump(cp, 0.02);
	ck_assert_int_eq(count_up(MW_HB_PROBESUM), 1);
	x = last_psum();
	ck_assert_uint_eq(mwt_psum_round(x), 1);
	ck_assert_str_eq(mwt_psum_from(x), "cp1");
	ck_assert_uint_eq(mwt_psum_n(x), 3);
	ck_assert_uint_eq(mwt_psum_nmissing(x), 0);
	ck_assert_str_eq(result_of(x, "n2", &res), "cp1");
	ck_assert_int_eq(res.state, MW_PROBE_NODAEMON); /* up, nobody on that port */
	ck_assert_str_eq(result_of(x, "cp3", &res), "cp1");
	ck_assert_int_eq(res.state, MW_PROBE_NODAEMON);
	ck_assert_str_eq(result_of(x, "n5", &res), "cp3");
	ck_assert_int_eq(res.state, MW_PROBE_DEAD);
	ck_assert_ptr_null(result_of(x, "n7", &res));
	mwt_psum_destroy(x);

	/* Round 2: cp3 does not answer: listed missing after the wait. */
	up_reset();
	req.round = 2;
	req.wait_s = 1.0;
	mwt_cp_probereq(cp, &req, mw_now());
	ck_assert_int_eq(mw_link_recv_wait(sub, &r, &e, 10.0), 1);
	ck_assert_int_eq(r.type, MW_HB_PROBEREQ);
	for (double end = mw_now() + 10; mw_now() < end && !count_up(MW_HB_PROBESUM);)
		pump(cp, 0.02);
	x = last_psum();
	ck_assert_ptr_nonnull(x);
	ck_assert_uint_eq(mwt_psum_round(x), 2);
	ck_assert_uint_eq(mwt_psum_n(x), 2);
	ck_assert_uint_eq(mwt_psum_nmissing(x), 1);
	ck_assert_str_eq(mwt_psum_missing_at(x, 0), "cp3");
	mwt_psum_destroy(x);

	/* n2 is lost without a goodbye: the next round still probes it. */
	up_reset();
	mw_link_close(be);
	for (double end = mw_now() + 10; mw_now() < end && !count_up(MW_HB_CHILD);)
		pump(cp, 0.02);
	ck_assert_int_eq(count_up(MW_HB_CHILD), 1);
	up_reset();
	req.round = 3;
	mwt_cp_probereq(cp, &req, mw_now());
	for (double end = mw_now() + 10; mw_now() < end && !count_up(MW_HB_PROBESUM);)
		pump(cp, 0.02);
	x = last_psum();
	ck_assert_ptr_nonnull(x);
	ck_assert_str_eq(result_of(x, "n2", &res), "cp1");
	ck_assert_uint_eq(mwt_psum_n(x), 2);
	mwt_psum_destroy(x);
	up_reset();
	mw_link_close(sub);
	mwt_cp_destroy(cp);
}
END_TEST


/* Auxiliary processes through the CP: an APREQ naming nodes goes only down
 * the subtrees that hold them (the child, or a node its CHILD frames named),
 * one naming none to every child; an APOUT goes up as it is from the
 * subtree that holds its node, and is dropped from any other. */
static void send_apout(struct mw_link *l, const char *node)
{
	struct mw_hb_msg m = {0};
	m.type = MW_HB_APOUT;
	m.u.apout.round = 1;
	snprintf(m.u.apout.node, sizeof m.u.apout.node, "%s", node);
	snprintf(m.u.apout.name, sizeof m.u.apout.name, "host");
	m.u.apout.output = (char *)"out\n";
	ck_assert_int_eq(mw_link_send(l, &m), 0);
}

/* An APOUT from a child while the CP has no parent link (its own was lost)
 * is kept and goes up after the re-attachment (mwt_cp_uplink), output and
 * all, once. */
START_TEST(test_cp_apout_kept_without_parent)
{
	struct mwt_cp_opts o = {"77", "cp1", NULL, "abc123", 0.05, 2.0};
	uint16_t port = 0;
	struct mwt_cp *cp = mwt_cp_create(test_loop(), &o, up, NULL, &port);
	struct mw_link *be;
	struct mw_hb_msg w;
	int seen = 0;
	ck_assert_ptr_nonnull(cp);
	up_reset();
	be = attach(cp, port, "n2", "token:abc123", &w);
	ck_assert_int_eq(w.u.welcome.ok, 1);
	pump(cp, 0.1);
	up_reset();
	up_down = 1;
	send_apout(be, "n2");
	pump(cp, 0.3);
	ck_assert_int_eq(count_up(MW_HB_APOUT), 0);
	up_down = 0;
	mwt_cp_uplink(cp);
	for (int i = 0; i < nup; i++)
		if (up_msgs[i].type == MW_HB_APOUT) {
			seen++;
			ck_assert_str_eq(up_msgs[i].u.apout.node, "n2");
			ck_assert_str_eq(up_json[i], "out\n");
		}
	ck_assert_int_eq(seen, 1);
	mwt_cp_uplink(cp); /* sent once */
	ck_assert_int_eq(count_up(MW_HB_APOUT), 1);
	up_reset();
	mw_link_close(be);
	mwt_cp_destroy(cp);
}
END_TEST

/* Whether l gets an APREQ within s seconds (pumping the CP). */
static int got_apreq(struct mwt_cp *cp, struct mw_link *l, double s)
{
	double end = mw_now() + s;
	while (mw_now() < end) {
		struct mw_hb_msg r;
		enum mw_hb_err e;
		int rc;
		pump(cp, 0.01);
		rc = mw_link_recv(l, &r, &e);
		if (rc == 1) {
			int ok = r.type == MW_HB_APREQ;
			mw_hb_msg_free(&r);
			if (ok)
				return 1;
		}
	}
	return 0;
}

START_TEST(test_cp_ap)
{
	struct mwt_cp_opts o = {"77", "cp1", NULL, "abc123", 0.05, 0};
	uint16_t port = 0;
	struct mwt_cp *cp = mwt_cp_create(test_loop(), &o, up, NULL, &port);
	struct mw_link *be, *sub;
	struct mw_hb_msg w, m = {0};
	char names[1][MW_HB_STR_MAX + 1] = {"n5"};
	ck_assert_ptr_nonnull(cp);
	up_reset();
	be = attach(cp, port, "n2", "token:abc123", &w);
	ck_assert_int_eq(w.u.welcome.ok, 1);
	sub = attach(cp, port, "n3", "token:abc123", &w);
	ck_assert_int_eq(w.u.welcome.ok, 1);
	/* n3, a CP itself, tells of n5 attached below it. */
	m.type = MW_HB_CHILD;
	snprintf(m.u.child.node, sizeof m.u.child.node, "n5");
	snprintf(m.u.child.parent, sizeof m.u.child.parent, "n3");
	m.u.child.up = 1;
	ck_assert_int_eq(mw_link_send(sub, &m), 0);
	for (double end = mw_now() + 10; mw_now() < end && count_up(MW_HB_CHILD) < 3;)
		pump(cp, 0.05);
	ck_assert_int_eq(count_up(MW_HB_CHILD), 3);

	/* For n5 only: down n3's subtree, not to n2. */
	memset(&m, 0, sizeof m);
	m.type = MW_HB_APREQ;
	m.u.apreq.round = 1;
	m.u.apreq.nodes = names;
	m.u.apreq.n = 1;
	mwt_cp_apreq(cp, &m);
	ck_assert_int_eq(got_apreq(cp, sub, 10), 1);
	ck_assert_int_eq(got_apreq(cp, be, 0.3), 0);
	/* For every node: to both. */
	m.u.apreq.nodes = NULL;
	m.u.apreq.n = 0;
	mwt_cp_apreq(cp, &m);
	ck_assert_int_eq(got_apreq(cp, sub, 10), 1);
	ck_assert_int_eq(got_apreq(cp, be, 10), 1);

	/* n5's output from n3 goes up; n2 speaking for n5 is dropped, its
	 * own output goes up. */
	up_reset();
	send_apout(sub, "n5");
	send_apout(be, "n5");
	send_apout(be, "n2");
	for (double end = mw_now() + 10; mw_now() < end && count_up(MW_HB_APOUT) < 2;)
		pump(cp, 0.05);
	pump(cp, 0.2);
	ck_assert_int_eq(count_up(MW_HB_APOUT), 2);
	{
		int n5 = 0, n2 = 0;
		for (int i = 0; i < nup; i++)
			if (up_msgs[i].type == MW_HB_APOUT) {
				n5 += !strcmp(up_msgs[i].u.apout.node, "n5");
				n2 += !strcmp(up_msgs[i].u.apout.node, "n2");
			}
		ck_assert_int_eq(n5, 1);
		ck_assert_int_eq(n2, 1);
	}
	/* Both children still attached: a dropped APOUT does not close its link. */
	{
		size_t ch;
		unsigned long a, e;
		mwt_cp_stats(cp, &ch, &a, &e);
		ck_assert_uint_eq(ch, 2);
	}
	mw_link_close(be);
	mw_link_close(sub);
	up_reset();
	mwt_cp_destroy(cp);
}
END_TEST

/* The gathering window grows with the CP levels below: a CP whose child
 * n2 is itself a CP with a CP (g1) under it gathers for 3 windows, so
 * that the aggregates of n2 (2 windows) and of g1 (1) come in before it
 * sends one; a CP with a BE only gathers for one.  The window is 5 s
 * here: the deadlines tell, nothing waits for them. */
static double window_after_beat(const char *subtree[][2], int n, double *t0, double *t1)
{
	struct mwt_cp_opts o = {"77", "cp1", NULL, "abc123", 5.0, 0};
	uint16_t port = 0;
	struct mwt_cp *cp = mwt_cp_create(test_loop(), &o, up, NULL, &port);
	struct mw_link *kid;
	struct mw_hb_msg w, m = {0};
	size_t ch;
	unsigned long aggs, events = 0;
	double next;
	ck_assert_ptr_nonnull(cp);
	up_reset();
	kid = attach(cp, port, "n2", "token:abc123", &w);
	ck_assert_int_eq(w.u.welcome.ok, 1);
	for (int i = 0; i < n; i++) {
		memset(&m, 0, sizeof m);
		m.type = MW_HB_CHILD;
		snprintf(m.u.child.node, sizeof m.u.child.node, "%s", subtree[i][0]);
		snprintf(m.u.child.parent, sizeof m.u.child.parent, "%s", subtree[i][1]);
		m.u.child.up = 1;
		ck_assert_int_eq(mw_link_send(kid, &m), 0);
	}
	for (double end = mw_now() + 10; mw_now() < end && count_up(MW_HB_CHILD) < 1 + n;)
		pump(cp, 0.01);
	ck_assert_int_eq(count_up(MW_HB_CHILD), 1 + n);
	*t0 = mw_now();
	m = beat_msg(3, 100);
	ck_assert_int_eq(mw_link_send(kid, &m), 0);
	for (double end = mw_now() + 10; mw_now() < end && events < 1;) {
		pump(cp, 0.01);
		mwt_cp_stats(cp, &ch, &aggs, &events);
	}
	ck_assert_uint_eq(events, 1);
	ck_assert_uint_eq(aggs, 0); /* gathering */
	*t1 = mw_now();
	next = mwt_cp_tick(cp, *t1);
	mw_link_close(kid);
	up_reset();
	mwt_cp_destroy(cp);
	return next;
}

START_TEST(test_cp_window_per_level)
{
	const char *deep[][2] = {{"g1", "n2"}, {"g2", "g1"}, {"g3", "n2"}};
	double t0, t1, next;
	next = window_after_beat(NULL, 0, &t0, &t1);
	ck_assert_msg(next >= t0 + 5.0 - 1e-6 && next <= t1 + 5.0 + 1e-6, "BE only: %g s after", next - t0);
	next = window_after_beat(deep, 3, &t0, &t1);
	ck_assert_msg(next >= t0 + 15.0 - 1e-6 && next <= t1 + 15.0 + 1e-6, "2 CP levels below: %g s after",
		      next - t0);
}
END_TEST

/* The CP's agent stops within the gathering window (the job's epilog
 * right after a rank ended): the events gathered go up before it leaves,
 * with the last state of each rank (t/0411 in the tree pass lost a rank's
 * exit so: the collector then answered with the ranks the launcher
 * killed). */
START_TEST(test_cp_flush_on_leaving)
{
	struct mwt_cp_opts o = {"77", "cp1", NULL, "abc123", 5.0, 0};
	uint16_t port = 0;
	struct mwt_cp *cp = mwt_cp_create(test_loop(), &o, up, NULL, &port);
	struct mw_hb_msg m;
	struct mwt_agg *a;
	char err[200];
	size_t ch;
	unsigned long aggs, events;
	int exited = 0;
	ck_assert_ptr_nonnull(cp);
	up_reset();
	m = beat_msg(1, 1);
	ck_assert_int_eq(mwt_cp_beat(cp, "cp1", &m.u.beat, mw_now()), 1);
	m = beat_msg(1, 2);
	m.u.beat.state = MW_HB_S_EXITED;
	ck_assert_int_eq(mwt_cp_beat(cp, "cp1", &m.u.beat, mw_now()), 1);
	mwt_cp_stats(cp, &ch, &aggs, &events);
	ck_assert_uint_eq(aggs, 0); /* still gathering (5 s window) */
	mwt_cp_flush(cp);
	ck_assert_int_eq(count_up(MW_HB_AGG), 1);
	a = NULL;
	for (int i = 0; i < nup; i++)
		if (up_msgs[i].type == MW_HB_AGG)
			a = mwt_agg_from_json(up_json[i], strlen(up_json[i]), err, sizeof err);
	ck_assert_msg(a != NULL, "%s", err);
	ck_assert_uint_eq(mwt_agg_events(a), 2);
	for (size_t i = 0; i < mwt_agg_nclasses(a); i++)
		exited += mwt_agg_class(a, i)->state == MW_HB_S_EXITED;
	ck_assert_int_eq(exited, 1); /* the rank's exit is in it */
	mwt_agg_destroy(a);
	/* nothing sent twice when the window's end comes after all */
	mwt_cp_tick(cp, mw_now() + 10);
	ck_assert_int_eq(count_up(MW_HB_AGG), 1);
	up_reset();
	mwt_cp_destroy(cp);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tree_cp");
	TCase *tc = tcase_create("cp");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_cp_auth_aggregate_resend);
	tcase_add_test(tc, test_cp_probe_does_not_block);
	tcase_add_test(tc, test_cp_apout_kept_without_parent);
	tcase_add_test(tc, test_cp_probe_down);
	tcase_add_test(tc, test_cp_ap);
	tcase_add_test(tc, test_cp_window_per_level);
	tcase_add_test(tc, test_cp_flush_on_leaving);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
