/* mw_jnum.h - JSON doubles that serialize fast: the shortest decimal with
 * few fractional digits that reads back as the same double, else json-c's
 * own format.  For the big per-process arrays of the analyses' reports
 * (millions of numbers), where json-c's "%.17g" per number was a third of
 * the run.
 *
 * Library code: never prints, never exits. */
#ifndef MW_JNUM_H
#define MW_JNUM_H

#include <json-c/json.h>

/* Write v into buf (at least MW_JNUM_MAX bytes) as the decimal with the
 * fewest fractional digits (0 to 9; an integral value gets ".0", as json-c
 * writes it) that reads back (strtod) as exactly v, when there is one whose
 * digits fit in 53 bits.  Return its length, or 0 when there is none (v not
 * finite, -0.0, too large, or needs more digits): the caller then writes it
 * another way. */
#define MW_JNUM_MAX 32
int mw_jnum_format(double v, char *buf);

/* A json-c double object holding v, serialized by mw_jnum_format (or by
 * json-c's default when that returns 0): the same value as
 * json_object_new_double(v) once parsed.  NULL if out of memory. */
json_object *mw_jnum_new(double v);

#endif
