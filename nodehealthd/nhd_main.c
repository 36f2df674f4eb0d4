/* nhd_main.c - mpiwatch-nodehealthd: start-up, privileges, the poll loop,
 * reload and shutdown. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "sigfd.h"
#include "mw_slot.h"
#include "nhd.h"

static const int level_map[] = {LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO, LOG_DEBUG};

/* Make h the published health (health_mu held), logging changes of state or
 * of the number of failed checks, not every new load figure. */
static void publish(struct nhd *d, const struct nhd_health *h)
{
	if (h->state != d->health.state || h->failed != d->health.failed)
		mw_log(h->failed ? LOG_WARNING : LOG_NOTICE, "health: %s (%s)", mw_probe_state_name(h->state),
		       h->summary);
	d->health = *h;
}

/* The quick calibration (req 1: unless job steps run on this node, 2: even
 * then), its result stored in d->calib and logged; waiting requests woken.
 * Called without health_mu. */
static void calibrate(struct nhd *d, const struct nhd_conf *c, int req)
{
	struct nhd_calib k;
	char self[sizeof(d->self)];
	int steps = 0;

	pthread_mutex_lock(&d->conf_mu);
	memcpy(self, d->self, sizeof(self));
	pthread_mutex_unlock(&d->conf_mu);
	pthread_mutex_lock(&d->health_mu);
	k = d->calib;
	pthread_mutex_unlock(&d->health_mu);
	if (!c->calibrate) {
		k.gen++;
		snprintf(k.skipped, sizeof(k.skipped), "calibration is off (calibrate = no)");
	} else if (req < 2 && (steps = nhd_calib_busy_steps(c->slurmd_spool_dir, self)) != 0 &&
		   !(steps < 0 && errno == ENOENT)) {
		k.gen++;
		if (steps > 0)
			snprintf(k.skipped, sizeof(k.skipped), "skipped: %d job steps run on this node", steps);
		else
			snprintf(k.skipped, sizeof(k.skipped), "skipped: cannot read %.60s: %s", c->slurmd_spool_dir,
				 strerror(errno));
		mw_info("calibration %s", k.skipped);
	} else if (nhd_calib_run(c, &k) < 0) {
		mw_warn("%s", k.skipped);
	} else {
		mw_log(k.degraded ? LOG_WARNING : LOG_NOTICE,
		       "calibration: %s: %s (R0 %.0f ns, TSC %.4f GHz, %.2f s, %.2f CPU-s%s%s)",
		       k.degraded ? "degraded" : "ok", k.detail, k.r0_ns, k.obs.tsc_ghz_end, k.seconds,
		       k.cpu_seconds, k.truncated ? ", budget ran out" : "", req > 1 ? ", forced" : "");
	}
	pthread_mutex_lock(&d->health_mu);
	d->calib = k;
	d->calib_req = 0;
	pthread_cond_broadcast(&d->calib_cv);
	pthread_mutex_unlock(&d->health_mu);
}

