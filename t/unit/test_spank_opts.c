/* Unit tests for the SPANK plugin's pure parts: --mpiwatch parsing,
 * plugstack arguments, LD_PRELOAD editing and paths. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "mws_env.h"
#include "mws_launch.h"
#include "mws_opts.h"
#include "mws_rundir.h"

/* --mpiwatch=ARG through the plugin's own loading (mws_conf_load), as
 * slurmstepd's init_post_opt does it. */
static const struct {
	const char *arg;
	int ok;
	const char *err; /* substring of the message */
	int on, profile, action;
	double timeout;
	const char *threshold;
	const char *dir;
} user_cases[] = {
	{NULL, 1, NULL, 1, 0, 0, 60, "1", ""},
	{"", 1, NULL, 1, 0, 0, 60, "1", ""},
	{"(null)", 1, NULL, 1, 0, 0, 60, "1", ""},
	{"off", 1, NULL, 0, 0, 0, 60, "1", ""},
	{"off,on", 1, NULL, 1, 0, 0, 60, "1", ""},
	{"timeout=2.5", 1, NULL, 1, 0, 0, 2.5, "1", ""},
	{"timeout=1,threshold=4", 1, NULL, 1, 0, 0, 1, "4", ""},
	{"threshold=50%", 1, NULL, 1, 0, 0, 60, "50%", ""},
	{"dir=/scratch/w,action=cancel,profile", 1, NULL, 1, 1, 1, 60, "1", "/scratch/w"},
	{"action=requeue", 1, NULL, 1, 0, 2, 60, "1", ""},
	{"timeout=abc", 0, "timeout=abc: expected seconds, a number from 1 to 604800", 0, 0, 0, 0, NULL, NULL},
	{"timeout=0.5", 0, "timeout=0.5", 0, 0, 0, 0, NULL, NULL},
	{"timeout=604800", 1, NULL, 1, 0, 0, 604800, "1", ""},
	{"hang_limit=0.5", 0, "hang_limit=0.5: expected seconds", 0, 0, 0, 0, NULL, NULL},
	{"timeout=604801", 0, "timeout=604801", 0, 0, 0, 0, NULL, NULL},
	{"timeout=", 0, "timeout=", 0, 0, 0, 0, NULL, NULL},
	{"threshold=0", 0, "threshold=0", 0, 0, 0, 0, NULL, NULL},
	{"threshold=101%", 0, "threshold=101%", 0, 0, 0, 0, NULL, NULL},
	{"action=explode", 0, "action=explode: expected report, cancel or requeue", 0, 0, 0, 0, NULL, NULL},
	{"dir=", 0, "dir=: expected a path", 0, 0, 0, 0, NULL, NULL},
	{"dir=a\nb", 0, "dir=a\nb: expected a path (no control characters)", 0, 0, 0, 0, NULL, NULL},
	{"bogus", 0, "unknown item 'bogus'", 0, 0, 0, 0, NULL, NULL},
	{"off=1", 0, "unknown item 'off=1'", 0, 0, 0, 0, NULL, NULL},
	{"profile=yes", 0, "unknown item 'profile=yes'", 0, 0, 0, 0, NULL, NULL},
	{"timeout", 0, "unknown item 'timeout'", 0, 0, 0, 0, NULL, NULL},
	{"default=on", 0, "unknown item 'default=on'", 0, 0, 0, 0, NULL, NULL},
	{"drain=no", 0, "unknown item 'drain=no'", 0, 0, 0, 0, NULL, NULL}, /* a site setting */
	{"timeout=2,,off", 0, "empty item", 0, 0, 0, 0, NULL, NULL},
	{",off", 0, "empty item", 0, 0, 0, 0, NULL, NULL},
};

