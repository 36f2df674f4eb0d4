/* runcmd.c - run a program without a shell, with a time limit (runcmd.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "runcmd.h"

int mw_run_command(char *const argv[], const char *input, double timeout_s, char **output)
{
	int in[2] = {-1, -1}, out[2] = {-1, -1}, status = 0, rv = -1, timed_out = 0;
	size_t inlen = input ? strlen(input) : 0, inoff = 0, cap = 0, got = 0;
	char *buf = NULL;
	double deadline = mw_now() + timeout_s;
	pid_t pid;

	if (output)
		*output = NULL;
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0)
		goto fail;
	pid = fork();
	if (pid < 0)
		goto fail;
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(out[1], 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	in[0] = out[1] = -1;
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	if (inlen == 0) {
		close(in[1]);
		in[1] = -1;
	}
	for (;;) {
		struct pollfd p[2];
		int np = 0, r;
		double left = deadline - mw_now();
		if (out[0] < 0 && in[1] < 0)
			break;
		if (left <= 0) {
			timed_out = 1;
			kill(pid, SIGKILL);
			break;
		}
		if (out[0] >= 0)
			p[np++] = (struct pollfd){.fd = out[0], .events = POLLIN};
		if (in[1] >= 0)
			p[np++] = (struct pollfd){.fd = in[1], .events = POLLOUT};
		r = poll(p, (nfds_t)np, (int)(left * 1e3) + 1);
		if (r < 0 && errno != EINTR)
			break;
		for (int i = 0; i < np && r > 0; i++) {
			if (!p[i].revents)
				continue;
			if (p[i].fd == out[0]) {
				char tmp[4096];
				ssize_t n = read(out[0], tmp, sizeof(tmp));
				if (n <= 0) {
					if (n < 0 && (errno == EINTR || errno == EAGAIN))
						continue;
					close(out[0]);
					out[0] = -1;
					continue;
				}
				if (got + (size_t)n + 1 > cap && got < (1u << 20)) {
					size_t ncap = cap ? cap * 2 : 8192;
					char *nb;
					while (ncap < got + (size_t)n + 1)
						ncap *= 2;
					nb = realloc(buf, ncap);
					if (nb) {
						buf = nb;
						cap = ncap;
					}
				}
				if (buf && got + (size_t)n + 1 <= cap) {
					memcpy(buf + got, tmp, (size_t)n);
					got += (size_t)n;
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
	if (timed_out) {
		errno = ETIMEDOUT;
		goto fail;
	}
	if (status == -1)
		goto fail;
	if (WIFEXITED(status))
		rv = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		rv = 128 + WTERMSIG(status);
fail:
	{
		int e = errno;
		if (buf)
			buf[got] = 0;
		if (output && rv >= 0) {
			*output = buf ? buf : strdup("");
			buf = NULL;
		}
		free(buf);
		for (int i = 0; i < 2; i++) {
			if (in[i] >= 0)
				close(in[i]);
			if (out[i] >= 0)
				close(out[i]);
		}
		errno = e;
	}
	return rv;
}