void *nhd_checker_main(void *arg)
{
	struct nhd *d = arg;
	struct nhd_health *h = malloc(sizeof(*h));

	if (!h) {
		mw_err("health checker: out of memory");
		return NULL;
	}
	pthread_mutex_lock(&d->health_mu);
	d->calib_req = 1; /* the calibration at start */
	while (!d->stop) {
		struct nhd_conf *c;
		struct timespec until;
		double interval;
		int req = d->calib_req;
		pthread_mutex_unlock(&d->health_mu);
		c = nhd_conf_get(d);
		interval = c->check_interval;
		nhd_checks_run(c, &d->check_state, h);
		NHD_INC(d, checks_run);
		pthread_mutex_lock(&d->health_mu);
		/* The last calibration judged again: bounds changed by a reload apply. */
		if (d->calib.ran)
			d->calib.degraded = nhd_calib_judge(&d->calib.obs, c, &d->calib.rate_diff, d->calib.detail,
							    sizeof(d->calib.detail));
		nhd_calib_to_health(&d->calib, h);
		publish(d, h);
		d->rerun_checks = 0;
		if (req) {
			/* After the checks are out: a calibration takes up to 2 s. */
			pthread_mutex_unlock(&d->health_mu);
			calibrate(d, c, req);
			pthread_mutex_lock(&d->health_mu);
			*h = d->health;
			h->n -= h->n > 0 && !strcmp(h->r[h->n - 1].name, "calibration");
			nhd_calib_to_health(&d->calib, h);
			publish(d, h);
		}
		nhd_conf_put(d, c);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += (time_t)interval;
		until.tv_nsec += (long)((interval - (double)(time_t)interval) * 1e9);
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		while (!d->stop && !d->rerun_checks && !d->calib_req)
			if (pthread_cond_timedwait(&d->health_cv, &d->health_mu, &until) == ETIMEDOUT)
				break;
	}
	pthread_mutex_unlock(&d->health_mu);
	free(h);
	return NULL;
}

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
			close(d->udp_fd);
			d->udp_fd = fd;
		}
	}
	if (strcmp(nc->socket, old->socket)) {
		int fd = nhd_unix_open(nc->socket);
		if (fd < 0) {
			mw_err("reload: cannot open %s (%s), keeping %s", nc->socket, strerror(errno), old->socket);
			free(nc->socket);
			nc->socket = strdup(old->socket);
		} else {
			close(d->unix_fd);
			unlink(d->unix_path);
			d->unix_fd = fd;
			pthread_mutex_lock(&d->conf_mu);
			snprintf(d->unix_path, sizeof(d->unix_path), "%s", nc->socket);
			pthread_mutex_unlock(&d->conf_mu);
		}
	}
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
	pthread_mutex_lock(&d->health_mu);
	d->rerun_checks = 1;
	pthread_cond_signal(&d->health_cv);
	pthread_mutex_unlock(&d->health_mu);
	NHD_INC(d, reloads);
	mw_info("configuration reloaded from %s", d->conf_path);
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: mpiwatch-nodehealthd [-f] [-c FILE] [-e] [-d]\n"
		"       mpiwatch-nodehealthd --check [-c FILE]\n"
		"Answer mpiwatch liveness probes, run node health checks and perform\n"
		"confirmed Slurm drains.\n\n"
		"  -c, --config FILE  configuration file (default " NHD_DEFAULT_CONF ")\n"
		"  -f, --foreground   do not detach\n"
		"  -e, --stderr       log to stderr whatever the configuration says\n"
		"  -d, --debug        log debug messages\n"
		"  -n, --check        validate the configuration, print \"configuration OK\"\n"
		"  -h, --help         this help\n"
		"  -V, --version      print the version\n\n"
		"Signals: SIGHUP reloads the configuration, SIGTERM/SIGINT stop.\n"
		"See mpiwatch-nodehealthd(8) and nodehealthd.conf(5).\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'}, {"foreground", no_argument, NULL, 'f'},
		{"stderr", no_argument, NULL, 'e'},       {"debug", no_argument, NULL, 'd'},
		{"check", no_argument, NULL, 'n'},        {"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},      {NULL, 0, NULL, 0},
	};
	static struct nhd d;
	struct mw_conf_errors errs = {0};
	int opt, foreground = 0, force_stderr = 0, debug = 0, check_only = 0;

	d.conf_path = NHD_DEFAULT_CONF;
	while ((opt = getopt_long(argc, argv, "c:fednhV", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': d.conf_path = optarg; break;
		case 'f': foreground = 1; break;
		case 'e': force_stderr = 1; break;
		case 'd': debug = 1; break;
		case 'n': check_only = 1; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("mpiwatch-nodehealthd %s\n", MW_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
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
	d.udp_fd = d.unix_fd = d.sig_fd = -1;
	pthread_mutex_init(&d.conf_mu, NULL);
	pthread_mutex_init(&d.health_mu, NULL);
	pthread_cond_init(&d.health_cv, NULL);
	pthread_cond_init(&d.calib_cv, NULL);
	pthread_mutex_init(&d.q_mu, NULL);
	pthread_cond_init(&d.q_cv, NULL);

	/* Signals through a signalfd; threads inherit the blocked mask. */
	d.sig_fd = mw_sigfd_open();
	if (d.sig_fd < 0) {
		mw_err("signalfd: %s", strerror(errno));
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
	if (pthread_create(&d.checker, NULL, nhd_checker_main, &d) != 0 ||
	    pthread_create(&d.worker, NULL, nhd_worker_main, &d) != 0) {
		mw_err("cannot start threads");
		unlink(d.unix_path);
		return 1;
	}

	for (;;) {
		struct pollfd p[3] = {
			{.fd = d.sig_fd, .events = POLLIN},
			{.fd = d.udp_fd, .events = POLLIN},
			{.fd = d.unix_fd, .events = POLLIN},
		};
		int stop = 0;
		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			mw_err("poll: %s", strerror(errno));
			break;
		}
		if (p[0].revents) {
			struct signalfd_siginfo si;
			while (read(d.sig_fd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGHUP)
					reload(&d, force_stderr);
				else
					stop = 1;
			}
		}
		if (stop) {
			mw_info("stopping on signal");
			break;
		}
		if (p[1].revents)
			nhd_udp_serve(&d);
		if (p[2].revents)
			nhd_unix_accept(&d);
	}

	pthread_mutex_lock(&d.health_mu);
	pthread_mutex_lock(&d.q_mu);
	d.stop = 1;
	pthread_cond_broadcast(&d.q_cv);
	pthread_cond_broadcast(&d.health_cv);
	pthread_cond_broadcast(&d.calib_cv);
	pthread_mutex_unlock(&d.q_mu);
	pthread_mutex_unlock(&d.health_mu);
	{
		/* A check stuck on a dead mount, or a worker in scontrol, must not
		 * hold up the exit for long. */
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 5;
		if (pthread_timedjoin_np(d.worker, NULL, &until) != 0 ||
		    pthread_timedjoin_np(d.checker, NULL, &until) != 0) {
			mw_warn("a thread did not stop in time; exiting anyway");
			unlink(d.unix_path);
			_exit(0);
		}
	}
	while (d.q_len > 0) {
		close(d.q[d.q_head]);
		d.q_head = (d.q_head + 1) % NHD_QUEUE;
		d.q_len--;
	}
	close(d.unix_fd);
	unlink(d.unix_path);
	close(d.udp_fd);
	close(d.sig_fd);
	nhd_rl_destroy(&d.rl);
	nhd_rl_destroy(&d.rl_priv);
	nhd_conf_put(&d, d.conf);
	mw_info("stopped");
	mw_log_close();
	return 0;
}
