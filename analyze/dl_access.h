/* dl_access.h - typed access to the fields of a parsed dump (dl_json.h),
 * with an error message that names the field by its JSON pointer
 * ("/call/peer: expected integer, got string").  For the extraction
 * (dl_extract.c) only.
 *
 * The getters share one convention: return 1 and set *out if the field is
 * present and not null; 0 if it is absent or null (*out untouched), or -1
 * if it is required; -1 if it has the wrong type or is out of range.  On -1
 * the reason is in e->err (the first error only: later ones are dropped).
 */
#ifndef MW_DL_ACCESS_H
#define MW_DL_ACCESS_H

#include "dl_int.h"
#include "dl_json.h"

/* The state of one extraction. */
struct dl_ex {
	struct dl_ctx *c; /* strings are interned in c->pool */
	const struct dlj_arena *A;
	char err[512];     /* the first error, "" while there is none */
	const char *where; /* the JSON pointer of the object read, e.g. "/call" */
};

/* Record an error in e->err unless one is there already. */
void dl_ex_fail(struct dl_ex *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Return the static name of v's JSON type ("null" for NULL). */
const char *dl_jtype(const struct dlj *v);

/* An integer in [lo, hi] (a number with an integral value counts). */
int dl_get_long(struct dl_ex *e, const struct dlj *o, const char *key, int required, long lo,
		long hi, long *out);
int dl_get_int(struct dl_ex *e, const struct dlj *o, const char *key, int required, int lo,
	       int hi, int *out);
/* Any number; optional. */
int dl_get_double(struct dl_ex *e, const struct dlj *o, const char *key, double *out);
/* A string, interned in e->c->pool (-1 with "out of memory" if that fails). */
int dl_get_str(struct dl_ex *e, const struct dlj *o, const char *key, int required,
	       const char **out);
/* A boolean, as 0 or 1; optional. */
int dl_get_bool(struct dl_ex *e, const struct dlj *o, const char *key, int *out);
/* An array, as the value itself. */
int dl_get_array(struct dl_ex *e, const struct dlj *o, const char *key, int required,
		 const struct dlj **out);
/* An object, as the value itself; optional. */
int dl_get_object(struct dl_ex *e, const struct dlj *o, const char *key, const struct dlj **out);

/* Return the index of s in the NULL-terminated set, or -1. */
int dl_str_in(const char *s, const char *const *set);

/* The optional send "mode" of o into *out (DLM_NONE when absent).  Return 0,
 * or -1 (unknown mode, wrong type). */
int dl_get_mode(struct dl_ex *e, const struct dlj *o, enum dl_mode *out);
/* A tag: an integer >= -1, or absent/null (*out = DL_NO_TAG).  Return 0, or
 * -1. */
int dl_get_tag(struct dl_ex *e, const struct dlj *o, const char *key, int *out);
/* A stack frame object o into *f (zeroed first; "addr" is required).
 * Return 0, or -1. */
int dl_get_frame(struct dl_ex *e, const struct dlj *o, struct dl_frame *f);

#endif
