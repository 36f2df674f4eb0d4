/* nhd_main.c - mpiwatch-nodehealthd: start-up, privileges, the event loop
 * (libuv: the probe and unix sockets, signals; the checks' schedule is
 * nhd_checker.c's, the connections nhd_unix.c's), reload and shutdown. */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cliopt.h"
#include "log.h"
#include "mw_slot.h"
#include "nhd.h"
#include "nhd_metrics.h"
#include "nhd_notify.h"

static const int level_map[] = {LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO, LOG_DEBUG};

/* Keep uid 0 (Slurm authorises "scontrol update" by the munge uid) and one
 * capability, CAP_NET_BIND_SERVICE: re-probes go out from a privileged
 * source port (mw_probe_nodes_ex, MW_PROBE_F_PRIVSRC), and a reload can bind
 * a privileged probe port.  Every other capability is given up.  With
 * SECBIT_NOROOT what we execute (scontrol, hooks) gets no capability for
 * being root (set while we may still: CAP_SETPCAP; systemd sets the same
 * bits in the unit). */
static void drop_privileges(void)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[2];

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		mw_warn("cannot set no_new_privs: %s", strerror(errno));
	if (geteuid() != 0)
		return;
	if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED, 0, 0, 0) < 0 &&
	    prctl(PR_GET_SECUREBITS, 0, 0, 0, 0) != (SECBIT_NOROOT | SECBIT_NOROOT_LOCKED))
		mw_debug("securebits not set (%s): children of root keep CAP_NET_BIND_SERVICE at most",
			 strerror(errno));
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	for (int cap = 0; cap <= 63; cap++)
		if (cap != CAP_NET_BIND_SERVICE && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno == EINVAL)
			break;
	memset(data, 0, sizeof(data));
	data[0].effective = data[0].permitted = 1u << CAP_NET_BIND_SERVICE;
	if (syscall(SYS_capset, &hdr, data) < 0)
		mw_warn("cannot drop capabilities: %s", strerror(errno));
}

/* Privileged ports mean root only while net.ipv4.ip_unprivileged_port_start
 * is 1024: say so if a site lowered it (the re-probes' own rate limit and
 * the probe port rest on it, doc/security.md). */
static void check_unprivileged_port_start(void)
{
	FILE *f = fopen("/proc/sys/net/ipv4/ip_unprivileged_port_start", "re");
	long v = 1024;
	if (!f)
		return;
	if (fscanf(f, "%ld", &v) != 1)
		v = 1024;
	fclose(f);
	if (v < 1024)
		mw_warn("net.ipv4.ip_unprivileged_port_start is %ld: users can bind ports %ld-1023, so they can "
			"take a privileged probe port and send probes that look like re-probes; set it to 1024",
			v, v);
}

static void sanitize_process(void)
{
	int fd;
	umask(022);
	if (chdir("/") < 0)
		mw_warn("chdir /: %s", strerror(errno));
	/* Close whatever we inherited, keep stdin/out/err on /dev/null or the caller's. */
	if (syscall(SYS_close_range, 3, ~0U, 0) < 0)
		for (fd = 3; fd < 1024; fd++)
			close(fd);
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, 0);
		close(fd);
	}
}

/* Detach (without -f): the SysV recipe of daemon(7), fork, setsid, fork
 * again, so that the daemon is not a session leader and can never acquire a
 * controlling terminal (glibc's daemon(3) forks only once).  Nothing here
 * blocks: each parent _exits at once.  It runs before the event loop and
 * before any thread exists (main calls it before uv_loop_init and the
 * pool's first work), so no libuv state crosses the fork and
 * uv_loop_fork is not needed.  Under systemd the unit runs the daemon with
 * -f (Type=notify or simple, etc/mpiwatch-nodehealthd.service.in) and this
 * is not used. */
static int daemonize(void)
{
	pid_t pid = fork();
	int fd;
	if (pid < 0)
		return -1;
	if (pid > 0)
		_exit(0);
	setsid();
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0)
		_exit(0);
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	return 0;
}

static void set_self(struct nhd *d, const struct nhd_conf *c)
{
	if (c->node_name && c->node_name[0]) {
		snprintf(d->self, sizeof(d->self), "%s", c->node_name);
	} else {
		mw_node_name(d->self, sizeof(d->self));
	}
}

static void apply_logging(const struct nhd_conf *c, int force_stderr)
{
	mw_log_open("mpiwatch-nodehealthd", (force_stderr || c->log == NHD_LOG_STDERR) ? MW_LOG_STDERR : MW_LOG_SYSLOG,
		    level_map[c->log_level]);
}

