/* hostlist.h - Slurm hostlist expressions ("n[1-3,5],gpu[01-02]") and
 * compact integer range lists ("0-3,5") used in reports. */
#ifndef MW_HOSTLIST_H
#define MW_HOSTLIST_H

#include <stddef.h>

struct mw_hostlist {
	char **host;
	size_t n;
};

/* Expand a hostlist expression into hl (which must be zeroed or freed before).
 * Supports comma-separated names, one or more bracket groups per name
 * ("r[1-2]n[1-3]"), ranges with zero padding ("n[01-10]") and single values.
 * Return 0, or -1 with errno = EINVAL (syntax) or E2BIG (more than max hosts);
 * on error hl is left empty. */
int mw_hostlist_expand(const char *expr, size_t max, struct mw_hostlist *hl);

/* Compress names back into an expression ("n[1-3,5],m7"), written into buf.
 * Return the length it needed (like snprintf). */
size_t mw_hostlist_compress(const struct mw_hostlist *hl, char *buf, size_t len);

void mw_hostlist_free(struct mw_hostlist *hl);

/* Format sorted or unsorted ints as "0-3,5,9-10" (sorted, duplicates removed)
 * into buf.  When it does not fit, buf ends after the last whole item that
 * leaves room, with ",..." ("..." alone if none fits).  Return the length it
 * needed (like snprintf). */
size_t mw_ranges_format(const int *v, size_t n, char *buf, size_t len);

/* Parse "0-3,5" into a malloc'd array.  Return the count, or -1 (EINVAL/E2BIG). */
long mw_ranges_parse(const char *s, size_t max, int **out);

#endif
