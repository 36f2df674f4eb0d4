/* mwt_counts.h - the BE counts file of "mpiwatch topo --be-counts FILE":
 * one "NODE COUNT" pair per line, optionally followed by what is known of
 * the node for the fuzzy strategy as key=value words:
 *
 *   # node  BEs  [load=L] [mem=MiB] [cores=N] [health=ok|degraded|down] [rtt=MS]
 *   n01     1    load=2 mem=16000 cores=8 health=ok rtt=0.2
 *
 * Blank lines and '#' comments are ignored.  Every error names the file and
 * the line; parsing goes on so that all errors are reported.  No function
 * here prints or exits. */
#ifndef MWT_COUNTS_H
#define MWT_COUNTS_H

#include <stddef.h>

#include "conf.h"
#include "mwt_plan.h"

#define MWT_COUNTS_BE_MAX 65536 /* BEs on one node */
#define MWT_COUNTS_LINES_MAX 1000000

struct mwt_counts {
	struct mwt_host *host; /* in file order; factors not given are unknown (-1) */
	size_t n;
};

/* Parse text[0..len-1] (need not be NUL-terminated; a NUL byte is an
 * error) named name in messages.  Errors ("NAME:LINE: ...") are appended to
 * errs.  Return the number of errors: 0 with c filled (free with
 * mwt_counts_free), else c is left empty. */
int mwt_counts_parse(const char *text, size_t len, const char *name, struct mwt_counts *c,
		     struct mw_conf_errors *errs);

/* Read and parse the file path.  Return as mwt_counts_parse; a file that
 * cannot be read is one error "PATH: strerror". */
int mwt_counts_read(const char *path, struct mwt_counts *c, struct mw_conf_errors *errs);

/* Release c (an empty one is fine). */
void mwt_counts_free(struct mwt_counts *c);

/* The factors "nothing known" (every field unknown). */
void mwt_factors_unknown(struct mwt_factors *f);

#endif