static void print_errors(struct mw_conf_errors *errs, int to_log)
{
	for (size_t i = 0; i < errs->n; i++) {
		if (to_log)
			mw_err("%s", errs->msg[i]);
		else
			fprintf(stderr, "mpiwatch-nodehealthd: %s\n", errs->msg[i]);
	}
}

static void on_udp(uv_poll_t *w, int status, int events)
{
	(void)status;
	(void)events;
	nhd_udp_serve(w->data);
}

static void on_unix(uv_poll_t *w, int status, int events)
{
	(void)status;
	(void)events;
	nhd_unix_accept(w->data);
}

/* A watch of fd (readable) on d's loop calling cb; NULL if libuv refuses
 * (logged: the socket is then not served). */
static uv_poll_t *watch(struct nhd *d, int fd, uv_poll_cb cb)
{
	uv_poll_t *w = calloc(1, sizeof(*w));
	int rc = w ? uv_poll_init_socket(d->loop, w, fd) : UV_ENOMEM;
	if (rc < 0) {
		mw_err("cannot watch socket %d: %s", fd, uv_strerror(rc));
		free(w);
		return NULL;
	}
	w->data = d;
	uv_poll_start(w, UV_READABLE, cb);
	return w;
}

static void free_handle(uv_handle_t *h)
{
	free(h);
}

/* Stop watching fd and close it. */
static void unwatch(uv_poll_t *w, int fd)
{
	if (w) {
		uv_poll_stop(w);
		uv_close((uv_handle_t *)w, free_handle);
	}
	close(fd);
}

static void reload(struct nhd *d, int force_stderr)
{
	struct mw_conf_errors errs = {0};
	struct nhd_conf *nc = nhd_conf_load(d->conf_path, &errs), *old;

	if (!nc) {
		print_errors(&errs, 1);
		mw_err("reload of %s failed (%zu error%s): keeping the running configuration", d->conf_path, errs.n,
		       errs.n == 1 ? "" : "s");
		mw_conf_errors_free(&errs);
		NHD_INC(d, reload_failures);
		return;
	}
	mw_conf_errors_free(&errs);
	old = nhd_conf_get(d);
	if (nc->port != old->port || strcmp(nc->listen, old->listen)) {
		int fd = nhd_udp_open(nc);
		if (fd < 0) {
			mw_err("reload: keeping udp %s port %ld", old->listen, old->port);
			free(nc->listen);
			nc->listen = strdup(old->listen);
			nc->port = old->port;
		} else {
			unwatch(d->udp_watch, d->udp_fd);
			d->udp_fd = fd;
			d->udp_watch = watch(d, fd, on_udp);
		}
	}
	if (strcmp(nc->socket, old->socket)) {
		int fd = nhd_unix_open(nc->socket);
		if (fd < 0) {
			mw_err("reload: cannot open %s (%s), keeping %s", nc->socket, strerror(errno), old->socket);
			free(nc->socket);
			nc->socket = strdup(old->socket);
		} else {
			unwatch(d->unix_watch, d->unix_fd);
			unlink(d->unix_path);
			d->unix_fd = fd;
			d->unix_watch = watch(d, fd, on_unix);
			pthread_mutex_lock(&d->conf_mu);
			snprintf(d->unix_path, sizeof(d->unix_path), "%s", nc->socket);
			pthread_mutex_unlock(&d->conf_mu);
		}
	}
	if (strcmp(nc->metrics_dir, old->metrics_dir))
		nhd_metrics_remove(old->metrics_dir); /* the new folder gets it */
	nhd_conf_put(d, old);
	apply_logging(nc, force_stderr);
	nhd_rl_set(&d->rl, nc->rate_limit, nc->rate_burst);
	nhd_rl_set(&d->rl_priv, nc->rate_limit, nc->rate_burst);
	pthread_mutex_lock(&d->conf_mu);
	old = d->conf;
	d->conf = nc;
	pthread_mutex_unlock(&d->conf_mu);
	nhd_conf_put(d, old);
	pthread_mutex_lock(&d->conf_mu);
	set_self(d, nc);
	pthread_mutex_unlock(&d->conf_mu);
	d->rerun_checks = 1;
	nhd_checker_kick(d);
	nhd_mexport_changed(d); /* metrics_dir may have changed */
	NHD_INC(d, reloads);
	mw_info("configuration reloaded from %s", d->conf_path);
}

static int force; /* -e: log to stderr whatever the configuration says */
static uv_timer_t guard; /* the bound on the stop */

static void stop_guard(uv_timer_t *t)
{
	struct nhd *d = t->data;
	/* A check stuck on a dead mount (in the thread pool), or a drain in
	 * Slurm's commands or its hooks, must not hold up the exit for long;
	 * no child of ours outlives us. */
	nhd_unix_kill(d);
	mw_warn("a thread did not stop in time; exiting anyway");
	unlink(d->unix_path);
	_exit(0);
}

