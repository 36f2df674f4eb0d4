/* Unit tests for the SPANK plugin's pure parts: --mpiwatch parsing,
 * plugstack arguments, LD_PRELOAD editing and paths. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "mws_env.h"
#include "mws_launch.h"
#include "mws_opts.h"

static const struct {
	const char *arg;
	int ok;
	const char *err; /* substring of the message */
	int off, profile, action;
	double timeout;
	long threshold;
	int pct;
	const char *dir;
} user_cases[] = {
	{NULL, 1, NULL, 0, 0, -1, 0, -1, 0, ""},
	{"", 1, NULL, 0, 0, -1, 0, -1, 0, ""},
	{"(null)", 1, NULL, 0, 0, -1, 0, -1, 0, ""},
	{"off", 1, NULL, 1, 0, -1, 0, -1, 0, ""},
	{"timeout=2.5", 1, NULL, 0, 0, -1, 2.5, -1, 0, ""},
	{"timeout=1,threshold=4", 1, NULL, 0, 0, -1, 1, 4, 0, ""},
	{"threshold=50%", 1, NULL, 0, 0, -1, 0, 50, 1, ""},
	{"dir=/scratch/w,action=cancel,profile", 1, NULL, 0, 1, 1, 0, -1, 0, "/scratch/w"},
	{"action=requeue", 1, NULL, 0, 0, 2, 0, -1, 0, ""},
	{"timeout=abc", 0, "timeout=abc: expected seconds", 0, 0, -1, 0, -1, 0, ""},
	{"timeout=0.5", 0, "timeout=0.5", 0, 0, -1, 0, -1, 0, ""},
	{"timeout=604800", 1, NULL, 0, 0, -1, 604800, -1, 0, ""},
	{"hang_limit=0.5", 0, "hang_limit=0.5: expected seconds", 0, 0, -1, 0, -1, 0, ""},
	{"timeout=604801", 0, "timeout=604801", 0, 0, -1, 0, -1, 0, ""},
	{"timeout=", 0, "timeout=", 0, 0, -1, 0, -1, 0, ""},
	{"threshold=0", 0, "threshold=0", 0, 0, -1, 0, -1, 0, ""},
	{"threshold=101%", 0, "threshold=101%", 0, 0, -1, 0, -1, 0, ""},
	{"action=explode", 0, "action=explode: expected report, cancel or requeue", 0, 0, -1, 0, -1, 0, ""},
	{"dir=", 0, "dir= needs a path", 0, 0, -1, 0, -1, 0, ""},
	{"bogus", 0, "unknown item 'bogus'", 0, 0, -1, 0, -1, 0, ""},
	{"off=1", 0, "unknown item 'off=1'", 0, 0, -1, 0, -1, 0, ""},
	{"timeout=2,,off", 0, "empty item", 0, 0, -1, 0, -1, 0, ""},
	{",off", 0, "empty item", 0, 0, -1, 0, -1, 0, ""},
};

START_TEST(test_user)
{
	struct mws_user u;
	char err[512];
	mws_user_defaults(&u);
	int r = mws_user_parse(user_cases[_i].arg, &u, err, sizeof(err));
	ck_assert_int_eq(r, user_cases[_i].ok ? 0 : -1);
	ck_assert_int_eq(u.given, 1);
	if (!user_cases[_i].ok) {
		ck_assert_msg(strstr(err, user_cases[_i].err), "got '%s'", err);
		ck_assert_msg(!strncmp(err, "--mpiwatch", 10), "message names the option: %s", err);
		return;
	}
	ck_assert_int_eq(u.off, user_cases[_i].off);
	ck_assert_int_eq(u.profile, user_cases[_i].profile);
	ck_assert_int_eq(u.action, user_cases[_i].action);
	ck_assert_double_eq_tol(u.timeout, user_cases[_i].timeout, 1e-9);
	ck_assert_int_eq(u.threshold, user_cases[_i].threshold);
	ck_assert_int_eq(u.threshold_pct, user_cases[_i].pct);
	ck_assert_str_eq(u.dir, user_cases[_i].dir);
}
END_TEST

