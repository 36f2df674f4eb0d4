/* unit.h - what the unit tests (Check) share: running a suite, and small
 * files in a test's temporary folder. */
#ifndef MW_UNIT_H
#define MW_UNIT_H

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fsutil.h"
#include "settings.h"

/* Run the suite s (Check's normal output).  Return the process exit status:
 * EXIT_SUCCESS if every test passed. */
static inline int mw_unit_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* Set a setting of the process's settings (shared/settings.h), as a
 * settings file or an option would; the test fails if the table refuses
 * it.  Call mw_settings_reset() first (in the test's setup). */
static inline void mw_unit_set(enum mw_setting s, const char *val)
{
	char err[512];
	ck_assert_msg(mw_settings_set(s, val, err, sizeof err) == 0, "%s", err);
}

/* Write text to dir/name (text NULL: remove the file); the test fails if it
 * cannot. */
static inline void mw_unit_put(const char *dir, const char *name, const char *text)
{
	char p[1024];
	FILE *f;
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if (!text) {
		unlink(p);
		return;
	}
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* The text of dir/name (at most 4 kB, in a static buffer), or NULL if it
 * cannot be read. */
static inline const char *mw_unit_get(const char *dir, const char *name)
{
	static char buf[4096];
	char p[1024];
	FILE *f;
	size_t n;
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "r");
	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* The whole text of the repository's file rel ("doc/protocol.md"), below
 * $MW_TOP (default: the current folder), malloc'd; the test fails if it
 * cannot be read.  For the tests that compare a generated part of a
 * document with its table. */
static inline char *mw_unit_read_top(const char *rel)
{
	const char *top = getenv("MW_TOP");
	char path[4096];
	char *buf = NULL;
	size_t len;
	snprintf(path, sizeof path, "%s/%s", top ? top : ".", rel);
	ck_assert_msg(mw_read_regular(path, 1 << 22, &buf, &len) == 0, "%s: %s", path, mw_read_regular_why(errno));
	return buf;
}

#endif
