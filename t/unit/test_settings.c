/* Unit tests of the read-only settings (shared/settings.c): one enum per
 * row of the settings table, the defaults and the derived values, a value
 * out of its range refused in the one wording (naming the option as the
 * user typed it, when it comes from a command line), the helpers' own
 * options read from the table, the settings sealed once loaded, and the
 * helpers' man pages giving each of their options' range and default as the
 * table has them. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cliopt.h"
#include "probe.h"
#include "jobconf.h"
#include "settings.h"
#include "unit.h"

/* Every enum names its row (the rows are written [MW_SET_X] = {"x", ...}). */
START_TEST(test_one_enum_per_row)
{
	static const struct {
		enum mw_setting s;
		const char *name;
	} rows[] = {
		{MW_SET_DEFAULT, "default"},   {MW_SET_TIMEOUT, "timeout"},
		{MW_SET_HANG_LIMIT, "hang_limit"}, {MW_SET_THRESHOLD, "threshold"},
		{MW_SET_ACTION, "action"},     {MW_SET_DIR, "dir"},
		{MW_SET_DRAIN, "drain"},       {MW_SET_POST, "post"},
		{MW_SET_RESTD, "restd"},       {MW_SET_MUNGE_SOCKET, "munge_socket"},
		{MW_SET_NHD_SOCKET, "nhd_socket"}, {MW_SET_PROBE_PORT, "probe_port"},
		{MW_SET_PORT_BASE, "port_base"}, {MW_SET_PORT, "port"},
		{MW_SET_TREE_THRESHOLD, "tree_threshold"}, {MW_SET_TREE_WEIGHTS, "tree_weights"},
		{MW_SET_LIVENESS, "liveness"}, {MW_SET_CONNECT_TIMEOUT, "connect_timeout"},
		{MW_SET_HANDSHAKE_TIMEOUT, "handshake_timeout"}, {MW_SET_JOB_CHECK, "job_check"},
		{MW_SET_SETTLE, "settle"},     {MW_SET_PROBE_BUDGET, "probe_budget"},
		{MW_SET_PROBE_TRIES, "probe_tries"}, {MW_SET_PORTS, "ports"},
		{MW_SET_TICK, "tick"},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		ck_assert_str_eq(mw_jobconf_keys[rows[i].s].name, rows[i].name);
	for (int i = 0; i < MW_SET_COUNT; i++)
		ck_assert_msg(mw_jobconf_keys[i].name, "row %d has no name", i);
	ck_assert_ptr_null(mw_jobconf_keys[MW_SET_COUNT].name);
}
END_TEST

/* The table's defaults, before any load and after a reset; the derived ones. */
START_TEST(test_defaults)
{
	char err[256];
	mw_settings_reset();
	ck_assert_double_eq(mw_setting_double(MW_SET_TIMEOUT), 60);
	ck_assert_int_eq(mw_setting_long(MW_SET_PROBE_PORT), strtol(MW_PROBE_DEFAULT_PORT_STR, NULL, 10));
	ck_assert_int_eq(mw_setting_int(MW_SET_ACTION), MW_JC_REPORT);
	ck_assert_int_eq(mw_setting_int(MW_SET_DRAIN), 1);
	ck_assert_str_eq(mw_setting_str(MW_SET_THRESHOLD), "1");
	ck_assert_str_eq(mw_setting_str(MW_SET_DIR), ""); /* no default: "" */
	ck_assert_double_eq(mw_setting_double(MW_SET_JOB_CHECK), 60);
	/* the helpers' options */
	ck_assert_double_eq(mw_setting_double(MW_SET_PROBE_BUDGET), 3);
	ck_assert_int_eq(mw_setting_long(MW_SET_PROBE_TRIES), 3);
	ck_assert_int_eq(mw_setting_long(MW_SET_PORTS), 5);
	/* derived: settle timeout/4 within [1, 3], tick timeout/4 within
	 * [0.1, 0.5], the hang limit 10 x the timeout */
	ck_assert_double_eq(mw_settings_settle(), 3);
	ck_assert_double_eq(mw_settings_tick(), 0.5);
	ck_assert_double_eq(mw_settings_hang_limit(), 600);
	ck_assert_int_eq(mw_settings_set(MW_SET_TIMEOUT, "10", err, sizeof err), 0);
	ck_assert_double_eq(mw_settings_settle(), 2.5);
	ck_assert_double_eq(mw_settings_hang_limit(), 100);
	ck_assert_int_eq(mw_settings_set(MW_SET_TIMEOUT, "2", err, sizeof err), 0);
	ck_assert_double_eq(mw_settings_settle(), 1);
	ck_assert_double_eq(mw_settings_tick(), 0.5);
	ck_assert_int_eq(mw_settings_set(MW_SET_TIMEOUT, "1", err, sizeof err), 0);
	ck_assert_double_eq(mw_settings_tick(), 0.25);
	/* given: taken as it is, 0 too */
	ck_assert_int_eq(mw_setting_given(MW_SET_SETTLE), 0);
	ck_assert_int_eq(mw_settings_set(MW_SET_SETTLE, "0", err, sizeof err), 0);
	ck_assert_int_eq(mw_setting_given(MW_SET_SETTLE), 1);
	ck_assert_double_eq(mw_settings_settle(), 0);
	ck_assert_int_eq(mw_settings_set(MW_SET_TICK, "0.2", err, sizeof err), 0);
	ck_assert_double_eq(mw_settings_tick(), 0.2);
	ck_assert_int_eq(mw_settings_set(MW_SET_HANG_LIMIT, "42", err, sizeof err), 0);
	ck_assert_double_eq(mw_settings_hang_limit(), 42);
	mw_settings_reset();
	ck_assert_double_eq(mw_setting_double(MW_SET_TIMEOUT), 60);
	ck_assert_int_eq(mw_setting_given(MW_SET_SETTLE), 0);
	ck_assert_double_eq(mw_settings_settle(), 3);
}
END_TEST

/* A value outside its range, or not of its kind, is refused with the
 * table's wording and changes nothing; a read of the wrong type is 0 or "". */
START_TEST(test_ranges)
{
	static const struct {
		enum mw_setting s;
		const char *val, *err;
	} bad[] = {
		{MW_SET_SETTLE, "700", "settle=700: expected seconds, a number from 0 to 600"},
		{MW_SET_SETTLE, "-1", "settle=-1: expected seconds, a number from 0 to 600"},
		{MW_SET_PROBE_BUDGET, "0.05", "probe_budget=0.05: expected seconds, a number from 0.1 to 60"},
		{MW_SET_PROBE_TRIES, "21", "probe_tries=21: expected a whole number from 1 to 20"},
		{MW_SET_PROBE_TRIES, "2.5", "probe_tries=2.5: expected a whole number from 1 to 20"},
		{MW_SET_PORTS, "0", "ports=0: expected a whole number from 1 to 100"},
		{MW_SET_TICK, "0", "tick=0: expected seconds, a number from 0.01 to 60"},
		{MW_SET_TIMEOUT, "abc", "timeout=abc: expected seconds, a number from 1 to 604800"},
		{MW_SET_ACTION, "kill", "action=kill: expected report, cancel or requeue"},
	};
	char err[256];
	mw_settings_reset();
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ck_assert_int_eq(mw_settings_set(bad[i].s, bad[i].val, err, sizeof err), -1);
		ck_assert_int_eq(errno, EINVAL);
		ck_assert_str_eq(err, bad[i].err);
		ck_assert_int_eq(mw_setting_given(bad[i].s), 0);
	}
	ck_assert_int_eq(mw_setting_long(MW_SET_PROBE_TRIES), 3);
	ck_assert_int_eq(mw_setting_long(MW_SET_PORTS), 5);
	ck_assert_int_eq(mw_settings_set(MW_SET_PROBE_TRIES, "20", err, sizeof err), 0);
	ck_assert_int_eq(mw_setting_long(MW_SET_PROBE_TRIES), 20);
	/* the wrong accessor for the type */
	ck_assert_str_eq(mw_setting_str(MW_SET_TIMEOUT), "");
	ck_assert_int_eq(mw_setting_int(MW_SET_TIMEOUT), 0);
	ck_assert_int_eq(mw_setting_long(MW_SET_THRESHOLD), 0);
	ck_assert_int_eq(mw_setting_long(MW_SET_COUNT), 0);
	ck_assert_int_eq(mw_settings_set(MW_SET_COUNT, "1", err, sizeof err), -1);
	mw_settings_reset();
}
END_TEST

