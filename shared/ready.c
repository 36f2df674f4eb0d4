/* ready.c - the start-up handshake with the launcher (ready.h). */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "conf.h"
#include "ready.h"

void mw_ready_notify(void)
{
	const char *v = getenv("MPIWATCH_READY_FD");
	long fd;

	if (!v)
		return;
	if (mw_conf_parse_long(v, 3, 1023, &fd) == 0) {
		ssize_t n;
		do
			n = write((int)fd, "ok\n", 3);
		while (n < 0 && errno == EINTR);
		close((int)fd);
	}
	unsetenv("MPIWATCH_READY_FD");
}
