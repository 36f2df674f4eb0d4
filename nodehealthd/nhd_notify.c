/* nhd_notify.c - systemd readiness and watchdog notifications
 * (nhd_notify.h).
 *
 * systemd's notification protocol written here, not libsystemd's
 * sd_notify: one datagram per message to the unix socket $NOTIFY_SOCKET
 * (a path, or '@' for the abstract namespace), the protocol
 * sd_notify(3) documents as stable for daemons to speak themselves.
 * Linking libsystemd (and what it pulls in) cost nodehealthd about 1 MB of
 * resident memory at idle, 5.1 MB against 4.0 MB, over its 4 MiB target
 * (doc/benchmarks.md, issue 31's acceptance figures); these lines are what
 * the daemon used of it. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"
#include "nhd_notify.h"

static uv_timer_t ready_t, dog_t;
static int started, dog_on, fd = -1;
static struct sockaddr_un addr;
static socklen_t addr_len;

/* The notification socket named by $NOTIFY_SOCKET: 1 (fd and addr set),
 * 0 when none is named, -1 when it is unusable (logged). */
static int notify_open(void)
{
	const char *p = getenv("NOTIFY_SOCKET");
	size_t n;
	if (!p || !*p)
		return 0;
	n = strlen(p);
	if ((p[0] != '/' && p[0] != '@') || n >= sizeof addr.sun_path) {
		mw_warn("NOTIFY_SOCKET %s: not a unix socket path or abstract name: systemd is not notified", p);
		return -1;
	}
	memset(&addr, 0, sizeof addr);
	addr.sun_family = AF_UNIX;
	memcpy(addr.sun_path, p, n);
	if (p[0] == '@')
		addr.sun_path[0] = '\0';
	addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		mw_warn("NOTIFY_SOCKET: socket: %s: systemd is not notified", strerror(errno));
		return -1;
	}
	return 1;
}

/* Send msg ("READY=1"): 1 sent, 0 nothing to send to, -1 failed (logged
 * once: a systemd that went away is not a reason to stop). */
static int notify(const char *msg)
{
	static int warned;
	if (fd < 0)
		return 0;
	if (sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (const struct sockaddr *)&addr, addr_len) < 0) {
		if (!warned++)
			mw_warn("systemd notification %s: %s", msg, strerror(errno));
		return -1;
	}
	return 1;
}

/* The watchdog's period in microseconds if systemd's watchdog is on for
 * this process (WATCHDOG_USEC, and WATCHDOG_PID naming us when set), else
 * 0; both variables are taken out of the environment (they are ours, not
 * for the commands and hooks we run). */
static uint64_t watchdog_usec(void)
{
	const char *u = getenv("WATCHDOG_USEC"), *p = getenv("WATCHDOG_PID");
	unsigned long long usec = 0;
	char *end;
	int mine = 1;
	if (p) {
		long pid = strtol(p, &end, 10);
		mine = !*end && pid == (long)getpid();
	}
	if (u) {
		errno = 0;
		usec = strtoull(u, &end, 10);
		if (errno || *end || end == u)
			usec = 0;
	}
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
	return mine ? (uint64_t)usec : 0;
}

static void on_dog(uv_timer_t *t)
{
	(void)t;
	notify("WATCHDOG=1");
}

/* The loop's first turn: it serves the sockets now. */
static void on_ready(uv_timer_t *t)
{
	(void)t;
	if (notify("READY=1") > 0)
		mw_debug("told systemd we are ready%s", dog_on ? ", watchdog on" : "");
	if (dog_on)
		on_dog(&dog_t);
}

int nhd_notify_start(uv_loop_t *loop)
{
	uint64_t usec;
	int rc;

	if (started)
		return 0;
	usec = watchdog_usec();
	if (notify_open() <= 0)
		return 0;
	dog_on = usec > 0;
	if ((rc = uv_timer_init(loop, &ready_t)) < 0 || (rc = uv_timer_init(loop, &dog_t)) < 0) {
		mw_err("systemd notifications: %s: not sent", uv_strerror(rc));
		close(fd);
		fd = -1;
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
	notify("STOPPING=1");
	uv_close((uv_handle_t *)&ready_t, NULL);
	uv_close((uv_handle_t *)&dog_t, NULL);
	close(fd);
	fd = -1;
}
