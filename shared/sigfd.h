/* sigfd.h - the daemons' signal handling: SIGTERM, SIGINT and SIGHUP arrive
 * through a signalfd in the main poll loop, never as asynchronous handlers. */
#ifndef MW_SIGFD_H
#define MW_SIGFD_H

/* Ignore SIGPIPE, block SIGTERM, SIGINT and SIGHUP in the calling thread
 * (threads created later inherit the mask), and return a non-blocking,
 * close-on-exec signalfd that reads them, or -1 with errno set. */
int mw_sigfd_open(void);

#endif
