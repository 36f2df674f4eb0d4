/* nhd_notify.h - nodehealthd and systemd (Type=notify, WatchdogSec=):
 * READY=1 once the loop serves the probe port, WATCHDOG=1 from the loop
 * while the watchdog is on, STOPPING=1 on the way out.
 *
 * systemd's notification protocol (sd_notify(3)'s datagrams to
 * $NOTIFY_SOCKET), spoken here without libsystemd (its memory cost: see
 * nhd_notify.c).  Outside systemd (no $NOTIFY_SOCKET) nothing is sent.  One
 * per process: the state is this module's. */
#ifndef NHD_NOTIFY_H
#define NHD_NOTIFY_H

#include <uv.h>

/* Arrange, on loop, for READY=1 at the loop's first turn (the probe and
 * unix sockets are watched by then: what comes in is answered), then, if
 * systemd's watchdog is on for this process (WATCHDOG_USEC, and
 * WATCHDOG_PID naming this process when set; both are taken out of the
 * environment, not to be inherited by what we run), WATCHDOG=1 every half of WATCHDOG_USEC from a timer of the
 * loop: a loop that is stuck stops sending it.  The handles do not keep
 * the loop alive.  Return 0, or -1 if libuv refused (logged; the daemon
 * runs on, without notifying). */
int nhd_notify_start(uv_loop_t *loop);

/* STOPPING=1, and close the handles of nhd_notify_start (the loop can then
 * end).  Safe to call when nhd_notify_start was not. */
void nhd_notify_stop(void);

#endif
