/* Unit tests of tree/mwt_agg.c: per-origin sequence numbers (a duplicate is
 * dropped, nothing counted twice), a CP's aggregate of heartbeats (counts,
 * first/last time, rank ranges, classes of (state, call, peer)), its
 * encoding in an MW_HB_AGG frame of shared/heartbeat.h and the decoder's
 * checks.  The expected aggregates are worked out in the comments. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "heartbeat.h"
#include "mwt_agg.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

START_TEST(test_seq_in_order_dup_window)
{
	struct mwt_seq *s = mwt_seq_create();
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(mwt_seq_accept(s, "n1", 1), 1);
	ck_assert_int_eq(mwt_seq_accept(s, "n1", 2), 1);
	ck_assert_int_eq(mwt_seq_accept(s, "n1", 2), 0); /* duplicate */
	ck_assert_int_eq(mwt_seq_accept(s, "n1", 1), 0);
	ck_assert_int_eq(mwt_seq_accept(s, "n2", 2), 1); /* another origin, out of order */
	ck_assert_int_eq(mwt_seq_seen(s, "n2", 1), 0);
	ck_assert_int_eq(mwt_seq_accept(s, "n2", 1), 1);
	ck_assert_int_eq(mwt_seq_accept(s, "n2", 2), 0);
	ck_assert_int_eq(mwt_seq_seen(s, "n2", 2), 1);
	ck_assert_int_eq(mwt_seq_accept(s, "n1", 5), 1); /* a gap: 3 and 4 still welcome */
	ck_assert_int_eq(mwt_seq_accept(s, "n1", 4), 1);
	ck_assert_int_eq(mwt_seq_accept(s, "n1", 3), 1);
	ck_assert_int_eq(mwt_seq_accept(s, "n1", 5), 0);
	ck_assert_int_eq(mwt_seq_accept(s, "n1", 6), 1);
	/* 10000 slides the window: numbers up to 10000 - 4096 = 5904 count as seen */
	ck_assert_int_eq(mwt_seq_accept(s, "n1", 10000), 1);
	ck_assert_int_eq(mwt_seq_accept(s, "n1", 5904), 0);
	ck_assert_int_eq(mwt_seq_accept(s, "n1", 5905), 1);
	ck_assert_int_eq(mwt_seq_accept(s, "n1", 9999), 1);
	ck_assert_int_eq(mwt_seq_accept(s, "n1", 10000), 0);
	ck_assert_uint_eq(mwt_seq_origins(s), 2);
	errno = 0;
	ck_assert_int_eq(mwt_seq_accept(s, "n1", 0), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(mwt_seq_accept(s, "-bad", 1), -1);
	ck_assert_int_eq(mwt_seq_accept(s, "n1", 0x80000000u), -1);
	mwt_seq_destroy(s);
}
END_TEST

static struct mw_hb_beat beat(int rank, const char *call, int peer, uint32_t seq)
{
	struct mw_hb_beat b;
	memset(&b, 0, sizeof(b));
	b.rank = rank;
	b.size = 32;
	b.state = MW_HB_S_IN_MPI;
	snprintf(b.call, sizeof(b.call), "%s", call);
	b.peer_world = peer;
	b.root_world = -1;
	b.tag = -1;
	b.seq = seq;
	return b;
}

/* cp1 receives, from n1, ranks 0-3 in MPI_Allreduce (seq 1-4, at 10, 10.5,
 * 10.25, 11); from n2, rank 8 in MPI_Allreduce (seq 1, at 12) and rank 9 in
 * MPI_Recv from 0 (seq 2, at 12.5); then n2's seq 1 again (resent after a
 * re-attachment).  The aggregate: 6 events from 10 to 12.5; class
 * (in_mpi, MPI_Allreduce, -1): 5 events, 10 to 12, ranks "0-3,8", covering
 * n1 1-4 (ranks 0-3) and n2 1 (rank 8); class (in_mpi, MPI_Recv, 0): 1 event
 * at 12.5, n2 2 (rank 9). */
