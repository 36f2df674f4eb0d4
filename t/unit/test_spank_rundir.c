/* Unit tests for the SPANK plugin's run folder (spank/mws_rundir.c) and its
 * reads of the job user's files (spank/mws_launch.c), as root with a job
 * user and another user: issue 30, items 6, 8 and 9.
 *
 *  - item 6: the job user swaps the run folder for a symbolic link between
 *    the plugin's check (mws_rundir_claim) and its writes (mws_rundir_fill,
 *    the pid files): nothing may appear where the link points;
 *  - item 8: another user squats the folder's name first (a file, a link, a
 *    folder of mode 0777, a folder with files): the job still gets a run
 *    folder of its own, mode 0700;
 *  - item 9: the last line of a helper's log, read by root, through a logs/
 *    folder that is a link to a root-only folder: not shown; a FIFO in place
 *    of the log or of a pid file: no hang.
 *
 * Needs root (it acts as other users).  fs.protected_symlinks is set to 0
 * for the test's duration if it was not (the attack needs it) and restored. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsutil.h"
#include "mws_launch.h"
#include "mws_opts.h"
#include "mws_rundir.h"
#include "unit.h"

#define JOB_UID 65534u	 /* the job user */
#define OTHER_UID 65532u /* another user of the node */

static char base[64], target[64], dir[128];

/* The names in d, sorted, joined by ' '. */
static const char *listing(const char *d)
{
	static char buf[1024];
	struct dirent **v;
	int n = scandir(d, &v, NULL, alphasort);
	buf[0] = 0;
	for (int i = 0; i < n; i++) {
		if (strcmp(v[i]->d_name, ".") && strcmp(v[i]->d_name, ".."))
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", buf[0] ? " " : "",
				 v[i]->d_name);
		free(v[i]);
	}
	free(v);
	return n < 0 ? "(unreadable)" : buf;
}

static void setup(void)
{
	ck_assert_msg(geteuid() == 0, "test_spank_rundir needs root");
	snprintf(base, sizeof(base), "/tmp/mws-base.XXXXXX"); /* as /dev/shm: 1777 */
	ck_assert_ptr_nonnull(mkdtemp(base));
	ck_assert_int_eq(chmod(base, 01777), 0);
	snprintf(target, sizeof(target), "/tmp/mws-target.XXXXXX"); /* root's, 0755 */
	ck_assert_ptr_nonnull(mkdtemp(target));
	ck_assert_int_eq(chmod(target, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/mpiwatch.%u.42.n1", base, JOB_UID);
}

static void teardown(void)
{
	mw_rmtree(base, (uid_t)-1);
	mw_rmtree(target, (uid_t)-1);
}

/* Do as uid: run fn(arg) in a child with that uid. */
static void as_user(uid_t uid, void (*fn)(void *), void *arg)
{
	pid_t p = fork();
	int st;
	ck_assert_int_ge(p, 0);
	if (p == 0) {
		if (setgid(uid) || setuid(uid))
			_exit(2);
		fn(arg);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(p, &st, 0), p);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child of uid %u failed", uid);
}

/* The job user's move: the run folder becomes a link to target. */
static void swap_for_link(void *arg)
{
	char moved[160];
	(void)arg;
	snprintf(moved, sizeof(moved), "%s.moved", dir);
	if (rename(dir, moved) || symlink(target, dir))
		_exit(1);
}

static int protected_symlinks(int set)
{
	int old = -1;
	FILE *f = fopen("/proc/sys/fs/protected_symlinks", "r+");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &old) != 1)
		old = -1;
	if (set >= 0 && set != old) {
		rewind(f);
		fprintf(f, "%d\n", set);
	}
	fclose(f);
	return old;
}

/* Item 6: swapped between the check and the writes, nothing lands in the
 * link's target (before the fix: settings, launch.lock, dumps/ and the pid
 * files did). */
START_TEST(test_swap_after_claim)
{
	struct mw_jobconf c;
	char err[512];
	int lockfd = -1, old = protected_symlinks(0);

	ck_assert_int_eq(mws_conf_init(&c), 0);
	ck_assert_int_eq(mws_rundir_claim(dir, JOB_UID, JOB_UID), 0);
	as_user(JOB_UID, swap_for_link, NULL);
	mws_rundir_fill(dir, &c, JOB_UID, JOB_UID, &lockfd, err, sizeof(err));
	if (lockfd >= 0)
		close(lockfd);
	mws_rundir_pidfile(dir, "mpiwatch-agent", getpid(), JOB_UID, JOB_UID);
	mws_rundir_pidfile(dir, "mpiwatch-collector", getpid(), JOB_UID, JOB_UID);
	protected_symlinks(old);
	mw_jobconf_free(&c);
	ck_assert_str_eq(listing(target), "");
}
END_TEST