/* Stop: close every handle (the sockets, the signals, the check timer) and
 * the queued connections; the loop then returns once the request served
 * (a drain with its hooks) and the check run under way, if any, have
 * ended, at most 5 s: then what still runs is killed and we exit. */
static void stop(struct nhd *d)
{
	d->stop = 1;
	uv_close((uv_handle_t *)&d->sig_term, NULL);
	uv_close((uv_handle_t *)&d->sig_int, NULL);
	uv_close((uv_handle_t *)&d->sig_hup, NULL);
	unwatch(d->udp_watch, d->udp_fd);
	unwatch(d->unix_watch, d->unix_fd);
	d->udp_watch = d->unix_watch = NULL;
	unlink(d->unix_path);
	nhd_checker_stop(d);
	nhd_mexport_stop(d);
	nhd_unix_stop(d);
	nhd_notify_stop();
	uv_timer_init(d->loop, &guard);
	guard.data = d;
	uv_timer_start(&guard, stop_guard, 5000, 0);
	uv_unref((uv_handle_t *)&guard); /* only while something else runs */
}

static void on_signal(uv_signal_t *h, int signo)
{
	struct nhd *d = h->data;
	if (d->stop)
		return;
	if (signo == SIGHUP) {
		reload(d, force);
		return;
	}
	mw_info("stopping on signal");
	stop(d);
}

static const char nhd_intro[] =
	"Answer mpiwatch liveness probes, run node health checks and perform\n"
	"confirmed Slurm drains.";
static const char nhd_epilog[] =
	"Signals: SIGHUP reloads the configuration, SIGTERM/SIGINT stop.\n"
	"See mpiwatch-nodehealthd(8) and nodehealthd.conf(5).";