static const char *const cp1_json =
	"{\"v\":1,\"from\":\"cp1\",\"events\":6,\"first\":10.0,\"last\":12.5,\"classes\":["
	"{\"state\":\"in_mpi\",\"call\":\"MPI_Allreduce\",\"peer\":-1,"
	"\"kind\":\"\",\"comm\":\"\",\"root\":-1,\"tag\":-1,\"exit\":0,\"signal\":0,\"size\":32,\"moving\":\"\",\"idle\":0.0,\"count\":5,\"first\":10.0,\"last\":12.0,"
	"\"ranks\":\"0-3,8\",\"cover\":{\"n1\":{\"seq\":\"1-4\",\"rank\":\"0-3\"},\"n2\":{\"seq\":\"1\",\"rank\":\"8\"}}},"
	"{\"state\":\"in_mpi\",\"call\":\"MPI_Recv\",\"peer\":0,"
	"\"kind\":\"\",\"comm\":\"\",\"root\":-1,\"tag\":-1,\"exit\":0,\"signal\":0,\"size\":32,\"moving\":\"\",\"idle\":0.0,\"count\":1,\"first\":12.5,\"last\":12.5,"
	"\"ranks\":\"9\",\"cover\":{\"n2\":{\"seq\":\"2\",\"rank\":\"9\"}}}]}";

static struct mwt_agg *build_cp1(struct mwt_seq *seen)
{
	struct mwt_agg *a = mwt_agg_create("cp1");
	struct mw_hb_beat b;
	ck_assert_ptr_nonnull(a);
	b = beat(0, "MPI_Allreduce", -1, 1);
	ck_assert_int_eq(mwt_agg_add(a, seen, "n1", &b, 10), 1);
	b = beat(1, "MPI_Allreduce", -1, 2);
	ck_assert_int_eq(mwt_agg_add(a, seen, "n1", &b, 10.5), 1);
	b = beat(2, "MPI_Allreduce", -1, 3);
	ck_assert_int_eq(mwt_agg_add(a, seen, "n1", &b, 10.25), 1);
	b = beat(3, "MPI_Allreduce", -1, 4);
	ck_assert_int_eq(mwt_agg_add(a, seen, "n1", &b, 11), 1);
	b = beat(8, "MPI_Allreduce", -1, 1);
	ck_assert_int_eq(mwt_agg_add(a, seen, "n2", &b, 12), 1);
	b = beat(9, "MPI_Recv", 0, 2);
	ck_assert_int_eq(mwt_agg_add(a, seen, "n2", &b, 12.5), 1);
	b = beat(8, "MPI_Allreduce", -1, 1);
	ck_assert_int_eq(mwt_agg_add(a, seen, "n2", &b, 13), 0); /* duplicate: nothing changes */
	return a;
}

START_TEST(test_agg_build)
{
	struct mwt_seq *seen = mwt_seq_create();
	struct mwt_agg *a = build_cp1(seen);
	const struct mwt_class *c;
	char ranks[64], *json;
	ck_assert_uint_eq(mwt_agg_events(a), 6);
	ck_assert(mwt_agg_first(a) == 10 && mwt_agg_last(a) == 12.5);
	ck_assert_uint_eq(mwt_agg_nclasses(a), 2);
	ck_assert_uint_eq(mwt_agg_norigins(a), 2);
	c = mwt_agg_class(a, 0);
	ck_assert_str_eq(c->call, "MPI_Allreduce");
	ck_assert_uint_eq(c->count, 5);
	ck_assert(c->first == 10 && c->last == 12);
	mwt_agg_class_ranks(a, 0, ranks, sizeof(ranks));
	ck_assert_str_eq(ranks, "0-3,8");
	c = mwt_agg_class(a, 1);
	ck_assert_int_eq(c->peer, 0);
	ck_assert_uint_eq(c->count, 1);
	ck_assert_ptr_null(mwt_agg_class(a, 2));
	json = mwt_agg_to_json(a);
	ck_assert_str_eq(json, cp1_json);
	free(json);
	/* reset: empty again, same sender; the seen table still drops n1 1-4 */
	mwt_agg_reset(a);
	ck_assert_uint_eq(mwt_agg_events(a), 0);
	ck_assert_str_eq(mwt_agg_from(a), "cp1");
	{
		struct mw_hb_beat b = beat(0, "MPI_Allreduce", -1, 3);
		ck_assert_int_eq(mwt_agg_add(a, seen, "n1", &b, 20), 0);
		b.seq = 5;
		ck_assert_int_eq(mwt_agg_add(a, seen, "n1", &b, 20), 1);
		b.seq = 0;
		errno = 0;
		ck_assert_int_eq(mwt_agg_add(a, seen, "n1", &b, 20), -1);
		ck_assert_int_eq(errno, EINVAL);
	}
	mwt_agg_destroy(a);
	mwt_seq_destroy(seen);
}
END_TEST

