/* Unit tests for nodehealthd's configuration (nhd_conf.c). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe.h"

#include "nhd_conf.h"

static const struct {
	const char *text;
	int nerr;
	const char *err; /* substring of the first error */
} cases[] = {
	{"", 0, NULL},
	{"# only a comment\n\n", 0, NULL},
	{"port = 7272\nlisten = ::\nrate_limit = 0\n", 0, NULL},
	{"daemon = slurmd\ndaemon = munged\nmount = /scratch\nhook = /usr/local/sbin/notify\n", 0, NULL},
	{"storm_max_fraction = 0.25\nstorm_max_drained = 3\nstorm_window = 600\n", 0, NULL},
	{"log = stderr\nlog_level = debug\n", 0, NULL},
	{"port = 0\n", 1, ":1: port"},
	{"port = 70000\n", 1, ":1: port"},
	{"port = abc\n", 1, ":1: port"},
	{"bogus = 1\n", 1, ":1: unknown key 'bogus'"},
	{"\n\nlog = file\n", 1, ":3: log"},
	{"storm_max_fraction = 2\n", 1, "storm_max_fraction"},
	{"check_interval = 0\n", 1, "check_interval"},
	{"reprobe_tries = 0\n", 1, "reprobe_tries"},
	{"mount = scratch\n", 1, "mount: 'scratch' is not an absolute path"},
	{"hook = notify.sh\n", 1, "hook: 'notify.sh' is not an absolute path"},
	{"daemon = /usr/sbin/slurmd\n", 1, "daemon"},
	{"scontrol = scontrol\n", 1, "scontrol: must be an absolute path"},
	{"socket = relative.sock\n", 1, "socket: must be an absolute path"},
	{"node_name = bad name\n", 1, "node_name"},
	{"reprobe_tries = 16\nreprobe_timeout = 0.5\n", 1, "less than 50 ms per try"},
	{"port = 0\nbogus = 1\nlog = x\n", 3, ":1: port"}, /* all errors, not just the first */
};

START_TEST(test_load)
{
	char path[] = "/tmp/test_nhd_conf.XXXXXX";
	int fd = mkstemp(path);
	struct mw_conf_errors errs = {0};
	struct nhd_conf *c;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, cases[_i].text, strlen(cases[_i].text)), (ssize_t)strlen(cases[_i].text));
	close(fd);
	c = nhd_conf_load(path, &errs);
	unlink(path);
	ck_assert_msg((int)errs.n == cases[_i].nerr, "case %d: %zu errors (%s)", _i, errs.n,
		      errs.n ? errs.msg[0] : "");
	if (cases[_i].nerr) {
		ck_assert_ptr_null(c);
		ck_assert_msg(strstr(errs.msg[0], cases[_i].err), "case %d: '%s' lacks '%s'", _i, errs.msg[0],
			      cases[_i].err);
		ck_assert_msg(!strncmp(errs.msg[0], path, strlen(path)), "error names the file: %s", errs.msg[0]);
	} else {
		ck_assert_ptr_nonnull(c);
		ck_assert_int_eq(c->refs, 1);
		ck_assert_str_eq(c->path, path);
		nhd_conf_free(c);
	}
	mw_conf_errors_free(&errs);
}
END_TEST

START_TEST(test_defaults)
{
	struct nhd_conf c;
	struct mw_conf_errors errs = {0};
	ck_assert_int_eq(nhd_conf_defaults(&c), 0);
	ck_assert_int_eq(c.port, MW_PROBE_DEFAULT_PORT);
	ck_assert_str_eq(c.socket, "/run/mpiwatch/nodehealthd.sock");
	ck_assert_str_eq(c.listen, "0.0.0.0");
	ck_assert_int_eq(c.drain, 1);
	ck_assert_int_eq(nhd_conf_validate(&c, "defaults", &errs), 0);
	mw_conf_free(nhd_conf_keys, &c);
	mw_conf_errors_free(&errs);
}
END_TEST

START_TEST(test_missing_file)
{
	struct mw_conf_errors errs = {0};
	ck_assert_ptr_null(nhd_conf_load("/nonexistent/nodehealthd.conf", &errs));
	ck_assert_uint_eq(errs.n, 1);
	ck_assert_ptr_nonnull(strstr(errs.msg[0], "/nonexistent/nodehealthd.conf"));
	mw_conf_errors_free(&errs);
}
END_TEST

START_TEST(test_sample_config)
{
	/* The commented sample in etc/ must load as is. */
	struct mw_conf_errors errs = {0};
	struct nhd_conf *c = nhd_conf_load("etc/nodehealthd.conf", &errs);
	ck_assert_msg(c != NULL, "etc/nodehealthd.conf: %s", errs.n ? errs.msg[0] : "?");
	nhd_conf_free(c);
	mw_conf_errors_free(&errs);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nhd_conf");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_load, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_missing_file);
	tcase_add_test(tc, test_sample_config);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