/* The helpers' options from the command line: read through the table
 * (the one wording naming the option as typed), applied over the settings
 * file; the settings are then read-only. */
START_TEST(test_load_sealed)
{
	const char *settle = NULL, *tries = NULL;
	const struct mw_cliopt opts[] = {
		{.name = "settle", .kind = MW_CLIOPT_SETTING, .setting = "settle", .text = &settle, .arg = "S"},
		{.name = "probe-tries", .kind = MW_CLIOPT_SETTING, .setting = "probe_tries", .text = &tries,
		 .arg = "N"},
		{.name = NULL},
	};
	struct mw_jobconf scratch;
	const struct mw_cliopt_cmd cmd = {.prog = "mpiwatch-collector", .keys = mw_jobconf_keys,
					  .conf = &scratch, .opts = opts};
	char err[256], dir[] = "/tmp/mwsetXXXXXX", path[64];
	char *bad1[] = {"x", "--probe-tries", "21", NULL};
	char *bad2[] = {"x", "--settle=abc", NULL};
	char *good[] = {"x", "--settle", "0", "--probe-tries=7", NULL};
	int first;
	FILE *f;

	ck_assert_int_eq(mw_jobconf_init(&scratch), 0);
	ck_assert_int_eq(mw_cliopt_parse(&cmd, 3, bad1, &first, err, sizeof err), MW_CLIOPT_ERROR);
	ck_assert_str_eq(err, "--probe-tries 21: expected a whole number from 1 to 20");
	ck_assert_int_eq(mw_cliopt_parse(&cmd, 2, bad2, &first, err, sizeof err), MW_CLIOPT_ERROR);
	ck_assert_str_eq(err, "--settle abc: expected seconds, a number from 0 to 600");
	ck_assert_int_eq(mw_cliopt_parse(&cmd, 4, good, &first, err, sizeof err), MW_CLIOPT_OK);
	mw_jobconf_free(&scratch);
	ck_assert_str_eq(settle, "0");
	ck_assert_str_eq(tries, "7");

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/settings", dir);
	f = fopen(path, "w");
	fprintf(f, "timeout = 8\nprobe_port = 6999\n");
	fclose(f);
	{
		const struct mw_jobconf_override ov[] = {{"settle", settle}, {"probe_tries", tries},
							 {"probe_port", "7001"}};
		ck_assert_msg(mw_settings_load(path, ov, 3, err, sizeof err) == 0, "%s", err);
	}
	ck_assert_int_eq(mw_settings_sealed(), 1);
	ck_assert_double_eq(mw_setting_double(MW_SET_TIMEOUT), 8);      /* the file */
	ck_assert_int_eq(mw_setting_long(MW_SET_PROBE_PORT), 7001);     /* the option over the file */
	ck_assert_int_eq(mw_setting_long(MW_SET_PROBE_TRIES), 7);
	ck_assert_double_eq(mw_settings_settle(), 0);                    /* given 0: not derived */
	ck_assert_double_eq(mw_setting_double(MW_SET_PROBE_BUDGET), 3); /* the default */
	ck_assert_int_eq(mw_settings_set(MW_SET_TIMEOUT, "9", err, sizeof err), -1);
	ck_assert_int_eq(errno, EPERM);
	ck_assert_double_eq(mw_setting_double(MW_SET_TIMEOUT), 8);
	mw_settings_reset();
	ck_assert_int_eq(mw_settings_sealed(), 0);
	ck_assert_int_eq(mw_settings_set(MW_SET_TIMEOUT, "9", err, sizeof err), 0);

	/* The helpers' options are not in a settings file. */
	f = fopen(path, "w");
	fprintf(f, "timeout = 8\nsettle = 1\n");
	fclose(f);
	ck_assert_int_eq(mw_settings_load(path, NULL, 0, err, sizeof err), -1);
	ck_assert_msg(strstr(err, ":2: unknown key 'settle'"), "%s", err);
	ck_assert_int_eq(mw_settings_sealed(), 0);
	ck_assert_double_eq(mw_setting_double(MW_SET_TIMEOUT), 60); /* the defaults */
	/* A bad override: named, nothing loaded. */
	{
		const struct mw_jobconf_override ov[] = {{"ports", "101"}};
		ck_assert_int_eq(mw_settings_load(NULL, ov, 1, err, sizeof err), -1);
		ck_assert_str_eq(err, "ports=101: expected a whole number from 1 to 100");
	}
	unlink(path);
	rmdir(dir);
	mw_settings_reset();
}
END_TEST

