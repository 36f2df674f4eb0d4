/* Unit tests for shared/drainreq.c: the drain-request parser and client. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "drainreq.h"
#include "unit.h"

static const struct {
	const char *in;
	int ok;
	int op;
	const char *job, *node, *summary, *err; /* err: substring of the message */
} parse_cases[] = {
	{"{\"version\":1,\"op\":\"drain\",\"job\":\"12\",\"node\":\"n2\",\"evidence\":{\"summary\":\"dead\"}}", 1,
	 MW_DRAINREQ_DRAIN, "12", "n2", "dead", NULL},
	{"{\"version\":1,\"op\":\"drain\",\"job\":\"12_3\",\"node\":\"gpu-01.x\"}\n", 1, MW_DRAINREQ_DRAIN, "12_3",
	 "gpu-01.x", "no evidence given", NULL},
	{"{\"version\":1,\"op\":\"drain\",\"job\":\"7\",\"node\":\"n2\",\"evidence\":\"a=b \\\"q\\\"\\n\\tz\"}", 1,
	 MW_DRAINREQ_DRAIN, "7", "n2", "a:b 'q' z", NULL},
	{"{\"version\":1,\"op\":\"drain\",\"job\":\"7\",\"node\":\"n2\",\"evidence\":[1,2]}", 1, MW_DRAINREQ_DRAIN,
	 "7", "n2", "[1,2]", NULL},
	{"  {\"version\":1,\"op\":\"status\"}  \n", 1, MW_DRAINREQ_STATUS, "", "", "", NULL},
	{"{\"version\":1,\"op\":\"status\",\"calibrate\":true}", 1, MW_DRAINREQ_STATUS, "", "", "", NULL},
	{"{\"version\":1,\"op\":\"status\",\"calibrate\":true,\"force\":true}", 1, MW_DRAINREQ_STATUS, "", "", "", NULL},
	{"{\"version\":1,\"op\":\"status\",\"calibrate\":1}", 0, 0, NULL, NULL, NULL, "\"calibrate\" must be true or false"},
	{"{\"version\":1,\"op\":\"status\",\"force\":true}", 0, 0, NULL, NULL, NULL, "\"force\" without \"calibrate\""},
	{"", 0, 0, NULL, NULL, NULL, "empty"},
	{"{", 0, 0, NULL, NULL, NULL, "not valid JSON"},
	{"[]", 0, 0, NULL, NULL, NULL, "not a JSON object"},
	{"{\"version\":1,\"op\":\"status\"} x", 0, 0, NULL, NULL, NULL, "trailing"},
	{"{\"version\":1,\"op\":\"status\"}{}", 0, 0, NULL, NULL, NULL, "trailing"},
	{"{\"op\":\"status\"}", 0, 0, NULL, NULL, NULL, "version"},
	{"{\"version\":2,\"op\":\"status\"}", 0, 0, NULL, NULL, NULL, "version"},
	{"{\"version\":\"1\",\"op\":\"status\"}", 0, 0, NULL, NULL, NULL, "version"},
	{"{\"version\":1}", 0, 0, NULL, NULL, NULL, "missing \"op\""},
	{"{\"version\":1,\"op\":\"reboot\"}", 0, 0, NULL, NULL, NULL, "unknown op"},
	{"{\"version\":1,\"op\":\"drain\",\"node\":\"n2\"}", 0, 0, NULL, NULL, NULL, "job"},
	{"{\"version\":1,\"op\":\"drain\",\"job\":12,\"node\":\"n2\"}", 0, 0, NULL, NULL, NULL, "job"},
	{"{\"version\":1,\"op\":\"drain\",\"job\":\"1;rm\",\"node\":\"n2\"}", 0, 0, NULL, NULL, NULL, "job"},
	{"{\"version\":1,\"op\":\"drain\",\"job\":\"\",\"node\":\"n2\"}", 0, 0, NULL, NULL, NULL, "job"},
	{"{\"version\":1,\"op\":\"drain\",\"job\":\"1\"}", 0, 0, NULL, NULL, NULL, "node"},
	{"{\"version\":1,\"op\":\"drain\",\"job\":\"1\",\"node\":\"n2 State=DOWN\"}", 0, 0, NULL, NULL, NULL, "node"},
	{"{\"version\":1,\"op\":\"drain\",\"job\":\"1\",\"node\":\"-n2\"}", 0, 0, NULL, NULL, NULL, "node"},
	{"{\"version\":1,\"op\":\"drain\",\"job\":\"1\",\"node\":\"n[1-2]\"}", 0, 0, NULL, NULL, NULL, "node"},
	/* a collector's summary: the job and one of the verdicts */
	{"{\"version\":1,\"op\":\"summary\",\"job\":\"12\",\"verdict\":\"software\"}\n", 1, MW_DRAINREQ_SUMMARY, "12",
	 "", "", NULL},
	{"{\"version\":1,\"op\":\"summary\",\"verdict\":\"none\"}", 0, 0, NULL, NULL, NULL, "job"},
	{"{\"version\":1,\"op\":\"summary\",\"job\":\"1;x\",\"verdict\":\"none\"}", 0, 0, NULL, NULL, NULL, "job"},
	{"{\"version\":1,\"op\":\"summary\",\"job\":\"12\"}", 0, 0, NULL, NULL, NULL,
	 "missing or invalid \"verdict\" (none, software or hardware)"},
	{"{\"version\":1,\"op\":\"summary\",\"job\":\"12\",\"verdict\":\"Software\"}", 0, 0, NULL, NULL, NULL, "verdict"},
	{"{\"version\":1,\"op\":\"summary\",\"job\":\"12\",\"verdict\":2}", 0, 0, NULL, NULL, NULL, "verdict"},
	{"{\"version\":1,\"op\":\"summary\",\"job\":\"12\",\"verdict\":\"hardware\\u0000\"}", 0, 0, NULL, NULL, NULL,
	 "verdict"},
};

