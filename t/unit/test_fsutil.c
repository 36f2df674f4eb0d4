/* Unit tests for shared/fsutil.c: mkdir -p, the run directory's path, and
 * files replaced atomically (no temporary file left behind, the old file
 * kept when a write fails). */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "unit.h"

static char dir[256];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_fsutil.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	ck_assert_int_eq(mw_rmtree(dir, (uid_t)-1), 0);
}

/* The text of the file name in dir. */
static const char *slurp(const char *name)
{
	return mw_unit_get(dir, name);
}

/* The names in dir, sorted, joined by ' '. */
static const char *listing(void)
{
	static char buf[1024];
	struct dirent **v;
	int n = scandir(dir, &v, NULL, alphasort);
	buf[0] = 0;
	for (int i = 0; i < n; i++) {
		if (strcmp(v[i]->d_name, ".") && strcmp(v[i]->d_name, ".."))
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", buf[0] ? " " : "",
				 v[i]->d_name);
		free(v[i]);
	}
	free(v);
	return buf;
}

static const struct {
	const char *base, *job, *host;
	size_t len;
	const char *want; /* NULL: refused */
	int err;
} rundir_cases[] = {
	{"/dev/shm", "42", "n1", 256, "/dev/shm/mpiwatch.1000.42.n1", 0},
	{"/dev/shm", "42", "%h", 256, "/dev/shm/mpiwatch.1000.42.%h", 0},
	{"/run/x", "nojob-77", "n3", 256, "/run/x/mpiwatch.1000.nojob-77.n3", 0},
	{"/dev/shm", "42", "../x", 256, NULL, EINVAL},
	{"/dev/shm", "4/2", "n1", 256, NULL, EINVAL},
	{"/dev/shm", "", "n1", 256, NULL, EINVAL},
	{"/dev/shm", "42", "", 256, NULL, EINVAL},
	{"/dev/shm", "42", "n1", 28, NULL, ENAMETOOLONG},
	{"/dev/shm", "42", "n1", 29, "/dev/shm/mpiwatch.1000.42.n1", 0},
};

START_TEST(test_rundir)
{
	char buf[256];
	int rc = mw_rundir_path(buf, rundir_cases[_i].len, rundir_cases[_i].base, 1000, rundir_cases[_i].job,
				rundir_cases[_i].host);
	if (!rundir_cases[_i].want) {
		ck_assert_int_eq(rc, -1);
		ck_assert_int_eq(errno, rundir_cases[_i].err);
		return;
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(buf, rundir_cases[_i].want);
}
END_TEST

START_TEST(test_mkdir_p)
{
	char p[512], file[512], big[PATH_MAX + 8];
	struct stat st;

	snprintf(p, sizeof(p), "%s/a/b//c/", dir);
	ck_assert_int_eq(mw_mkdir_p(p, 0750), 0);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(mw_mkdir_p(p, 0750), 0); /* exists: fine */
	snprintf(file, sizeof(file), "%s/f", dir);
	ck_assert_int_eq(mw_write_atomic(file, "x", 1, 0644, (uid_t)-1, (gid_t)-1), 0);
	snprintf(p, sizeof(p), "%s/f/g", dir);
	ck_assert_int_eq(mw_mkdir_p(p, 0755), -1); /* a file in the way */
	ck_assert_int_eq(errno, ENOTDIR);
	ck_assert_int_eq(mw_mkdir_p("", 0755), -1);
	ck_assert_int_eq(errno, ENOENT);
	memset(big, 'a', sizeof(big) - 1);
	big[0] = '/';
	big[sizeof(big) - 1] = 0;
	ck_assert_int_eq(mw_mkdir_p(big, 0755), -1);
	ck_assert_int_eq(errno, ENAMETOOLONG);
}
END_TEST

START_TEST(test_write_atomic)
{
	char p[512], link[512];
	struct stat st;
	mode_t old = umask(022);

	snprintf(p, sizeof(p), "%s/report.json", dir);
	ck_assert_int_eq(mw_write_atomic(p, "{}\n", 3, 0640, (uid_t)-1, (gid_t)-1), 0);
	ck_assert_str_eq(slurp("report.json"), "{}\n");
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0640);
	ck_assert_int_eq(mw_write_atomic(p, "{\"a\": 1}\n", 9, 0640, (uid_t)-1, (gid_t)-1), 0); /* replaced */
	ck_assert_str_eq(slurp("report.json"), "{\"a\": 1}\n");
	ck_assert_str_eq(listing(), "report.json");
	/* A link planted at the temporary name is replaced, not followed. */
	snprintf(link, sizeof(link), "%s/.report.json.tmp.%d", dir, (int)getpid());
	ck_assert_int_eq(symlink("/nonexistent/target", link), 0);
	ck_assert_int_eq(mw_write_atomic(p, "b", 1, 0644, (uid_t)-1, (gid_t)-1), 0);
	ck_assert_str_eq(slurp("report.json"), "b");
	ck_assert_str_eq(listing(), "report.json");
	/* In a folder that does not exist: refused, nothing left. */
	snprintf(p, sizeof(p), "%s/none/report.json", dir);
	ck_assert_int_eq(mw_write_atomic(p, "b", 1, 0644, (uid_t)-1, (gid_t)-1), -1);
	ck_assert_int_eq(errno, ENOENT);
	snprintf(p, sizeof(p), "%s/pid", dir);
	ck_assert_int_eq(mw_pidfile_write(p, 4242, (uid_t)-1, (gid_t)-1), 0);
	ck_assert_str_eq(slurp("pid"), "4242\n");
	ck_assert_str_eq(listing(), "pid report.json");
	umask(old);
}
END_TEST

