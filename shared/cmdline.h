/* cmdline.h - helpers shared by mpiwatch-agent and mpiwatch-collector. */
#ifndef MW_CMDLINE_H
#define MW_CMDLINE_H

#include <stddef.h>

/* Append stderr to path (the programs log to stderr).  Return 0 or -1. */
int mw_stderr_to(const char *path);

/* Write our pid to path (0644, replaced atomically).  Return 0 or -1. */
int mw_pidfile_self(const char *path);

/* A helper's start, once its options are read: stderr appended to logfile
 * (if not NULL), logging as name (debug if verbose, capped as helpers
 * are), our pid in pidfile (if not NULL).  Return 0, or 1 after saying why
 * on stderr (the program's exit status). */
int mw_helper_setup(const char *name, const char *logfile, const char *pidfile, int verbose);

/* Parse "HOST:PORT".  Return 0, or -1 (errno EINVAL). */
int mw_parse_hostport(const char *s, char *host, size_t hostlen, unsigned short *port);

/* Copy src into dst of size len; return -1 (errno ENAMETOOLONG) if it does not fit. */
int mw_copy(char *dst, size_t len, const char *src);

#endif