/* The aggregate travels as one MW_HB_AGG frame (shared/heartbeat.h) and
 * decodes to the same aggregate. */
START_TEST(test_agg_frame_roundtrip)
{
	struct mwt_seq *seen = mwt_seq_create();
	struct mwt_agg *a = build_cp1(seen), *d;
	struct mw_hb_msg m;
	uint8_t *buf;
	size_t len, flen;
	char err[128], *json;
	ck_assert_int_eq(mwt_agg_encode(a, &buf, &len), 0);
	ck_assert_int_eq(mw_hb_frame_check(buf, len, &flen), MW_HB_OK);
	ck_assert_uint_eq(flen, len);
	ck_assert_int_eq(mw_hb_decode(buf, len, &m), MW_HB_OK);
	ck_assert_int_eq(m.type, MW_HB_AGG);
	ck_assert_str_eq(mw_hb_type_name(m.type), "agg");
	d = mwt_agg_from_json(m.u.agg.json, strlen(m.u.agg.json), err, sizeof(err));
	ck_assert_msg(d != NULL, "%s", err);
	json = mwt_agg_to_json(d);
	ck_assert_str_eq(json, cp1_json);
	free(json);
	mw_hb_msg_free(&m);
	free(buf);
	mwt_agg_destroy(d);
	mwt_agg_destroy(a);
	mwt_seq_destroy(seen);
}
END_TEST

/* The collector (root) merges cp1's aggregate: 6 new events.  The same
 * aggregate again (cp1 re-sent it to a new parent that forwarded it): 0.
 * cp2's aggregate covers n2 2 (rank 9's MPI_Recv, already counted: a BE that
 * re-attached to cp2 and re-sent it) and n3 1 (rank 16 in MPI_Allreduce at
 * 14): 1 new event; the Recv class stays at 1, the Allreduce class becomes
 * 6 events, ranks "0-3,8,16", last 14.  n3's seq 1 sent straight to the
 * collector (a BE that could reach no CP) is a duplicate too. */
START_TEST(test_agg_merge_idempotent)
{
	struct mwt_seq *cp_seen = mwt_seq_create(), *root_seen = mwt_seq_create();
	struct mwt_agg *cp1 = build_cp1(cp_seen), *cp2 = mwt_agg_create("cp2"), *root = mwt_agg_create("fe");
	struct mw_hb_beat b;
	char ranks[64];
	ck_assert_int_eq(mwt_agg_merge(root, root_seen, cp1), 6);
	ck_assert_int_eq(mwt_agg_merge(root, root_seen, cp1), 0);
	ck_assert_uint_eq(mwt_agg_events(root), 6);
	b = beat(9, "MPI_Recv", 0, 2);
	ck_assert_int_eq(mwt_agg_add(cp2, NULL, "n2", &b, 12.5), 1);
	b = beat(16, "MPI_Allreduce", -1, 1);
	ck_assert_int_eq(mwt_agg_add(cp2, NULL, "n3", &b, 14), 1);
	ck_assert_int_eq(mwt_agg_merge(root, root_seen, cp2), 1);
	ck_assert_uint_eq(mwt_agg_events(root), 7);
	ck_assert_uint_eq(mwt_agg_nclasses(root), 2);
	ck_assert_uint_eq(mwt_agg_class(root, 0)->count, 6);
	ck_assert(mwt_agg_class(root, 0)->last == 14);
	ck_assert_uint_eq(mwt_agg_class(root, 1)->count, 1);
	mwt_agg_class_ranks(root, 0, ranks, sizeof(ranks));
	ck_assert_str_eq(ranks, "0-3,8,16");
	ck_assert(mwt_agg_last(root) == 14);
	ck_assert_int_eq(mwt_agg_add(root, root_seen, "n3", &b, 15), 0);
	ck_assert_uint_eq(mwt_agg_events(root), 7);
	mwt_agg_destroy(cp1);
	mwt_agg_destroy(cp2);
	mwt_agg_destroy(root);
	mwt_seq_destroy(cp_seen);
	mwt_seq_destroy(root_seen);
}
END_TEST

