/* Unit tests of tree/mwt_place.c and tree/mwt_plan.c: the best-effort
 * average placement, the fuzzy ranking, the tree shape, the attach plan and
 * the outputs, against cases computed by hand (the working is in the
 * comments; the fuzzy case is doc/tree.md's worked example). */
#include <check.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mwt_place.h"
#include "jsonschema.h"
#include "mwt_plan.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define near(got, want) ck_assert_msg(fabs((got) - (want)) <= 1e-12, "%s = %.15g, expected %.15g", #got, (double)(got), (double)(want))

/* What writer writes of p (malloc'd text); the test fails if it fails. */
static char *written(int (*writer)(const struct mwt_plan *, FILE *), const struct mwt_plan *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(writer(p, f), 0);
	fclose(f);
	return text;
}

/* The plan's JSON is valid against doc/schemas/topo.schema.json. */
static void assert_schema(const struct mwt_plan *p)
{
	char *text = written(mwt_plan_write_json, p), err[512];
	json_object *s = json_object_from_file("doc/schemas/topo.schema.json"), *j;
	ck_assert_ptr_nonnull(s);
	j = json_tokener_parse(text);
	ck_assert_ptr_nonnull(j);
	ck_assert_msg(mw_jsonschema_validate(s, j, err, sizeof(err)) == 0, "%s\n%s", err, text);
	json_object_put(j);
	json_object_put(s);
	free(text);
}

struct avg_case {
	const char *what;
	int os[8];
	size_t m;
	int ncp;
	int ts[8], as[8];
	int rounds;
	size_t nrs;
};

static const struct avg_case avg_cases[] = {
	/* sum = 20 + 2 = 22, m = 5: quo 4 rem 2, TS = 5 5 4 4 4 (m does not
	 * divide sum); step 5: OS0 10 > 5 -> RS {0}, sum 12.
	 * round 1: 12 / 4 = 3 rem 0: TS = 10 3 3 3 3; OS1 4 > 3, OS2 4 > 3 ->
	 * RS {0,1,2}, sum 4.  round 2: 4 / 2 = 2: TS = 10 4 4 2 2, RS stays.
	 * AS = 0 0 0 1 1. */
	{"two rounds", {10, 4, 4, 1, 1}, 5, 2, {10, 4, 4, 2, 2}, {0, 0, 0, 1, 1}, 2, 3},
	/* sum = 15 + 3 = 18, m = 6: quo 3 rem 0; OS0 9 > 3 -> RS, sum 9.
	 * round 1: 9 / 5 = 1 rem 4: TS = 9 2 2 2 2 1; OS1, OS2 3 > 2 -> RS,
	 * sum 3.  round 2: 3 / 3 = 1 rem 0: TS = 9 3 3 1 1 1, RS stays. */
	{"rem in the loop", {9, 3, 3, 0, 0, 0}, 6, 3, {9, 3, 3, 1, 1, 1}, {0, 0, 0, 1, 1, 1}, 2, 3},
	/* sum = 33 + 1 = 34, m = 6: quo 5 rem 4: TS = 6 6 6 6 5 5; OS0 20 > 6
	 * -> RS, sum 14.  round 1: 14 / 5 = 2 rem 4: TS = 20 3 3 3 3 2; OS1 6,
	 * OS2 4 > 3 -> RS, sum 4.  round 2: 4 / 3 = 1 rem 1: TS3 = 2, TS4 = 1,
	 * TS5 = 1; OS3 3 > 2 -> RS, sum 1.  round 3: 1 / 2 = 0 rem 1: TS4 = 1,
	 * TS5 = 0; RS stays.  AS = 0 0 0 0 1 0. */
	{"three rounds", {20, 6, 4, 3, 0, 0}, 6, 1, {20, 6, 4, 3, 1, 0}, {0, 0, 0, 0, 1, 0}, 3, 4},
	/* sum = 4 + 3 = 7, m = 4: quo 1 rem 3: TS = 2 2 2 1; no OS above TS. */
	{"no RS, rem 3", {2, 1, 1, 0}, 4, 3, {2, 2, 2, 1}, {0, 1, 1, 1}, 0, 0},
	/* sum = 8 + 4 = 12, m = 4: 3 each; AS = 1 each. */
	{"even", {2, 2, 2, 2}, 4, 4, {3, 3, 3, 3}, {1, 1, 1, 1}, 0, 0},
	/* one host takes every CP */
	{"one host", {5}, 1, 2, {7}, {2}, 0, 0},
	/* no CP: TS = OS where it can (sum 6, m 3: 2 2 2; OS0 4 > 2 -> RS,
	 * sum 2; round 1: 2 / 2 = 1: TS = 4 1 1, RS stays), AS all 0 */
	{"no CP", {4, 1, 1}, 3, 0, {4, 1, 1}, {0, 0, 0}, 1, 1},
};

