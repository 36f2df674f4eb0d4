/* hb_doc.c - the markdown of the heartbeat message layouts (heartbeat.h),
 * written from the one table the codec walks: doc/protocol.md section 3
 * holds it between markers (`make protodoc`; t/unit/test_hb_doc.c). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docsplice.h"
#include "heartbeat.h"

/* 2^k-1 and 2^k for large bounds, else the number. */
static const char *int_text(int64_t v, char *buf, size_t len)
{
	for (int k = 17; k < 64; k++) {
		uint64_t p = (uint64_t)1 << k;
		if (k < 63 && v == (int64_t)p)
			return snprintf(buf, len, "2^%d", k), buf;
		if (v == (int64_t)(p - 1))
			return snprintf(buf, len, "2^%d-1", k), buf;
	}
	snprintf(buf, len, "%lld", (long long)v);
	return buf;
}

static const char *num_text(double v, char *buf, size_t len)
{
	if (v >= 1e6) {
		int k = 0;
		double x = v;
		while (x >= 10 && x == (double)(long long)x && (long long)x % 10 == 0)
			x /= 10, k++;
		if (x == 1)
			return snprintf(buf, len, "10^%d", k), buf;
	}
	snprintf(buf, len, "%g", v);
	return buf;
}

static const char *json_type(const struct mw_hb_field *f)
{
	switch (f->kind) {
	case MW_HB_K_I32:
	case MW_HB_K_U16:
	case MW_HB_K_U32:
	case MW_HB_K_U64:
		return "integer";
	case MW_HB_K_BOOL:
		return "boolean";
	case MW_HB_K_NUM:
		return "number";
	case MW_HB_K_STR:
	case MW_HB_K_TEXT:
	case MW_HB_K_STATE:
		return "string";
	case MW_HB_K_OBJ:
	case MW_HB_K_WHOLE:
		return "object";
	case MW_HB_K_LIST:
		return f->elem->kind == MW_HB_K_STR ? "array of strings" : "array of integers";
	case MW_HB_K_OBJLIST:
		return "array of objects";
	}
	return "?";
}

static void c_type(const struct mw_hb_field *f, char *buf, size_t len)
{
	static const char *const names[] = {
		[MW_HB_K_I32] = "int32_t", [MW_HB_K_U16] = "uint16_t", [MW_HB_K_U32] = "uint32_t",
		[MW_HB_K_U64] = "uint64_t", [MW_HB_K_BOOL] = "int", [MW_HB_K_NUM] = "double",
		[MW_HB_K_TEXT] = "char *", [MW_HB_K_STATE] = "enum mw_hb_state",
		[MW_HB_K_OBJ] = "char *", [MW_HB_K_WHOLE] = "char *",
	};
	if (f->kind == MW_HB_K_STR)
		snprintf(buf, len, "`char[%zu]`", f->size);
	else if (f->kind == MW_HB_K_LIST && f->elem->kind == MW_HB_K_STR)
		snprintf(buf, len, "`char (*)[%zu]`, a `size_t` count", f->size);
	else if (f->kind == MW_HB_K_LIST)
		snprintf(buf, len, "`%s *`, a `size_t` count", names[f->elem->kind]);
	else if (f->kind == MW_HB_K_OBJLIST)
		snprintf(buf, len, "%s, a `size_t` count",
			 f->flags & MW_HB_F_INLINE ? "an array in the struct" : "a pointer");
	else
		snprintf(buf, len, "`%s`", names[f->kind]);
}