/* Item 6, the normal case: the same calls fill the folder, as the user. */
START_TEST(test_fill_normal)
{
	struct mw_jobconf c;
	char err[512], p[256];
	int lockfd = -1;
	struct stat st;

	ck_assert_int_eq(mws_conf_init(&c), 0);
	ck_assert_int_eq(mws_rundir_claim(dir, JOB_UID, JOB_UID), 0);
	ck_assert_int_eq(mws_rundir_fill(dir, &c, JOB_UID, JOB_UID, &lockfd, err, sizeof(err)), 0);
	ck_assert_int_ge(lockfd, 0);
	close(lockfd);
	ck_assert_int_eq(mws_rundir_pidfile(dir, "mpiwatch-agent", getpid(), JOB_UID, JOB_UID), 0);
	mw_jobconf_free(&c);
	ck_assert_str_eq(listing(dir), "dumps launch.lock mpiwatch-agent.pid settings");
	const char *names[] = {"dumps", "launch.lock", "mpiwatch-agent.pid", "settings"};
	for (size_t i = 0; i < 4; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		ck_assert_int_eq(lstat(p, &st), 0);
		ck_assert_msg(st.st_uid == JOB_UID, "%s: uid %u", names[i], (unsigned)st.st_uid);
	}
	ck_assert_int_eq(mws_rundir_remove(dir, JOB_UID), 0);
	ck_assert_int_eq(access(dir, F_OK), -1);
}
END_TEST

/* Item 8: what another user put at the run folder's name first. */
enum squat { SQ_FILE, SQ_LINK, SQ_DIR0777, SQ_DIRFULL, SQ_JOBUSER_LINK };
static void squat(void *arg)
{
	int fd;
	char p[256];
	switch (*(enum squat *)arg) {
	case SQ_FILE:
		fd = open(dir, O_WRONLY | O_CREAT | O_EXCL, 0666);
		if (fd < 0)
			_exit(1);
		close(fd);
		break;
	case SQ_LINK:
	case SQ_JOBUSER_LINK:
		if (symlink(target, dir))
			_exit(1);
		break;
	case SQ_DIR0777:
		if (mkdir(dir, 0777) || chmod(dir, 0777))
			_exit(1);
		break;
	case SQ_DIRFULL:
		if (mkdir(dir, 0755))
			_exit(1);
		snprintf(p, sizeof(p), "%s/sub", dir);
		if (mkdir(p, 0755))
			_exit(1);
		snprintf(p, sizeof(p), "%s/sub/settings", dir);
		fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0 || write(fd, "timeout = 1\n", 12) != 12)
			_exit(1);
		close(fd);
		break;
	}
}

