/* monitor_fakeglue.c - stand-in for monitor/mpiglue.c in unit tests (no MPI). */
#include <stdint.h>

#include "monitor_fakeglue.h"
#include "mwm.h"

static long fake_unexpected = -1;
long getenv_fake_unexpected(void)
{
	return fake_unexpected;
}
void set_fake_unexpected(long v)
{
	fake_unexpected = v;
}

int mwm_glue_mpit_unexpected(uint64_t comm, long *count, long *per_peer, int max_peers, int *npeers)
{
	(void)comm;
	if (getenv_fake_unexpected() < 0)
		return -1;
	*count = getenv_fake_unexpected();
	if (per_peer && max_peers > 1) {
		per_peer[0] = 0;
		per_peer[1] = *count;
		*npeers = 2;
	}
	return 0;
}