#define CLS(fields) "{\"v\":1,\"from\":\"cp\",\"events\":2,\"first\":1,\"last\":2,\"classes\":[" fields "]}"
#define EXTRA "\"kind\":\"\",\"comm\":\"\",\"root\":-1,\"tag\":-1,\"exit\":0,\"signal\":0,\"size\":32,\"moving\":\"\",\"idle\":0.0,"
#define ONE "{\"state\":\"in_mpi\",\"call\":\"MPI_Barrier\",\"peer\":-1," EXTRA "\"count\":2,\"first\":1,\"last\":2,"
#define COV(o, s, r) "\"" o "\":{\"seq\":\"" s "\",\"rank\":\"" r "\"}"
#define HALF(call, peer, rank, cov) \
	"{\"state\":\"in_mpi\",\"call\":\"" call "\",\"peer\":" peer "," EXTRA "\"count\":1,\"first\":1,\"last\":2," \
	"\"ranks\":\"" rank "\",\"cover\":{" cov "}}"

static const struct {
	const char *json, *why;
} bad_cases[] = {
	{"", "aggregate: not one JSON object"},
	{"[]", "aggregate: not one JSON object"},
	{"{\"v\":1} x", "aggregate: not one JSON object"},
	{"{\"v\":2,\"from\":\"cp\",\"events\":0,\"first\":0,\"last\":0,\"classes\":[]}", "aggregate: v: expected 1"},
	{"{\"v\":1,\"from\":\"-cp\",\"events\":0,\"first\":0,\"last\":0,\"classes\":[]}",
	 "aggregate: from: expected a node name"},
	{"{\"v\":1,\"from\":\"cp\",\"events\":0,\"first\":0,\"last\":0,\"classes\":[],\"x\":1}",
	 "aggregate: unknown field"},
	{"{\"v\":1,\"from\":\"cp\",\"events\":1,\"first\":3,\"last\":2,\"classes\":[]}",
	 "aggregate: events, first, last: expected numbers"},
	{"{\"v\":1,\"from\":\"cp\",\"events\":1,\"first\":1,\"last\":2,\"classes\":[]}", "aggregate: too many classes"},
	/* count 2, one event covered */
	{CLS(ONE "\"ranks\":\"0\",\"cover\":{" COV("n1", "1", "0") "}}"),
	 "aggregate: a class: count is not the events it covers"},
	/* the ranks list says more than the events */
	{CLS(ONE "\"ranks\":\"0-2\",\"cover\":{" COV("n1", "1-2", "0-1") "}}"),
	 "aggregate: a class: ranks are not those of the events it covers"},
	/* two numbers, one rank */
	{CLS(ONE "\"ranks\":\"0\",\"cover\":{" COV("n1", "1-2", "0") "}}"), "aggregate: a class: bad cover"},
	/* sequence number 0 */
	{CLS(ONE "\"ranks\":\"0-1\",\"cover\":{" COV("n1", "0-1", "0-1") "}}"), "aggregate: a class: bad cover"},
	{CLS(ONE "\"ranks\":\"0-1\",\"cover\":{" COV("n1", "1,1", "0-1") "}}"), "aggregate: an event covered twice"},
	/* the old form, numbers only */
	{CLS(ONE "\"ranks\":\"0-1\",\"cover\":{\"n1\":\"1-2\"}}"), "aggregate: a class: bad cover"},
	{CLS(ONE "\"ranks\":\"0-1\",\"cover\":{" COV("n1", "1-2", "0-1") "},\"x\":0}"), "aggregate: a class: bad field"},
	{CLS("{\"state\":\"sleeping\",\"call\":\"\",\"peer\":-1," EXTRA "\"count\":2,\"first\":1,\"last\":2,\"ranks\":\"0-1\","
	     "\"cover\":{" COV("n1", "1-2", "0-1") "}}"),
	 "aggregate: a class: bad field"},
	{CLS(HALF("MPI_Barrier", "-1", "0", COV("n1", "1", "0"))),
	 "aggregate: events: not the sum of the classes' counts"},
	{CLS(HALF("MPI_Barrier", "-1", "0", COV("n1", "1", "0")) "," HALF("MPI_Send", "3", "1", COV("n1", "1", "1"))),
	 "aggregate: an event covered twice"},
	{CLS(HALF("MPI_Barrier", "-1", "0", COV("n1", "1", "0")) "," HALF("MPI_Barrier", "-1", "1", COV("n1", "2", "1"))),
	 "aggregate: a class twice"},
	{CLS(ONE "\"ranks\":\"0-1\",\"cover\":{" COV("n1", "1-3", "0-2") "}}"), "aggregate: a class: bad cover"},
	/* a rank outside the world size the class names */
	{CLS(ONE "\"ranks\":\"0,40\",\"cover\":{" COV("n1", "1-2", "0,40") "}}"), "aggregate: a class: bad cover"},
	/* the rest of the heartbeat: an unknown call kind, an exit status out of range */
	{CLS("{\"state\":\"in_mpi\",\"call\":\"MPI_Barrier\",\"peer\":-1,\"kind\":\"dance\",\"comm\":\"\",\"root\":-1,"
	     "\"tag\":-1,\"exit\":0,\"signal\":0,\"size\":32,\"moving\":\"\",\"idle\":0,\"count\":2,\"first\":1,\"last\":2,"
	     "\"ranks\":\"0-1\",\"cover\":{" COV("n1", "1-2", "0-1") "}}"),
	 "aggregate: a class: bad heartbeat field"},
	{CLS("{\"state\":\"in_mpi\",\"call\":\"MPI_Barrier\",\"peer\":-1,\"kind\":\"\",\"comm\":\"\",\"root\":-1,"
	     "\"tag\":-1,\"exit\":300,\"signal\":0,\"size\":32,\"moving\":\"\",\"idle\":0,\"count\":2,\"first\":1,\"last\":2,"
	     "\"ranks\":\"0-1\",\"cover\":{" COV("n1", "1-2", "0-1") "}}"),
	 "aggregate: a class: bad heartbeat field"},
	{CLS(ONE "\"ranks\":\"0-1\",\"cover\":{" COV("n1", "1-2", "0-1") ",\"n2\":{\"seq\":\"1\"}}}"),
	 "aggregate: a class: bad cover"},
};