START_TEST(test_squatted)
{
	enum squat how = (enum squat)_i;
	struct stat st;
	as_user(how == SQ_JOBUSER_LINK ? JOB_UID : OTHER_UID, squat, &how);
	ck_assert_int_eq(mws_rundir_claim(dir, JOB_UID, JOB_UID), 0);
	ck_assert_int_eq(lstat(dir, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_uint_eq(st.st_uid, JOB_UID);
	ck_assert_uint_eq(st.st_mode & 07777, 0700);
	ck_assert_str_eq(listing(dir), "");
	ck_assert_str_eq(listing(target), "");
	/* A second step finds it as the first left it. */
	ck_assert_int_eq(mws_rundir_claim(dir, JOB_UID, JOB_UID), 0);
}
END_TEST

/* Item 8, raced: another user re-creates the name in a loop as fast as it
 * can while the plugin claims it (each claim after the first finds the
 * name squatted again).  Every claim gives the job its own folder (before:
 * the name was cleared and taken again before root's mkdir, and the claim
 * gave up). */
static void squat_forever(void *arg)
{
	(void)arg;
	for (;;)
		if (mkdir(dir, 0777) < 0 && errno != EEXIST)
			_exit(1);
}

START_TEST(test_squatter_races)
{
	int failed = 0;
	pid_t p = fork();
	ck_assert_int_ge(p, 0);
	if (p == 0) {
		if (setgid(OTHER_UID) || setuid(OTHER_UID))
			_exit(2);
		squat_forever(NULL);
	}
	for (int i = 0; i < 1000; i++) {
		struct stat st;
		while (lstat(dir, &st) < 0) /* wait until the name is squatted */
			usleep(100);
		if (mws_rundir_claim(dir, JOB_UID, JOB_UID) < 0 || lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) ||
		    st.st_uid != JOB_UID || (st.st_mode & 07777) != 0700)
			failed++;
		mw_rmtree(dir, (uid_t)-1); /* the job ended: the name is free for the squatter again */
	}
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	ck_assert_msg(failed == 0, "%d of 1000 claims lost the name to a racing squatter", failed);
}
END_TEST

/* Two steps starting together: one finds the folder the other just made
 * (still root's, before its chown) and keeps it. */
START_TEST(test_beside_another_step)
{
	struct stat st;
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	mw_unit_put(dir, "launch.lock", "");
	ck_assert_int_eq(mws_rundir_claim(dir, JOB_UID, JOB_UID), 0);
	ck_assert_int_eq(lstat(dir, &st), 0);
	ck_assert_uint_eq(st.st_uid, JOB_UID);
	ck_assert_str_eq(listing(dir), "launch.lock");
}
END_TEST

/* Item 9: root reads the last line of a helper's log, which is in the job
 * user's report folder: not through a link to a root-only file. */
START_TEST(test_last_line_through_link)
{
	char secret[128], user[128], logs[160], log[192], line[256];
	snprintf(secret, sizeof(secret), "%s/mpiwatch-agent-n1.log", target);
	mw_unit_put(target, "mpiwatch-agent-n1.log", "root-only secret\n");
	ck_assert_int_eq(chmod(secret, 0600), 0);
	ck_assert_int_eq(chmod(target, 0700), 0);
	snprintf(user, sizeof(user), "%s/report", base);
	ck_assert_int_eq(mkdir(user, 0755), 0);
	ck_assert_int_eq(chown(user, JOB_UID, JOB_UID), 0);
	snprintf(logs, sizeof(logs), "%s/logs", user);
	ck_assert_int_eq(symlink(target, logs), 0);
	ck_assert_int_eq(lchown(logs, JOB_UID, JOB_UID), 0);
	snprintf(log, sizeof(log), "%s/mpiwatch-agent-n1.log", logs);
	ck_assert_str_eq(mws_last_line(log, JOB_UID, JOB_UID, line, sizeof(line)), "");
	/* The user's own log is read. */
	unlink(logs);
	ck_assert_int_eq(mkdir(logs, 0755), 0);
	mw_unit_put(logs, "mpiwatch-agent-n1.log", "agent: cannot start\n");
	ck_assert_int_eq(chown(log, JOB_UID, JOB_UID), 0);
	ck_assert_str_eq(mws_last_line(log, JOB_UID, JOB_UID, line, sizeof(line)), "agent: cannot start");
}
END_TEST

/* Item 9: a FIFO in place of a helper's log or of a pid file: root does
 * not hang reading it (the test's timeout would fail it). */
START_TEST(test_fifo_no_hang)
{
	char f[160], line[256];
	snprintf(f, sizeof(f), "%s/mpiwatch-agent.log", base);
	ck_assert_int_eq(mkfifo(f, 0644), 0);
	ck_assert_int_eq(chown(f, JOB_UID, JOB_UID), 0);
	ck_assert_str_eq(mws_last_line(f, JOB_UID, JOB_UID, line, sizeof(line)), "");
	ck_assert_int_eq(mws_pidfile_alive(f, JOB_UID, "mpiwatch-agent"), 0);
	ck_assert_int_eq(mws_pidfile_stop(f, JOB_UID, "mpiwatch-agent", 0.1), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("spank_rundir");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_swap_after_claim);
	tcase_add_test(tc, test_fill_normal);
	tcase_add_loop_test(tc, test_squatted, SQ_FILE, SQ_JOBUSER_LINK + 1);
	tcase_add_test(tc, test_beside_another_step);
	tcase_add_test(tc, test_last_line_through_link);
	tcase_add_test(tc, test_fifo_no_hang);
	tcase_set_timeout(tc, 10);
	suite_add_tcase(s, tc);
	/* 1000 claims against a busy racer: a hang guard with room for a
	 * loaded machine (about 4 s on an idle one). */
	tc = tcase_create("race");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_squatter_races);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
