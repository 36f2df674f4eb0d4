/* Unit tests for shared/uvcmd.c: real child processes on a real libuv loop,
 * run without a shell, their output collected, their input fed, a time
 * limit, a clean environment, and several at once without blocking. */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"
#include "uvcmd.h"

struct got {
	int calls;
	struct mw_runcmd_result r;
};

static void done(struct mw_uvcmd *cmd, struct mw_runcmd_result *r, void *arg)
{
	struct got *g = arg;
	(void)cmd;
	g->calls++;
	g->r = *r;
}

/* Run argv on a fresh loop until the loop has nothing left: the command's
 * handles must all close (uv_loop_close succeeds). */
static void run(char *const argv[], const char *input, const struct mw_runcmd_opts *o, struct got *g)
{
	uv_loop_t loop;
	memset(g, 0, sizeof(*g));
	ck_assert_int_eq(uv_loop_init(&loop), 0);
	ck_assert_ptr_nonnull(mw_uvcmd_start(&loop, argv, input, o, done, g));
	ck_assert_int_eq(g->calls, 0); /* told on the loop, never from start */
	uv_run(&loop, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
	ck_assert_int_eq(g->calls, 1);
	ck_assert_ptr_nonnull(g->r.output);
}

START_TEST(test_true_false)
{
	char *t[] = {"/bin/true", NULL}, *f[] = {"/bin/false", NULL};
	struct mw_runcmd_opts o = {.timeout_s = 5};
	struct got g;
	run(t, NULL, &o, &g);
	ck_assert_int_eq(g.r.status, 0);
	ck_assert_int_eq(g.r.signal, 0);
	ck_assert_int_eq(g.r.timed_out, 0);
	ck_assert_int_eq(g.r.exec_errno, 0);
	free(g.r.output);
	run(f, NULL, &o, &g);
	ck_assert_int_eq(g.r.status, 1);
	ck_assert_int_eq(g.r.timed_out, 0);
	free(g.r.output);
}
END_TEST

START_TEST(test_output_and_input)
{
	char *a[] = {"/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL};
	char *c[] = {"/bin/cat", NULL};
	struct mw_runcmd_opts o = {.timeout_s = 5};
	struct got g;
	run(a, NULL, &o, &g);
	ck_assert_int_eq(g.r.status, 3);
	ck_assert_str_eq(g.r.output, "out\nerr\n");
	ck_assert_uint_eq(g.r.len, 8);
	free(g.r.output);
	run(c, "from stdin", &o, &g);
	ck_assert_int_eq(g.r.status, 0);
	ck_assert_str_eq(g.r.output, "from stdin");
	free(g.r.output);
	run(c, "", &o, &g); /* an empty input: stdin a pipe closed at once */
	ck_assert_int_eq(g.r.status, 0);
	ck_assert_str_eq(g.r.output, "");
	free(g.r.output);
}
END_TEST

START_TEST(test_sleeper_killed_at_timeout)
{
	char *a[] = {"/bin/sleep", "30", NULL};
	struct mw_runcmd_opts o = {.timeout_s = 0.3};
	struct got g;
	run(a, NULL, &o, &g);
	ck_assert_int_eq(g.r.timed_out, 1);
	ck_assert_int_eq(g.r.signal, SIGKILL);
	ck_assert_int_eq(g.r.status, -1);
	free(g.r.output);
}
END_TEST

START_TEST(test_grandchild_holding_output)
{
	/* The child exits at once, its own child keeps stdout: bounded by the
	 * timeout, and with own_group the group is killed at the end. */
	char *a[] = {"/bin/sh", "-c", "sleep 30 & echo started; exit 0", NULL};
	struct mw_runcmd_opts o = {.timeout_s = 0.5, .own_group = 1};
	struct got g;
	run(a, NULL, &o, &g);
	ck_assert_int_eq(g.r.status, 0);
	ck_assert_int_eq(g.r.timed_out, 1);
	ck_assert_str_eq(g.r.output, "started\n");
	free(g.r.output);
}
END_TEST

START_TEST(test_clean_env)
{
	static char *const env[] = {"PATH=/usr/bin:/bin", "LC_ALL=C", NULL};
	char *a[] = {"/usr/bin/env", NULL};
	struct mw_runcmd_opts o = {.timeout_s = 5, .envp = env};
	struct got g;
	setenv("MW_UVCMD_SECRET", "leak", 1);
	run(a, NULL, &o, &g);
	ck_assert_int_eq(g.r.status, 0);
	ck_assert_str_eq(g.r.output, "PATH=/usr/bin:/bin\nLC_ALL=C\n");
	free(g.r.output);
	/* without envp: ours */
	o.envp = NULL;
	run(a, NULL, &o, &g);
	ck_assert_ptr_nonnull(strstr(g.r.output, "MW_UVCMD_SECRET=leak"));
	free(g.r.output);
	unsetenv("MW_UVCMD_SECRET");
}
END_TEST

START_TEST(test_max_output)
{
	char *a[] = {"/bin/sh", "-c", "head -c 100000 /dev/zero | tr '\\0' x; exit 0", NULL};
	char *y[] = {"/usr/bin/yes", NULL};
	struct mw_runcmd_opts o = {.timeout_s = 10, .max_output = 1000};
	struct got g;
	run(a, NULL, &o, &g);
	ck_assert_int_eq(g.r.status, 0);
	ck_assert_int_eq(g.r.truncated, 1);
	ck_assert_uint_eq(g.r.len, 1000);
	free(g.r.output);
	o.stop_at_max = 1; /* yes never ends: killed at the bound */
	run(y, NULL, &o, &g);
	ck_assert_int_eq(g.r.truncated, 1);
	ck_assert_int_eq(g.r.timed_out, 0);
	ck_assert_int_eq(g.r.signal, SIGKILL);
	free(g.r.output);
}
END_TEST

START_TEST(test_missing_program)
{
	char *a[] = {"/nonexistent/scontrol", NULL};
	struct mw_runcmd_opts o = {.timeout_s = 5};
	struct got g;
	run(a, NULL, &o, &g);
	ck_assert_int_eq(g.r.status, 127);
	ck_assert_int_eq(g.r.exec_errno, ENOENT);
	free(g.r.output);
}
END_TEST

/* Two at once on one loop: a quick command is told while a sleeper still
 * runs (the loop is not blocked by it), then the sleeper is killed. */
static struct mw_uvcmd *sleeper;
static void quick_done(struct mw_uvcmd *cmd, struct mw_runcmd_result *r, void *arg)
{
	struct got *g = arg;
	done(cmd, r, arg);
	ck_assert_int_eq(g[1].calls, 0); /* the sleeper still runs */
	mw_uvcmd_kill(sleeper);
}

START_TEST(test_concurrent_and_kill)
{
	char *s[] = {"/bin/sleep", "30", NULL}, *e[] = {"/bin/echo", "quick", NULL};
	struct mw_runcmd_opts o = {.timeout_s = 20};
	struct got g[2];
	uv_loop_t loop;
	memset(g, 0, sizeof(g));
	ck_assert_int_eq(uv_loop_init(&loop), 0);
	sleeper = mw_uvcmd_start(&loop, s, NULL, &o, done, &g[1]);
	ck_assert_ptr_nonnull(sleeper);
	ck_assert_int_gt(mw_uvcmd_pid(sleeper), 0);
	ck_assert_ptr_nonnull(mw_uvcmd_start(&loop, e, NULL, &o, quick_done, g));
	uv_run(&loop, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
	ck_assert_int_eq(g[0].calls, 1);
	ck_assert_str_eq(g[0].r.output, "quick\n");
	ck_assert_int_eq(g[1].calls, 1);
	ck_assert_int_eq(g[1].r.signal, SIGKILL);
	ck_assert_int_eq(g[1].r.timed_out, 0);
	free(g[0].r.output);
	free(g[1].r.output);
}
END_TEST

/* A process started on a loop never outlives its daemon: a "daemon" (a
 * child of the test running a loop) starts a sleeper and is SIGKILLed (no
 * cleanup of its own can run); the sleeper must be gone too, whether it
 * runs in the daemon's group or leads its own (own_group). */
static void nodeath_done(struct mw_uvcmd *cmd, struct mw_runcmd_result *r, void *arg)
{
	(void)cmd;
	(void)arg;
	free(r->output);
}

/* Whether pid is gone: no such process, or a zombie nobody reaped yet. */
static int gone(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return 1;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return 1;
	p = fgets(buf, sizeof buf, f);
	fclose(f);
	if (!p || !(p = strrchr(buf, ')')))
		return 1;
	return p[1] == ' ' && p[2] == 'Z';
}

static void daemon_killed(int own_group)
{
	int fds[2];
	pid_t daemon, child = 0;
	ck_assert_int_eq(pipe(fds), 0);
	daemon = fork();
	ck_assert_int_ge(daemon, 0);
	if (daemon == 0) {
		char *s[] = {"/bin/sleep", "300", NULL};
		struct mw_runcmd_opts o = {.timeout_s = 600, .own_group = own_group};
		struct mw_uvcmd *c;
		uv_loop_t loop;
		pid_t p;
		close(fds[0]);
		if (uv_loop_init(&loop) < 0 || !(c = mw_uvcmd_start(&loop, s, NULL, &o, nodeath_done, NULL)))
			_exit(1);
		/* the sleeper's pid once it runs sleep (not a shim in between) */
		for (int i = 0; i < 1000; i++) {
			char path[64], comm[64] = "";
			FILE *f;
			snprintf(path, sizeof path, "/proc/%d/comm", mw_uvcmd_pid(c));
			if ((f = fopen(path, "r"))) {
				if (!fgets(comm, sizeof comm, f))
					comm[0] = 0;
				fclose(f);
			}
			if (!strcmp(comm, "sleep\n"))
				break;
			usleep(10000);
		}
		p = mw_uvcmd_pid(c);
		if (write(fds[1], &p, sizeof p) != sizeof p)
			_exit(1);
		uv_run(&loop, UV_RUN_DEFAULT);
		_exit(0);
	}
	close(fds[1]);
	ck_assert_int_eq(read(fds[0], &child, sizeof child), (ssize_t)sizeof child);
	close(fds[0]);
	ck_assert_int_gt(child, 0);
	ck_assert(!gone(child));
	kill(daemon, SIGKILL);
	ck_assert_int_eq(waitpid(daemon, NULL, 0), daemon);
	for (int i = 0; i < 500 && !gone(child); i++)
		usleep(20000); /* the kernel's signal on the parent's death */
	if (!gone(child))
		kill(child, SIGKILL); /* do not leave it behind */
	ck_assert_msg(gone(child), "the child %d outlived its daemon (own_group %d)", (int)child, own_group);
}

START_TEST(test_child_dies_with_daemon)
{
	daemon_killed(0);
	daemon_killed(1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("uvcmd");
	TCase *tc = tcase_create("core");

	signal(SIGPIPE, SIG_IGN);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_true_false);
	tcase_add_test(tc, test_output_and_input);
	tcase_add_test(tc, test_sleeper_killed_at_timeout);
	tcase_add_test(tc, test_grandchild_holding_output);
	tcase_add_test(tc, test_clean_env);
	tcase_add_test(tc, test_max_output);
	tcase_add_test(tc, test_missing_program);
	tcase_add_test(tc, test_concurrent_and_kill);
	tcase_add_test(tc, test_child_dies_with_daemon);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
