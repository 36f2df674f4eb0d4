/* Unit tests of the collector's side of probing down the tree
 * (collector/coltree.c, doc/tree.md "Probing down the tree"): who is asked,
 * which summaries and which results count (a CP speaks once, when asked,
 * about its own subtree only), and the fallback: what no summary covers
 * is left to the collector's own probes, and a CP that does not deliver is
 * named in the timeline. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colstate.h"
#include "coltree.h"
#include "col_unit.h"
#include "mwt_probe.h"
#include "unit.h"

static int asked[8], nasked;

static int record_send(void *arg, int node, const struct mw_hb_msg *m)
{
	(void)arg;
	ck_assert_int_eq(m->type, MW_HB_PROBEREQ);
	asked[nasked++] = node;
	return 0;
}

/* A summary of round from node "from" with (node, by, state) entries. */
static char *summary(uint32_t round, const char *from, const char *const *e, size_t n)
{
	struct mwt_psum *p = mwt_psum_create(round, from);
	struct mw_probe_result r;
	char *j;
	for (size_t i = 0; i + 2 < n; i += 3) {
		memset(&r, 0, sizeof r);
		r.state = !strcmp(e[i + 2], "dead") ? MW_PROBE_DEAD : MW_PROBE_ALIVE;
		r.rtt_ms = r.state == MW_PROBE_DEAD ? -1 : 0.3;
		ck_assert_int_eq(mwt_psum_add(p, e[i], e[i + 1], &r), 1);
	}
	j = mwt_psum_to_json(p);
	mwt_psum_destroy(p);
	return j;
}

static int timeline_has(const struct col_state *s, const char *what)
{
	return col_unit_said(s, NULL, what);
}

/* 4 nodes with agents, threshold 2, fanout 2: CPs on n1 and n2, n3 under
 * n1 (attached: *ch is its CHILD frame), n4 planned under n2. */
static struct col_tree *four_nodes(struct col_state *s, struct mw_hb_child *ch)
{
	struct col_tree *t;
	col_state_init(s, "77");
	for (int i = 1; i <= 4; i++) {
		char name[8];
		snprintf(name, sizeof name, "n%d", i);
		ck_assert_int_eq(col_state_node(s, name), i - 1);
		s->agents[i - 1].hello = s->agents[i - 1].connected = 1;
	}
	t = col_tree_plan(s, 2, 2, 0, NULL, NULL);
	ck_assert_ptr_nonnull(t);
	snprintf(ch->node, sizeof ch->node, "n3");
	snprintf(ch->parent, sizeof ch->parent, "n1");
	ch->up = 1;
	col_tree_child(t, s, ch);
	return t;
}

