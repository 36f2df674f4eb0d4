/* mwt_aggstate.h - a CP's aggregate inside (mwt_agg.h), shared by its two
 * parts: mwt_agg.c (sequence numbers, adding and merging) and mwt_aggjson.c
 * (the aggregate to and from its JSON).  Internal to tree/. */
#ifndef MWT_AGGSTATE_H
#define MWT_AGGSTATE_H

#include <stddef.h>
#include <stdint.h>

#include "mwt_agg.h"
#include "mw_json.h"

#define NAME_LEN (MW_HB_STR_MAX + 1)
#define MAX_CLASSES (1u << 20)

/* Open addressing over indexes into the caller's array of names. */
struct strtab {
	uint32_t *slot; /* index + 1; 0 = empty */
	size_t cap;     /* power of two */
};

/* One event of a class: its origin, its number, its rank. */
struct cover {
	uint32_t origin; /* index into the aggregate's origins */
	uint32_t seq;
	int32_t rank;
};

struct cls {
	struct mwt_class pub;
	struct cover *cov; /* the class's events */
	size_t ncov, capc;
};

struct mwt_agg {
	char from[NAME_LEN];
	uint64_t events;
	double first, last;
	struct cls *c;
	size_t nc, capc;
	uint32_t *ctab; /* class hash: index + 1 */
	size_t ctab_cap;
	char (*oname)[NAME_LEN]; /* origins covered */
	size_t no, capo;
	struct strtab otab;
};

/* The index of origin name in a, added if need be.  Return it or -1
 * (ENOMEM). */
long mwt_agg_origin_get(struct mwt_agg *a, const char *name);

/* The index of the class of key k, created if need be.  Return it, or -1
 * (ENOMEM, or EINVAL past MAX_CLASSES). */
long mwt_agg_class_get(struct mwt_agg *a, const struct mwt_class *k);

/* One more event (origin index, number, rank) covered by class c.  Return
 * 0, or -1 (ENOMEM). */
int mwt_agg_cover_add(struct cls *c, uint32_t origin, uint32_t seq, int32_t rank);

#endif
