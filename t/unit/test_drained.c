/* Unit tests for "mpiwatch status --drained" (cli/drained.c) and the one
 * format of mpiwatch's drain reason (shared/drainreason.c): a captured
 * "sinfo --json" of the lab (Slurm 22.05.8; n3 drained with an mpiwatch
 * reason, n4 drained by an admin whose reason quotes one), read through a
 * fake sinfo as the command runs it, then bad input. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "drained.h"
#include "drainreason.h"
#include "slurm.h"
#include "unit.h"

#define CAPTURED "t/data/sinfo-drained.json"

static char dir[256], scontrol[300];

static void setup(void)
{
	char p[600], cwd[300];
	snprintf(dir, sizeof(dir), "/tmp/test_drained.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(scontrol, sizeof(scontrol), "%s/scontrol", dir);
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	/* A fake sinfo beside a fake scontrol: prints the file "out" (the
	 * capture unless the test writes another), logs its arguments. */
	snprintf(p, sizeof(p), "#!/bin/sh\necho \"$@\" >>\"%s/log\"\ncat \"%s/out\"\n", dir, dir);
	mw_unit_put(dir, "sinfo", p);
	mw_unit_put(dir, "scontrol", "#!/bin/sh\nexit 1\n");
	snprintf(p, sizeof(p), "%s/sinfo", dir);
	chmod(p, 0755);
	snprintf(p, sizeof(p), "cp '%s/" CAPTURED "' '%s/out'", cwd, dir);
	ck_assert_int_eq(system(p), 0);
}

static void teardown(void)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

/* The capture through the fake sinfo, as the command reads it. */
START_TEST(test_captured)
{
	const struct mw_slurm s = {scontrol, 10};
	struct mw_slurm_node *v = NULL;
	struct mw_drained *d = NULL;
	char err[256] = "", *text = NULL;
	size_t len = 0;
	FILE *f;
	long n = mw_slurm_nodes(&s, &v, err, sizeof(err));

	ck_assert_msg(n == 4, "%ld nodes: %s", n, err);
	ck_assert_str_eq(mw_unit_get(dir, "log"), "--json\n");
	ck_assert_str_eq(v[2].name, "n3");
	ck_assert_str_eq(v[2].state, "IDLE+DRAIN");
	ck_assert_int_eq((long)v[2].reason_time, 1795862858L);
	ck_assert_str_eq(v[2].reason_user, "root");
	ck_assert_int_eq((long)v[0].reason_time, 0); /* no reason: no time */
	ck_assert_str_eq(v[0].reason_user, "");

	ck_assert_int_eq(mw_drained_pick(v, n, &d), 1);
	ck_assert_str_eq(d[0].node, "n3");
	ck_assert_str_eq(d[0].job, "41");
	ck_assert_str_eq(d[0].summary, "node n3 dead (no answer to 3 probes in 2.0s)");
	ck_assert_str_eq(d[0].set_by, "root");
	ck_assert_int_eq((long)d[0].since, 1795862858L);

	{
		struct json_object *o = mw_drained_json(d, 1);
		ck_assert_ptr_nonnull(o);
		ck_assert_str_eq(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
				 "{\"drained\":[{\"node\":\"n3\",\"state\":\"IDLE+DRAIN\",\"since\":1795862858,"
				 "\"since_utc\":\"2026-11-28T10:47:38Z\",\"job\":\"41\","
				 "\"summary\":\"node n3 dead (no answer to 3 probes in 2.0s)\","
				 "\"reason\":\"mpiwatch: job 41: node n3 dead (no answer to 3 probes in 2.0s)\","
				 "\"set_by\":\"root\"}]}");
		json_object_put(o);
	}
	setenv("TZ", "UTC", 1);
	tzset();
	f = open_memstream(&text, &len);
	mw_drained_print(d, 1, f);
	fclose(f);
	ck_assert_str_eq(text, "NODE             STATE                      SINCE               JOB        REASON\n"
			       "n3               IDLE+DRAIN                 2026-11-28 10:47:38 41         "
			       "node n3 dead (no answer to 3 probes in 2.0s)\n");
	free(text);
	free(d);
	free(v);
}
END_TEST

