/* motion.h - is a rank's transfer still moving while it sits in a call?
 *
 * The watcher thread samples, once a tick while the rank is inside a
 * blocking call or polls without a completion, the signs of movement the
 * process offers (doc/monitor.md, "Slow or stuck"):
 *   - the bytes of its pending receive buffers (sampled words spread over
 *     each buffer's span, read with process_vm_readv so that a wrong span
 *     can never fault): they change while a message arrives;
 *   - the MPI thread's own read and write byte counts (/proc, rchar and
 *     wchar): they grow while a TCP transfer or an MPI-IO call moves data.
 * MPI_T is not read for this: neither Open MPI 4.1's ob1/vader/tcp nor
 * Debian's MPICH 4.0 has a byte counter, and reading the psm2 MTL's byte
 * counters in a job that does not use psm2 crashes the rank (SIGSEGV, seen
 * with Open MPI 4.1.4; doc/monitor.md).
 * A sample whose signals differ from the previous one is a movement.
 */
#ifndef MWM_MOTION_H
#define MWM_MOTION_H

#include <stdint.h>

#include "mw_slot.h"

/* What the probe remembers between samples. */
struct mwm_motion {
	int have_buf, have_io;
	uint64_t buf_key, buf_hash; /* which buffers were sampled, and their digest */
	uint64_t io;
	int no_vm;                  /* process_vm_readv is refused here */
	int io_fd_bad;              /* /proc I/O counts are unreadable */
};

/* Sample the signals of the rank described by the snapshot s (its call and
 * pending requests), compare them with the previous sample in m and return
 * the MW_MOTION_* bits of the signals that changed (0 the first time a
 * signal is seen, or when nothing moved).  Watcher thread only. */
uint32_t mwm_motion_sample(struct mwm_motion *m, const struct mw_slot *s);

/* Forget the previous sample (the rank moved on: the next one starts
 * afresh). */
void mwm_motion_reset(struct mwm_motion *m);

#endif
