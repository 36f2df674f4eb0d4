/* Unit tests of calib/cal_history.c: a node's calibrations kept over time
 * and the figures pooled over them (issue 32).  The calibrations here are
 * made up; nothing about this machine is asserted. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cal_apart.h"
#include "cal_calib.h"
#include "cal_history.h"
#include "cal_search.h"
#include "jsonschema.h"

/* A calibration at base 8192 on a 10 ns clock with blocks ns[0..nb) (0: not
 * resolved) and a runs-apart bound apart (0: not bounded). */
static void fake(struct cal_result *r, const double *ns, unsigned nb, double apart)
{
	memset(r, 0, sizeof(*r));
	r->base_adds = 8192;
	r->timer.step_ns = 10;
	struct cal_resolution blk[CAL_BLOCKS_MAX];
	memset(blk, 0, sizeof(blk));
	for (unsigned i = 0; i < nb; i++) {
		r->block[i] = (struct cal_block){.found = ns[i] > 0, .ns = ns[i], .cy = 2.5 * ns[i], .rel = ns[i] / 2000};
		blk[i] = (struct cal_resolution){.found = ns[i] > 0, .d_ns = ns[i], .d_cy = 2.5 * ns[i], .rel = ns[i] / 2000};
	}
	ck_assert_int_eq(cal_resolution_blocks(blk, nb, &r->resolution), 0);
	struct cal_apart *a = &r->resolution.apart;
	a->procs = 32;
	a->step_ns = 10;
	if (apart > 0)
		a->measured = 32, a->bound_ns = apart, a->bound_cy = 2.5 * apart;
}

/* A calm calibration (every block at the two-step floor, runs apart 25 ns)
 * after a busier one (blocks 20-69, runs apart 55): the node's figures
 * cover both, and the criterion judges with the busier minute's 55 ns, not
 * the calm one's 25 (what the false alarms of doc/benchmarks.md issue 32
 * section 11 followed). */
START_TEST(test_node_pools)
{
	const double busy[5] = {20, 29, 41, 58, 69}, calm[5] = {20, 20, 20, 20, 20};
	struct cal_result r;
	struct cal_history h = {0};
	struct cal_resolution node;
	unsigned k = 0;
	double ns, cy, rel;
	fake(&r, busy, 5, 55);
	ck_assert_int_eq(cal_history_add(&h, &r, 1000), 1);
	fake(&r, calm, 5, 25);
	ck_assert_int_eq(cal_history_add(&h, &r, 2000), 1);
	ck_assert_uint_eq(h.n, 2);
	ck_assert(h.e[0].time == 1000 && h.e[1].time == 2000);
	ck_assert_int_eq(cal_history_node(&h, 8192, 10, &r.resolution, &node, &k), 0);
	ck_assert_uint_eq(k, 2);
	ck_assert_uint_eq(node.blocks, 10);
	ck_assert_uint_eq(node.blocks_found, 10);
	ck_assert(node.found);
	ck_assert_msg(node.d_ns == 20 && node.lo_ns == 20 && node.hi_ns == 69 && node.hi2_ns == 58,
		      "median %g spread %g-%g second %g", node.d_ns, node.lo_ns, node.hi_ns, node.hi2_ns);
	ck_assert(node.apart.bound_ns == 55 && node.apart.bound_cy == 2.5 * 55);
	ck_assert(node.apart.procs == 32 && cal_apart_bounded(&node.apart));
	cal_resolution_judged(&node, 10, &ns, &cy, &rel);
	ck_assert_msg(ns == 55, "judged %g", ns);
	/* This calibration alone judges with its own minute's 25 ns. */
	cal_resolution_judged(&r.resolution, 10, &ns, &cy, &rel);
	ck_assert_msg(ns == 25, "own %g", ns);
}
END_TEST

/* No history before: the node is this calibration. */
START_TEST(test_node_first)
{
	const double b[5] = {20, 31, 20, 0, 41};
	struct cal_result r;
	struct cal_history h = {0};
	struct cal_resolution node;
	unsigned k = 9;
	fake(&r, b, 5, 30);
	ck_assert_int_eq(cal_history_add(&h, &r, 5), 1);
	ck_assert_int_eq(cal_history_node(&h, 8192, 10, &r.resolution, &node, &k), 0);
	ck_assert_uint_eq(k, 1);
	ck_assert(node.d_ns == r.resolution.d_ns && node.lo_ns == r.resolution.lo_ns &&
		  node.hi_ns == r.resolution.hi_ns && node.blocks_found == 4 && node.blocks == 5);
	ck_assert(node.apart.bound_ns == 30);
	/* an empty history: own as it is */
	struct cal_history e = {0};
	ck_assert_int_eq(cal_history_node(&e, 8192, 10, &r.resolution, &node, &k), 0);
	ck_assert_uint_eq(k, 0);
	ck_assert(node.d_ns == r.resolution.d_ns && node.apart.bound_ns == 30);
}
END_TEST

/* Unresolved blocks count above every resolved one, as within one
 * calibration: a history where most blocks resolved nothing has no
 * resolution. */