/* The class key holds the rest of the heartbeat the verdict reads: two
 * ranks in the same call on different communicators are two classes, and
 * the collector rebuilds each rank's heartbeat field for field. */
START_TEST(test_agg_beat_roundtrip)
{
	struct mwt_agg *a = mwt_agg_create("cp"), *back;
	struct mw_hb_beat b0 = beat(0, "MPI_Bcast", -1, 7), b1, got;
	const char *origin;
	uint32_t seq;
	int32_t rank;
	char err[128] = "", *json;
	snprintf(b0.kind, sizeof(b0.kind), "collective");
	snprintf(b0.comm, sizeof(b0.comm), "world");
	b0.root_world = 3;
	b0.exit_code = -1;
	b0.idle_s = 61.5;
	b1 = b0;
	b1.rank = 1;
	b1.seq = 8;
	snprintf(b1.comm, sizeof(b1.comm), "1.2");
	ck_assert_int_eq(mwt_agg_add(a, NULL, "n1", &b0, 1), 1);
	ck_assert_int_eq(mwt_agg_add(a, NULL, "n1", &b1, 2), 1);
	ck_assert_uint_eq(mwt_agg_nclasses(a), 2);
	json = mwt_agg_to_json(a);
	back = mwt_agg_from_json(json, strlen(json), err, sizeof(err));
	ck_assert_msg(back != NULL, "%s", err);
	ck_assert_uint_eq(mwt_agg_nclasses(back), 2);
	ck_assert_uint_eq(mwt_agg_class_nevents(back, 0), 1);
	ck_assert_int_eq(mwt_agg_class_event(back, 0, 0, &origin, &seq, &rank), 0);
	ck_assert_str_eq(origin, "n1");
	ck_assert_uint_eq(seq, 7);
	ck_assert_int_eq(rank, 0);
	ck_assert_int_eq(mwt_agg_class_event(back, 0, 1, &origin, &seq, &rank), -1);
	mwt_class_beat(mwt_agg_class(back, 0), rank, seq, &got);
	ck_assert_int_eq(mw_hb_beat_valid(&got), 1);
	ck_assert_str_eq(got.call, "MPI_Bcast");
	ck_assert_str_eq(got.kind, "collective");
	ck_assert_str_eq(got.comm, "world");
	ck_assert_int_eq(got.root_world, 3);
	ck_assert_int_eq(got.exit_code, -1);
	ck_assert_int_eq(got.size, 32);
	ck_assert(got.idle_s == 61.5);
	mwt_class_beat(mwt_agg_class(back, 1), 1, 8, &got);
	ck_assert_str_eq(got.comm, "1.2");
	free(json);
	mwt_agg_destroy(a);
	mwt_agg_destroy(back);
}
END_TEST

START_TEST(test_agg_decode_bad)
{
	char err[128] = "";
	struct mwt_agg *a = mwt_agg_from_json(bad_cases[_i].json, strlen(bad_cases[_i].json), err, sizeof(err));
	ck_assert_msg(a == NULL, "case %d decoded", _i);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_msg(strcmp(err, bad_cases[_i].why) == 0, "case %d: '%s', expected '%s'", _i, err, bad_cases[_i].why);
}
END_TEST