START_TEST(test_probe_round)
{
	struct col_state s;
	struct col_tree *t;
	struct mw_hb_probereq req = {1, 7171, 3, 3.0, 3.8};
	struct mw_hb_child ch = {0};
	struct mw_probe_result out[4];
	char covered[4] = {0}, by[4][MW_HB_STR_MAX + 1];
	const char *n1[] = {"n3", "n1", "alive", "n4", "n1", "dead", "n1", "n1", "dead"};
	const char *n3[] = {"n4", "n3", "dead"};
	char *j;
	json_object *o, *st, *v;

	t = four_nodes(&s, &ch);
	snprintf(ch.node, sizeof ch.node, "n4");
	snprintf(ch.parent, sizeof ch.parent, "n2");
	col_tree_child(t, &s, &ch);

	/* The two CPs on direct links are asked. */
	ck_assert_int_eq(col_tree_probe_begin(t, &s, &req, record_send, NULL), 2);
	ck_assert_int_eq(nasked, 2);
	ck_assert_int_eq(asked[0], 0);
	ck_assert_int_eq(asked[1], 1);
	ck_assert_int_eq(col_tree_probe_done(t), 0);

	/* n1 reports on n3 (its own), on n4 (n2's) and on itself: only n3 counts. */
	j = summary(1, "n1", n1, 9);
	ck_assert_int_eq(col_tree_probesum(t, &s, 0, j), 0); /* n2 has not delivered */
	/* ... and a second time, in the same round: refused. */
	ck_assert_int_eq(col_tree_probesum(t, &s, 0, j), -1);
	free(j);
	ck_assert(timeline_has(&s, "probe summary of the CP on n1: 2 result(s) on nodes outside its subtree refused"));
	/* n3 was not asked (and runs no CP): refused. */
	j = summary(1, "n3", n3, 3);
	ck_assert_int_eq(col_tree_probesum(t, &s, 2, j), -1);
	free(j);
	/* A summary of another round: refused. */
	j = summary(2, "n2", n3, 3);
	ck_assert_int_eq(col_tree_probesum(t, &s, 1, j), -1);
	free(j);

	/* n2 is lost: it will not deliver; the round is complete. */
	ck_assert_int_eq(col_tree_probe_lost(t, 1), 1);
	ck_assert_int_eq(col_tree_probe_done(t), 1);
	memset(out, 0, sizeof out);
	ck_assert_uint_eq(col_tree_probe_take(t, &s, out, covered, by), 1);
	ck_assert_int_eq(covered[0], 0); /* n1, n2: the collector probes them */
	ck_assert_int_eq(covered[1], 0);
	ck_assert_int_eq(covered[2], 1);
	ck_assert_int_eq(out[2].state, MW_PROBE_ALIVE);
	ck_assert_str_eq(by[2], "n1");
	ck_assert_int_eq(covered[3], 0); /* n4: in n2's subtree, n2 did not deliver */
	ck_assert(timeline_has(&s, "the CP on n2 did not deliver its summary (lost): the collector probes its subtree itself"));
	ck_assert_int_eq(col_tree_probe_done(t), 1); /* no round any more */

	o = col_tree_json(t, &s);
	ck_assert(json_object_object_get_ex(o, "stats", &st));
	ck_assert(json_object_object_get_ex(st, "probe_requests", &v));
	ck_assert_int_eq(json_object_get_int(v), 2);
	ck_assert(json_object_object_get_ex(st, "probe_summaries", &v));
	ck_assert_int_eq(json_object_get_int(v), 1);
	ck_assert(json_object_object_get_ex(st, "probe_refused", &v));
	ck_assert_int_eq(json_object_get_int(v), 5); /* 2 results, the repeat, n3's, round 2's */
	ck_assert(json_object_object_get_ex(st, "probed_by_cps", &v));
	ck_assert_int_eq(json_object_get_int(v), 1);
	json_object_put(o);
	col_tree_free(t);
	col_state_free(&s);
}
END_TEST

/* The report after the job says who served each node: a BE that left its
 * CP at the end (BYE) is served by nobody now, by that CP until it left. */
START_TEST(test_served_by_after_leaving)
{
	struct col_state s;
	struct col_tree *t;
	struct mw_hb_child ch = {0};
	json_object *o, *nodes, *x, *v;
	char *txt = NULL;
	size_t len = 0;
	FILE *f;

	t = four_nodes(&s, &ch);
	ch.up = 0;
	ch.bye = 1; /* the job is over: its agent says goodbye */
	ck_assert_int_eq(col_tree_child(t, &s, &ch), -1);

	o = col_tree_json(t, &s);
	ck_assert(json_object_object_get_ex(o, "nodes", &nodes));
	x = json_object_array_get_idx(nodes, 2);
	ck_assert(json_object_object_get_ex(x, "node", &v));
	ck_assert_str_eq(json_object_get_string(v), "n3");
	ck_assert(json_object_object_get_ex(x, "parent", &v));
	ck_assert_str_eq(json_object_get_string(v), "");
	ck_assert(json_object_object_get_ex(x, "served_by", &v));
	ck_assert_str_eq(json_object_get_string(v), "n1");
	x = json_object_array_get_idx(nodes, 0); /* n1: a CP on its direct link */
	ck_assert(json_object_object_get_ex(x, "served_by", &v));
	ck_assert_str_eq(json_object_get_string(v), "collector");
	json_object_put(o);

	f = open_memstream(&txt, &len);
	col_tree_text(t, &s, f);
	fclose(f);
	ck_assert_msg(strstr(txt, "n3               BE, served by n1 (until it left)\n"), "%s", txt);
	free(txt);
	col_tree_free(t);
	col_state_free(&s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("coltree");
	TCase *tc = tcase_create("probe");
	tcase_add_test(tc, test_probe_round);
	tcase_add_test(tc, test_served_by_after_leaving);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
