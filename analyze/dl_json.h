/* dl_json.h - a small, allocation-light JSON reader for the dumps (see
 * dl_json.c).  Values live in an arena that the next dlj_parse() reuses. */
#ifndef MW_DL_JSON_H
#define MW_DL_JSON_H

#include <stddef.h>
#include <stdint.h>

enum dlj_type { DLJ_NULL = 0, DLJ_BOOL, DLJ_INT, DLJ_DOUBLE, DLJ_STRING, DLJ_ARRAY, DLJ_OBJECT };

struct dlj {
	const char *key; /* member name inside an object, else NULL */
	uint32_t keylen;
	uint8_t type;
	uint32_t n;    /* array/object: number of children */
	uint32_t slen; /* string: length in bytes (the string is NUL-terminated) */
	union {
		int64_t i; /* int, bool */
		double d;
		const char *s;
		long kids; /* array/object: index of the first child in the arena */
	};
};

struct dlj_arena {
	struct dlj *v;
	size_t nv, capv;
	struct dlj *stack;
	size_t nstack, capstack;
};

/* Parse buf[0..len) (modified in place: strings are decoded there, so buf
 * must outlive the result).  Return the root value, or NULL with a message
 * in err ("truncated JSON ..." or "invalid JSON at byte N: ..."). */
const struct dlj *dlj_parse(struct dlj_arena *a, char *buf, size_t len, char *err, size_t errlen);

/* Return child i of an array or object, or NULL. */
const struct dlj *dlj_kid(const struct dlj_arena *a, const struct dlj *v, size_t i);

/* Return the member key of an object, or NULL if absent (or v not an object). */
const struct dlj *dlj_get(const struct dlj_arena *a, const struct dlj *v, const char *key);

/* Release the arena's memory. */
void dlj_arena_free(struct dlj_arena *a);

#endif
