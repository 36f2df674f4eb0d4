/* sigfd.c - SIGTERM/SIGINT/SIGHUP through a signalfd. */
#include <pthread.h>
#include <signal.h>
#include <sys/signalfd.h>

#include "sigfd.h"

int mw_sigfd_open(void)
{
	sigset_t set;

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0)
		return -1;
	return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}
