/* mws_env.h - building the environment the plugin gives a job's tasks. */
#ifndef MWS_ENV_H
#define MWS_ENV_H

#include <stddef.h>

/* Append lib to an LD_PRELOAD value (cur may be NULL or empty), keeping what
 * the user had first.  If lib is already one of cur's entries (separated by
 * spaces or colons) cur is kept unchanged.  Return 0, or -1 (errno = ENAMETOOLONG)
 * if the result does not fit in len bytes. */
int mws_preload_append(const char *cur, const char *lib, char *out, size_t len);

/* Remove every entry equal to lib from an LD_PRELOAD value (for --mpiwatch=off
 * steps that inherited it from a watched batch step).  Return 0, or -1. */
int mws_preload_remove(const char *cur, const char *lib, char *out, size_t len);

/* The per-node run directory of a job, "<base>/mpiwatch.<uid>.<jobid>.<host>"
 * (shared/fsutil.h: mw_rundir_path).  Return 0, or -1 (errno set). */
int mws_rundir(const char *base, unsigned uid, unsigned jobid, const char *host, char *out,
	       size_t len);

#endif
