/* nhd_notify.c - systemd readiness and watchdog notifications
 * (nhd_notify.h). */
#include <stdint.h>

#include "log.h"
#include "nhd_notify.h"

#ifdef MW_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>

static uv_timer_t ready_t, dog_t;
static int started, dog_on;

static void on_dog(uv_timer_t *t)
{
	(void)t;
	sd_notify(0, "WATCHDOG=1");
}

/* The loop's first turn: it serves the sockets now. */
static void on_ready(uv_timer_t *t)
{
	(void)t;
	if (sd_notify(0, "READY=1") > 0)
		mw_debug("told systemd we are ready%s", dog_on ? ", watchdog on" : "");
	if (dog_on)
		on_dog(&dog_t);
}

int nhd_notify_start(uv_loop_t *loop)
{
	uint64_t usec = 0;
	int rc;

	if (started)
		return 0;
	/* unset_environment=1: WATCHDOG_USEC/WATCHDOG_PID are ours, not for
	 * the commands and hooks we run. */
	dog_on = sd_watchdog_enabled(1, &usec) > 0 && usec > 0;
	if ((rc = uv_timer_init(loop, &ready_t)) < 0 || (rc = uv_timer_init(loop, &dog_t)) < 0) {
		mw_err("systemd notifications: %s: not sent", uv_strerror(rc));
		return -1;
	}
	started = 1;
	uv_timer_start(&ready_t, on_ready, 0, 0);
	uv_unref((uv_handle_t *)&ready_t);
	if (dog_on) {
		uint64_t ms = usec / 2000; /* half the watchdog time, in ms */
		uv_timer_start(&dog_t, on_dog, ms ? ms : 1, ms ? ms : 1);
		uv_unref((uv_handle_t *)&dog_t);
	}
	return 0;
}

void nhd_notify_stop(void)
{
	if (!started)
		return;
	started = 0;
	sd_notify(0, "STOPPING=1");
	uv_close((uv_handle_t *)&ready_t, NULL);
	uv_close((uv_handle_t *)&dog_t, NULL);
}

int nhd_notify_built_in(void)
{
	return 1;
}

#else /* built without libsystemd: nothing is ever sent */

#include <stdlib.h>

int nhd_notify_start(uv_loop_t *loop)
{
	(void)loop;
	if (getenv("NOTIFY_SOCKET"))
		mw_warn("started by systemd with Type=notify, but built without libsystemd: systemd is never told "
			"we are ready (rebuild with libsystemd-dev, or use Type=simple)");
	return 0;
}

void nhd_notify_stop(void)
{
}

int nhd_notify_built_in(void)
{
	return 0;
}

#endif
