/* Unit tests of tree/mwt_probe.c: a probe summary's merge (a node some CP
 * reached is never judged dead; the missing CPs add up), its JSON round
 * trip, the decoder's refusals, and the subtree check the collector makes
 * before it uses a CP's results. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "mwt_probe.h"
#include "unit.h"

static struct mw_probe_result res(enum mw_probe_state st, double rtt)
{
	struct mw_probe_result r;
	memset(&r, 0, sizeof r);
	r.state = st;
	r.rtt_ms = rtt;
	r.tries = st == MW_PROBE_DEAD ? 3 : 1;
	snprintf(r.addr, sizeof r.addr, "10.0.0.1");
	return r;
}

static enum mw_probe_state state_of(const struct mwt_psum *s, const char *node, const char **by)
{
	for (size_t i = 0; i < mwt_psum_n(s); i++) {
		const char *n, *b;
		struct mw_probe_result r;
		mwt_psum_get(s, i, &n, &b, &r);
		if (!strcmp(n, node)) {
			*by = b;
			return r.state;
		}
	}
	*by = NULL;
	return (enum mw_probe_state)-1;
}

START_TEST(test_psum_merge)
{
	struct mwt_psum *a = mwt_psum_create(4, "n1"), *b = mwt_psum_create(4, "n3");
	struct mw_probe_result r;
	const char *by;
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	r = res(MW_PROBE_ALIVE, 0.2);
	ck_assert_int_eq(mwt_psum_add(a, "n3", "n1", &r), 1);
	r = res(MW_PROBE_DEAD, -1);
	ck_assert_int_eq(mwt_psum_add(a, "n8", "n1", &r), 1);
	/* The same node again, less alive: the first result stays. */
	ck_assert_int_eq(mwt_psum_add(a, "n3", "n1", &r), 0);
	/* b: n7 dead, n8 alive (reached by n3 after all), n9 missing. */
	ck_assert_int_eq(mwt_psum_add(b, "n7", "n3", &r), 1);
	r = res(MW_PROBE_DEGRADED, 0.5);
	ck_assert_int_eq(mwt_psum_add(b, "n8", "n3", &r), 1);
	ck_assert_int_eq(mwt_psum_missing(b, "n9"), 0);
	ck_assert_int_eq(mwt_psum_missing(b, "n9"), 0); /* once */
	ck_assert_int_eq(mwt_psum_merge(a, b), 2);   /* n7 added, n8 replaced */
	ck_assert_uint_eq(mwt_psum_n(a), 3);
	ck_assert_int_eq(state_of(a, "n3", &by), MW_PROBE_ALIVE);
	ck_assert_str_eq(by, "n1");
	ck_assert_int_eq(state_of(a, "n7", &by), MW_PROBE_DEAD);
	ck_assert_str_eq(by, "n3");
	ck_assert_int_eq(state_of(a, "n8", &by), MW_PROBE_DEGRADED);
	ck_assert_str_eq(by, "n3");
	ck_assert_uint_eq(mwt_psum_nmissing(a), 1);
	ck_assert_str_eq(mwt_psum_missing_at(a, 0), "n9");
	/* Merging the same again adds nothing. */
	ck_assert_int_eq(mwt_psum_merge(a, b), 0);
	ck_assert_uint_eq(mwt_psum_n(a), 3);
	/* Bad input is refused. */
	ck_assert_int_eq(mwt_psum_add(a, "bad name", "n1", &r), -1);
	r.state = (enum mw_probe_state)9;
	ck_assert_int_eq(mwt_psum_add(a, "n4", "n1", &r), -1);
	ck_assert_ptr_null(mwt_psum_create(0, "n1"));
	mwt_psum_destroy(a);
	mwt_psum_destroy(b);
}
END_TEST

START_TEST(test_psum_json)
{
	struct mwt_psum *a = mwt_psum_create(7, "n2"), *b;
	struct mw_probe_result r = res(MW_PROBE_NODAEMON, 0.1), g;
	const char *node, *by;
	char err[200], *txt;
	snprintf(r.summary, sizeof r.summary, "port unreachable");
	mwt_psum_add(a, "n5", "n4", &r);
	mwt_psum_missing(a, "n6");
	txt = mwt_psum_to_json(a);
	ck_assert_ptr_nonnull(txt);
	b = mwt_psum_from_json(txt, strlen(txt), err, sizeof err);
	ck_assert_msg(b != NULL, "%s", err);
	ck_assert_uint_eq(mwt_psum_round(b), 7);
	ck_assert_str_eq(mwt_psum_from(b), "n2");
	ck_assert_uint_eq(mwt_psum_n(b), 1);
	ck_assert_int_eq(mwt_psum_get(b, 0, &node, &by, &g), 0);
	ck_assert_str_eq(node, "n5");
	ck_assert_str_eq(by, "n4");
	ck_assert_int_eq(g.state, MW_PROBE_NODAEMON);
	ck_assert_int_eq(g.tries, 1);
	ck_assert_str_eq(g.summary, "port unreachable");
	ck_assert_str_eq(g.addr, "10.0.0.1");
	ck_assert_str_eq(mwt_psum_missing_at(b, 0), "n6");
	ck_assert_int_eq(mwt_psum_get(b, 1, &node, &by, &g), -1);
	free(txt);
	mwt_psum_destroy(a);
	mwt_psum_destroy(b);
}
END_TEST