START_TEST(test_agg_decode_good)
{
	const char *ok = CLS(ONE "\"ranks\":\"0-1\",\"cover\":{" COV("n1", "1", "1") "," COV("n2", "7", "0") "}}");
	char err[128] = "";
	struct mwt_agg *a = mwt_agg_from_json(ok, strlen(ok), err, sizeof(err));
	ck_assert_msg(a != NULL, "%s", err);
	ck_assert_uint_eq(mwt_agg_events(a), 2);
	ck_assert_uint_eq(mwt_agg_norigins(a), 2);
	mwt_agg_destroy(a);
}
END_TEST

/* A CP that has already flushed n1's events 1-2 (its aggregate reset, its
 * table remembers) merges a re-sent aggregate covering n1 1-3 (ranks 0-2):
 * only event 3 is new, and only its rank, 2, goes up. */
START_TEST(test_agg_merge_after_flush)
{
	struct mwt_seq *seen = mwt_seq_create();
	struct mwt_agg *cp = mwt_agg_create("cp"), *child = mwt_agg_create("leaf"), *child_back;
	struct mw_hb_beat b;
	char ranks[32], *json;
	int r;
	for (r = 0; r < 3; r++) {
		b = beat(r, "MPI_Barrier", -1, (uint32_t)r + 1);
		ck_assert_int_eq(mwt_agg_add(child, NULL, "n1", &b, 5), 1);
		if (r < 2)
			ck_assert_int_eq(mwt_agg_add(cp, seen, "n1", &b, 5), 1);
	}
	mwt_agg_reset(cp); /* flushed */
	ck_assert_int_eq(mwt_agg_merge(cp, seen, child), 1);
	ck_assert_uint_eq(mwt_agg_class(cp, 0)->count, 1);
	mwt_agg_class_ranks(cp, 0, ranks, sizeof(ranks));
	ck_assert_str_eq(ranks, "2");
	json = mwt_agg_to_json(cp);
	ck_assert_ptr_nonnull(strstr(json, "\"cover\":{\"n1\":{\"seq\":\"3\",\"rank\":\"2\"}}"));
	child_back = mwt_agg_from_json(json, strlen(json), NULL, 0);
	ck_assert_ptr_nonnull(child_back);
	mwt_agg_destroy(child_back);
	free(json);
	mwt_agg_destroy(cp);
	mwt_agg_destroy(child);
	mwt_seq_destroy(seen);
}
END_TEST

/* A heartbeat's seq travels in its frame (absent when 0, as the star sends). */
START_TEST(test_beat_seq_frame)
{
	struct mw_hb_msg m, d;
	uint8_t *buf;
	size_t len;
	memset(&m, 0, sizeof(m));
	m.type = MW_HB_HEARTBEAT;
	m.u.beat = beat(3, "MPI_Recv", 2, 42);
	ck_assert_int_eq(mw_hb_encode(&m, &buf, &len), 0);
	ck_assert_ptr_nonnull(memmem(buf, len, "\"seq\":42", 8));
	ck_assert_int_eq(mw_hb_decode(buf, len, &d), MW_HB_OK);
	ck_assert_uint_eq(d.u.beat.seq, 42);
	free(buf);
	m.u.beat.seq = 0;
	ck_assert_int_eq(mw_hb_encode(&m, &buf, &len), 0);
	ck_assert_ptr_null(memmem(buf, len, "seq", 3));
	ck_assert_int_eq(mw_hb_decode(buf, len, &d), MW_HB_OK);
	ck_assert_uint_eq(d.u.beat.seq, 0);
	free(buf);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tree_agg");
	TCase *tc = tcase_create("agg");
	tcase_add_test(tc, test_seq_in_order_dup_window);
	tcase_add_test(tc, test_agg_build);
	tcase_add_test(tc, test_agg_frame_roundtrip);
	tcase_add_test(tc, test_agg_merge_idempotent);
	tcase_add_test(tc, test_agg_merge_after_flush);
	tcase_add_loop_test(tc, test_agg_decode_bad, 0, N(bad_cases));
	tcase_add_test(tc, test_agg_decode_good);
	tcase_add_test(tc, test_agg_beat_roundtrip);
	tcase_add_test(tc, test_beat_seq_frame);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