/* A summary's verdict is its index in mw_summary_verdicts. */
START_TEST(test_parse_summary_verdict)
{
	for (int i = 0; i < MW_SUMMARY_NVERDICTS; i++) {
		struct mw_drainreq r;
		char in[128], err[256] = "";
		snprintf(in, sizeof in, "{\"version\":1,\"op\":\"summary\",\"job\":\"5\",\"verdict\":\"%s\"}",
			 mw_summary_verdicts[i]);
		ck_assert_msg(mw_drainreq_parse(in, strlen(in), &r, err, sizeof err) == 0, "%s: %s", in, err);
		ck_assert_int_eq(r.op, MW_DRAINREQ_SUMMARY);
		ck_assert_int_eq(r.verdict, i);
		ck_assert_ptr_null(r.evidence);
		mw_drainreq_free(&r);
	}
	ck_assert_ptr_null(mw_summary_verdicts[MW_SUMMARY_NVERDICTS]);
}
END_TEST

START_TEST(test_parse)
{
	struct mw_drainreq r;
	char err[256] = "";
	int rc = mw_drainreq_parse(parse_cases[_i].in, strlen(parse_cases[_i].in), &r, err, sizeof(err));
	if (!parse_cases[_i].ok) {
		ck_assert_msg(rc == -1, "case %d should fail", _i);
		ck_assert_int_eq(errno, EINVAL);
		ck_assert_msg(strstr(err, parse_cases[_i].err), "case %d: error '%s' lacks '%s'", _i, err,
			      parse_cases[_i].err);
		ck_assert_ptr_null(r.evidence);
		return;
	}
	ck_assert_msg(rc == 0, "case %d: %s", _i, err);
	ck_assert_int_eq(r.op, parse_cases[_i].op);
	ck_assert_str_eq(r.job, parse_cases[_i].job);
	ck_assert_str_eq(r.node, parse_cases[_i].node);
	ck_assert_str_eq(r.summary, parse_cases[_i].summary);
	ck_assert_int_eq(r.calibrate, strstr(parse_cases[_i].in, "\"calibrate\":true") != NULL);
	ck_assert_int_eq(r.force, strstr(parse_cases[_i].in, "\"force\":true") != NULL);
	mw_drainreq_free(&r);
}
END_TEST

