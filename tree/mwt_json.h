/* mwt_json.h - the tree library's checked JSON field readers: one set for
 * every decoder of tree/ (aggregates, probe summaries).  Nothing trusted:
 * a field of the wrong type, out of range or with control characters is
 * an error. */
#ifndef MWT_JSON_H
#define MWT_JSON_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#define MWT_JSON_NUM_MAX 1e12 /* the largest number a time or count field takes */

/* Integer field k of o within [lo, hi] into *out.  Return 0, or -1 (missing,
 * not an integer, out of range). */
int mwt_json_int(json_object *o, const char *k, int64_t lo, int64_t hi, int64_t *out);

/* Number field k of o (an integer or a double), finite, within [lo, hi),
 * into *out.  Return 0, or -1. */
int mwt_json_num(json_object *o, const char *k, double lo, double hi, double *out);

/* String field k of o: at most max bytes, no NUL, no control character
 * (< 0x20, 0x7f).  Return it (owned by o), or NULL. */
const char *mwt_json_str(json_object *o, const char *k, size_t max);

#endif
