/* Unit tests for collector/colsummary.c: the summary the collector sends
 * its node's nodehealthd at its end is a request the daemon's parser takes
 * (op summary, the job, the verdict), every verdict the collector can reach
 * is one the protocol knows, and a missing daemon is no error of the job's. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <uv.h>


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

/* A nodehealthd's drain socket served on the test's loop: it answers the
 * first request "counted" once the request's line is in. */
struct fake_nhd {
	uv_pipe_t srv, cli;
	char buf[4096];
	size_t len;
	int answered;
	uv_write_t wr;
};

static void fake_alloc(uv_handle_t *h, size_t hint, uv_buf_t *b)
{
	struct fake_nhd *f = h->data;
	(void)hint;
	*b = uv_buf_init(f->buf + f->len, (unsigned)(sizeof f->buf - 1 - f->len));
}

static void fake_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
	static char reply[] = "{\"ok\":true,\"result\":\"counted\",\"message\":\"job 12: verdict software counted\"}\n";
	struct fake_nhd *f = st->data;
	uv_buf_t r = uv_buf_init(reply, sizeof reply - 1);
	(void)b;
	if (n > 0)
		f->len += (size_t)n;
	if (f->answered || (n > 0 && !memchr(f->buf, '\n', f->len)))
		return;
	f->answered = 1;
	uv_read_stop(st);
	ck_assert_int_eq(uv_write(&f->wr, st, &r, 1, NULL), 0);
	uv_close((uv_handle_t *)st, NULL); /* after the write: its end is the answer's */
}

static void fake_conn(uv_stream_t *srv, int status)
{
	struct fake_nhd *f = srv->data;
	ck_assert_int_eq(status, 0);
	ck_assert_int_eq(uv_pipe_init(srv->loop, &f->cli, 0), 0);
	f->cli.data = f;
	ck_assert_int_eq(uv_accept(srv, (uv_stream_t *)&f->cli), 0);
	ck_assert_int_eq(uv_read_start((uv_stream_t *)&f->cli, fake_alloc, fake_read), 0);
}

START_TEST(test_send_on_loop)
{
	/* The summary sent while the loop turns: a nodehealthd served by the
	 * same loop hears it and answers (sent in line, nobody would). */
	char dir[] = "/tmp/test_colsummary.XXXXXX", sock[128];
	static struct fake_nhd f;
	uv_loop_t loop;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(sock, sizeof sock, "%s/nhd.sock", dir);
	ck_assert_int_eq(uv_loop_init(&loop), 0);
	ck_assert_int_eq(uv_pipe_init(&loop, &f.srv, 0), 0);
	f.srv.data = &f;
	ck_assert_int_eq(uv_pipe_bind(&f.srv, sock), 0);
	ck_assert_int_eq(uv_listen((uv_stream_t *)&f.srv, 4, fake_conn), 0);
	ck_assert_int_eq(col_summary_send_on(&loop, sock, "12", COL_V_SOFTWARE, 5.0), 0);
	ck_assert_int_eq(f.answered, 1);
	ck_assert_ptr_nonnull(strstr(f.buf, "\"op\":\"summary\""));
	uv_close((uv_handle_t *)&f.srv, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
	unlink(sock);
	rmdir(dir);
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
	tcase_add_test(tc, test_send_on_loop);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
