/* Unit tests for shared/hb_doc.c: doc/protocol.md's message layouts are the
 * ones the heartbeat codec walks.  The committed text between the markers
 * is what mw-protodoc writes from the table (`make protodoc` after a change
 * of a layout), and it names every field of every type. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docsplice.h"
#include "fsutil.h"
#include "heartbeat.h"
#include "unit.h"

START_TEST(test_doc_is_generated)
{
	char *doc = mw_unit_read_top("doc/protocol.md"), *want = mw_doc_part_splice(&mw_hb_doc_part, doc);
	ck_assert_msg(want != NULL, "doc/protocol.md has the markers %s and %s", MW_HB_DOC_BEGIN,
		      MW_HB_DOC_END);
	ck_assert_msg(strcmp(doc, want) == 0,
		      "doc/protocol.md's message layouts differ from the table: run make protodoc");
	free(want);
	free(doc);
}
END_TEST

/* Every type's section, every field's row (elements of an array of objects
 * as "up[].node"), in the table's order. */
static void check_fields(const char *sec, const struct mw_hb_field *fs, const char *prefix,
			 const char **at)
{
	for (const struct mw_hb_field *f = fs; f->name; f++) {
		char row[128];
		const char *p;
		if (f->kind == MW_HB_K_WHOLE)
			continue;
		snprintf(row, sizeof row, "\n| `%s%s` |", prefix, f->name);
		p = strstr(*at, row);
		ck_assert_msg(p && (!sec || p < sec), "row %s in its section, in order", row + 1);
		*at = p + 1;
		if (f->kind == MW_HB_K_OBJLIST) {
			char pre[64];
			snprintf(pre, sizeof pre, "%s[].", f->name);
			check_fields(sec, f->elem, pre, at);
		}
	}
}

START_TEST(test_every_field)
{
	char *doc = mw_unit_read_top("doc/protocol.md");
	const char *gen = strstr(doc, MW_HB_DOC_BEGIN);
	int types = 0;
	ck_assert_ptr_nonnull(gen);
	for (int t = 1; t < MW_HB_NTYPES; t++) {
		const struct mw_hb_layout *l = mw_hb_layout(t);
		char head[64], up[32];
		const char *sec, *next;
		if (!l)
			continue;
		types++;
		for (size_t i = 0; i <= strlen(l->name); i++)
			up[i] = (char)(l->name[i] >= 'a' && l->name[i] <= 'z' ? l->name[i] - 32 : l->name[i]);
		snprintf(head, sizeof head, "\n**%s** (type %d, ", up, t);
		sec = strstr(gen, head);
		ck_assert_msg(sec != NULL, "a section %s", head + 1);
		next = strstr(sec + 1, "\n**");
		check_fields(next, l->fields, "", &sec);
	}
	ck_assert_int_eq(types, 17);
	free(doc);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("heartbeat layouts in doc/protocol.md");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_doc_is_generated);
	tcase_add_test(tc, test_every_field);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