/* The reason nodehealthd writes reads back as it was written. */
START_TEST(test_round_trip)
{
	char r[256], job[32];
	const char *sum;
	ck_assert_int_eq(mw_drain_reason_format(r, sizeof(r), "1234_7", "node n2 dead: no heartbeat"),
			 (int)strlen("mpiwatch: job 1234_7: node n2 dead: no heartbeat"));
	ck_assert_str_eq(r, "mpiwatch: job 1234_7: node n2 dead: no heartbeat");
	ck_assert_int_eq(mw_drain_reason_ours(r), 1);
	ck_assert_int_eq(mw_drain_reason_parse(r, job, sizeof(job), &sum), 0);
	ck_assert_str_eq(job, "1234_7");
	ck_assert_str_eq(sum, "node n2 dead: no heartbeat");
	ck_assert_int_eq(mw_drain_reason_format(r, 0, "1", "x"), -1);
}
END_TEST

/* Reasons: ours, ours but not in the format, others'. */
static const struct {
	const char *reason;
	int rc, err;
	const char *job, *summary;
} reasons[] = {
	{"mpiwatch: job 5: dead", 0, 0, "5", "dead"},
	{"mpiwatch: job 5+1: ", 0, 0, "5+1", ""},
	{"mpiwatch: job 5: a: b: c", 0, 0, "5", "a: b: c"},
	{"mpiwatch: drained by hand", -1, EINVAL, "", "drained by hand"},
	{"mpiwatch:", -1, EINVAL, "", ""},
	{"mpiwatch: job ", -1, EINVAL, "", "job "},
	{"mpiwatch: job : x", -1, EINVAL, "", "job : x"},
	{"mpiwatch: job 12x: y", -1, EINVAL, "", "job 12x: y"},
	{"mpiwatch: job x12: y", -1, EINVAL, "", "job x12: y"},
	{"mpiwatch: job 12:y", -1, EINVAL, "", "job 12:y"},
	{"mpiwatch: job 123456789012345678901234567890123: y", -1, EINVAL, "",
	 "job 123456789012345678901234567890123: y"},
	{"mpiwatch:job 12: y", -1, EINVAL, "", "job 12: y"},
	{"admin: mpiwatch: job 5: disk swap", -1, ENOENT, "", NULL},
	{" mpiwatch: job 5: x", -1, ENOENT, "", NULL},
	{"MPIWATCH: job 5: x", -1, ENOENT, "", NULL},
	{"", -1, ENOENT, "", NULL},
	{NULL, -1, ENOENT, "", NULL},
};

START_TEST(test_reasons)
{
	char job[32] = "junk";
	const char *sum = "junk";
	errno = 0;
	ck_assert_int_eq(mw_drain_reason_parse(reasons[_i].reason, job, sizeof(job), &sum), reasons[_i].rc);
	if (reasons[_i].rc)
		ck_assert_int_eq(errno, reasons[_i].err);
	ck_assert_str_eq(job, reasons[_i].job);
	if (reasons[_i].summary)
		ck_assert_str_eq(sum, reasons[_i].summary);
	else
		ck_assert_ptr_null(sum);
	ck_assert_int_eq(mw_drain_reason_ours(reasons[_i].reason), reasons[_i].err != ENOENT);
}
END_TEST

#define NODE(name, state, flags, reason, extra)                                                        \
	"{\"name\": \"" name "\", \"state\": \"" state "\", \"state_flags\": " flags ", \"reason\": " reason \
	extra "}"

