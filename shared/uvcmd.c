/* uvcmd.c - run a program without a shell, with a time limit, on a libuv
 * loop (uvcmd.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "uvcmd.h"

#define UVCMD_MAX_OUTPUT (1u << 20) /* as runcmd.c: 1 MiB unless told */

/* The exec shim that gives the child PR_SET_PDEATHSIG (uv_spawn has no
 * hook between fork and exec): util-linux's setpriv (Essential in Debian;
 * --pdeathsig since 2.33, bookworm has 2.38).  Without it the child runs
 * unshimmed (told once in uvcmd.h's contract: it may then outlive us). */
#define UVCMD_SHIM "/usr/bin/setpriv"
#define UVCMD_SHIM_ARGS 4 /* setpriv --pdeathsig KILL -- */

struct mw_uvcmd {
	uv_loop_t *loop;
	uv_process_t proc;
	uv_pipe_t out, in;
	uv_timer_t timer;
	uv_write_t wreq;
	int handles;              /* initialised and not yet closed */
	int spawned, in_open, out_open;
	int exited, out_done, reported;
	pid_t pid;
	struct mw_runcmd_opts o;
	size_t max, cap;
	char **argv;
	char *input;
	uint64_t start_ns;
	struct mw_runcmd_result r;
	mw_uvcmd_done_fn done;
	void *arg;
};

static void free_cmd(struct mw_uvcmd *c)
{
	if (c->argv)
		for (size_t i = 0; c->argv[i]; i++)
			free(c->argv[i]);
	free(c->argv);
	free(c->input);
	free(c->r.output);
	free(c);
}

static void on_close(uv_handle_t *h)
{
	struct mw_uvcmd *c = h->data;
	if (--c->handles == 0)
		free_cmd(c);
}

static void close_handle(struct mw_uvcmd *c, uv_handle_t *h)
{
	if (!uv_is_closing(h))
		uv_close(h, on_close);
	(void)c;
}

static void kill_it(struct mw_uvcmd *c)
{
	if (!c->spawned || c->exited)
		return;
	if (c->o.own_group)
		kill(-c->pid, SIGKILL);
	kill(c->pid, SIGKILL);
}

/* No more reading: at a bound or end of file. */
static void stop_reading(struct mw_uvcmd *c)
{
	c->out_done = 1;
	if (c->out_open) {
		uv_read_stop((uv_stream_t *)&c->out);
		c->out_open = 0;
		close_handle(c, (uv_handle_t *)&c->out);
	}
}

static void maybe_finish(struct mw_uvcmd *c)
{
	struct mw_runcmd_result r;
	if (c->reported || !c->exited || !c->out_done)
		return;
	c->reported = 1;
	if (c->spawned && c->o.own_group)
		kill(-c->pid, SIGKILL); /* what it left behind in its group */
	c->r.elapsed_s = (double)(uv_hrtime() - c->start_ns) / 1e9;
	if (!c->r.output)
		c->r.output = calloc(1, 1);
	else
		c->r.output[c->r.len] = 0;
	r = c->r;
	c->r.output = NULL; /* the callee's now */
	uv_timer_stop(&c->timer);
	if (c->in_open) {
		c->in_open = 0;
		close_handle(c, (uv_handle_t *)&c->in);
	}
	close_handle(c, (uv_handle_t *)&c->timer);
	if (c->spawned)
		close_handle(c, (uv_handle_t *)&c->proc);
	c->done(c, &r, c->arg);
}

static void on_exit_cb(uv_process_t *p, int64_t status, int sig)
{
	struct mw_uvcmd *c = p->data;
	c->exited = 1;
	if (sig)
		c->r.signal = sig;
	else
		c->r.status = (int)status;
	maybe_finish(c);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	static char tmp[4096]; /* the loop's thread only; copied at once */
	(void)h;
	(void)suggested;
	*buf = uv_buf_init(tmp, sizeof(tmp));
}

static void on_read(uv_stream_t *s, ssize_t got, const uv_buf_t *buf)
{
	struct mw_uvcmd *c = s->data;
	size_t keep;
	if (got == 0)
		return;
	if (got < 0) {
		stop_reading(c);
		maybe_finish(c);
		return;
	}
	keep = c->r.len + (size_t)got > c->max ? c->max - c->r.len : (size_t)got;
	if (keep && c->r.len + keep + 1 > c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 8192;
		char *nb;
		while (ncap < c->r.len + keep + 1)
			ncap *= 2;
		nb = realloc(c->r.output, ncap);
		if (nb) {
			c->r.output = nb;
			c->cap = ncap;
		} else {
			keep = 0;
		}
	}
	if (keep) {
		memcpy(c->r.output + c->r.len, buf->base, keep);
		c->r.len += keep;
	}
	if (keep < (size_t)got) {
		c->r.truncated = 1;
		if (c->o.stop_at_max) {
			kill_it(c);
			stop_reading(c);
			maybe_finish(c);
		}
	}
}

static void on_timer(uv_timer_t *t)
{
	struct mw_uvcmd *c = t->data;
	if (c->spawned) {
		c->r.timed_out = 1;
		kill_it(c);
		stop_reading(c); /* as runcmd.c: nothing more is read after the bound */
	}
	maybe_finish(c);
}

static void on_written(uv_write_t *w, int status)
{
	struct mw_uvcmd *c = w->data;
	(void)status; /* a child that does not read its input: its business */
	if (c->in_open) {
		c->in_open = 0;
		close_handle(c, (uv_handle_t *)&c->in);
	}
}