START_TEST(test_node_unresolved)
{
	const double none[5] = {0, 0, 0, 0, 20}, some[5] = {0, 0, 30, 20, 0};
	struct cal_result r;
	struct cal_history h = {0};
	struct cal_resolution node;
	fake(&r, none, 5, 0);
	cal_history_add(&h, &r, 1);
	fake(&r, some, 5, 0);
	cal_history_add(&h, &r, 2);
	ck_assert_int_eq(cal_history_node(&h, 8192, 10, &r.resolution, &node, NULL), 0);
	ck_assert(!node.found && node.blocks == 10 && node.blocks_found == 3);
	ck_assert(node.lo_ns == 20 && node.hi_ns == 30);
	ck_assert(!cal_apart_bounded(&node.apart));
}
END_TEST

/* Only calibrations of the same chain on the same clock are pooled; the
 * last CAL_HISTORY_MAX are kept; one that measured no resolution adds
 * nothing. */
START_TEST(test_keep_and_match)
{
	const double b[3] = {20, 20, 20}, big[3] = {90, 90, 90};
	struct cal_result r;
	struct cal_history h = {0};
	struct cal_resolution node;
	unsigned k;
	fake(&r, big, 3, 95);
	r.base_adds = 32768; /* another R0 */
	cal_history_add(&h, &r, 1);
	fake(&r, big, 3, 95);
	r.timer.step_ns = 1; /* another clock */
	cal_history_add(&h, &r, 2);
	fake(&r, b, 3, 25);
	cal_history_add(&h, &r, 3);
	ck_assert_int_eq(cal_history_node(&h, 8192, 10, &r.resolution, &node, &k), 0);
	ck_assert_uint_eq(k, 1);
	ck_assert(node.hi_ns == 20 && node.apart.bound_ns == 25);
	for (int t = 4; t <= 12; t++)
		ck_assert_int_eq(cal_history_add(&h, &r, t), 1);
	ck_assert_uint_eq(h.n, CAL_HISTORY_MAX);
	ck_assert(h.e[0].time == 12 - CAL_HISTORY_MAX + 1 && h.e[CAL_HISTORY_MAX - 1].time == 12);
	struct cal_result none;
	memset(&none, 0, sizeof(none)); /* no base chain: nothing measured */
	ck_assert_int_eq(cal_history_add(&h, &none, 13), 0);
	ck_assert(h.e[CAL_HISTORY_MAX - 1].time == 12);
}
END_TEST

/* What is written is read back the same, and matches its schema. */
START_TEST(test_roundtrip)
{
	const double b[4] = {20, 0, 31.5, 41};
	struct cal_result r;
	struct cal_history h = {0}, g;
	char err[256];
	fake(&r, b, 4, 37.25);
	cal_history_add(&h, &r, 1700000000);
	fake(&r, b, 2, 0);
	cal_history_add(&h, &r, 1700000100);
	char *txt = cal_history_format(&h);
	ck_assert(txt != NULL);
	ck_assert_msg(cal_history_parse(txt, strlen(txt), "h.json", &g, err, sizeof(err)) == 0, "%s", err);
	struct json_object *s = mw_json_read_file("doc/schemas/calibration-history.schema.json", err, sizeof(err));
	ck_assert_msg(s != NULL, "%s", err);
	struct json_object *doc = json_tokener_parse(txt);
	ck_assert(doc != NULL);
	ck_assert_msg(mw_jsonschema_validate(s, doc, err, sizeof(err)) == 0, "%s\n%s", err, txt);
	json_object_put(doc);
	json_object_put(s);
	ck_assert_uint_eq(g.n, 2);
	for (size_t i = 0; i < 2; i++) {
		ck_assert(g.e[i].time == h.e[i].time && g.e[i].base_adds == h.e[i].base_adds);
		ck_assert(g.e[i].step_ns == h.e[i].step_ns && g.e[i].nblocks == h.e[i].nblocks);
		ck_assert(g.e[i].apart == h.e[i].apart);
		if (g.e[i].apart)
			ck_assert(g.e[i].apart_ns == h.e[i].apart_ns && g.e[i].apart_cy == h.e[i].apart_cy);
		for (unsigned j = 0; j < g.e[i].nblocks; j++) {
			ck_assert(g.e[i].block[j].found == h.e[i].block[j].found);
			if (g.e[i].block[j].found)
				ck_assert(g.e[i].block[j].ns == h.e[i].block[j].ns &&
					  g.e[i].block[j].cy == h.e[i].block[j].cy &&
					  g.e[i].block[j].rel == h.e[i].block[j].rel);
		}
	}
	free(txt);
}
END_TEST