START_TEST(test_psum_refusals)
{
	static const struct {
		const char *json, *why;
	} cases[] = {
		{"[]", "not one JSON object"},
		{"{\"round\":0,\"from\":\"n1\",\"results\":[],\"missing\":[]}", "round"},
		{"{\"round\":1,\"from\":\"-x\",\"results\":[],\"missing\":[]}", "from"},
		{"{\"round\":1,\"from\":\"n1\",\"missing\":[]}", "results"},
		{"{\"round\":1,\"from\":\"n1\",\"results\":[]}", "missing"},
		{"{\"round\":1,\"from\":\"n1\",\"results\":[{\"node\":\"n2\",\"by\":\"n1\",\"state\":\"zombie\","
		 "\"rtt_ms\":1,\"tries\":1,\"failed\":0,\"summary\":\"\",\"addr\":\"\"}],\"missing\":[]}",
		 "results[0].state"},
		{"{\"round\":1,\"from\":\"n1\",\"results\":[{\"node\":\"n2\",\"by\":\"n1\",\"state\":\"dead\","
		 "\"rtt_ms\":-5,\"tries\":1,\"failed\":0,\"summary\":\"\",\"addr\":\"\"}],\"missing\":[]}",
		 "results[0].rtt_ms"},
		{"{\"round\":1,\"from\":\"n1\",\"results\":[{\"node\":\"n2\",\"by\":\"n1\",\"state\":\"dead\","
		 "\"rtt_ms\":1,\"tries\":1,\"failed\":0,\"summary\":\"\\u0007\",\"addr\":\"\"}],\"missing\":[]}",
		 "results[0].summary"},
		{"{\"round\":1,\"from\":\"n1\",\"results\":[],\"missing\":[\"a b\"]}", "missing[0]"},
		{"{\"round\":1,\"from\":\"n1\",\"results\":[],\"missing\":[]} x", "not one JSON object"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char err[200] = "";
		struct mwt_psum *s = mwt_psum_from_json(cases[i].json, strlen(cases[i].json), err, sizeof err);
		ck_assert_msg(s == NULL, "case %zu accepted", i);
		ck_assert_msg(strstr(err, cases[i].why), "case %zu: %s", i, err);
	}
}
END_TEST

/* The tree of t/0801 and t/0800's shape: 0 under the collector (-1),
 * 1 and 2 under 0, 3 under 1; after a re-attachment 3 is under 0. */
START_TEST(test_subtree)
{
	const int plan[] = {-1, 0, 0, 1, -1};
	const int now[] = {-1, 0, 0, 0, -1};
	const int loop[] = {1, 0, -1, -1, -1};
	static const struct {
		int root, node, want_plan, want_both;
	} cases[] = {
		{0, 0, 1, 1}, {0, 3, 1, 1}, {1, 3, 1, 1}, {2, 3, 0, 0}, {1, 2, 0, 0},
		{4, 3, 0, 0}, {3, 1, 0, 0}, {0, 4, 0, 0}, {0, 9, 0, 0}, {-1, 1, 0, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ck_assert_msg(mwt_in_subtree(plan, NULL, 5, cases[i].root, cases[i].node) == cases[i].want_plan,
			      "case %zu (plan)", i);
		ck_assert_msg(mwt_in_subtree(plan, now, 5, cases[i].root, cases[i].node) == cases[i].want_both,
			      "case %zu (plan and now)", i);
	}
	/* Re-attached: 3 is below 0 now, no longer below 1, but 1 planned it. */
	ck_assert_int_eq(mwt_in_subtree(now, NULL, 5, 1, 3), 0);
	ck_assert_int_eq(mwt_in_subtree(now, plan, 5, 1, 3), 1);
	/* A cycle ends the walk. */
	ck_assert_int_eq(mwt_in_subtree(loop, NULL, 5, 2, 0), 0);
	ck_assert_int_eq(mwt_in_subtree(loop, NULL, 5, 1, 0), 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tree_probe");
	TCase *tc = tcase_create("probe");
	tcase_add_test(tc, test_psum_merge);
	tcase_add_test(tc, test_psum_json);
	tcase_add_test(tc, test_psum_refusals);
	tcase_add_test(tc, test_subtree);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