START_TEST(test_user)
{
	struct mw_jobconf c;
	char err[512];
	char *none[] = {NULL};
	int bad = mws_conf_load(&c, 0, none, 1, user_cases[_i].arg, err, sizeof(err));
	if (!user_cases[_i].ok) {
		ck_assert_int_eq(bad, 1);
		ck_assert_msg(strstr(err, user_cases[_i].err), "got '%s'", err);
		ck_assert_msg(!strncmp(err, "--mpiwatch", 10), "message names the option: %s", err);
		mw_jobconf_free(&c);
		return;
	}
	ck_assert_msg(bad == 0, "%s", err);
	ck_assert_int_eq(c.on, user_cases[_i].on);
	ck_assert_int_eq(c.profile, user_cases[_i].profile);
	ck_assert_int_eq(c.action, user_cases[_i].action);
	ck_assert_double_eq_tol(c.timeout, user_cases[_i].timeout, 1e-9);
	ck_assert_str_eq(c.threshold, user_cases[_i].threshold);
	ck_assert_str_eq(c.dir ? c.dir : "", user_cases[_i].dir);
	mw_jobconf_free(&c);
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
	{{"default=maybe", NULL}, 1, "argument 1 (default=maybe): default=maybe: expected off or on"},
	{{"timeout=30", "lib=relative.so", NULL}, 1, "argument 2 (lib=relative.so): lib=relative.so: expected an absolute path"},
	{{"frobnicate=1", "drain=perhaps", NULL}, 2, "unknown setting 'frobnicate'"},
	{{"noequals", NULL}, 1, "expected key=value"},
	{{"restd=ftp://x", NULL}, 1, "restd=ftp://x: expected an http:// or https:// URL"},
	{{"port_base=80", NULL}, 1, "port_base=80: expected a TCP port, a whole number from 1024 to 65030"},
	{{"off_partitions=debug,gpu-a100", "munge_socket=/run/m/s", NULL}, 0, NULL},
	{{"off_partitions=a b", NULL}, 1, "expected a comma-separated list of partition names"},
	{{"munge_socket=rel/s", NULL}, 1, "munge_socket=rel/s: expected an absolute path"},
	{{"dir=/x", NULL}, 1, "unknown setting 'dir'"}, /* the user's, not the site's */
	{{"port=7000", NULL}, 1, "unknown setting 'port'"}, /* resolved, never given */
};

/* off_partitions=: exact names, not prefixes. */
START_TEST(test_partition_off)
{
	struct mw_jobconf c;
	char err[256];
	char *args[] = {"off_partitions=debug,gpu-a100"};
	ck_assert_int_eq(mws_conf_init(&c), 0);
	ck_assert_int_eq(mws_partition_off(&c, "debug"), 0); /* nothing listed yet */
	ck_assert_int_eq(mw_jobconf_parse_site(&c, 1, args, err, sizeof(err)), 0);
	ck_assert_int_eq(mws_partition_off(&c, "debug"), 1);
	ck_assert_int_eq(mws_partition_off(&c, "gpu-a100"), 1);
	ck_assert_int_eq(mws_partition_off(&c, "gpu"), 0);
	ck_assert_int_eq(mws_partition_off(&c, "debug2"), 0);
	ck_assert_int_eq(mws_partition_off(&c, ""), 0);
	ck_assert_int_eq(mws_partition_off(&c, NULL), 0);
	mw_jobconf_free(&c);
}
END_TEST

START_TEST(test_site)
{
	struct mw_jobconf c;
	char err[2048];
	int argc = 0;
	while (argc < 4 && site_cases[_i].args[argc])
		argc++;
	int bad = mws_conf_load(&c, argc, (char **)site_cases[_i].args, 0, NULL, err, sizeof(err));
	ck_assert_int_eq(bad, site_cases[_i].nbad);
	if (site_cases[_i].err)
		ck_assert_msg(strstr(err, site_cases[_i].err), "got '%s'", err);
	else
		ck_assert_str_eq(err, "");
	mw_jobconf_free(&c);
}
END_TEST