/* Bad files are refused with a message naming the file and what is wrong. */
START_TEST(test_bad)
{
	static const char *const bad[] = {
		"",
		"not json",
		"[]",
		"{\"version\": 2, \"calibrations\": []}",
		"{\"calibrations\": []}",
		"{\"version\": 1}",
		"{\"version\": 1, \"calibrations\": {}}",
		"{\"version\": 1, \"calibrations\": [1]}",
		"{\"version\": 1, \"calibrations\": [{\"time\": 1, \"base_adds\": 0, \"step_ns\": 10, \"blocks\": [null], "
		"\"runs_apart_ns\": null, \"runs_apart_cy\": null}]}",
		"{\"version\": 1, \"calibrations\": [{\"time\": 1, \"base_adds\": 64, \"step_ns\": -1, \"blocks\": [null], "
		"\"runs_apart_ns\": null, \"runs_apart_cy\": null}]}",
		"{\"version\": 1, \"calibrations\": [{\"time\": 1, \"base_adds\": 64, \"step_ns\": 10, \"blocks\": [], "
		"\"runs_apart_ns\": null, \"runs_apart_cy\": null}]}",
		"{\"version\": 1, \"calibrations\": [{\"time\": 1, \"base_adds\": 64, \"step_ns\": 10, \"blocks\": "
		"[{\"ns\": -5, \"cy\": 0, \"relative\": 0}], \"runs_apart_ns\": null, \"runs_apart_cy\": null}]}",
		"{\"version\": 1, \"calibrations\": [{\"time\": 1, \"base_adds\": 64, \"step_ns\": 10, \"blocks\": "
		"[{\"ns\": \"x\", \"cy\": 0, \"relative\": 0}], \"runs_apart_ns\": null, \"runs_apart_cy\": null}]}",
		"{\"version\": 1, \"calibrations\": [{\"time\": 1, \"base_adds\": 64, \"step_ns\": 10, \"blocks\": "
		"[null], \"runs_apart_ns\": -3, \"runs_apart_cy\": null}]}",
		"{\"version\": 1, \"calibrations\": [{\"time\": 1, \"base_adds\": 64, \"step_ns\": 10, \"blocks\": "
		"[null]}]}",
		"{\"version\": 1, \"calibrations\": [{\"time\": 1, \"base_adds\": 64, \"step_ns\": 10, \"blocks\": "
		"[null], \"runs_apart_ns\": null, \"runs_apart_cy\": null}]} trailing",
	};
	struct cal_history h;
	char err[256];
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		ck_assert_msg(cal_history_parse(bad[i], strlen(bad[i]), "h.json", &h, err, sizeof(err)) == -1,
			      "accepted #%zu", i);
		ck_assert_msg(!strncmp(err, "h.json: ", 8), "#%zu: '%s'", i, err);
	}
	/* too many entries, or too many blocks in one */
	char *big = malloc(65536);
	size_t o = (size_t)sprintf(big, "{\"version\": 1, \"calibrations\": [");
	for (int i = 0; i <= CAL_HISTORY_MAX; i++)
		o += (size_t)sprintf(big + o, "%s{\"time\": %d, \"base_adds\": 64, \"step_ns\": 10, \"blocks\": [null], "
					       "\"runs_apart_ns\": null, \"runs_apart_cy\": null}",
				     i ? ", " : "", i);
	sprintf(big + o, "]}");
	ck_assert_int_eq(cal_history_parse(big, strlen(big), "h.json", &h, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "calibrations"), "%s", err);
	o = (size_t)sprintf(big, "{\"version\": 1, \"calibrations\": [{\"time\": 1, \"base_adds\": 64, \"step_ns\": "
				 "10, \"runs_apart_ns\": null, \"runs_apart_cy\": null, \"blocks\": [");
	for (int i = 0; i <= CAL_BLOCKS_MAX; i++)
		o += (size_t)sprintf(big + o, "%snull", i ? ", " : "");
	sprintf(big + o, "]}]}");
	ck_assert_int_eq(cal_history_parse(big, strlen(big), "h.json", &h, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "blocks"), "%s", err);
	free(big);
}
END_TEST

/* A missing file is a node's first calibration; an unreadable one is an
 * error; saving and loading keep what was there. */
START_TEST(test_load_save)
{
	char dir[] = "/tmp/test_cal_history.XXXXXX", path[128], err[256];
	struct cal_history h = {0}, g;
	struct cal_result r;
	const double b[2] = {20, 30};
	ck_assert(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/h.json", dir);
	g.n = 5;
	ck_assert_msg(cal_history_load(path, &g, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(g.n, 0);
	fake(&r, b, 2, 22);
	cal_history_add(&h, &r, 77);
	ck_assert_msg(cal_history_save(path, &h, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(cal_history_load(path, &g, err, sizeof(err)) == 0, "%s", err);
	ck_assert(g.n == 1 && g.e[0].time == 77 && g.e[0].apart_ns == 22);
	ck_assert_int_eq(cal_history_load(dir, &g, err, sizeof(err)), -1); /* a directory */
	ck_assert_msg(strstr(err, dir) == err, "%s", err);
	unlink(path);
	rmdir(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cal_history");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_node_pools);
	tcase_add_test(tc, test_node_first);
	tcase_add_test(tc, test_node_unresolved);
	tcase_add_test(tc, test_keep_and_match);
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_bad);
	tcase_add_test(tc, test_load_save);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