/* The helpers' man pages give each option that sets a setting with the
 * table's range and default ("0 to 600", "default 3"). */
START_TEST(test_man_pages)
{
	static const struct {
		const char *man;
		enum mw_setting s[8];
	} pages[] = {
		{"doc/man/mpiwatch-collector.1",
		 {MW_SET_SETTLE, MW_SET_PROBE_BUDGET, MW_SET_PROBE_TRIES, MW_SET_PORTS, MW_SET_JOB_CHECK,
		  MW_SET_COUNT}},
		{"doc/man/mpiwatch-agent.1", {MW_SET_TICK, MW_SET_PORTS, MW_SET_JOB_CHECK, MW_SET_COUNT}},
	};
	for (size_t p = 0; p < sizeof pages / sizeof pages[0]; p++) {
		FILE *f = fopen(pages[p].man, "r");
		char *man = NULL;
		size_t len = 0;
		ck_assert_ptr_nonnull(f);
		ck_assert_int_ge(getdelim(&man, &len, '\0', f), 1);
		fclose(f);
		for (int i = 0; pages[p].s[i] != MW_SET_COUNT; i++) {
			const struct mw_conf_key *k = &mw_jobconf_keys[pages[p].s[i]];
			char tag[64], want[128], text[2048], *o = tag, *e, *next;
			size_t n;
			/* ".BI \-\-probe\-budget " */
			o += sprintf(o, ".BI \\-\\-");
			for (const char *c = k->name; *c; c++)
				o += *c == '_' ? sprintf(o, "\\-") : sprintf(o, "%c", *c);
			sprintf(o, " ");
			e = strstr(man, tag);
			ck_assert_msg(e, "%s: no entry '%s'", pages[p].man, tag);
			next = strstr(e + 1, "\n.TP");
			n = next ? (size_t)(next - e) : strlen(e);
			n = n < sizeof text - 1 ? n : sizeof text - 1;
			memcpy(text, e, n);
			text[n] = 0;
			snprintf(want, sizeof want, "%.10g to %.10g", k->min, k->max);
			ck_assert_msg(strstr(text, want), "%s: %s does not give the range '%s'", pages[p].man,
				      k->name, want);
			if (k->def) {
				snprintf(want, sizeof want, "default %s", k->def);
				ck_assert_msg(strstr(text, want), "%s: %s does not say '%s'", pages[p].man, k->name,
					      want);
			}
		}
		free(man);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("settings");
	TCase *tc = tcase_create("settings");

	tcase_add_test(tc, test_one_enum_per_row);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_ranges);
	tcase_add_test(tc, test_load_sealed);
	tcase_add_test(tc, test_man_pages);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
