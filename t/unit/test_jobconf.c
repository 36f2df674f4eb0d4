/* Unit tests of the one job-settings table (shared/jobconf.c): every
 * setting at its ends and one past them, through the path the plugin and
 * the helpers take (set -> resolve -> settings file -> read back), and the
 * man page that lists them (doc/man/mpiwatch-spank.8) checked against the
 * table. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobconf.h"

/* Values to try for k: in range (ok = 1) and out (ok = 0). */
static int values_for(const struct mw_conf_key *k, char v[8][64], int ok[8])
{
	int n = 0;
	switch (k->type) {
	case MW_CONF_INT:
		snprintf(v[n], 64, "%ld", (long)k->min), ok[n++] = 1;
		snprintf(v[n], 64, "%ld", (long)k->max), ok[n++] = 1;
		snprintf(v[n], 64, "%ld", (long)k->min - 1), ok[n++] = 0;
		snprintf(v[n], 64, "%ld", (long)k->max + 1), ok[n++] = 0;
		break;
	case MW_CONF_DOUBLE:
		snprintf(v[n], 64, "%.10g", k->min), ok[n++] = 1;
		snprintf(v[n], 64, "%.10g", k->max), ok[n++] = 1;
		snprintf(v[n], 64, "%.10g", k->min - 0.01), ok[n++] = 0;
		snprintf(v[n], 64, "%.10g", k->max + 1), ok[n++] = 0;
		snprintf(v[n], 64, "abc"), ok[n++] = 0;
		break;
	case MW_CONF_BOOL:
		snprintf(v[n], 64, "yes"), ok[n++] = 1;
		snprintf(v[n], 64, "no"), ok[n++] = 1;
		snprintf(v[n], 64, "maybe"), ok[n++] = 0;
		break;
	case MW_CONF_ENUM:
		for (int i = 0; k->choices[i] && n < 6; i++)
			snprintf(v[n], 64, "%s", k->choices[i]), ok[n++] = 1;
		snprintf(v[n], 64, "bogus"), ok[n++] = 0;
		break;
	default:
		break;
	}
	return n;
}

/* Every job setting, both ends and past them: what is accepted is written
 * to the settings file and read back as the same value (what the agent,
 * the collector and the monitor get); what is refused says the range. */
