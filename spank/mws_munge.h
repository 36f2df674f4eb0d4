/* mws_munge.h - whether this node's munged will vouch for the job's agents. */
#ifndef MWS_MUNGE_H
#define MWS_MUNGE_H

#include <stddef.h>

/* Ask munged (at socket, or MUNGE's default when NULL or "") for a
 * credential, as the job's agents will to prove who they are to its
 * collector.  Return 0, or -1 with MUNGE's reason in err. */
int mws_munge_check(const char *socket, char *err, size_t errlen);

#endif
