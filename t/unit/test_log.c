/* Unit tests for shared/log.c: prefix, levels and the rate limiter. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

/* Capture what mw_log writes to stderr. */
static char *capture(void (*fn)(void))
{
	static char buf[4096];
	char path[] = "/tmp/mwlogXXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	fflush(stderr);
	dup2(fd, 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
	return buf;
}

static void log_some(void)
{
	mw_log_open("mwtest", MW_LOG_STDERR, LOG_INFO);
	mw_err("bad %d", 1);
	mw_debug("hidden");
	mw_info("shown");
}

START_TEST(test_prefix_and_level)
{
	ck_assert_str_eq(capture(log_some), "mwtest: bad 1\nmwtest: shown\n");
}
END_TEST

static void log_limited(void)
{
	struct mw_ratelimit rl = MW_RATELIMIT_INIT(0.0001, 2);
	mw_log_open("mwtest", MW_LOG_STDERR, LOG_INFO);
	for (int i = 0; i < 10; i++)
		mw_log_limited(&rl, LOG_WARNING, "flood %d", i);
}

START_TEST(test_limited_logging)
{
	/* A burst of 2 passes; the other 8 are suppressed. */
	ck_assert_str_eq(capture(log_limited), "mwtest: flood 0\nmwtest: flood 1\n");
}
END_TEST

/* "mwtest: info NN\n" is 16 bytes: a cap of 40 keeps two info lines. */
static void log_capped(void)
{
	mw_log_open("mwtest", MW_LOG_STDERR, LOG_INFO);
	mw_log_cap(40);
	for (int i = 10; i < 14; i++)
		mw_info("info %d", i);
	mw_warn("warn 1");
	mw_info("info 99");
	for (int i = 0; i < 10; i++)
		mw_err("err %d", i);
	mw_log_cap(0);
}

START_TEST(test_log_cap)
{
	ck_assert_str_eq(capture(log_capped),
			 "mwtest: info 10\nmwtest: info 11\n"
			 "mwtest: log limit of 40 bytes reached: only warnings and errors from now on\n"
			 "mwtest: warn 1\nmwtest: err 0\nmwtest: err 1\n"
			 "mwtest: log limit reached twice: nothing more is logged\n");
}
END_TEST

static const struct {
	double per_sec, burst;
	double times[6];
	int expect[6];
} rl_cases[] = {
	/* burst 2 at t=1: two pass, third refused; one token back after 1 s at 1/s. */
	{1, 2, {1, 1, 1, 2, 2, 10}, {1, 1, 0, 1, 0, 1}},
	/* fast refill */
	{100, 1, {1, 1, 1.02, 1.02, 1.03, 1.04}, {1, 0, 1, 0, 1, 1}},
	/* time going backwards never adds tokens */
	{1, 1, {5, 4, 3, 2, 1, 0.5}, {1, 0, 0, 0, 0, 0}},
};

START_TEST(test_ratelimit)
{
	struct mw_ratelimit rl = MW_RATELIMIT_INIT(rl_cases[_i].per_sec, rl_cases[_i].burst);
	unsigned long refused = 0;
	for (int k = 0; k < 6; k++) {
		int got = mw_ratelimit_take(&rl, rl_cases[_i].times[k]);
		ck_assert_msg(got == rl_cases[_i].expect[k], "case %d step %d: got %d", _i, k, got);
		refused += !got;
	}
	ck_assert_uint_eq(rl.suppressed, refused);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("log");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_prefix_and_level);
	tcase_add_test(tc, test_limited_logging);
	tcase_add_test(tc, test_log_cap);
	tcase_add_loop_test(tc, test_ratelimit, 0, sizeof(rl_cases) / sizeof(rl_cases[0]));
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
