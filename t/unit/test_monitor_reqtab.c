/* test_monitor_reqtab.c - pending-request table and recent-send ring. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "reqtab.h"

static struct mwm_req mk(uint64_t h, int table, int peer, int tag)
{
	struct mwm_req r;
	memset(&r, 0, sizeof(r));
	r.handle = h;
	r.table = (uint8_t)table;
	r.peer = peer;
	r.tag = tag;
	r.active = 1;
	return r;
}

/* A sequence of operations and the expected table contents. */
struct op {
	char what;   /* 'p' put, 'd' delete, 'a' set inactive */
	uint64_t h;
	int peer;
};
static const struct {
	const char *name;
	struct op ops[8];
	int nops;
	int expect_used;
	uint64_t present[4];
	int npresent;
	uint64_t absent[4];
	int nabsent;
} cases[] = {
	{"empty", {{0}}, 0, 0, {0}, 0, {1, 2}, 2},
	{"one", {{'p', 10, 1}}, 1, 1, {10}, 1, {11}, 1},
	{"put-del", {{'p', 10, 1}, {'d', 10, 0}}, 2, 0, {0}, 0, {10}, 1},
	{"upsert", {{'p', 10, 1}, {'p', 10, 2}}, 2, 1, {10}, 1, {0}, 0},
	{"collide", {{'p', 1, 0}, {'p', 17, 0}, {'p', 33, 0}, {'d', 17, 0}}, 4, 2, {1, 33}, 2, {17}, 1},
	{"pointers", {{'p', 0x7f0000001000ULL, 0}, {'p', 0x7f0000001080ULL, 0}, {'d', 0x7f0000001000ULL, 0}},
	 3, 1, {0x7f0000001080ULL}, 1, {0x7f0000001000ULL}, 1},
	{"mpich-ints", {{'p', 0xac000000, 0}, {'p', 0xac000001, 0}}, 2, 2, {0xac000000, 0xac000001}, 2, {0}, 0},
};

START_TEST(test_ops)
{
	struct mwm_reqtab t;
	ck_assert_int_eq(mwm_reqtab_init(&t, 16), 0);
	for (int i = 0; i < cases[_i].nops; i++) {
		const struct op *o = &cases[_i].ops[i];
		if (o->what == 'p') {
			struct mwm_req r = mk(o->h, MWM_TABLE_SEND, o->peer, 1);
			ck_assert_ptr_nonnull(mwm_reqtab_put(&t, &r));
		} else if (o->what == 'd') {
			mwm_reqtab_del(&t, mwm_reqtab_find(&t, o->h));
		}
	}
	ck_assert_msg((int)t.nused == cases[_i].expect_used, "%s: used %u", cases[_i].name, t.nused);
	for (int i = 0; i < cases[_i].npresent; i++)
		ck_assert_ptr_nonnull(mwm_reqtab_find(&t, cases[_i].present[i]));
	for (int i = 0; i < cases[_i].nabsent; i++)
		ck_assert_ptr_null(mwm_reqtab_find(&t, cases[_i].absent[i]));
	{
		struct mwm_req out[64];
		ck_assert_int_eq(mwm_reqtab_snapshot(&t, out, 64), cases[_i].expect_used);
	}
	mwm_reqtab_destroy(&t);
}
END_TEST

START_TEST(test_upsert_keeps_latest)
{
	struct mwm_reqtab t;
	struct mwm_req r = mk(5, MWM_TABLE_RECV, 3, 9), *e;
	ck_assert_int_eq(mwm_reqtab_init(&t, 16), 0);
	mwm_reqtab_put(&t, &r);
	r.peer = 4;
	e = mwm_reqtab_put(&t, &r);
	ck_assert_int_eq(e->peer, 4);
	ck_assert_int_eq(e->id, 2); /* a new id: it is a new request */
	ck_assert_int_eq(e->gen % 2, 0);
	mwm_reqtab_destroy(&t);
}
END_TEST

