/* monitor_fakeglue.h - control the unit tests' stand-in MPI glue. */
#ifndef MONITOR_FAKEGLUE_H
#define MONITOR_FAKEGLUE_H
/* The unexpected-queue length the fake MPI_T reports (-1: unavailable). */
long getenv_fake_unexpected(void);
void set_fake_unexpected(long v);
#endif