START_TEST(test_site_values)
{
	struct mw_jobconf c;
	char err[256];
	char *args[] = {"default=on", "timeout=30", "threshold=25%", "action=requeue"};
	ck_assert_int_eq(mws_conf_load(&c, 0, args, 0, NULL, err, sizeof(err)), 0);
	ck_assert_int_eq(c.on, 0);
	ck_assert_msg(c.lib[0] == '/' && strstr(c.lib, "/libmpiwatch.so"), "lib %s", c.lib); /* this build's */
	mw_jobconf_free(&c);
	ck_assert_int_eq(mws_conf_load(&c, 4, args, 0, NULL, err, sizeof(err)), 0);
	ck_assert_int_eq(c.on, 1); /* default=on, no flag */
	ck_assert_double_eq(c.timeout, 30);
	ck_assert_str_eq(c.threshold, "25%");
	ck_assert_str_eq(mw_jobconf_action_name(c.action), "requeue");
	mw_jobconf_free(&c);
	ck_assert_int_eq(mws_conf_load(&c, 4, args, 1, "off", err, sizeof(err)), 0);
	ck_assert_int_eq(c.on, 0); /* --mpiwatch=off wins */
	mw_jobconf_free(&c);
	ck_assert_int_eq(mws_conf_load(&c, 0, args, 1, NULL, err, sizeof(err)), 0);
	ck_assert_int_eq(c.on, 1); /* default=off, --mpiwatch */
	mw_jobconf_free(&c);
	ck_assert_int_eq(mws_conf_load(&c, 4, args, 1, "threshold=3", err, sizeof(err)), 0);
	ck_assert_str_eq(c.threshold, "3"); /* the user's over the site's */
	ck_assert_double_eq(c.timeout, 30);
	mw_jobconf_free(&c);
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
	/* The report folder and the collector's port: mw_jobconf_resolve. */
	static const struct {
		const char *dir, *want;
	} dirs[] = {{"", "/home/u/mpiwatch-42"}, {"out", "/home/u/out"}, {"/scratch/o", "/scratch/o"}};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		struct mw_jobconf c;
		char err[256];
		ck_assert_int_eq(mws_conf_init(&c), 0);
		if (dirs[i].dir[0])
			ck_assert_int_eq(mw_jobconf_set(&c, MW_JC_USER, "dir", dirs[i].dir, err, sizeof(err)), 0);
		ck_assert_int_eq(mw_jobconf_resolve(&c, 1234042 % 1000, "/home/u"), 0);
		ck_assert_str_eq(c.dir, dirs[i].want);
		ck_assert_int_eq(c.port, 7300 + 42);
		ck_assert_double_eq(c.hang_limit, 600); /* 10 x the default timeout */
		mw_jobconf_free(&c);
	}
	ck_assert_int_eq(mw_jobconf_collector_port(7300, 1234), 7300 + 234);
}
END_TEST

START_TEST(test_owned_dir_and_pidfile)
{
	char dir[] = "/tmp/mwsXXXXXX", sub[64], pf[96];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/run", dir);
	ck_assert_int_eq(mws_rundir_claim(sub, getuid(), getgid()), 0);
	ck_assert_int_eq(mws_rundir_claim(sub, getuid(), getgid()), 0); /* exists, ours */
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
	struct mws_spawn s = {argv, getuid(), getgid(), dir, log, NULL, NULL};
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

/* The start-up handshake: a helper that says "ok" on $MPIWATCH_READY_FD
 * started; one that exits first did not, and its log's last line says why;
 * one that says nothing in time is taken as started. */
START_TEST(test_spawn_ready)
{
	static const struct {
		const char *script;
		int want;
		const char *last;
	} cases[] = {
		{"echo starting; printf ok >&$MPIWATCH_READY_FD; exec sleep 1", 1, "starting"},
		{"echo 'mpiwatch-collector: cannot listen on tcp port 7301: Address in use'; exit 1", 0,
		 "mpiwatch-collector: cannot listen on tcp port 7301: Address in use"},
		{"exec sleep 3", -1, ""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char dir[] = "/tmp/mwsXXXXXX", log[64], err[256], line[256];
		pid_t pid = 0;
		int ready = -1;
		ck_assert_ptr_nonnull(mkdtemp(dir));
		snprintf(log, sizeof(log), "%s/h.log", dir);
		char *argv[] = {"/bin/sh", "-c", (char *)cases[i].script, NULL};
		struct mws_spawn s = {argv, getuid(), getgid(), dir, log, NULL, &ready};
		ck_assert_int_eq(mws_spawn_detached(&s, &pid, err, sizeof(err)), 0);
		ck_assert_int_ge(ready, 0);
		ck_assert_int_eq(mws_wait_ready(ready, 1.5), cases[i].want);
		if (cases[i].want == 0)
			ck_assert_str_eq(mws_last_line(log, getuid(), getgid(), line, sizeof(line)), cases[i].last);
		kill(pid, SIGKILL);
		unlink(log);
		rmdir(dir);
	}
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
	tcase_add_test(tc, test_spawn_ready);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
