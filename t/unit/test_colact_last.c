/* Unit tests for collector/colact.c's last tries at shutdown
 * (col_act_last_tries) with the collector's event loop: against fake
 * scancel and squeue in $PATH that fail as they do while slurmctld is
 * down. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <uv.h>

#include "colact.h"
#include "colctx.h"
#include "log.h"
#include "col_unit.h"
#include "unit.h"

static struct collector C;
static struct col_opts O;
static uv_loop_t L;
static char dir[] = "/tmp/test_colact_last.XXXXXX";
static char *old_path;

/* A fake Slurm command: it leaves its name in dir/ran, then fails. */
static void fake(const char *name)
{
	char p[256];
	FILE *f;
	snprintf(p, sizeof p, "%s/%s", dir, name);
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "#!/bin/sh\necho %s >> %s/ran\n"
		   "echo '%s: error: Unable to contact slurm controller (connect failure)' >&2\nexit 1\n",
		name, dir, name);
	fclose(f);
	ck_assert_int_eq(chmod(p, 0755), 0);
}

/* Whether the fake name ran. */
static int ran(const char *name)
{
	char p[256], line[64];
	int n = 0;
	FILE *f;
	snprintf(p, sizeof p, "%s/ran", dir);
	f = fopen(p, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		n += !strncmp(line, name, strlen(name)) && line[strlen(name)] == '\n';
	fclose(f);
	return n;
}

/* Whether the collector's timeline has event ev with what in its detail. */
static int said(const char *ev, const char *what)
{
	return col_unit_said(&C.s, ev, what);
}

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	fake("scancel");
	fake("squeue");
	fake("scontrol");
	old_path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	setenv("PATH", dir, 1);
	col_opts_default(&O);
	snprintf(O.job, sizeof O.job, "4244");
	snprintf(O.nodes, sizeof O.nodes, "n1,n2");
	mw_settings_reset();
	mw_unit_set(MW_SET_DIR, dir);
	mw_unit_set(MW_SET_JOB_CHECK, "0");
	mw_unit_set(MW_SET_ACTION, "cancel");
	ck_assert_int_eq(col_ctx_init(&C, &O, NULL), 0);
	ck_assert_int_eq(uv_loop_init(&L), 0);
	C.loop = &L;
}

static void teardown(void)
{
	char cmd[128];
	col_ctx_free(&C);
	uv_run(&L, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(&L), 0);
	if (old_path)
		setenv("PATH", old_path, 1);
	free(old_path);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(dir, sizeof dir, "/tmp/test_colact_last.XXXXXX");
}

START_TEST(test_last_try_on_loop)
{
	/* A cancel queued for a retry (Slurm did not answer twice): at
	 * shutdown it is tried once more (scancel runs), the report says it
	 * was not done, and nobody asks squeue whether Slurm answers (no retry
	 * follows a last try: that question would only cost its time limit
	 * while slurmctld is down). */
	struct col_retry x = {.kind = COL_DO_CANCEL, .node = -1, .tries = 2, .backoff = 4, .at = 1e18};
	C.retry = malloc(sizeof *C.retry);
	ck_assert_ptr_nonnull(C.retry);
	C.retry[0] = x;
	C.nretry = 1;
	col_act_last_tries(&C);
	ck_assert_int_eq(ran("scancel"), 1);
	ck_assert_int_eq(ran("squeue"), 0);
	ck_assert(said("note", "cancel not done: Slurm did not answer in 3 tries"));
	ck_assert_int_eq((int)C.nretry, 0);
	ck_assert_int_eq((int)C.ntodo, 0);
	ck_assert_int_eq(C.act_busy, 0);
	ck_assert_int_eq((int)C.s.nacts, 1);
	ck_assert_int_eq(C.s.acts[0].ok, 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("colact_last");
	TCase *tc = tcase_create("last");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_last_try_on_loop);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	mw_log_open("test_colact_last", MW_LOG_STDERR, LOG_ERR);
	return mw_unit_run(suite());
}
