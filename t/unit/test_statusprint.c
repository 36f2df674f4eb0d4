/* Unit tests for cli/statusprint.c: what "mpiwatch status" prints from a
 * job's report (a file the job's user can write) and nodehealthd's status. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "statusprint.h"

/* Print r (JSON text) with fn into a string (caller frees). */
static char *print(void (*fn)(struct json_object *, FILE *), const char *json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json_object *o = json_tokener_parse(json);
	ck_assert_ptr_nonnull(f);
	fn(o, f);
	fclose(f);
	json_object_put(o);
	return buf;
}

/* A report with the usual members prints them; the agents are a host list. */
START_TEST(test_job_report)
{
	char *t = print(mw_status_print_job,
			"{\"summary\": \"no failure detected\", \"confirmed\": false,"
			" \"nodes\": [{\"name\": \"n1\", \"agent\": \"connected\"}, {\"name\": \"n2\", \"agent\": \"connected\"},"
			" {\"name\": \"n3\", \"agent\": \"lost\"}],"
			" \"stats\": {\"rank_announcements\": 4, \"heartbeats\": 2}, \"ranks_total\": 4,"
			" \"timeline\": [{\"time\": \"T1\", \"event\": \"start\", \"detail\": \"listening\"}]}");
	ck_assert_msg(strstr(t, "verdict:     no failure detected\n"), "%s", t);
	ck_assert_msg(strstr(t, "agents:      2 of 3 connected: n[1-2]\n"), "%s", t);
	ck_assert_msg(strstr(t, "1 lost: n3\n"), "%s", t);
	ck_assert_msg(strstr(t, "ranks seen:  4 of 4; heartbeats 2\n"), "%s", t);
	ck_assert_msg(strstr(t, "  T1  start            listening\n"), "%s", t);
	free(t);
}
END_TEST

/* Terminal escapes in a user's report reach no screen; members of the
 * wrong type print as nothing, not an abort. */
START_TEST(test_job_report_hostile)
{
	char *t = print(mw_status_print_job,
			"{\"summary\": \"\\u001b]2;owned\\u0007x\", \"nodes\": 7, \"timeline\": {\"a\": 1},"
			" \"tree\": [1, 2], \"stats\": \"s\"}");
	ck_assert_msg(!strchr(t, 0x1b) && !strchr(t, 0x07), "%s", t);
	ck_assert_msg(strstr(t, "verdict:     ?]2;owned?x\n"), "%s", t);
	ck_assert_msg(!strstr(t, "agents:") && !strstr(t, "last events:"), "%s", t);
	free(t);
	t = print(mw_status_print_job, "[1, \"a\", null]");
	ck_assert_msg(strstr(t, "verdict:     ?\n"), "%s", t);
	free(t);
}
END_TEST

/* nodehealthd's status: checks and counters; a "checks" that is not an
 * array and counters named with control characters are left out. */
START_TEST(test_node_status)
{
	char *t = print(mw_status_print_node,
			"{\"node\": \"n1\", \"state\": \"alive\", \"summary\": \"ok\","
			" \"checks\": [{\"check\": \"disk\", \"ok\": true, \"detail\": \"fine\"}],"
			" \"counters\": {\"probes\": 5, \"bad\\u001bkey\": 1}, \"drains_in_window\": 0}");
	ck_assert_msg(strstr(t, "state:       alive\n"), "%s", t);
	ck_assert_msg(strstr(t, "  ok   disk     fine\n"), "%s", t);
	ck_assert_msg(strstr(t, "  probes             5\n"), "%s", t);
	ck_assert_msg(!strchr(t, 0x1b), "%s", t);
	free(t);
	t = print(mw_status_print_node, "{\"checks\": \"none\", \"calibration\": 3}");
	ck_assert_msg(!strstr(t, "checks:"), "%s", t);
	ck_assert_msg(strstr(t, "calibration: none yet\n"), "%s", t);
	free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("statusprint");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_job_report);
	tcase_add_test(tc, test_job_report_hostile);
	tcase_add_test(tc, test_node_status);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
