/* unit.h - what the unit tests (Check) share: running a suite, and small
 * files in a test's temporary folder. */
#ifndef MW_UNIT_H
#define MW_UNIT_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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

#endif