START_TEST(test_full_and_churn)
{
	struct mwm_reqtab t;
	int ok = 0;
	ck_assert_int_eq(mwm_reqtab_init(&t, 64), 0);
	for (uint64_t h = 1; h <= 100; h++) {
		struct mwm_req r = mk(h, MWM_TABLE_SEND, 0, 0);
		if (mwm_reqtab_put(&t, &r))
			ok++;
	}
	ck_assert_int_eq(ok, 48); /* three quarters of 64 */
	ck_assert_int_eq((int)t.overflow, 52);
	/* churn: delete and insert many times; tombstones must not fill the table */
	for (uint64_t h = 1; h <= 48; h++)
		mwm_reqtab_del(&t, mwm_reqtab_find(&t, h));
	ck_assert_int_eq((int)t.nused, 0);
	mwm_reqtab_destroy(&t);
	ck_assert_int_eq(mwm_reqtab_init(&t, 512), 0);
	for (int round = 0; round < 1000; round++) {
		uint64_t h = 1000 + (uint64_t)round;
		struct mwm_req r = mk(h, MWM_TABLE_RECV, 0, 0);
		ck_assert_ptr_nonnull(mwm_reqtab_put(&t, &r));
		if (round % 3)
			mwm_reqtab_del(&t, mwm_reqtab_find(&t, h));
	}
	ck_assert_int_eq((int)t.nused, 334);
	for (int round = 0; round < 1000; round++)
		if (!(round % 3))
			ck_assert_ptr_nonnull(mwm_reqtab_find(&t, 1000 + (uint64_t)round));
	mwm_reqtab_destroy(&t);
}
END_TEST

START_TEST(test_persistent)
{
	struct mwm_reqtab t;
	struct mwm_req r = mk(77, MWM_TABLE_SEND, 1, 2), *e, out[4];
	ck_assert_int_eq(mwm_reqtab_init(&t, 16), 0);
	r.persistent = 1;
	r.active = 0;
	e = mwm_reqtab_put(&t, &r);
	mwm_reqtab_set_active(e, 1);
	ck_assert_int_eq(mwm_reqtab_snapshot(&t, out, 4), 1);
	ck_assert_int_eq(out[0].active, 1);
	ck_assert_int_eq(out[0].persistent, 1);
	mwm_reqtab_set_active(e, 0);
	ck_assert_int_eq(mwm_reqtab_snapshot(&t, out, 4), 1);
	ck_assert_int_eq(out[0].active, 0);
	mwm_reqtab_destroy(&t);
}
END_TEST

START_TEST(test_ring)
{
	static struct mwm_ring ring;
	struct mwm_req out[MWM_RING];
	memset(&ring, 0, sizeof(ring));
	ck_assert_int_eq(mwm_ring_snapshot(&ring, out), 0);
	for (int i = 0; i < 20; i++) {
		struct mwm_req r = mk(0, MWM_TABLE_SEND, i, i);
		mwm_ring_push(&ring, &r);
	}
	ck_assert_int_eq(mwm_ring_snapshot(&ring, out), MWM_RING);
	ck_assert_int_eq(out[0].peer, 19); /* newest first */
	ck_assert_int_eq(out[MWM_RING - 1].peer, 20 - MWM_RING);
}
END_TEST

/* Deletion frees the end of a probe run instead of leaving tombstones: one
 * request at a time leaves none; after any mix of puts and deletes on
 * colliding handles, every handle still in a reference set is found, none
 * deleted is, no tombstone is followed by a free entry and an emptied table
 * has no tombstone. */
static uint64_t handle_of(unsigned k) /* half of them collide in a 64-entry table */
{
	return k % 2 ? 0x1000 + (uint64_t)k : (uint64_t)k * 64 + 64;
}

/* Buffered sends: listed newest first since the last detach; the total
 * counts those the ring no longer holds. */
static const struct {
	const char *name;
	int before, after; /* pushes before and after a detach (-1: no detach) */
	uint64_t total;
	int listed, newest_tag;
} bsend_cases[] = {
	{"none", 0, -1, 0, 0, -1},
	{"one", 1, -1, 1, 1, 0},
	{"detached", 3, 0, 0, 0, -1},
	{"after detach", 3, 2, 2, 2, 4},
	{"more than the ring", MWM_RING + 4, -1, MWM_RING + 4, MWM_RING, MWM_RING + 3},
};

START_TEST(test_bsends)
{
	static struct mwm_bsends b;
	struct mwm_req out[MWM_RING];
	uint64_t total = 99;
	int tag = 0;
	memset(&b, 0, sizeof(b));
	for (int i = 0; i < bsend_cases[_i].before; i++) {
		struct mwm_req r = mk(0, MWM_TABLE_SEND, 1, tag++);
		mwm_bsends_push(&b, &r);
	}
	if (bsend_cases[_i].after >= 0) {
		mwm_bsends_detached(&b);
		for (int i = 0; i < bsend_cases[_i].after; i++) {
			struct mwm_req r = mk(0, MWM_TABLE_SEND, 1, tag++);
			mwm_bsends_push(&b, &r);
		}
	}
	int n = mwm_bsends_snapshot(&b, out, &total);
	ck_assert_int_eq(n, bsend_cases[_i].listed);
	ck_assert_uint_eq(total, bsend_cases[_i].total);
	if (n)
		ck_assert_int_eq(out[0].tag, bsend_cases[_i].newest_tag);
	for (int i = 1; i < n; i++)
		ck_assert_int_eq(out[i].tag, out[i - 1].tag - 1);
}
END_TEST

