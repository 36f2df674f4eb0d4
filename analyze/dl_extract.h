/* dl_extract.h - from one parsed dump to the analysis's record of its rank
 * (struct dl_rank), checking every field it uses.  For the loader
 * (dl_load.c) only.
 */
#ifndef MW_DL_EXTRACT_H
#define MW_DL_EXTRACT_H

#include "dl_access.h"

/* The largest world size (and world rank + 1) a dump may give. */
#define DL_MAX_RANK 16777216

/* What a dump says about its job, for the loader to check that all dumps
 * are of one job. */
struct dl_hdr {
	long size;       /* world size */
	const char *job; /* job id (interned), or NULL */
};

/* Extract the parsed dump d of the file named for rank want_rank (-1: any)
 * into a new rank; its communicators go into e->c's comm table, its strings
 * into e->c's pool, its job and world size into *h.  Return the rank
 * (release with dl_rank_free), or NULL with the reason in e->err ("out of
 * memory" when that is what failed). */
struct dl_rank *dl_extract_rank(struct dl_ex *e, const struct dlj *d, long want_rank,
				struct dl_hdr *h);

/* Release a rank from dl_extract_rank (NULL is fine). */
void dl_rank_free(struct dl_rank *r);

#endif
