/* cal_timings.h - the timings file of "mpiwatch analyze fluctuation": one
 * non-negative number per line (ns or cycles), blank lines and '#' comments
 * allowed.  No function here prints or exits. */
#ifndef CAL_TIMINGS_H
#define CAL_TIMINGS_H

#include <stddef.h>

/* Most values one file may hold. */
#define CAL_TIMINGS_MAX 10000000

/* Parse text[0..len-1] (not NUL-terminated; a NUL byte is an error); name is
 * used in messages.  Return 0 with *out (malloc'd, free it) and *n >= 1, or
 * -1 with a message "NAME:LINE: ..." (or "NAME: ...") in err and errno set
 * (EINVAL: a bad line or no value; E2BIG: too many; ENOMEM). */
int cal_timings_parse(const char *text, size_t len, const char *name, double **out, size_t *n,
		      char *err, size_t errlen);

/* Read and parse the file path ("-" is standard input).  Return as
 * cal_timings_parse; a read error gives "PATH: strerror". */
int cal_timings_read(const char *path, double **out, size_t *n, char *err, size_t errlen);

#endif