int main(int argc, char **argv)
{
	static struct nhd d;
	static uv_loop_t loop;
	struct mw_conf_errors errs = {0};
	int foreground = 0, force_stderr = 0, debug = 0, check_only = 0, version = 0, first, rc;
	char err[1024];

	d.conf_path = NHD_DEFAULT_CONF;
	const struct mw_cliopt opts[] = {
		{.name = "config", .shortname = 'c', .kind = MW_CLIOPT_STRING, .dst = &d.conf_path, .arg = "FILE",
		 .help = "configuration file (default " NHD_DEFAULT_CONF ")"},
		{.name = "foreground", .shortname = 'f', .kind = MW_CLIOPT_FLAG, .dst = &foreground,
		 .help = "do not detach"},
		{.name = "stderr", .shortname = 'e', .kind = MW_CLIOPT_FLAG, .dst = &force_stderr,
		 .help = "log to stderr whatever the configuration says"},
		{.name = "debug", .shortname = 'd', .kind = MW_CLIOPT_FLAG, .dst = &debug, .help = "log debug messages"},
		{.name = "check", .shortname = 'n', .kind = MW_CLIOPT_FLAG, .dst = &check_only,
		 .help = "validate the configuration, print \"configuration OK\""},
		{.name = "version", .shortname = 'V', .kind = MW_CLIOPT_FLAG, .dst = &version,
		 .help = "print the version"},
		{.name = NULL},
	};
	const struct mw_cliopt_cmd cmd = {
		.prog = "mpiwatch-nodehealthd",
		.more = "       mpiwatch-nodehealthd --check [-c FILE]",
		.intro = nhd_intro,
		.epilog = nhd_epilog,
		.opts = opts,
	};
	rc = mw_cliopt_parse(&cmd, argc, argv, &first, err, sizeof err);
	if (rc == MW_CLIOPT_HELP) {
		char *h = mw_cliopt_help(&cmd);
		fputs(h ? h : "", stdout);
		free(h);
		return 0;
	}
	if (rc == MW_CLIOPT_OK && first < argc) {
		rc = MW_CLIOPT_ERROR;
		snprintf(err, sizeof err, "%s: no operand is taken (see mpiwatch-nodehealthd --help)", argv[first]);
	}
	if (rc != MW_CLIOPT_OK) {
		fprintf(stderr, "mpiwatch-nodehealthd: %s\n", err);
		return 2;
	}
	if (version) {
		printf("mpiwatch-nodehealthd %s\n", MW_VERSION);
		return 0;
	}
	d.conf = nhd_conf_load(d.conf_path, &errs);
	if (!d.conf) {
		print_errors(&errs, 0);
		fprintf(stderr, "mpiwatch-nodehealthd: %zu error%s in %s\n", errs.n, errs.n == 1 ? "" : "s",
			d.conf_path);
		mw_conf_errors_free(&errs);
		return 1;
	}
	mw_conf_errors_free(&errs);
	if (check_only) {
		printf("configuration OK\n");
		nhd_conf_free(d.conf);
		return 0;
	}

	/* Reloads happen after chdir("/"): remember the file by its full path. */
	{
		static char abspath[4096];
		if (realpath(d.conf_path, abspath))
			d.conf_path = abspath;
		free(d.conf->path);
		d.conf->path = strdup(d.conf_path);
	}
	sanitize_process();
	if (!foreground && daemonize() < 0) {
		fprintf(stderr, "mpiwatch-nodehealthd: cannot detach: %s\n", strerror(errno));
		return 1;
	}
	if (debug)
		d.conf->log_level = NHD_LL_DEBUG;
	apply_logging(d.conf, force_stderr);
	set_self(&d, d.conf);
	d.started = mw_now();
	d.udp_fd = d.unix_fd = -1;
	pthread_mutex_init(&d.conf_mu, NULL);
	pthread_mutex_init(&d.health_mu, NULL);
	signal(SIGPIPE, SIG_IGN);
	d.loop = &loop;
	if (uv_loop_init(&loop) < 0) {
		mw_err("cannot start the event loop");
		return 1;
	}
	force = force_stderr;
	/* Signals are the loop's (uv_signal): SIGTERM, SIGINT stop, SIGHUP reloads. */
	uv_signal_init(&loop, &d.sig_term);
	uv_signal_init(&loop, &d.sig_int);
	uv_signal_init(&loop, &d.sig_hup);
	d.sig_term.data = d.sig_int.data = d.sig_hup.data = &d;
	if (uv_signal_start(&d.sig_term, on_signal, SIGTERM) < 0 || uv_signal_start(&d.sig_int, on_signal, SIGINT) < 0 ||
	    uv_signal_start(&d.sig_hup, on_signal, SIGHUP) < 0) {
		mw_err("cannot take the signals");
		return 1;
	}
	if (nhd_rl_init(&d.rl, 1024, d.conf->rate_limit, d.conf->rate_burst) < 0 ||
	    nhd_rl_init(&d.rl_priv, 1024, d.conf->rate_limit, d.conf->rate_burst) < 0) {
		mw_err("out of memory");
		return 1;
	}
	d.udp_fd = nhd_udp_open(d.conf);
	if (d.udp_fd < 0)
		return 1;
	d.unix_fd = nhd_unix_open(d.conf->socket);
	if (d.unix_fd < 0) {
		mw_err("cannot listen on %s: %s", d.conf->socket, strerror(errno));
		return 1;
	}
	snprintf(d.unix_path, sizeof(d.unix_path), "%s", d.conf->socket);
	check_unprivileged_port_start();
	drop_privileges();

	/* First health result before the first probe is answered. */
	nhd_checks_run(d.conf, &d.check_state, &d.health);
	NHD_INC(&d, checks_run);
	mw_info("started %s on udp %s:%ld, socket %s, node %s (%s)", MW_VERSION, d.conf->listen, d.conf->port,
		d.unix_path, d.self, d.health.summary);
	d.udp_watch = watch(&d, d.udp_fd, on_udp);
	d.unix_watch = watch(&d, d.unix_fd, on_unix);
	if (!d.udp_watch || !d.unix_watch) {
		unlink(d.unix_path);
		return 1;
	}
	/* One thread in libuv's pool: the check runs and the calibration
	 * take turns anyway (read when the pool starts, at the first run). */
	setenv("UV_THREADPOOL_SIZE", "1", 1);
	nhd_checker_start(&d);
	unsetenv("UV_THREADPOOL_SIZE"); /* not for what we run */
	nhd_mexport_start(&d);
	/* systemd (Type=notify): ready at the loop's first turn, then the
	 * watchdog's keep-alives from the loop, if it is on. */
	nhd_notify_start(&loop);

	uv_run(&loop, UV_RUN_DEFAULT);
	if (d.stop) {
		uv_close((uv_handle_t *)&guard, NULL);
		uv_run(&loop, UV_RUN_DEFAULT);
	}

	/* Stopped: every handle is closed, every child has ended; a check
	 * stuck on a dead mount is the thread pool's (see stop()). */
	if (uv_loop_close(&loop) < 0)
		mw_debug("event loop: handles left at exit");
	nhd_rl_destroy(&d.rl);
	nhd_rl_destroy(&d.rl_priv);
	nhd_conf_put(&d, d.conf);
	mw_info("stopped");
	mw_log_close();
	return 0;
}