START_TEST(test_average_cases)
{
	const struct avg_case *c = &avg_cases[_i];
	int ts[8], as[8], sum = 0;
	size_t i;
	struct mwt_avg_info info;
	ck_assert_int_eq(mwt_place_average(c->os, c->m, c->ncp, ts, as, &info), 0);
	for (i = 0; i < c->m; i++) {
		ck_assert_msg(ts[i] == c->ts[i], "%s: TS[%zu] = %d, expected %d", c->what, i, ts[i], c->ts[i]);
		ck_assert_msg(as[i] == c->as[i], "%s: AS[%zu] = %d, expected %d", c->what, i, as[i], c->as[i]);
		sum += as[i];
	}
	ck_assert_int_eq(sum, c->ncp);
	ck_assert_msg(info.rounds == c->rounds, "%s: %d rounds, expected %d", c->what, info.rounds, c->rounds);
	ck_assert_uint_eq(info.nrs, c->nrs);
}
END_TEST

START_TEST(test_average_errors)
{
	int os[2] = {1, -1}, as[2];
	errno = 0;
	ck_assert_int_eq(mwt_place_average(os, 2, 1, NULL, as, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(mwt_place_average(os, 1, -1, NULL, as, NULL), -1);
	ck_assert_int_eq(mwt_place_average(NULL, 0, 1, NULL, as, NULL), -1);
	ck_assert_int_eq(mwt_place_average(NULL, 0, 0, NULL, as, NULL), 0);
}
END_TEST

/* doc/tree.md's worked example.  Goodness x (largest memory 32000, largest
 * cores 16, smallest round-trip 0.1 ms):
 *   a: load 2/8 -> 0.75; mem 16000 -> 0.5; cores 8 -> 0.5; ok -> 1; rtt 0.2 -> 0.5
 *   b: load 12/16 -> 0.25; mem 32000 -> 1; cores 16 -> 1; ok -> 1; rtt 0.1 -> 1
 *   c: load 0/16 -> 1; mem 8000 -> 0.25; cores 16 -> 1; degraded -> 0.5; rtt 0.4 -> 0.25
 * memberships (good, fair, poor): x 1 -> (1,0,0), 0.75 -> (.5,.5,0),
 * 0.5 -> (0,1,0), 0.25 -> (0,.5,.5).  A = (.3 .2 .1 .3 .1).
 *   B_a = (.3*.5 + .3*1, .3*.5 + .2 + .1 + .1, 0)      = (.45, .55, 0)   fair
 *   B_b = (.2 + .1 + .3 + .1, .3*.5, .3*.5)            = (.70, .15, .15) good
 *   B_c = (.3 + .1, .2*.5 + .3 + .1*.5, .2*.5 + .1*.5) = (.40, .45, .15) fair
 * ranking: b (good), then a before c (both fair, b_good .45 > .40). */
static const struct mwt_factors example[3] = {
	{2, 16000, 8, MWT_HEALTH_OK, 0.2},
	{12, 32000, 16, MWT_HEALTH_OK, 0.1},
	{0, 8000, 16, MWT_HEALTH_DEGRADED, 0.4},
};

START_TEST(test_fuzzy_example)
{
	struct mwt_eval ev[3];
	size_t rank[3];
	ck_assert_int_eq(mwt_fuzzy_rank(example, 3, NULL, ev, rank), 0);
	near(ev[0].x[MWT_F_LOAD], 0.75);
	near(ev[2].x[MWT_F_RTT], 0.25);
	near(ev[0].r[MWT_F_LOAD][MWT_J_GOOD], 0.5);
	near(ev[2].r[MWT_F_MEM][MWT_J_POOR], 0.5);
	near(ev[0].b[MWT_J_GOOD], 0.45);
	near(ev[0].b[MWT_J_FAIR], 0.55);
	near(ev[0].b[MWT_J_POOR], 0);
	near(ev[1].b[MWT_J_GOOD], 0.70);
	near(ev[1].b[MWT_J_FAIR], 0.15);
	near(ev[1].b[MWT_J_POOR], 0.15);
	near(ev[2].b[MWT_J_GOOD], 0.40);
	near(ev[2].b[MWT_J_FAIR], 0.45);
	near(ev[2].b[MWT_J_POOR], 0.15);
	ck_assert_int_eq(ev[0].judgement, MWT_J_FAIR);
	ck_assert_int_eq(ev[1].judgement, MWT_J_GOOD);
	ck_assert_int_eq(ev[2].judgement, MWT_J_FAIR);
	ck_assert_uint_eq(rank[0], 1);
	ck_assert_uint_eq(rank[1], 0);
	ck_assert_uint_eq(rank[2], 2);
}
END_TEST

/* Health alone (weights 0 0 0 1 0): down -> poor, degraded -> fair, ok ->
 * good; weights not summing to 1 are normalised (0 0 0 5 0 is the same). */
START_TEST(test_fuzzy_weights)
{
	const double w[MWT_NF] = {0, 0, 0, 5, 0}, bad[MWT_NF] = {0.5, -0.1, 0, 0, 0}, zero[MWT_NF] = {0};
	struct mwt_factors f[3] = {{0, 0, 1, MWT_HEALTH_DOWN, 1}, {0, 0, 1, MWT_HEALTH_DEGRADED, 1},
				   {0, 0, 1, MWT_HEALTH_OK, 1}};
	struct mwt_eval ev[3];
	size_t rank[3];
	ck_assert_int_eq(mwt_fuzzy_rank(f, 3, w, ev, rank), 0);
	ck_assert_uint_eq(rank[0], 2);
	ck_assert_uint_eq(rank[1], 1);
	ck_assert_uint_eq(rank[2], 0);
	near(ev[0].b[MWT_J_POOR], 1);
	near(ev[1].b[MWT_J_FAIR], 1);
	errno = 0;
	ck_assert_int_eq(mwt_fuzzy_rank(f, 3, bad, ev, rank), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(mwt_fuzzy_rank(f, 3, zero, ev, rank), -1);
	/* nothing known: every host fully fair, input order kept */
	memset(f, 0, sizeof(f));
	f[0].load = f[1].load = f[2].load = -1;
	ck_assert_int_eq(mwt_fuzzy_rank(f, 3, NULL, ev, rank), 0);
	ck_assert_uint_eq(rank[0], 0);
	ck_assert_uint_eq(rank[2], 2);
	near(ev[1].b[MWT_J_FAIR], 1);
}
END_TEST

/* 8 BEs (5 on host 0, 1 on host 1, 2 on host 2), IBEs on hosts 0, 0, 1:
 * fanout ceil(8/3) = 3.  Same host: host 0's BEs round-robin over IBEs 0
 * and 1 (0 1 0 1 0: IBE 0 full), BE 5 -> IBE 2.  Host 2 has no IBE: BE 6
 * -> IBE 1 (the first with room), BE 7 -> IBE 2. */
START_TEST(test_attach_same_host)
{
	const int be_host[] = {0, 0, 0, 0, 0, 1, 2, 2}, ibe_host[] = {0, 0, 1};
	const int want[] = {0, 1, 0, 1, 0, 2, 1, 2};
	int out[8];
	size_t i;
	ck_assert_int_eq(mwt_attach(be_host, 8, ibe_host, 3, 3, out), 6);
	for (i = 0; i < N(want); i++)
		ck_assert_msg(out[i] == want[i], "BE %zu -> IBE %d, expected %d", i, out[i], want[i]);
	errno = 0;
	ck_assert_int_eq(mwt_attach(be_host, 8, ibe_host, 0, 3, out), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(mwt_attach(be_host, 8, ibe_host, 3, 2, out), -1); /* host 2 out of range */
}
END_TEST

START_TEST(test_default_cps_and_shape)
{
	ck_assert_uint_eq(mwt_default_cps(32, 32), 0);
	ck_assert_uint_eq(mwt_default_cps(33, 32), 2);
	ck_assert_uint_eq(mwt_default_cps(100000, 32), 3125 + 98 + 4);
	ck_assert_uint_eq(mwt_default_cps(7, 2), 4 + 2);
	ck_assert_uint_eq(mwt_default_cps(7, 1), 0);
	ck_assert_int_eq(mwt_tree_parent(0, 2), -1);
	ck_assert_int_eq(mwt_tree_parent(1, 2), -1);
	ck_assert_int_eq(mwt_tree_parent(2, 2), 0);
	ck_assert_int_eq(mwt_tree_parent(3, 2), 0);
	ck_assert_int_eq(mwt_tree_parent(5, 2), 1);
	ck_assert_int_eq(mwt_tree_parent(32, 32), 0);
	ck_assert_int_eq(mwt_tree_parent(1055, 32), 31);
	ck_assert_int_eq(mwt_tree_parent(1056, 32), 32);
}
END_TEST

/* n1 3 BEs, n2 3, n3 1; 2 CPs, average: sum 9, m 3, 3 each; no RS; AS =
 * 0 0 2: both CPs on n3, both IBEs (fanout 32).  Attach fanout ceil(7/2) =
 * 4 (7 is not a multiple of 2): n3's BE -> cp0 (same host), then n1's three
 * fill cp0 up to 4 and n2's three go to cp1. */
START_TEST(test_plan_average)
{
	struct mwt_host h[3] = {{.name = "n1", .be = 3}, {.name = "n2", .be = 3}, {.name = "n3", .be = 1}};
	struct mwt_plan_opts o = {MWT_AVERAGE, 32, 2, NULL};
	struct mwt_plan p;
	const int want_cp[] = {0, 0, 0, 1, 1, 1, 0};
	char err[128];
	size_t b;
	ck_assert_int_eq(mwt_plan_build(h, 3, &o, &p, err, sizeof(err)), 0);
	ck_assert_uint_eq(p.ncp, 2);
	ck_assert_int_eq(p.as[2], 2);
	ck_assert_int_eq(p.cp_host[0], 2);
	ck_assert_int_eq(p.cp_host[1], 2);
	ck_assert_uint_eq(p.nibe, 2);
	ck_assert_int_eq(p.attach_fanout, 4);
	ck_assert_uint_eq(p.nbe, 7);
	for (b = 0; b < 7; b++)
		ck_assert_msg(p.be_cp[b] == want_cp[b], "BE %zu -> cp%d, expected cp%d", b, p.be_cp[b], want_cp[b]);
	ck_assert_uint_eq(p.be_same_host, 1);
	ck_assert_int_eq(p.cp_nbe[0], 4);
	ck_assert_int_eq(p.cp_nbe[1], 3);
	mwt_plan_free(&p);
}
END_TEST

/* a b c d, one BE each, 3 CPs, fanout 2: sum 7, m 4: quo 1 rem 3: TS 2 2 2 1,
 * AS 1 1 1 0: cp0@a, cp1@b, cp2@c.  cp0, cp1 under the front end, cp2 under
 * cp0; IBEs cp1 and cp2 (attach fanout 2).  b's and c's BEs stay home, a's
 * goes to cp1, d's to cp2.  MRNet: the front end is a:0, cp0 a:1, cp1 b:0,
 * cp2 c:0. */
START_TEST(test_plan_mrnet_json)
{
	struct mwt_host h[4] = {{.name = "a", .be = 1}, {.name = "b", .be = 1}, {.name = "c", .be = 1}, {.name = "d", .be = 1}};
	struct mwt_plan_opts o = {MWT_AVERAGE, 2, 3, NULL};
	struct mwt_plan p;
	const int want_cp[] = {1, 1, 2, 2};
	char *text;
	size_t b;
	json_object *j, *v;
	ck_assert_int_eq(mwt_plan_build(h, 4, &o, &p, NULL, 0), 0);
	ck_assert_int_eq(p.cp_parent[2], 0);
	ck_assert_int_eq(p.depth, 2);
	ck_assert_uint_eq(p.nibe, 2);
	for (b = 0; b < 4; b++)
		ck_assert_int_eq(p.be_cp[b], want_cp[b]);
	ck_assert_uint_eq(p.be_same_host, 2);
	text = written(mwt_plan_write_mrnet, &p);
	ck_assert_str_eq(text, "a:0 => a:1 b:0 ;\na:1 => c:0 ;\n");
	free(text);
	assert_schema(&p);
	text = written(mwt_plan_write_json, &p);
	j = json_tokener_parse(text);
	ck_assert_ptr_nonnull(j);
	ck_assert(json_object_object_get_ex(j, "ncp", &v));
	ck_assert_int_eq(json_object_get_int(v), 3);
	ck_assert(json_object_object_get_ex(j, "attach_fanout", &v));
	ck_assert_int_eq(json_object_get_int(v), 2);
	ck_assert(json_object_object_get_ex(j, "cps", &v));
	ck_assert_str_eq(json_object_get_string(json_object_object_get(json_object_array_get_idx(v, 2), "host")), "c");
	json_object_put(j);
	free(text);
	mwt_plan_free(&p);
}
END_TEST

/* Fuzzy: 3 CPs over the worked example's hosts go b, a, c (the ranking),
 * fanout 2: cp0@b, cp1@a under the front end, cp2@c under cp0. */
START_TEST(test_plan_fuzzy)
{
	struct mwt_host h[3] = {{"a", 1, example[0]}, {"b", 1, example[1]}, {"c", 1, example[2]}};
	struct mwt_plan_opts o = {MWT_FUZZY, 2, 3, NULL};
	struct mwt_plan p;
	char *text;
	ck_assert_int_eq(mwt_plan_build(h, 3, &o, &p, NULL, 0), 0);
	ck_assert_int_eq(p.cp_host[0], 1);
	ck_assert_int_eq(p.cp_host[1], 0);
	ck_assert_int_eq(p.cp_host[2], 2);
	ck_assert_int_eq(p.cp_parent[2], 0);
	text = written(mwt_plan_write_mrnet, &p);
	ck_assert_str_eq(text, "a:0 => b:0 a:1 ;\nb:0 => c:0 ;\n");
	free(text);
	assert_schema(&p);
	mwt_plan_free(&p);
}
END_TEST

START_TEST(test_plan_star_and_errors)
{
	struct mwt_host h[2] = {{.name = "x", .be = 2}, {.name = "y", .be = 2}};
	struct mwt_plan_opts o = {MWT_AVERAGE, 32, -1, NULL};
	struct mwt_plan p;
	char err[128] = "";
	char *text;
	ck_assert_int_eq(mwt_plan_build(h, 2, &o, &p, err, sizeof(err)), 0);
	ck_assert_uint_eq(p.ncp, 0);
	ck_assert_int_eq(p.be_cp[3], -1);
	text = written(mwt_plan_write_mrnet, &p);
	ck_assert_str_eq(text, "x:0 ;\n");
	free(text);
	assert_schema(&p);
	mwt_plan_free(&p);
	o.fanout = 1;
	ck_assert_int_eq(mwt_plan_build(h, 2, &o, &p, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "fanout 1 outside [2, 1024]");
	o.fanout = 2;
	ck_assert_int_eq(mwt_plan_build(h, 0, &o, &p, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "no host");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tree_plan");
	TCase *tc = tcase_create("plan");
	tcase_add_loop_test(tc, test_average_cases, 0, N(avg_cases));
	tcase_add_test(tc, test_average_errors);
	tcase_add_test(tc, test_fuzzy_example);
	tcase_add_test(tc, test_fuzzy_weights);
	tcase_add_test(tc, test_attach_same_host);
	tcase_add_test(tc, test_default_cps_and_shape);
	tcase_add_test(tc, test_plan_average);
	tcase_add_test(tc, test_plan_mrnet_json);
	tcase_add_test(tc, test_plan_fuzzy);
	tcase_add_test(tc, test_plan_star_and_errors);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
