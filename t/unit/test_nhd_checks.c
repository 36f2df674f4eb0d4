/* Unit tests for nodehealthd's health checks (nhd_checks.c), on a fake /proc
 * and a fake EDAC tree. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nhd_checks.h"
#include "probe.h"

static char dir[256];

static void put(const char *rel, const char *text)
{
	char p[512], *slash;
	FILE *f;
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	for (slash = strchr(p + strlen(dir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = 0;
		mkdir(p, 0755);
		*slash = '/';
	}
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void setup(void)
{
	static char proc[300];
	char mi[1024];
	snprintf(dir, sizeof(dir), "/tmp/test_nhd_checks.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	put("proc/loadavg", "0.50 0.40 0.30 1/100 1234\n");
	put("proc/meminfo", "MemTotal: 8000000 kB\nMemFree: 100000 kB\nMemAvailable: 4000000 kB\n");
	snprintf(mi, sizeof(mi),
		 "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
		 "23 22 0:5 / %s rw - tmpfs tmpfs rw\n"
		 "24 22 0:6 / /with\\040space rw - tmpfs tmpfs rw\n"
		 "25 22 0:7 / /readonly ro - tmpfs tmpfs ro\n",
		 dir);
	put("proc/self/mountinfo", mi);
	put("proc/1/comm", "systemd\n");
	put("proc/42/comm", "slurmd\n");
	put("proc/43/comm", "a-very-long-dae\n"); /* comm keeps 15 characters */
	put("proc/sys/x", "not a pid\n");
	put("edac/mc0/ue_count", "0\n");
	put("edac/mc0/ce_count", "5\n");
	put("edac/mc1/ue_count", "0\n");
	put("edac/mc1/ce_count", "2\n");
	put("edac/power/x", "ignored\n");
	snprintf(proc, sizeof(proc), "%s/proc", dir);
	nhd_checks_set_proc_root(proc);
}

static void teardown(void)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	nhd_checks_set_proc_root(NULL);
}

enum tweak { T_NONE, T_LOAD, T_MEM, T_MOUNT_MISSING, T_MOUNT_SPACE, T_DAEMON, T_LONG_DAEMON, T_YEAR, T_JUMP,
	     T_UE, T_CE, T_TMP, T_PROC_GONE };

static const struct {
	enum tweak tweak;
	int want_state;
	const char *want; /* substring of the summary */
} cases[] = {
	{T_NONE, MW_PROBE_ALIVE, "ok"},
	{T_LOAD, MW_PROBE_DEGRADED, "load 0.50 > 0.01"},
	{T_MEM, MW_PROBE_DEGRADED, "free memory 3906 MB < 100000 MB"},
	{T_MOUNT_MISSING, MW_PROBE_DEGRADED, "/scratch not mounted"},
	{T_MOUNT_SPACE, MW_PROBE_ALIVE, "ok"},
	{T_DAEMON, MW_PROBE_DEGRADED, "munged not running"},
	{T_LONG_DAEMON, MW_PROBE_ALIVE, "ok"},
	{T_YEAR, MW_PROBE_DEGRADED, "out of range"},
	{T_JUMP, MW_PROBE_DEGRADED, "wall clock jumped by"},
	{T_UE, MW_PROBE_DEGRADED, "uncorrected"},
	{T_CE, MW_PROBE_DEGRADED, "7 corrected memory errors > 6"},
	{T_TMP, MW_PROBE_DEGRADED, "MB <"},
	{T_PROC_GONE, MW_PROBE_DEGRADED, "cannot read"},
};

START_TEST(test_checks)
{
	struct nhd_conf c;
	struct nhd_check_state st = {0};
	struct nhd_health h;
	char edac[300];

	ck_assert_int_eq(nhd_conf_defaults(&c), 0);
	snprintf(edac, sizeof(edac), "%s/edac", dir);
	free(c.edac_path);
	c.edac_path = strdup(edac);
	free(c.tmp_path);
	c.tmp_path = strdup(dir);
	c.tmp_min_free_mb = 1;
	c.mem_min_free_mb = 64;
	mw_strlist_add(&c.daemon, "slurmd");
	mw_strlist_add(&c.mount, dir);
	switch (cases[_i].tweak) {
	case T_LOAD: c.load_max_per_core = 0.01 / (double)sysconf(_SC_NPROCESSORS_ONLN); break;
	case T_MEM: c.mem_min_free_mb = 100000; break;
	case T_MOUNT_MISSING: mw_strlist_add(&c.mount, "/scratch"); break;
	case T_MOUNT_SPACE: c.mount_writable = 0; mw_strlist_add(&c.mount, "/with space"); break;
	case T_DAEMON: mw_strlist_add(&c.daemon, "munged"); break;
	case T_LONG_DAEMON: mw_strlist_add(&c.daemon, "a-very-long-daemon-name"); break;
	case T_YEAR: c.clock_min_year = 9999; break;
	case T_JUMP: st.have_offset = 1; st.offset = -1e6; break;
	case T_UE: put("edac/mc1/ue_count", "1\n"); break;
	case T_CE: c.edac_max_ce = 6; break;
	case T_TMP: c.tmp_min_free_mb = 1L << 40; break;
	case T_PROC_GONE: {
		char p[400];
		snprintf(p, sizeof(p), "%s/proc/loadavg", dir);
		unlink(p);
		break;
	}
	default: break;
	}
	nhd_checks_run(&c, &st, &h);
	ck_assert_msg(h.state == cases[_i].want_state, "case %d: state %d: %s", _i, h.state, h.summary);
	ck_assert_msg(strstr(h.summary, cases[_i].want), "case %d: summary '%s' lacks '%s'", _i, h.summary,
		      cases[_i].want);
	ck_assert_int_eq(h.failed, cases[_i].want_state == MW_PROBE_ALIVE ? 0 : 1);
	ck_assert(h.mono > 0);
	ck_assert_int_eq(st.have_offset, 1);
	mw_conf_free(nhd_conf_keys, &c);
}
END_TEST

START_TEST(test_summary_is_bounded)
{
	struct nhd_health h;
	memset(&h, 0, sizeof(h));
	for (int i = 0; i < NHD_MAX_CHECKS + 5; i++) {
		if (h.n >= NHD_MAX_CHECKS)
			break;
		snprintf(h.r[h.n].name, sizeof(h.r[h.n].name), "mount");
		memset(h.r[h.n].detail, 'x', sizeof(h.r[h.n].detail) - 1);
		h.r[h.n].ok = 0;
		h.n++;
	}
	nhd_health_summarize(&h);
	ck_assert_int_eq(h.failed, NHD_MAX_CHECKS);
	ck_assert_uint_lt(strlen(h.summary), sizeof(h.summary));
	ck_assert_int_eq(h.state, MW_PROBE_DEGRADED);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nhd_checks");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_checks, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, test_summary_is_bounded);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