START_TEST(test_every_setting)
{
	char v[8][64], err[512], dir[] = "/tmp/mwjcXXXXXX", path[64];
	int ok[8], tried = 0;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/settings", dir);
	for (const struct mw_conf_key *k = mw_jobconf_keys; k->name; k++) {
		int n = values_for(k, v, ok);
		for (int i = 0; i < n; i++) {
			struct mw_jobconf c, back;
			char a[256], b[256];
			ck_assert_int_eq(mw_jobconf_init(&c), 0);
			int r = mw_jobconf_set(&c, k->scope, k->name, v[i], err, sizeof(err));
			tried++;
			if (!ok[i]) {
				char what[256];
				mw_conf_expect(k, what, sizeof(what));
				ck_assert_msg(r == -1, "%s=%s accepted", k->name, v[i]);
				ck_assert_msg(strstr(err, what) && strstr(err, v[i]), "%s=%s: '%s'", k->name, v[i], err);
				mw_jobconf_free(&c);
				continue;
			}
			ck_assert_msg(r == 0, "%s=%s: %s", k->name, v[i], err);
			if (!(k->scope & MW_JC_JOB)) { /* used by the plugin alone */
				mw_jobconf_free(&c);
				continue;
			}
			double keep_hang = c.hang_limit;
			long keep_port = c.port;
			ck_assert_int_eq(mw_jobconf_resolve(&c, 7, "/home/u"), 0);
			if (!strcmp(k->name, "hang_limit"))
				ck_assert_double_eq(c.hang_limit, keep_hang); /* given: kept */
			if (!strcmp(k->name, "port"))
				c.port = keep_port; /* mpiwatch run sets it after resolving */
			ck_assert_int_eq(mw_jobconf_write(&c, path, (uid_t)-1, (gid_t)-1), 0);
			ck_assert_int_eq(mw_jobconf_init(&back), 0);
			ck_assert_msg(mw_jobconf_read(&back, path, err, sizeof(err)) == 0, "%s", err);
			mw_conf_format(k, &c, a, sizeof(a));
			mw_conf_format(k, &back, b, sizeof(b));
			ck_assert_str_eq(a, b);
			if (k->type == MW_CONF_INT || k->type == MW_CONF_DOUBLE) {
				ck_assert_msg(strtod(b, NULL) == strtod(v[i], NULL), "%s: %s read as %s",
					      k->name, v[i], b);
			} else if (k->type == MW_CONF_ENUM) {
				ck_assert_str_eq(b, v[i]);
			}
			mw_jobconf_free(&c);
			mw_jobconf_free(&back);
		}
	}
	ck_assert_int_gt(tried, 35);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* The settings file holds only what a job gets: a site-only key in it is
 * an error, named with file and line. */
START_TEST(test_file_scope)
{
	char dir[] = "/tmp/mwjcXXXXXX", path[64], err[512];
	struct mw_jobconf c;
	FILE *f;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/settings", dir);
	f = fopen(path, "w");
	fprintf(f, "timeout = 5\nbindir = /x\n");
	fclose(f);
	ck_assert_int_eq(mw_jobconf_init(&c), 0);
	ck_assert_int_eq(mw_jobconf_read(&c, path, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, ":2: unknown key 'bindir'"), "%s", err);
	mw_jobconf_free(&c);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* mpiwatch-spank(8) lists every setting the site or the user can give,
 * each with its range and default as the table has them, and nothing the
 * table does not have. */
START_TEST(test_man_page)
{
	FILE *f = fopen("doc/man/mpiwatch-spank.8", "r");
	char *man = NULL, *user, *site, *end;
	size_t len = 0;
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(getdelim(&man, &len, '\0', f), 1);
	fclose(f);
	user = strstr(man, "\n.SH USER OPTION");
	site = strstr(man, "\n.SH SITE ARGUMENTS");
	end = site ? strstr(site + 1, "\n.SH ") : NULL;
	ck_assert_msg(user && site && end, "sections missing");
	for (const struct mw_conf_key *k = mw_jobconf_keys; k->name; k++) {
		for (int pass = 0; pass < 2; pass++) {
			unsigned scope = pass ? MW_JC_SITE : MW_JC_USER;
			char *from = pass ? site : user, *to = pass ? end : site, tag[64], *e, *next;
			if (!(k->scope & scope) || (!pass && !strcmp(k->name, "default")))
				continue;
			/* ".B name" (a flag), ".BI name= ", ".BR name= " */
			snprintf(tag, sizeof(tag), k->type == MW_CONF_BOOL && !pass ? ".B %s\n" : " %s=",
				 k->name);
			e = strstr(from, tag);
			ck_assert_msg(e && e < to, "%s: no entry '%s' in %s", k->name, tag,
				      pass ? "SITE ARGUMENTS" : "USER OPTION");
			next = strstr(e + 1, "\n.TP");
			if (!next || next > to)
				next = to;
			char text[2048];
			size_t n = (size_t)(next - e) < sizeof(text) - 1 ? (size_t)(next - e) : sizeof(text) - 1;
			memcpy(text, e, n);
			text[n] = 0;
			if (k->type == MW_CONF_INT || k->type == MW_CONF_DOUBLE) {
				char range[128];
				snprintf(range, sizeof(range), "%.10g to %.10g", k->min, k->max);
				ck_assert_msg(strstr(text, range), "%s: the man page does not give the range '%s'",
					      k->name, range);
			}
			if (pass && k->def && *k->def && k->type != MW_CONF_BOOL && k->type != MW_CONF_ENUM) {
				char def[128];
				snprintf(def, sizeof(def), "default %s", k->def);
				ck_assert_msg(strstr(text, def), "%s: the man page does not say '%s'", k->name, def);
			}
		}
	}
	/* Every ".BI x= " / ".BR x= " in the site section is a site key. */
	for (char *p = strstr(site, "\n.B"); p && p < end; p = strstr(p + 1, "\n.B")) {
		char name[64];
		if (sscanf(p, "\n.B%*[IR] %63[a-z_]=", name) == 1) {
			const struct mw_conf_key *k = mw_conf_find(mw_jobconf_keys, name);
			ck_assert_msg(k && (k->scope & MW_JC_SITE), "the man page lists '%s', not a site setting", name);
		}
	}
	free(man);
}
END_TEST

/* The profile folder a rank takes from the settings (the monitor and
 * nothing else): off -> none; profile_dir when given (mpiwatch run); else
 * DIR/profile/STEP, STEP named from SLURM_STEP_ID as the plugin named it. */
START_TEST(test_profile_folder)
{
	struct mw_jobconf c;
	char buf[256], err[256];

	ck_assert_int_eq(mw_jobconf_init(&c), 0);
	ck_assert_int_eq(mw_jobconf_set(&c, MW_JC_JOB, "dir", "/r/mpiwatch-7", err, sizeof(err)), 0);
	ck_assert_int_eq(mw_jobconf_profile_folder(&c, "3", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(mw_jobconf_set(&c, MW_JC_JOB, "profile", "yes", err, sizeof(err)), 0);
	ck_assert_int_eq(mw_jobconf_profile_folder(&c, "3", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/r/mpiwatch-7/profile/step3");
	ck_assert_int_eq(mw_jobconf_profile_folder(&c, NULL, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/r/mpiwatch-7/profile/batch");
	ck_assert_int_eq(mw_jobconf_profile_folder(&c, "4294967290", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/r/mpiwatch-7/profile/interactive");
	ck_assert_int_eq(mw_jobconf_profile_folder(&c, "x1", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/r/mpiwatch-7/profile/batch");
	ck_assert_int_eq(mw_jobconf_profile_folder(&c, "3", buf, 10), -1);
	ck_assert_int_eq(errno, ENAMETOOLONG);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(mw_jobconf_set(&c, MW_JC_JOB, "profile_dir", "run/profile", err, sizeof(err)), 0);
	ck_assert_int_eq(mw_jobconf_profile_folder(&c, "3", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "run/profile");
	/* neither the site nor the user gives it: only a launcher's file */
	ck_assert_int_eq(mw_jobconf_set(&c, MW_JC_USER | MW_JC_SITE, "profile_dir", "/x", err, sizeof(err)), -1);
	ck_assert_int_eq(mw_jobconf_set(&c, MW_JC_JOB, "profile_dir", "a\nb", err, sizeof(err)), -1);
	mw_jobconf_free(&c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("jobconf");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_every_setting);
	tcase_add_test(tc, test_file_scope);
	tcase_add_test(tc, test_man_page);
	tcase_add_test(tc, test_profile_folder);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