/* argv copied, behind the shim's arguments when shim is set. */
static char **copy_argv(char *const argv[], int shim)
{
	static const char *const pre[UVCMD_SHIM_ARGS] = {UVCMD_SHIM, "--pdeathsig", "KILL", "--"};
	size_t n = 0, k0 = shim ? UVCMD_SHIM_ARGS : 0;
	char **v;
	while (argv[n])
		n++;
	v = calloc(n + k0 + 1, sizeof(*v));
	for (size_t i = 0; v && i < n + k0; i++)
		if (!(v[i] = strdup(i < k0 ? pre[i] : argv[i - k0]))) {
			for (size_t k = 0; k < i; k++)
				free(v[k]);
			free(v);
			return NULL;
		}
	return v;
}

/* Whether the shim is there (asked once per process). */
static int have_shim(void)
{
	static int have = -1;
	if (have < 0)
		have = access(UVCMD_SHIM, X_OK) == 0;
	return have;
}

struct mw_uvcmd *mw_uvcmd_start(uv_loop_t *loop, char *const argv[], const char *input,
				const struct mw_runcmd_opts *o, mw_uvcmd_done_fn done, void *arg)
{
	struct mw_uvcmd *c = calloc(1, sizeof(*c));
	uv_file outfd[2] = {-1, -1}, infd[2] = {-1, -1};
	uv_process_options_t po;
	uv_stdio_container_t stdio[3];
	int rc, e, shim;

	if (!c)
		return NULL;
	c->loop = loop;
	c->o = *o;
	c->max = o->max_output ? o->max_output : UVCMD_MAX_OUTPUT;
	c->done = done;
	c->arg = arg;
	c->r.status = -1;
	c->start_ns = uv_hrtime();
	/* A program given by path that cannot be run is told as uv_spawn
	 * tells it (exec_errno), not as the shim's status 127. */
	shim = have_shim() && (!strchr(argv[0], '/') || access(argv[0], X_OK) == 0);
	c->argv = copy_argv(argv, shim);
	if (!c->argv || (input && !(c->input = strdup(input)))) {
		e = ENOMEM;
		goto fail;
	}
	if ((rc = uv_pipe(outfd, 0, 0)) < 0) {
		e = -rc;
		goto fail;
	}
	if (input) {
		if ((rc = uv_pipe(infd, 0, 0)) < 0) {
			e = -rc;
			goto fail;
		}
	} else if ((infd[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		e = errno;
		goto fail;
	}
	uv_timer_init(loop, &c->timer);
	c->timer.data = c;
	c->handles++;
	memset(&po, 0, sizeof(po));
	stdio[0].flags = UV_INHERIT_FD;
	stdio[0].data.fd = infd[0];
	stdio[1].flags = stdio[2].flags = UV_INHERIT_FD;
	stdio[1].data.fd = stdio[2].data.fd = outfd[1];
	po.file = c->argv[0];
	po.args = c->argv;
	po.env = o->envp ? (char **)o->envp : NULL;
	po.stdio = stdio;
	po.stdio_count = 3;
	po.exit_cb = on_exit_cb;
	po.flags = o->own_group ? UV_PROCESS_DETACHED : 0;
	c->proc.data = c;
	rc = uv_spawn(loop, &c->proc, &po);
	close(infd[0]);
	close(outfd[1]);
	infd[0] = outfd[1] = -1;
	if (rc < 0) {
		/* libuv closes nothing of ours: the process handle is initialised
		 * even on failure and must be closed. */
		c->handles++;
		uv_close((uv_handle_t *)&c->proc, on_close);
		close(outfd[0]);
		if (infd[1] >= 0)
			close(infd[1]);
		c->r.exec_errno = -rc;
		c->r.status = 127;
		c->exited = c->out_done = 1;
		uv_timer_start(&c->timer, on_timer, 0, 0); /* told on the loop, not now */
		return c;
	}
	c->spawned = 1;
	c->handles++;
	c->pid = c->proc.pid;
	if (o->nice) {
		int cur = getpriority(PRIO_PROCESS, 0);
		uv_os_setpriority(c->pid, cur + o->nice > 19 ? 19 : cur + o->nice);
	}
	uv_pipe_init(loop, &c->out, 0);
	c->out.data = c;
	c->handles++;
	c->out_open = 1;
	uv_pipe_open(&c->out, outfd[0]);
	uv_read_start((uv_stream_t *)&c->out, on_alloc, on_read);
	if (infd[1] >= 0) {
		uv_pipe_init(loop, &c->in, 0);
		c->in.data = c;
		c->handles++;
		c->in_open = 1;
		uv_pipe_open(&c->in, infd[1]);
		c->wreq.data = c;
		if (c->input[0]) {
			uv_buf_t b = uv_buf_init(c->input, (unsigned)strlen(c->input));
			if (uv_write(&c->wreq, (uv_stream_t *)&c->in, &b, 1, on_written) < 0)
				on_written(&c->wreq, -1);
		} else {
			on_written(&c->wreq, 0);
		}
	}
	uv_timer_start(&c->timer, on_timer, (uint64_t)(o->timeout_s > 0 ? o->timeout_s * 1e3 : 0), 0);
	return c;
fail:
	for (int i = 0; i < 2; i++) {
		if (outfd[i] >= 0)
			close(outfd[i]);
		if (infd[i] >= 0)
			close(infd[i]);
	}
	if (c->handles) {
		/* the timer only: freed when it has closed */
		close_handle(c, (uv_handle_t *)&c->timer);
		errno = e;
		return NULL;
	}
	free_cmd(c);
	errno = e;
	return NULL;
}

void mw_uvcmd_kill(struct mw_uvcmd *c)
{
	if (c->reported)
		return;
	kill_it(c);
	stop_reading(c);
	maybe_finish(c);
}

int mw_uvcmd_pid(const struct mw_uvcmd *c)
{
	return c->spawned ? (int)c->pid : 0;
}