static const struct {
	const char *args[4];
	int nbad;
	const char *err;
} site_cases[] = {
	{{"default=on", "timeout=30", "threshold=25%", NULL}, 0, NULL},
	{{"lib=/opt/mw/lib/libmpiwatch.so", "bindir=/opt/mw/bin", "drain=no", NULL}, 0, NULL},
	{{"post=no", "strict=yes", "action=cancel", NULL}, 0, NULL},
	{{"restd=http://10.0.0.1:6820", "probe_port=7171", "port_base=7300", NULL}, 0, NULL},
	{{"default=maybe", NULL}, 1, "argument 1 (default=maybe): default must be on or off"},
	{{"timeout=30", "lib=relative.so", NULL}, 1, "argument 2 (lib=relative.so): lib must be an absolute path"},
	{{"frobnicate=1", "drain=perhaps", NULL}, 2, "unknown key"},
	{{"noequals", NULL}, 1, "expected key=value"},
	{{"restd=ftp://x", NULL}, 1, "restd must be an http"},
	{{"port_base=80", NULL}, 1, "port_base must be"},
	{{"off_partitions=debug,gpu-a100", "munge_socket=/run/m/s", NULL}, 0, NULL},
	{{"off_partitions=a b", NULL}, 1, "off_partitions must be a comma-separated list"},
	{{"munge_socket=rel/s", NULL}, 1, "munge_socket must be an absolute path"},
};

/* off_partitions=: exact names, not prefixes. */
START_TEST(test_partition_off)
{
	struct mws_site s;
	char err[256];
	char *args[] = {"off_partitions=debug,gpu-a100"};
	mws_site_defaults(&s);
	ck_assert_int_eq(mws_partition_off(&s, "debug"), 0); /* nothing listed yet */
	ck_assert_int_eq(mws_site_parse(1, args, &s, err, sizeof(err)), 0);
	ck_assert_int_eq(mws_partition_off(&s, "debug"), 1);
	ck_assert_int_eq(mws_partition_off(&s, "gpu-a100"), 1);
	ck_assert_int_eq(mws_partition_off(&s, "gpu"), 0);
	ck_assert_int_eq(mws_partition_off(&s, "debug2"), 0);
	ck_assert_int_eq(mws_partition_off(&s, ""), 0);
	ck_assert_int_eq(mws_partition_off(&s, NULL), 0);
}
END_TEST

START_TEST(test_site)
{
	struct mws_site s;
	char err[2048];
	int argc = 0;
	while (argc < 4 && site_cases[_i].args[argc])
		argc++;
	mws_site_defaults(&s);
	int bad = mws_site_parse(argc, (char **)site_cases[_i].args, &s, err, sizeof(err));
	ck_assert_int_eq(bad, site_cases[_i].nbad);
	if (site_cases[_i].err)
		ck_assert_msg(strstr(err, site_cases[_i].err), "got '%s'", err);
	else
		ck_assert_str_eq(err, "");
}
END_TEST

START_TEST(test_site_values)
{
	struct mws_site s;
	struct mws_user u;
	char err[256], th[32];
	char *args[] = {"default=on", "timeout=30", "threshold=25%", "action=requeue"};
	mws_site_defaults(&s);
	ck_assert_int_eq(s.default_on, 0);
	ck_assert_int_eq(mws_site_parse(4, args, &s, err, sizeof(err)), 0);
	ck_assert_int_eq(s.default_on, 1);
	ck_assert_double_eq(s.timeout, 30);
	mws_user_defaults(&u);
	ck_assert_int_eq(mws_enabled(&s, &u), 1); /* default=on, no flag */
	mws_threshold_str(&s, &u, th, sizeof(th));
	ck_assert_str_eq(th, "25%");
	ck_assert_int_eq(mws_user_parse("off", &u, err, sizeof(err)), 0);
	ck_assert_int_eq(mws_enabled(&s, &u), 0); /* --mpiwatch=off wins */
	s.default_on = 0;
	mws_user_defaults(&u);
	ck_assert_int_eq(mws_enabled(&s, &u), 0); /* default=off, no flag */
	ck_assert_int_eq(mws_user_parse(NULL, &u, err, sizeof(err)), 0);
	ck_assert_int_eq(mws_enabled(&s, &u), 1); /* --mpiwatch */
	ck_assert_int_eq(mws_user_parse("threshold=3", &u, err, sizeof(err)), 0);
	mws_threshold_str(&s, &u, th, sizeof(th));
	ck_assert_str_eq(th, "3");
	ck_assert_str_eq(mws_action_name(s.action), "requeue");
}
END_TEST

static const struct {
	const char *cur, *lib, *out;
} preload_cases[] = {
	{NULL, "/l/libmpiwatch.so", "/l/libmpiwatch.so"},
	{"", "/l/libmpiwatch.so", "/l/libmpiwatch.so"},
	{"/u/mine.so", "/l/libmpiwatch.so", "/u/mine.so /l/libmpiwatch.so"},
	{"/u/a.so:/u/b.so", "/l/libmpiwatch.so", "/u/a.so:/u/b.so /l/libmpiwatch.so"},
	{"/u/a.so /l/libmpiwatch.so", "/l/libmpiwatch.so", "/u/a.so /l/libmpiwatch.so"},
	{"/l/libmpiwatch.so.bak", "/l/libmpiwatch.so", "/l/libmpiwatch.so.bak /l/libmpiwatch.so"},
};