START_TEST(test_atomic_stream)
{
	struct mw_atomic_file af;
	char p[512], tmp[64];

	snprintf(p, sizeof(p), "%s/profile.0.0.0", dir);
	ck_assert_int_eq(mw_atomic_open(&af, p, 0644), 0);
	fprintf(af.f, "first %d\n", 1);
	snprintf(tmp, sizeof(tmp), ".profile.0.0.0.tmp.%d", (int)getpid());
	ck_assert_str_eq(listing(), tmp); /* hidden from readers of profile.* */
	ck_assert_int_eq(mw_atomic_close(&af, 1), 0);
	ck_assert_str_eq(slurp("profile.0.0.0"), "first 1\n");
	ck_assert_str_eq(listing(), "profile.0.0.0");
	/* The writer failed: the old file stays, the caller's errno comes back. */
	ck_assert_int_eq(mw_atomic_open(&af, p, 0644), 0);
	fprintf(af.f, "half");
	errno = ENOSPC;
	ck_assert_int_eq(mw_atomic_close(&af, 0), -1);
	ck_assert_int_eq(errno, ENOSPC);
	ck_assert_str_eq(slurp("profile.0.0.0"), "first 1\n");
	ck_assert_str_eq(listing(), "profile.0.0.0");
	snprintf(p, sizeof(p), "%s/none/x", dir);
	ck_assert_int_eq(mw_atomic_open(&af, p, 0644), -1);
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST

/* A file another user may control is read only if it is a regular file,
 * not through a link, never blocking, of bounded size. */
START_TEST(test_read_regular)
{
	char p[512], l[512], fifo[512], *buf = (char *)"x";
	size_t len = 99;
	mw_unit_put(dir, "r.json", "{\"a\":1}\n");
	snprintf(p, sizeof(p), "%s/r.json", dir);
	ck_assert_int_eq(mw_read_regular(p, 100, &buf, &len), 0);
	ck_assert_str_eq(buf, "{\"a\":1}\n");
	ck_assert_uint_eq(len, 8);
	free(buf);
	ck_assert_int_eq(mw_read_regular(p, 7, &buf, &len), -1);
	ck_assert_int_eq(errno, EFBIG);
	ck_assert_ptr_null(buf);
	snprintf(l, sizeof(l), "%s/link.json", dir);
	ck_assert_int_eq(symlink(p, l), 0);
	ck_assert_int_eq(mw_read_regular(l, 100, &buf, &len), -1);
	ck_assert_int_eq(errno, ELOOP);
	ck_assert_str_eq(mw_read_regular_why(ELOOP), "a symbolic link (not followed)");
	snprintf(fifo, sizeof(fifo), "%s/fifo.json", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(mw_read_regular(fifo, 100, &buf, &len), -1); /* no hang */
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_str_eq(mw_read_regular_why(EINVAL), "not a regular file");
	ck_assert_int_eq(mw_read_regular(dir, 100, &buf, &len), -1);
	ck_assert_int_eq(errno, EINVAL);
	mw_unit_put(dir, "empty", "");
	snprintf(p, sizeof(p), "%s/empty", dir);
	ck_assert_int_eq(mw_read_regular(p, 100, &buf, &len), 0);
	ck_assert_str_eq(buf, "");
	free(buf);
}
END_TEST

/* mw_fsid_enter takes the user's identity for files: the caller's (root's)
 * supplementary groups must not come along, or a link the user planted
 * would lead to a file of one of root's groups (issue: "fsuid keeps
 * supplementary groups").  Root, in group 4242, reads a 0640 root:4242
 * file; as uid:gid 65534 it must not; afterwards its groups are back. */
START_TEST(test_fsid_groups)
{
	gid_t saved[256], g = 4242, now[4];
	int n, fd, e, k;
	char p[512];
	struct mw_fsid old;

	ck_assert_msg(geteuid() == 0, "test_fsutil's identity case needs root");
	n = getgroups(256, saved);
	ck_assert_int_ge(n, 0);
	ck_assert_int_eq(setgroups(1, &g), 0);
	ck_assert_int_eq(chmod(dir, 0755), 0);
	snprintf(p, sizeof(p), "%s/secret", dir);
	mw_unit_put(dir, "secret", "root's group only\n");
	ck_assert_int_eq(chown(p, 0, 4242), 0);
	ck_assert_int_eq(chmod(p, 0640), 0);

	mw_fsid_enter(&old, 65534, 65534);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	e = errno;
	mw_fsid_leave(&old);
	if (fd >= 0)
		close(fd);
	k = getgroups(4, now);
	ck_assert_int_eq(setgroups((size_t)n, saved), 0);

	ck_assert_msg(fd < 0 && e == EACCES,
		      "as uid 65534, a file of the caller's supplementary group 4242 was opened");
	ck_assert_int_eq(k, 1);
	ck_assert_int_eq(now[0], 4242);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fsutil");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_rundir, 0, sizeof(rundir_cases) / sizeof(rundir_cases[0]));
	tcase_add_test(tc, test_mkdir_p);
	tcase_add_test(tc, test_write_atomic);
	tcase_add_test(tc, test_atomic_stream);
	tcase_add_test(tc, test_read_regular);
	tcase_add_test(tc, test_fsid_groups);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
