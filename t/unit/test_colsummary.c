/* Unit tests for collector/colsummary.c: the summary the collector sends
 * its node's nodehealthd at its end is a request the daemon's parser takes
 * (op summary, the job, the verdict), every verdict the collector can reach
 * is one the protocol knows, and a missing daemon is no error of the job's. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "colsummary.h"
#include "drainreq.h"
#include "jsonschema.h"
#include "mw_json.h"
#include "unit.h"

/* text is valid against doc/schemas/name. */
static void assert_valid(const char *name, const char *text)
{
	char path[256], err[256] = "";
	struct json_object *s, *o = json_tokener_parse(text);
	snprintf(path, sizeof path, "doc/schemas/%s", name);
	s = mw_json_read_file(path, err, sizeof err);
	ck_assert_msg(s != NULL, "%s: %s", path, err);
	ck_assert_msg(o != NULL, "not JSON: %s", text);
	ck_assert_msg(mw_jsonschema_validate(s, o, err, sizeof err) == 0, "%s: %s\n%s", name, err, text);
	json_object_put(o);
	json_object_put(s);
}

START_TEST(test_verdict_names_known)
{
	enum col_verdict all[] = {COL_V_NONE, COL_V_SOFTWARE, COL_V_HARDWARE};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		int found = 0;
		for (int k = 0; mw_summary_verdicts[k]; k++)
			found |= !strcmp(mw_summary_verdicts[k], col_verdict_name(all[i]));
		ck_assert_msg(found, "verdict %s is one of mw_summary_verdicts", col_verdict_name(all[i]));
	}
}
END_TEST

START_TEST(test_request_parses)
{
	enum col_verdict all[] = {COL_V_NONE, COL_V_SOFTWARE, COL_V_HARDWARE};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		char *req = col_summary_request("4242_7", all[i]), err[256] = "";
		struct mw_drainreq r;
		ck_assert_ptr_nonnull(req);
		ck_assert_ptr_null(strchr(req, '\n'));
		ck_assert_msg(mw_drainreq_parse(req, strlen(req), &r, err, sizeof err) == 0, "%s: %s", req, err);
		ck_assert_int_eq(r.op, MW_DRAINREQ_SUMMARY);
		ck_assert_str_eq(r.job, "4242_7");
		ck_assert_str_eq(mw_summary_verdicts[r.verdict], col_verdict_name(all[i]));
		assert_valid("drainreq.schema.json", req);
		mw_drainreq_free(&r);
		free(req);
	}
	/* not a Slurm job id (a run without Slurm): no request */
	errno = 0;
	ck_assert_ptr_null(col_summary_request("local-1", COL_V_NONE));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* The daemon's answers to a summary, as doc/protocol.md shows them. */
START_TEST(test_replies_valid)
{
	assert_valid("drainreq-reply.schema.json",
		     "{\"ok\":true,\"result\":\"counted\",\"message\":\"job 12: verdict software counted\"}");
	assert_valid("drainreq-reply.schema.json",
		     "{\"ok\":true,\"result\":\"duplicate\",\"message\":\"job 12: verdict software was counted already\"}");
}
END_TEST

START_TEST(test_send_no_daemon)
{
	ck_assert_int_eq(col_summary_send("/nonexistent-mw/nodehealthd.sock", "12", COL_V_SOFTWARE, 1.0), -1);
	ck_assert_int_eq(col_summary_send(NULL, "not-a-job", COL_V_NONE, 1.0), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("collector summary");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_verdict_names_known);
	tcase_add_test(tc, test_request_parses);
	tcase_add_test(tc, test_replies_valid);
	tcase_add_test(tc, test_send_no_daemon);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