START_TEST(test_preload)
{
	char out[256];
	ck_assert_int_eq(mws_preload_append(preload_cases[_i].cur, preload_cases[_i].lib, out, sizeof(out)), 0);
	ck_assert_str_eq(out, preload_cases[_i].out);
	/* Removing ours gives back the user's own entries. */
	char back[256];
	ck_assert_int_eq(mws_preload_remove(out, preload_cases[_i].lib, back, sizeof(back)), 0);
	ck_assert_ptr_null(strstr(back, "/l/libmpiwatch.so ") );
}
END_TEST

START_TEST(test_preload_too_long)
{
	char out[8];
	ck_assert_int_eq(mws_preload_append("/a/very/long.so", "/l/x.so", out, sizeof(out)), -1);
}
END_TEST

START_TEST(test_paths)
{
	char buf[256];
	ck_assert_int_eq(mws_rundir("/dev/shm", 1000, 42, "n1", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/dev/shm/mpiwatch.1000.42.n1");
	ck_assert_int_eq(mws_rundir("/dev/shm", 1000, 42, "../x", buf, sizeof(buf)), -1);
	ck_assert_int_eq(mws_outdir("/home/u", "", 42, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/home/u/mpiwatch-42");
	ck_assert_int_eq(mws_outdir("/home/u", "out", 42, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/home/u/out");
	ck_assert_int_eq(mws_outdir("/home/u", "/scratch/o", 42, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/scratch/o");
	ck_assert_uint_eq(mws_collector_port(7300, 1234), 7300 + 234);
}
END_TEST

START_TEST(test_owned_dir_and_pidfile)
{
	char dir[] = "/tmp/mwsXXXXXX", sub[64], pf[96];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/run", dir);
	ck_assert_int_eq(mws_mkdir_owned(sub, getuid(), getgid()), 0);
	ck_assert_int_eq(mws_mkdir_owned(sub, getuid(), getgid()), 0); /* exists, ours */
	ck_assert_int_eq(mws_mkdir_owned(sub, getuid() + 1, getgid()), -1); /* someone else's */
	snprintf(pf, sizeof(pf), "%s/self.pid", sub);
	ck_assert_int_eq(mw_pidfile_write(pf, getpid(), getuid(), getgid()), 0);
	ck_assert_int_eq(mws_pidfile_alive(pf, getuid(), "test_spank_opts"), getpid());
	ck_assert_int_eq(mws_pidfile_alive(pf, getuid(), "no-such-program"), 0);
	ck_assert_int_eq(mws_pidfile_alive(pf, getuid() + 1, "test_spank_opts"), 0);
	ck_assert_int_eq(mws_rundir_remove(sub, getuid()), 0);
	ck_assert_int_eq(access(sub, F_OK), -1);
	rmdir(dir);
}
END_TEST

START_TEST(test_spawn)
{
	char dir[] = "/tmp/mwsXXXXXX", log[64], err[256];
	pid_t pid = 0;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(log, sizeof(log), "%s/out.log", dir);
	char *argv[] = {"/bin/sh", "-c", "echo started $$", NULL};
	struct mws_spawn s = {argv, getuid(), getgid(), dir, log, NULL};
	ck_assert_int_eq(mws_spawn_detached(&s, &pid, err, sizeof(err)), 0);
	ck_assert_int_gt(pid, 0);
	/* The detached process wrote its own pid to the log. */
	char want[64], got[64] = "";
	snprintf(want, sizeof(want), "started %d\n", (int)pid);
	for (int i = 0; i < 200 && strcmp(got, want); i++) {
		FILE *f = fopen(log, "r");
		if (f) {
			if (!fgets(got, sizeof(got), f))
				got[0] = '\0';
			fclose(f);
		}
		usleep(20000);
	}
	ck_assert_str_eq(got, want);
	/* A program that does not exist is reported, not silently lost. */
	char *bad[] = {"/nonexistent/mpiwatch-agent", NULL};
	s.argv = bad;
	ck_assert_int_eq(mws_spawn_detached(&s, &pid, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "No such file"), "got '%s'", err);
	unlink(log);
	rmdir(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("spank_opts");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_user, 0, sizeof(user_cases) / sizeof(user_cases[0]));
	tcase_add_loop_test(tc, test_site, 0, sizeof(site_cases) / sizeof(site_cases[0]));
	tcase_add_test(tc, test_site_values);
	tcase_add_test(tc, test_partition_off);
	tcase_add_loop_test(tc, test_preload, 0, sizeof(preload_cases) / sizeof(preload_cases[0]));
	tcase_add_test(tc, test_preload_too_long);
	tcase_add_test(tc, test_paths);
	tcase_add_test(tc, test_owned_dir_and_pidfile);
	tcase_add_test(tc, test_spawn);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
