/* uvcmd.h - run a program without a shell, with a time limit, on a libuv
 * loop: the loop's counterpart of runcmd.h (which stays for the CLI).  The
 * same options and the same result (struct mw_runcmd_opts / _result); the
 * caller is told by a callback, and nothing blocks the loop: nodehealthd's
 * Slurm commands and drain hooks, later the agent's and the collector's. */
#ifndef MW_UVCMD_H
#define MW_UVCMD_H

#include <uv.h>

#include "runcmd.h"

struct mw_uvcmd;

/* Called once per command, on the loop, when it is over: it exited (or was
 * killed) and its output reached end of file (or it was killed at a bound).
 * r is filled as mw_run_command_ex fills it; the callee owns r->output
 * (free it).  The command's memory is released after the callback returns
 * (its handles close on the loop's next turns). */
typedef void (*mw_uvcmd_done_fn)(struct mw_uvcmd *cmd, struct mw_runcmd_result *r, void *arg);

/* Start argv (argv[0] a path; copied, argv may go after the call) without a
 * shell on loop, input (may be NULL: stdin is then /dev/null; copied) on
 * stdin, stdout and stderr together into the result's output, with the
 * bounds of o (timeout_s: SIGKILL after it; max_output, stop_at_max; envp:
 * the child's whole environment, NULL for ours; own_group: the child leads a
 * new session and the whole group is killed at a bound and when it ends;
 * nice: applied to the child just after it starts).  The child gets an
 * empty signal mask and default handlers (libuv's uv_spawn), and no
 * descriptor of ours beyond 0-2 (ours are close-on-exec).  Like
 * mw_run_command_ex's, the child dies with its parent on any exit path,
 * SIGKILL included: it is started through util-linux's setpriv
 * --pdeathsig KILL (without /usr/bin/setpriv, as it is, and it may then
 * outlive us; the signal reaches the child itself, not what it started in
 * its own group).  The owner still kills what runs when it stops normally
 * (mw_uvcmd_kill).  A program that cannot be
 * executed is reported through done with exec_errno set and status 127, as
 * mw_run_command_ex does.  The process ignores SIGPIPE (the caller's
 * business: a child that closes its stdin must not kill us).
 * Return the command (its handle for mw_uvcmd_kill, valid until done has
 * returned), or NULL (errno set: ENOMEM, or a pipe could not be made). */
struct mw_uvcmd *mw_uvcmd_start(uv_loop_t *loop, char *const argv[], const char *input,
				const struct mw_runcmd_opts *o, mw_uvcmd_done_fn done, void *arg);

/* Kill cmd now (SIGKILL, its group too with own_group), as at a bound but
 * without timed_out: done is still called, on the loop, with the signal. */
void mw_uvcmd_kill(struct mw_uvcmd *cmd);

/* The child's pid (0 if it never started). */
int mw_uvcmd_pid(const struct mw_uvcmd *cmd);

#endif