START_TEST(test_parse_limits)
{
	struct mw_drainreq r;
	char err[256];
	size_t n = MW_DRAINREQ_MAX + 10;
	char *big = malloc(n + 1);
	/* too large */
	memset(big, ' ', n);
	big[n] = 0;
	ck_assert_int_eq(mw_drainreq_parse(big, n, &r, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "too large"));
	/* NUL inside */
	ck_assert_int_eq(mw_drainreq_parse("{\"version\":1,\0\"op\":\"status\"}", 28, &r, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "NUL"));
	/* evidence too large */
	{
		const char *head = "{\"version\":1,\"op\":\"drain\",\"job\":\"1\",\"node\":\"n1\",\"evidence\":\"";
		size_t hl = strlen(head), el = MW_DRAINREQ_EVIDENCE_MAX + 1;
		memcpy(big, head, hl);
		memset(big + hl, 'a', el);
		memcpy(big + hl + el, "\"}", 3);
		ck_assert_int_eq(mw_drainreq_parse(big, strlen(big), &r, err, sizeof(err)), -1);
		ck_assert_ptr_nonnull(strstr(err, "evidence too large"));
	}
	/* deep nesting is refused by the tokenizer depth, not a crash */
	memset(big, '[', 1000);
	ck_assert_int_eq(mw_drainreq_parse(big, 1000, &r, err, sizeof(err)), -1);
	/* a long summary is cut */
	{
		const char *head = "{\"version\":1,\"op\":\"drain\",\"job\":\"1\",\"node\":\"n1\",\"evidence\":\"";
		size_t hl = strlen(head);
		memcpy(big, head, hl);
		memset(big + hl, 'b', 500);
		memcpy(big + hl + 500, "\"}", 3);
		ck_assert_int_eq(mw_drainreq_parse(big, strlen(big), &r, err, sizeof(err)), 0);
		ck_assert_uint_eq(strlen(r.summary), MW_DRAINREQ_SUMMARY_MAX);
		mw_drainreq_free(&r);
	}
	free(big);
}
END_TEST

START_TEST(test_client_no_daemon)
{
	char msg[256];
	errno = 0;
	ck_assert_int_eq(mw_drain_request("/nonexistent/nhd.sock", "1", "n1", NULL, msg, sizeof(msg)), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_ptr_nonnull(strstr(msg, "cannot reach"));
	ck_assert_int_eq(mw_drain_request("/nonexistent/nhd.sock", "1;x", "n1", NULL, msg, sizeof(msg)), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(mw_drain_request("/nonexistent/nhd.sock", "1", "n1", "{bad", msg, sizeof(msg)), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* A daemon that answers "busy" to its first `busy` connections, then
 * "drained"; counts the connections. */
struct busyd {
	int lfd, busy, seen;
	char path[108];
};

static void *busyd_main(void *arg)
{
	struct busyd *b = arg;
	for (;;) {
		char buf[4096];
		int fd = accept(b->lfd, NULL, NULL);
		const char *rep;
		if (fd < 0)
			return NULL;
		size_t got = 0;
		ssize_t r;
		/* the whole request, as the daemon reads it (up to its newline) */
		while (got < sizeof(buf) && (r = read(fd, buf + got, sizeof(buf) - got)) > 0) {
			got += (size_t)r;
			if (memchr(buf, '\n', got))
				break;
		}
		b->seen++;
		rep = b->seen <= b->busy ? "{\"ok\":false,\"error\":\"nodehealthd is busy, try again later\",\"retry\":true}\n"
					 : "{\"ok\":true,\"result\":\"drained\",\"message\":\"node n2 drained\"}\n";
		if (write(fd, rep, strlen(rep)) < 0)
			perror("write");
		close(fd);
		if (b->seen > b->busy)
			return NULL;
	}
}

START_TEST(test_client_busy_retry)
{
	struct busyd b = {.busy = 3};
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	pthread_t t;
	char msg[256];
	snprintf(b.path, sizeof(b.path), "/tmp/test_drainreq.%d.sock", (int)getpid());
	unlink(b.path);
	strcpy(sun.sun_path, b.path);
	b.lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_eq(bind(b.lfd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	ck_assert_int_eq(listen(b.lfd, 4), 0);
	pthread_create(&t, NULL, busyd_main, &b);
	/* busy three times, then drained: the client asks again each time */
	ck_assert_int_eq(mw_drain_request(b.path, "5", "n2", NULL, msg, sizeof(msg)), 0);
	ck_assert_str_eq(msg, "node n2 drained");
	pthread_join(t, NULL);
	ck_assert_int_eq(b.seen, 4);
	close(b.lfd);
	unlink(b.path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("drainreq");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_parse, 0, sizeof(parse_cases) / sizeof(parse_cases[0]));
	tcase_add_test(tc, test_parse_limits);
	tcase_add_test(tc, test_parse_summary_verdict);
	tcase_add_test(tc, test_client_no_daemon);
	tcase_add_test(tc, test_client_busy_retry);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