/* Bad or odd answers from sinfo: refused, or the nodes that are ours. */
static const struct {
	const char *text;
	long nodes;        /* mw_slurm_nodes_parse's answer */
	const char *picked; /* the nodes listed, by name */
	long since;        /* the first one's time */
} answers[] = {
	{"", -1, NULL, 0},
	{"sinfo: error: no configuration", -1, NULL, 0},
	{"{}", -1, NULL, 0},
	{"{\"nodes\": 5}", -1, NULL, 0},
	{"{\"nodes\": {\"name\": \"n1\"}}", -1, NULL, 0},
	{"[{\"nodes\": []}]", -1, NULL, 0},
	{"{\"nodes\": []}", 0, "", 0},
	{"{\"nodes\": [5, \"n1\", null, [], {}, {\"name\": 7}, {\"name\": \"\"}]}", 0, "", 0},
	/* our reason, drained; the time as Slurm may give it (a double) */
	{"{\"nodes\": [" NODE("n1", "idle", "[\"DRAIN\"]", "\"mpiwatch: job 9: x\"", ", \"reason_changed_at\": 17.0") "]}",
	 1, "n1", 17},
	/* draining under a job (MIXED+DRAIN), down and drained */
	{"{\"nodes\": [" NODE("n1", "mixed", "[\"DRAIN\"]", "\"mpiwatch: job 9: x\"", "") ", " NODE(
		 "n2", "down", "[\"DRAIN\", \"NOT_RESPONDING\"]", "\"mpiwatch: job 9: y\"", "") "]}",
	 2, "n1 n2", 0},
	/* ours but not drained (down, or resumed with the reason left), or a
	 * flag that only contains DRAIN: not listed */
	{"{\"nodes\": [" NODE("n1", "down", "[]", "\"mpiwatch: job 9: x\"", "") ", " NODE(
		 "n2", "idle", "[\"NOT_DRAINED\"]", "\"mpiwatch: job 9: y\"", "") ", " NODE(
		 "n3", "idle", "[\"DRAINX\"]", "\"mpiwatch: job 9: z\"", "") "]}",
	 3, "", 0},
	/* drained by others: not listed */
	{"{\"nodes\": [" NODE("n1", "idle", "[\"DRAIN\"]", "\"admin: mpiwatch: job 9\"", "") ", " NODE(
		 "n2", "idle", "[\"DRAIN\"]", "\"NHC: check_fs_mount\"", "") ", " NODE(
		 "n3", "idle", "[\"DRAIN\"]", "\"\"", "") "]}",
	 3, "", 0},
	/* wrong types: a reason that is not a string is no reason; bad times
	 * and users are unknown, never guessed */
	{"{\"nodes\": [" NODE("n1", "idle", "[\"DRAIN\"]", "5", "") ", " NODE(
		 "n2", "idle", "[\"DRAIN\", 5, null]", "\"mpiwatch: job 9: y\"",
		 ", \"reason_changed_at\": \"yesterday\", \"reason_set_by_user\": 0") ", " NODE(
		 "n3", "idle", "[\"DRAIN\"]", "\"mpiwatch: job 9: z\"", ", \"reason_changed_at\": -5") ", " NODE(
		 "n4", "idle", "[\"DRAIN\"]", "\"mpiwatch: job 9: z\"", ", \"reason_changed_at\": 1e300") "]}",
	 4, "n2 n3 n4", 0},
	/* no state at all */
	{"{\"nodes\": [{\"name\": \"n1\", \"reason\": \"mpiwatch: job 9: x\"}]}", 1, "", 0},
};

START_TEST(test_answers)
{
	struct mw_slurm_node *v = NULL;
	struct mw_drained *d = NULL;
	char names[256] = "";
	long n = mw_slurm_nodes_parse(answers[_i].text, &v), k;

	ck_assert_int_eq(n, answers[_i].nodes);
	if (n < 0) {
		ck_assert_ptr_null(v);
		return;
	}
	k = mw_drained_pick(v, n, &d);
	ck_assert_int_ge(k, 0);
	for (long i = 0; i < k; i++) {
		size_t o = strlen(names);
		snprintf(names + o, sizeof(names) - o, "%s%s", i ? " " : "", d[i].node);
		ck_assert_int_ge((long)d[i].since, 0);
	}
	ck_assert_str_eq(names, answers[_i].picked);
	if (k > 0)
		ck_assert_int_eq((long)d[0].since, answers[_i].since);
	{
		struct json_object *o = mw_drained_json(d, k);
		ck_assert_ptr_nonnull(o);
		json_object_put(o);
	}
	free(d);
	free(v);
}
END_TEST

/* sinfo failing or answering something else: the command's error. */
START_TEST(test_sinfo_fails)
{
	const struct mw_slurm s = {scontrol, 10};
	struct mw_slurm_node *v = NULL;
	char err[256] = "";

	mw_unit_put(dir, "out", "sinfo: error: Unable to contact slurm controller\n");
	ck_assert_int_eq(mw_slurm_nodes(&s, &v, err, sizeof(err)), -1);
	ck_assert_ptr_null(v);
	ck_assert_str_eq(err, "sinfo --json: not the JSON expected");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("drained");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_captured);
	tcase_add_test(tc, test_round_trip);
	tcase_add_loop_test(tc, test_reasons, 0, sizeof(reasons) / sizeof(reasons[0]));
	tcase_add_loop_test(tc, test_answers, 0, sizeof(answers) / sizeof(answers[0]));
	tcase_add_test(tc, test_sinfo_fails);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
