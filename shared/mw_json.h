/* mw_json.h - the one set of checked JSON field readers (json-c), for every
 * decoder: the heartbeat codec, the tree's aggregates and probe summaries,
 * Slurm's JSON answers and "mpiwatch status".  Nothing is trusted: a member
 * of the wrong type or out of range is an error, never a default.
 *
 * Library code: never prints, never exits. */
#ifndef MW_JSON_H
#define MW_JSON_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#define MW_JSON_NUM_MAX 1e12 /* the largest number a time or count field takes */

/* o's member k, or NULL if o is not an object, has no member k, or k is
 * a JSON null. */
json_object *mw_json_member(json_object *o, const char *k);

/* The integer value v within [lo, hi] into *out.  Return 0, or -1 (not an
 * integer, out of int64_t or out of range; *out then unchanged). */
int mw_json_int_of(json_object *v, int64_t lo, int64_t hi, int64_t *out);

/* Integer member k of o within [lo, hi] into *out.  Return 0, or -1
 * (missing, not an integer, out of range). */
int mw_json_int(json_object *o, const char *k, int64_t lo, int64_t hi, int64_t *out);

/* Number member k of o (an integer or a double), finite, within [lo, hi),
 * into *out.  Return 0, or -1. */
int mw_json_num(json_object *o, const char *k, double lo, double hi, double *out);

/* Numeric member k of o (an integer, or a double taken as an integer, as
 * Slurm's answers give them) into *out, unbounded.  Return 0, or -1
 * (missing or not a number). */
int mw_json_long(json_object *o, const char *k, long long *out);

/* The string value v if it has no NUL inside, else NULL (owned by v). */
const char *mw_json_str_of(json_object *v);

/* String member k of o without a NUL inside, or NULL (owned by o). */
const char *mw_json_text(json_object *o, const char *k);

/* String member k of o: at most max bytes, no NUL, no control character
 * (< 0x20, 0x7f).  Return it (owned by o), or NULL. */
const char *mw_json_str(json_object *o, const char *k, size_t max);

/* Array member k of o, or NULL. */
json_object *mw_json_array(json_object *o, const char *k);

/* Return 1 if member k of o is the boolean true, else 0 (false, missing or
 * not a boolean). */
int mw_json_true(json_object *o, const char *k);

#endif