START_TEST(test_del_frees_run_end)
{
	struct mwm_reqtab t;
	uint8_t in[40] = {0};
	uint32_t seed = 12345;
	ck_assert_int_eq(mwm_reqtab_init(&t, 64), 0);
	for (uint64_t h = 1; h <= 1000; h++) {
		struct mwm_req r = mk(h, MWM_TABLE_SEND, 0, 0);
		ck_assert_ptr_nonnull(mwm_reqtab_put(&t, &r));
		mwm_reqtab_del(&t, mwm_reqtab_find(&t, h));
		ck_assert_int_eq((int)t.ntomb, 0);
	}
	for (int round = 0; round < 20000; round++) {
		unsigned k;
		seed = seed * 1103515245u + 12345u;
		k = (seed >> 16) % 40;
		if (in[k] && (seed & 0x100)) {
			mwm_reqtab_del(&t, mwm_reqtab_find(&t, handle_of(k)));
			in[k] = 0;
		} else if (!in[k]) {
			struct mwm_req r = mk(handle_of(k), MWM_TABLE_SEND, 0, 0);
			ck_assert_ptr_nonnull(mwm_reqtab_put(&t, &r));
			in[k] = 1;
		}
		for (unsigned j = 0; j < 40; j++)
			ck_assert_msg((mwm_reqtab_find(&t, handle_of(j)) != NULL) == in[j], "round %d handle %llu", round,
				      (unsigned long long)handle_of(j));
		for (uint32_t i = 0; i < t.cap; i++)
			ck_assert(!(t.e[i].used == MWM_REQ_TOMB && t.e[(i + 1) % t.cap].used == MWM_REQ_FREE));
	}
	for (unsigned j = 0; j < 40; j++)
		mwm_reqtab_del(&t, mwm_reqtab_find(&t, handle_of(j)));
	ck_assert_int_eq((int)t.nused, 0);
	ck_assert_int_eq((int)t.ntomb, 0);
	mwm_reqtab_destroy(&t);
}
END_TEST

/* A reader thread copies the table while the writer churns: every copy
 * must be an entry that was really written (peer == tag). */
#include <pthread.h>
static struct mwm_reqtab ct;
static volatile int stop_reader;
static void *reader(void *arg)
{
	struct mwm_req *out = calloc(ct.cap, sizeof(*out));
	long bad = 0;
	(void)arg;
	while (!stop_reader) {
		int n = mwm_reqtab_snapshot(&ct, out, (int)ct.cap);
		for (int i = 0; i < n; i++)
			if (out[i].peer != out[i].tag || out[i].handle != (uint64_t)out[i].peer)
				bad++;
	}
	free(out);
	return (void *)bad;
}

START_TEST(test_concurrent_snapshot)
{
	pthread_t th;
	void *bad;
	ck_assert_int_eq(mwm_reqtab_init(&ct, 256), 0);
	stop_reader = 0;
	pthread_create(&th, NULL, reader, NULL);
	for (int round = 0; round < 200000; round++) {
		int h = 1 + round % 150;
		struct mwm_req *e = mwm_reqtab_find(&ct, (uint64_t)h);
		if (e) {
			mwm_reqtab_del(&ct, e);
		} else {
			struct mwm_req r = mk((uint64_t)h, MWM_TABLE_RECV, h, h);
			mwm_reqtab_put(&ct, &r);
		}
	}
	stop_reader = 1;
	pthread_join(th, &bad);
	ck_assert_int_eq((long)bad, 0);
	mwm_reqtab_destroy(&ct);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("monitor_reqtab");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int nf;
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_ops, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, test_upsert_keeps_latest);
	tcase_add_test(tc, test_full_and_churn);
	tcase_add_test(tc, test_persistent);
	tcase_add_test(tc, test_ring);
	tcase_add_loop_test(tc, test_bsends, 0, sizeof(bsend_cases) / sizeof(bsend_cases[0]));
	tcase_add_test(tc, test_del_frees_run_end);
	tcase_add_test(tc, test_concurrent_snapshot);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? 1 : 0;
}