/* What values f takes, in words. */
static void values(FILE *o, const struct mw_hb_field *f)
{
	char a[32], b[32];

	switch (f->kind) {
	case MW_HB_K_I32:
	case MW_HB_K_U16:
	case MW_HB_K_U32:
	case MW_HB_K_U64:
		fprintf(o, "%s .. %s", int_text(f->min, a, sizeof a), int_text(f->max, b, sizeof b));
		if (f->flags & MW_HB_F_WRAP63)
			fputs(" (the encoder clears bit 63)", o);
		break;
	case MW_HB_K_BOOL:
		fputs("true or false", o);
		break;
	case MW_HB_K_NUM:
		fprintf(o, "%s %s and %s %s", f->flags & MW_HB_F_GT_MIN ? ">" : ">=",
			num_text(f->dmin, a, sizeof a), f->flags & MW_HB_F_LT_MAX ? "<" : "<=",
			num_text(f->dmax, b, sizeof b));
		break;
	case MW_HB_K_STR:
		fprintf(o, "%s; ", f->syntax ? f->syntax : "printable ASCII");
		if (f->min == (int64_t)f->size - 1)
			fprintf(o, "%zu characters", f->size - 1);
		else if (f->min)
			fprintf(o, "%lld-%zu characters", (long long)f->min, f->size - 1);
		else
			fprintf(o, "at most %zu characters", f->size - 1);
		break;
	case MW_HB_K_TEXT:
		fputs(f->syntax, o);
		break;
	case MW_HB_K_STATE:
		for (int s = 1; s < MW_HB_NSTATES; s++)
			fprintf(o, "%s`%s`", s > 1 ? ", " : "", mw_hb_state_name(s));
		break;
	case MW_HB_K_OBJ:
	case MW_HB_K_WHOLE:
		fputs("any JSON object", o);
		break;
	case MW_HB_K_LIST:
		fprintf(o, "at most %lld, each: ", (long long)f->max);
		values(o, f->elem);
		break;
	case MW_HB_K_OBJLIST:
		fprintf(o, "at most %lld objects, with the fields `%s[].*` below", (long long)f->max,
			f->name);
		break;
	}
	if (f->flags & MW_HB_F_OPT)
		fprintf(o, "; may be absent (%s: not sent)", f->kind == MW_HB_K_STR ? "`\"\"`" : "0");
	if (f->unless)
		fprintf(o, "; only when `%s` is false", f->unless);
}

static void field_rows(FILE *o, const struct mw_hb_field *fs, const char *prefix)
{
	for (const struct mw_hb_field *f = fs; f->name; f++) {
		char ct[64];
		c_type(f, ct, sizeof ct);
		fprintf(o, "| `%s%s` | %s | %s | ", prefix, f->name, json_type(f), ct);
		values(o, f);
		fprintf(o, " | %s |\n", f->doc ? f->doc : "");
		if (f->kind == MW_HB_K_OBJLIST) {
			char p[64];
			snprintf(p, sizeof p, "%s[].", f->name);
			field_rows(o, f->elem, p);
		}
	}
}

static void upper(FILE *o, const char *s)
{
	for (; *s; s++)
		fputc(toupper((unsigned char)*s), o);
}

char *mw_hb_doc_layouts(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&text, &len);

	if (!o) {
		errno = ENOMEM;
		return NULL;
	}
	fputs("| type | name | direction | what for |\n|---|---|---|---|\n", o);
	for (int t = 1; t < MW_HB_NTYPES; t++) {
		const struct mw_hb_layout *l = mw_hb_layout(t);
		if (!l)
			continue;
		fprintf(o, "| %d | ", t);
		upper(o, l->name);
		fprintf(o, " | %s | %s |\n", l->dir, l->doc);
	}
	for (int t = 1; t < MW_HB_NTYPES; t++) {
		const struct mw_hb_layout *l = mw_hb_layout(t);
		if (!l)
			continue;
		fputs("\n**", o);
		upper(o, l->name);
		fprintf(o, "** (type %d, %s)", t, l->dir);
		if (l->fields[0].kind == MW_HB_K_WHOLE) {
			fprintf(o, ": the payload is any JSON object, %s; held as its JSON text "
				   "(`char *`).\n", l->fields[0].doc);
			continue;
		}
		fputs(":\n\n| field | JSON | C | values | meaning |\n|---|---|---|---|---|\n", o);
		field_rows(o, l->fields, "");
		if (l->rule)
			fprintf(o, "\nAnd %s.\n", l->rule);
	}
	if (fclose(o) != 0) {
		free(text);
		errno = ENOMEM;
		return NULL;
	}
	return text;
}

const struct mw_doc_part mw_hb_doc_part = {"layouts", MW_HB_DOC_BEGIN, MW_HB_DOC_END, mw_hb_doc_layouts};
