/* runcmd.c - run a program without a shell, with a time limit (runcmd.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "runcmd.h"

#define RUNCMD_MAX_OUTPUT (1u << 20)

/* The child: never returns. */
static void child(char *const argv[], int in, int out, int errfd, const struct mw_runcmd_opts *o)
{
	sigset_t none;
	int e;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int s = 1; s < NSIG; s++)
		signal(s, SIG_DFL);
	if (o->own_group)
		setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (o->nice && nice(o->nice) < 0) {
		/* not nicer then: it still runs */
	}
	if (in < 0)
		in = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (in >= 0)
		dup2(in, 0);
	dup2(out, 1);
	dup2(out, 2);
	/* nothing else of ours: the error pipe is close-on-exec (it stays
	 * open until the exec, to report its failure) */
	for (int fd = 3; fd < 1024; fd++)
		if (fd != errfd)
			close(fd);
	if (o->envp)
		execve(argv[0], argv, o->envp);
	else
		execv(argv[0], argv);
	e = errno;
	if (write(errfd, &e, sizeof e) < 0) {
		/* nothing left to tell it with */
	}
	_exit(127);
}

static void kill_it(pid_t pid, const struct mw_runcmd_opts *o)
{
	if (o->own_group)
		kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
}

int mw_run_command_ex(char *const argv[], const char *input, const struct mw_runcmd_opts *o,
		      struct mw_runcmd_result *r)
{
	int in[2] = {-1, -1}, out[2] = {-1, -1}, ep[2] = {-1, -1}, status = 0, rv = -1;
	size_t inlen = input ? strlen(input) : 0, inoff = 0, cap = 0;
	size_t max = o->max_output ? o->max_output : RUNCMD_MAX_OUTPUT;
	double start = mw_now(), deadline = start + o->timeout_s;
	pid_t pid;

	memset(r, 0, sizeof *r);
	r->status = -1;
	if ((input && pipe2(in, O_CLOEXEC) < 0) || pipe2(out, O_CLOEXEC) < 0 ||
	    pipe2(ep, O_CLOEXEC) < 0)
		goto fail;
	pid = fork();
	if (pid < 0)
		goto fail;
	if (pid == 0)
		child(argv, in[0], out[1], ep[1], o);
	if (o->own_group)
		setpgid(pid, pid); /* both sides: no race with an early kill */
	if (in[0] >= 0)
		close(in[0]);
	close(out[1]);
	close(ep[1]);
	in[0] = out[1] = ep[1] = -1;
	if (in[1] >= 0) {
		fcntl(in[1], F_SETFL, O_NONBLOCK);
		if (inlen == 0) {
			close(in[1]);
			in[1] = -1;
		}
	}
	for (;;) {
		struct pollfd p[2];
		int np = 0, n;
		double left = deadline - mw_now();
		if (out[0] < 0 && in[1] < 0)
			break;
		if (left <= 0) {
			r->timed_out = 1;
			kill_it(pid, o);
			break;
		}
		if (out[0] >= 0)
			p[np++] = (struct pollfd){.fd = out[0], .events = POLLIN};
		if (in[1] >= 0)
			p[np++] = (struct pollfd){.fd = in[1], .events = POLLOUT};
		n = poll(p, (nfds_t)np, (int)(left * 1e3) + 1);
		if (n < 0 && errno != EINTR)
			break;
		for (int i = 0; i < np && n > 0; i++) {
			if (!p[i].revents)
				continue;
			if (p[i].fd == out[0]) {
				char tmp[4096];
				ssize_t got = read(out[0], tmp, sizeof tmp);
				size_t keep;
				if (got <= 0) {
					if (got < 0 && (errno == EINTR || errno == EAGAIN))
						continue;
					close(out[0]);
					out[0] = -1;
					continue;
				}
				keep = r->len + (size_t)got > max ? max - r->len : (size_t)got;
				if (keep && r->len + keep + 1 > cap) {
					size_t ncap = cap ? cap * 2 : 8192;
					char *nb;
					while (ncap < r->len + keep + 1)
						ncap *= 2;
					nb = realloc(r->output, ncap);
					if (nb) {
						r->output = nb;
						cap = ncap;
					} else {
						keep = 0;
					}
				}
				if (keep) {
					memcpy(r->output + r->len, tmp, keep);
					r->len += keep;
				}
				if (keep < (size_t)got) {
					r->truncated = 1;
					if (o->stop_at_max) {
						kill_it(pid, o);
						close(out[0]);
						out[0] = -1;
					}
				}
			} else {
				ssize_t w = write(in[1], input + inoff, inlen - inoff);
				if (w > 0)
					inoff += (size_t)w;
				if ((w < 0 && errno != EAGAIN && errno != EINTR) || inoff >= inlen) {
					close(in[1]);
					in[1] = -1;
				}
			}
		}
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			status = -1;
			break;
		}
	}
	if (o->own_group)
		kill(-pid, SIGKILL); /* what it left behind in its group */
	r->elapsed_s = mw_now() - start;
	if (status != -1 && WIFEXITED(status))
		r->status = WEXITSTATUS(status);
	else if (status != -1 && WIFSIGNALED(status))
		r->signal = WTERMSIG(status);
	if (read(ep[0], &r->exec_errno, sizeof r->exec_errno) != (ssize_t)sizeof r->exec_errno)
		r->exec_errno = 0;
	if (!r->output)
		r->output = calloc(1, 1);
	else
		r->output[r->len] = 0;
	rv = r->output ? 0 : -1;
fail:
	{
		int e = errno;
		for (int i = 0; i < 2; i++) {
			if (in[i] >= 0)
				close(in[i]);
			if (out[i] >= 0)
				close(out[i]);
			if (ep[i] >= 0)
				close(ep[i]);
		}
		errno = e;
	}
	return rv;
}

int mw_run_command(char *const argv[], const char *input, double timeout_s, char **output)
{
	struct mw_runcmd_opts o = {.timeout_s = timeout_s};
	struct mw_runcmd_result r;

	if (output)
		*output = NULL;
	/* stdin: a pipe (closed at once when there is no input), as always */
	if (mw_run_command_ex(argv, input ? input : "", &o, &r) < 0)
		return -1;
	if (r.timed_out) {
		free(r.output);
		errno = ETIMEDOUT;
		return -1;
	}
	if (output)
		*output = r.output;
	else
		free(r.output);
	if (r.signal)
		return 128 + r.signal;
	return r.status >= 0 ? r.status : -1;
}
