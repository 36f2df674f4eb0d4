/* Unit tests for nodehealthd's per-source rate limiter (nhd_rl.c). */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <string.h>

#include "nhd_rl.h"

static struct sockaddr_in v4(uint32_t a)
{
	struct sockaddr_in s = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(a)};
	return s;
}

static const struct {
	double rate, burst;
	int packets;       /* sent at the same instant */
	int want_allowed;
} burst_cases[] = {
	{10, 20, 100, 20},
	{10, 1, 5, 1},
	{1000, 200, 150, 150},
	{0, 1, 10000, 10000}, /* rate 0: no limit */
};

START_TEST(test_burst)
{
	struct nhd_rl rl;
	struct sockaddr_in a = v4(0x0a000001);
	int allowed = 0;
	ck_assert_int_eq(nhd_rl_init(&rl, 64, burst_cases[_i].rate, burst_cases[_i].burst), 0);
	for (int i = 0; i < burst_cases[_i].packets; i++)
		allowed += nhd_rl_allow(&rl, (struct sockaddr *)&a, 100.0);
	ck_assert_int_eq(allowed, burst_cases[_i].want_allowed);
	nhd_rl_destroy(&rl);
}
END_TEST

START_TEST(test_refill_and_independent_sources)
{
	struct nhd_rl rl;
	struct sockaddr_in a = v4(0x0a000001), b = v4(0x0a000002);
	struct sockaddr_in6 c6 = {.sin6_family = AF_INET6};
	ck_assert_int_eq(nhd_rl_init(&rl, 64, 10, 5), 0);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(nhd_rl_allow(&rl, (struct sockaddr *)&a, 10.0), 1);
	ck_assert_int_eq(nhd_rl_allow(&rl, (struct sockaddr *)&a, 10.0), 0);
	/* another source is not affected */
	ck_assert_int_eq(nhd_rl_allow(&rl, (struct sockaddr *)&b, 10.0), 1);
	c6.sin6_addr.s6_addr[15] = 1;
	ck_assert_int_eq(nhd_rl_allow(&rl, (struct sockaddr *)&c6, 10.0), 1);
	/* 0.15 s later, one token is back */
	ck_assert_int_eq(nhd_rl_allow(&rl, (struct sockaddr *)&a, 10.15), 1);
	ck_assert_int_eq(nhd_rl_allow(&rl, (struct sockaddr *)&a, 10.15), 0);
	/* the bucket never holds more than the burst */
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(nhd_rl_allow(&rl, (struct sockaddr *)&a, 1000.0), 1);
	ck_assert_int_eq(nhd_rl_allow(&rl, (struct sockaddr *)&a, 1000.0), 0);
	nhd_rl_destroy(&rl);
}
END_TEST

START_TEST(test_table_is_bounded)
{
	/* A flood of distinct (spoofed) sources: the table stays the same size
	 * and a new source always gets a full bucket. */
	struct nhd_rl rl;
	ck_assert_int_eq(nhd_rl_init(&rl, 16, 1, 3), 0);
	ck_assert_uint_eq(rl.nsets * NHD_RL_WAYS, 16);
	for (uint32_t i = 0; i < 100000; i++) {
		struct sockaddr_in a = v4(0x0b000000 + i);
		ck_assert_int_eq(nhd_rl_allow(&rl, (struct sockaddr *)&a, 5.0 + i * 1e-6), 1);
	}
	nhd_rl_destroy(&rl);
	ck_assert_int_eq(nhd_rl_init(&rl, 0, 1, 1), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nhd_rl");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_burst, 0, sizeof(burst_cases) / sizeof(burst_cases[0]));
	tcase_add_test(tc, test_refill_and_independent_sources);
	tcase_add_test(tc, test_table_is_bounded);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
