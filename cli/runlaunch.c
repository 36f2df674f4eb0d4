/* runlaunch.c - processes of "mpiwatch run". */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dl.h"
#include "elfneeded.h"
#include "fsutil.h"
#include "log.h"
#include "mw_slot.h"
#include "runlaunch.h"
#include "sigfd.h"

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int first_existing(char *out, size_t len, const char *dir, const char *const *rel, int mode)
{
	for (; *rel; rel++) {
		int n = snprintf(out, len, "%s/%s", dir, *rel);
		if (n > 0 && (size_t)n < len && access(out, mode) == 0)
			return 0;
	}
	return -1;
}

int mw_run_find_paths(struct mw_run_paths *p)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	static const char *const libs[] = {"../lib/libmpiwatch.so", "../lib/mpiwatch/libmpiwatch.so", NULL};
	static const char *const agents[] = {"mpiwatch-agent", NULL};
	static const char *const colls[] = {"mpiwatch-collector", NULL};
	static const char *const nhds[] = {"mpiwatch-nodehealthd", "../sbin/mpiwatch-nodehealthd", NULL};
	const char *env = getenv("MPIWATCH_LIB");

	if (n <= 0) {
		fprintf(stderr, "mpiwatch run: cannot find my own path\n");
		return -1;
	}
	self[n] = '\0';
	slash = strrchr(self, '/');
	*slash = '\0';
	if (env && *env)
		snprintf(p->lib, sizeof(p->lib), "%s", env);
	else if (first_existing(p->lib, sizeof(p->lib), self, libs, R_OK) < 0) {
		fprintf(stderr, "mpiwatch run: libmpiwatch.so not found near %s (set MPIWATCH_LIB)\n", self);
		return -1;
	}
	if (first_existing(p->agent, sizeof(p->agent), self, agents, X_OK) < 0 ||
	    first_existing(p->collector, sizeof(p->collector), self, colls, X_OK) < 0 ||
	    first_existing(p->nhd, sizeof(p->nhd), self, nhds, X_OK) < 0) {
		fprintf(stderr, "mpiwatch run: mpiwatch-agent, -collector or -nodehealthd missing in %s\n", self);
		return -1;
	}
	return 0;
}

int mw_run_which(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	if (strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return access(out, X_OK);
	}
	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		int w = snprintf(out, len, "%.*s/%s", (int)n, n ? path : ".", name);
		if (w > 0 && (size_t)w < len && access(out, X_OK) == 0)
			return 0;
		path += n + (path[n] == ':');
	}
	return -1;
}

/* The signal mask and SIGPIPE's disposition mpiwatch run was started with
 * (mw_run_signals_open), given back to every child before its exec. */
static sigset_t orig_mask;
static struct sigaction orig_pipe;
static int orig_saved;

int mw_run_signals_open(void)
{
	if (sigprocmask(SIG_SETMASK, NULL, &orig_mask) < 0 || sigaction(SIGPIPE, NULL, &orig_pipe) < 0)
		return -1;
	orig_saved = 1;
	return mw_sigfd_open();
}

int mw_run_signal_take(int fd)
{
	struct signalfd_siginfo si;
	int got = 0;

	while (fd > 0 && read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGHUP)
			got = (int)si.ssi_signo;
		else if (si.ssi_signo == SIGINT && !got)
			got = SIGINT;
	}
	return got;
}

static int print_rank_cb(const char *path, int rank, void *arg)
{
	FILE *out = arg;
	struct mw_slot *slot = mw_slot_map(path, 0);
	struct mw_slot_snap sn;
	struct timespec ts;

	if (!slot) {
		fprintf(out, "mpiwatch:   rank %d: not started yet\n", rank);
		return 0;
	}
	if (mw_slot_snapshot(slot, &sn) < 0 && !sn.live_ok) {
		fprintf(out, "mpiwatch:   rank %d (pid %d): busy (no consistent view)\n", rank, (int)slot->pid);
		mw_slot_unmap(slot);
		return 0;
	}
	mw_slot_unmap(slot);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	fprintf(out, "mpiwatch:   rank %d (pid %d): ", rank, (int)sn.s.pid);
	if (sn.s.exit_flags & MW_SLOT_EXIT_VALID)
		fprintf(out, "ended (%s %d)\n", sn.s.exit_flags & MW_SLOT_EXIT_SIGNALED ? "signal" : "exit",
			(int)sn.s.exit_status);
	else if (sn.s.state == MW_STATE_IN_MPI)
		fprintf(out, "in %.31s for %.0f s\n", sn.s.call.name,
			sn.s.call.enter_ns && now > sn.s.call.enter_ns ? (double)(now - sn.s.call.enter_ns) / 1e9 : 0.0);
	else if (sn.s.state == MW_STATE_COMPUTING)
		fprintf(out, "computing outside MPI (last MPI call %.31s)\n", sn.s.call.name[0] ? sn.s.call.name : "none");
	else if (sn.s.state == MW_STATE_INIT)
		fprintf(out, "starting (in MPI_Init)\n");
	else
		fprintf(out, "%s\n", mw_slot_state_name(sn.s.state));
	return 0;
}

void mw_run_print_ranks(const char *slots, FILE *out)
{
	if (mw_slot_scan_dir(slots, print_rank_cb, out) < 0)
		fprintf(out, "mpiwatch:   no rank has started yet\n");
	fflush(out);
}

int mw_run_watchdog_start(const char *work)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		char c;
		ssize_t n;
		int fd = open("/dev/null", O_RDWR);
		setsid(); /* a signal to mpiwatch run's group does not end it */
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		for (fd = 3; fd < 1024; fd++)
			if (fd != p[0])
				close(fd);
		while ((n = read(p[0], &c, 1)) < 0 && errno == EINTR)
			;
		if (n == 0) { /* mpiwatch run died without a word */
			sleep_ms(2000);
			mw_rmtree(work, (uid_t)-1);
		}
		_exit(0);
	}
	close(p[0]);
	return p[1];
}

void mw_run_watchdog_done(int fd)
{
	if (fd < 0)
		return;
	while (write(fd, "d", 1) < 0 && errno == EINTR)
		;
	close(fd);
}

/* fork + exec argv with stdout/stderr to log (or inherited if NULL).  If
 * err_pipe is not NULL, stderr goes to a new pipe whose read end is stored
 * there.  The child gets its own process group, the signal mask and
 * SIGPIPE's disposition mpiwatch run was started with, and SIGTERM if
 * mpiwatch run dies (even by SIGKILL): the helpers and the launcher never
 * outlive it.  (The death signal is not inherited by the launcher's own
 * children: the ranks' signals are untouched; the launcher ends them.) */
static pid_t spawn(char *const argv[], const char *log, int *err_pipe)
{
	int p[2] = {-1, -1};
	pid_t pid, parent = getpid();

	if (err_pipe && pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		if (err_pipe) {
			close(p[0]);
			close(p[1]);
		}
		return -1;
	}
	if (pid == 0) {
		int fd;
		setpgid(0, 0);
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
			_exit(127); /* mpiwatch run is already gone */
		if (orig_saved) {
			sigaction(SIGPIPE, &orig_pipe, NULL);
			sigprocmask(SIG_SETMASK, &orig_mask, NULL);
		}
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0 && !err_pipe)
			dup2(fd, 0);
		if (log) {
			fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
			}
		}
		if (err_pipe)
			dup2(p[1], 2);
		execv(argv[0], argv);
		fprintf(stderr, "mpiwatch run: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (err_pipe) {
		close(p[1]);
		*err_pipe = p[0];
	}
	return pid;
}

static int can_connect(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ok;
	if (fd < 0)
		return 0;
	ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

int mw_run_start_helpers(const struct mw_run_paths *p, const struct mw_run_spec *s,
			 struct mw_run_procs *procs)
{
	char conf[PATH_MAX], sock[PATH_MAX], log[PATH_MAX], sjob[32], sport[16], sprobe[16],
		scoll[64], settings[PATH_MAX], err[600];
	FILE *f;

	procs->err_fd = -1;
	snprintf(conf, sizeof(conf), "%s/nodehealthd.conf", s->work);
	snprintf(sock, sizeof(sock), "%s/nodehealthd.sock", s->work);
	f = fopen(conf, "w");
	if (!f) {
		fprintf(stderr, "mpiwatch run: %s: %s\n", conf, strerror(errno));
		return -1;
	}
	/* A probe responder on loopback only; it never drains anything, and
	 * does not calibrate (that would take a core from the ranks starting). */
	fprintf(f, "listen = 127.0.0.1\nport = %d\nsocket = %s\nnode_name = localhost\n"
		   "log = stderr\ndrain = no\ncheck_interval = 5\ncalibrate = no\n",
		s->probe_port, sock);
	fclose(f);
	snprintf(log, sizeof(log), "%s/nodehealthd.log", s->outdir);
	char *nhd_argv[] = {(char *)p->nhd, "-f", "-e", "-c", conf, NULL};
	procs->nhd = spawn(nhd_argv, log, NULL);

	snprintf(sjob, sizeof(sjob), "%d", (int)getpid());
	snprintf(sport, sizeof(sport), "%d", s->collector_port);
	snprintf(sprobe, sizeof(sprobe), "%d", s->probe_port);
	/* One machine: mpiwatch run ends the program itself after a verdict,
	 * and there is no Slurm to drain a node or take a comment. */
	/* The ranks' slots and dumps go in the settings file too: the
	 * monitor reads nothing else (mw_run_start_program makes dumps/). */
	char dumps[PATH_MAX];
	snprintf(dumps, sizeof(dumps), "%s/dumps", s->slots);
	const char *fixed[][2] = {{"port", sport}, {"probe_port", sprobe}, {"nhd_socket", sock},
				  {"dir", s->outdir}, {"action", "report"}, {"drain", "no"},
				  {"post", "no"}, {"slot_dir", s->slots}, {"dump_dir", dumps}};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (mw_jobconf_set(s->jc, MW_JC_JOB, fixed[i][0], fixed[i][1], err, sizeof(err)) < 0) {
			fprintf(stderr, "mpiwatch run: %s\n", err);
			return -1;
		}
	s->jc->hang_limit = mw_jobconf_hang_limit(s->jc->hang_limit, s->jc->timeout);
	snprintf(settings, sizeof(settings), "%s/%s", s->work, MW_JOBCONF_FILE);
	if (mw_jobconf_write(s->jc, settings, (uid_t)-1, (gid_t)-1) < 0) {
		fprintf(stderr, "mpiwatch run: %s: %s\n", settings, strerror(errno));
		return -1;
	}
	snprintf(log, sizeof(log), "%s/collector.log", s->outdir);
	char snp[16];
	snprintf(snp, sizeof(snp), "%ld", s->np);
	char *coll_argv[] = {(char *)p->collector, "--job", sjob, "--nodes", "localhost",
			     "--settings", settings, "--report", (char *)s->report, "--ranks", snp,
			     "--job-check", "0", "--ports", "1", "--auth-file", (char *)s->auth_file, NULL, NULL,
			     NULL};
	if (s->calibration) { /* the machine's quick calibration: the flag's figures */
		size_t k = sizeof(coll_argv) / sizeof(coll_argv[0]) - 3;
		coll_argv[k] = "--calibration";
		coll_argv[k + 1] = (char *)s->calibration;
	}
	procs->collector = spawn(coll_argv, log, NULL);

	snprintf(scoll, sizeof(scoll), "127.0.0.1:%d", s->collector_port);
	snprintf(log, sizeof(log), "%s/agent.log", s->outdir);
	char *agent_argv[] = {(char *)p->agent, "--job", sjob, "--node", "localhost", "--rundir",
			      (char *)s->slots, "--collector", scoll, "--settings", settings,
			      "--job-check", "0", "--ports", "1", "--auth-file", (char *)s->auth_file, NULL};
	procs->agent = spawn(agent_argv, log, NULL);
	if (procs->nhd < 0 || procs->collector < 0 || procs->agent < 0) {
		fprintf(stderr, "mpiwatch run: cannot start the helpers: %s\n", strerror(errno));
		return -1;
	}
	if (s->verbose)
		fprintf(stderr, "mpiwatch run: probe responder %d (udp %d), collector %d (tcp %d), agent %d\n",
			(int)procs->nhd, s->probe_port, (int)procs->collector, s->collector_port,
			(int)procs->agent);
	for (int i = 0; i < 100; i++) {
		if (can_connect(s->collector_port))
			return 0;
		if (waitpid(procs->collector, NULL, WNOHANG) == procs->collector) {
			procs->collector = 0;
			break;
		}
		sleep_ms(50);
	}
	fprintf(stderr, "mpiwatch run: the collector did not start (see %s/collector.log)\n", s->outdir);
	return -1;
}

static int add_env(char **v, int *n, const char *fmt, const char *val)
{
	char *s;
	if (asprintf(&s, fmt, val) < 0)
		return -1;
	v[(*n)++] = s;
	return 0;
}

int mw_run_start_program(const struct mw_run_paths *p, const struct mw_run_spec *s,
			 struct mw_run_procs *procs)
{
	char launcher[PATH_MAX], preload[8192], settings[PATH_MAX], snp[16];
	const char *user_preload = getenv("LD_PRELOAD");
	char *envs[8];
	int nenv = 0;
	char *argv[64 + 256];
	int n = 0;

	if (user_preload && *user_preload)
		snprintf(preload, sizeof(preload), "%s %s", user_preload, p->lib);
	else
		snprintf(preload, sizeof(preload), "%s", p->lib);
	snprintf(settings, sizeof(settings), "%s/%s", s->work, MW_JOBCONF_FILE);
	snprintf(snp, sizeof(snp), "%ld", s->np);
	add_env(envs, &nenv, "LD_PRELOAD=%s", preload);
	add_env(envs, &nenv, MW_JOBCONF_ENV "=%s", settings);
	char dumps[PATH_MAX];
	snprintf(dumps, sizeof(dumps), "%s/dumps", s->slots);
	mkdir(dumps, 0700);
	/* the report, profile, slot and dump folders are in the settings file only */

	if (s->mpi == MW_MPI_OPENMPI) {
		if (mw_run_which("mpirun.openmpi", launcher, sizeof(launcher)) < 0 &&
		    mw_run_which("mpirun", launcher, sizeof(launcher)) < 0)
			goto nolauncher;
		argv[n++] = launcher;
		argv[n++] = "-np";
		argv[n++] = snp;
		argv[n++] = "--oversubscribe";
		if (geteuid() == 0)
			argv[n++] = "--allow-run-as-root";
		for (int i = 0; i < nenv; i++) {
			argv[n++] = "-x";
			argv[n++] = envs[i];
		}
	} else {
		if (mw_run_which("mpiexec.mpich", launcher, sizeof(launcher)) < 0 &&
		    mw_run_which("mpiexec.hydra", launcher, sizeof(launcher)) < 0)
			goto nolauncher;
		argv[n++] = launcher;
		argv[n++] = "-n";
		argv[n++] = snp;
		for (int i = 0; i < nenv; i++) {
			char *eq = strchr(envs[i], '=');
			*eq = '\0';
			argv[n++] = "-genv";
			argv[n++] = envs[i];
			argv[n++] = eq + 1;
		}
	}
	for (int i = 0; s->prog[i] && n < (int)(sizeof(argv) / sizeof(argv[0])) - 1; i++)
		argv[n++] = s->prog[i];
	argv[n] = NULL;
	if (s->verbose) {
		fprintf(stderr, "mpiwatch run:");
		for (int i = 0; argv[i]; i++)
			fprintf(stderr, " %s", argv[i]);
		fprintf(stderr, "\n");
	}
	procs->launcher = spawn(argv, NULL, &procs->err_fd);
	for (int i = 0; i < nenv; i++)
		free(envs[i]);
	if (procs->launcher < 0) {
		fprintf(stderr, "mpiwatch run: cannot start %s: %s\n", launcher, strerror(errno));
		return -1;
	}
	return 0;
nolauncher:
	fprintf(stderr, "mpiwatch run: no %s launcher found (mpirun.openmpi / mpiexec.mpich)\n",
		mw_mpi_kind_name(s->mpi));
	for (int i = 0; i < nenv; i++)
		free(envs[i]);
	return -1;
}

struct find_dead {
	const struct mw_run_death *d;
	int done;
};

static int record_cb(const char *path, int rank, void *arg)
{
	struct find_dead *f = arg;
	struct mw_slot *slot;

	if (f->d->rank >= 0 && rank != f->d->rank)
		return 0;
	slot = mw_slot_map(path, 1);
	if (!slot)
		return 0;
	if (f->d->pid <= 0 || slot->pid == (int32_t)f->d->pid) {
		mw_slot_set_exit(slot, f->d->wait_status);
		f->done = 1;
	}
	mw_slot_unmap(slot);
	return f->done;
}

int mw_run_record_exit(const char *slots, const struct mw_run_death *d)
{
	struct find_dead f = {d, 0};
	mw_slot_scan_dir(slots, record_cb, &f);
	return f.done ? 0 : -1;
}

static long number_after(const char *line, const char *key)
{
	const char *p = strstr(line, key);
	char *end;
	long v;
	if (!p)
		return -1;
	p += strlen(key);
	while (*p == ' ')
		p++;
	v = strtol(p, &end, 10);
	return end == p ? -1 : v;
}

int mw_run_parse_death(const char *line, pid_t *state, struct mw_run_death *d)
{
	long v, sig, rank;

	/* Open MPI: "... process rank 1 with PID 1234 on node x exited on signal 11 (...)" */
	if ((sig = number_after(line, "exited on signal")) > 0 && sig < 65 &&
	    ((rank = number_after(line, "process rank")) >= 0 ||
	     number_after(line, "with PID") > 0)) {
		d->rank = rank >= 0 && rank < 0x7fffffff ? (int)rank : -1;
		v = number_after(line, "with PID");
		d->pid = v > 0 && v < 0x7fffffff ? (pid_t)v : 0;
		d->wait_status = (int)sig; /* as waitpid reports a death by signal */
		return 1;
	}
	/* UCX (under MPICH): "[host:pid:thread:tid] Caught signal 11 (Segmentation fault: ...)" */
	if (line[0] == '[' && (sig = number_after(line, "] Caught signal")) > 0 && sig < 65 &&
	    (v = number_after(line, ":")) > 0 && v < 0x7fffffff) {
		d->rank = -1;
		d->pid = (pid_t)v;
		d->wait_status = (int)sig;
		return 1;
	}
	/* MPICH (hydra): "=   PID 1234 RUNNING AT host" then "=   EXIT CODE: 139" */
	if (strstr(line, "RUNNING AT") && (v = number_after(line, "PID")) > 0 && v < 0x7fffffff) {
		*state = (pid_t)v;
		return 0;
	}
	if (*state > 0 && (v = number_after(line, "EXIT CODE:")) >= 0) {
		d->rank = -1;
		d->pid = *state;
		d->wait_status = (int)((v & 0xff) << 8);
		return 1; /* *state is kept for the EXIT STRING line */
	}
	/* Then "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Segmentation
	 * fault (signal 11)": the exit code above was the signal number. */
	if (*state > 0 && strstr(line, "EXIT STRING") && (sig = number_after(line, "(signal")) > 0 &&
	    sig < 65) {
		d->rank = -1;
		d->pid = *state;
		*state = 0;
		d->wait_status = (int)sig;
		return 1;
	}
	return 0;
}

struct find_pid {
	long pid;
	int rank;
};

static int pid_cb(const char *path, int rank, void *arg)
{
	struct find_pid *f = arg;
	struct mw_slot *slot = mw_slot_map(path, 0);
	if (!slot)
		return 0;
	if (slot->pid == (int32_t)f->pid)
		f->rank = rank;
	mw_slot_unmap(slot);
	return f->rank >= 0;
}

/* Append "RANK<TAB>MESSAGE" to the MPI error file (mpiwatch-collector reads
 * it: doc/collector.md). */
static void record_mpi_error(const char *file, int rank, const char *msg)
{
	FILE *f;
	if (!file[0] || !(f = fopen(file, "ae")))
		return;
	fprintf(f, "%d\t", rank);
	for (const char *p = msg; *p; p++)
		fputc((unsigned char)*p < 0x20 && *p != '\t' ? ' ' : *p, f);
	fputc('\n', f);
	fclose(f);
}

static void handle_line(struct mw_run_procs *procs, const char *slots, const char *line)
{
	struct mw_run_death d;
	char msg[512];
	int rank;
	if (mw_run_parse_death(line, &procs->last_pid, &d))
		mw_run_record_exit(slots, &d);
	if (dl_mpierr_parse(line, &procs->mpierr, &rank, msg, sizeof msg))
		record_mpi_error(procs->mpierr_file, rank, msg);
	if (dl_crash_parse(line, &procs->bt)) {
		struct find_pid f = {procs->bt.pid, -1};
		char stack[2048];
		mw_slot_scan_dir(slots, pid_cb, &f);
		if (f.rank >= 0 && dl_crash_text(&procs->bt, stack, sizeof stack) > 0)
			record_mpi_error(procs->crash_file, f.rank, stack);
		procs->bt.pid = 0;
	}
}

int mw_run_pump_stderr(struct mw_run_procs *procs, const char *slots, int ms)
{
	struct pollfd pfd[2] = {{procs->err_fd, POLLIN, 0}, {procs->sig_fd > 0 ? procs->sig_fd : -1, POLLIN, 0}};
	char buf[4096];

	if (procs->err_fd < 0) {
		if (ms > 0)
			poll(pfd + 1, 1, ms); /* a signal cuts the wait short */
		return -1;
	}
	int r = poll(pfd, 2, ms);
	if (r <= 0 || !(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
		return 0;
	ssize_t n = read(procs->err_fd, buf, sizeof(buf));
	if (n <= 0) {
		if (n < 0 && errno == EINTR)
			return 0;
		close(procs->err_fd);
		procs->err_fd = -1;
		return -1;
	}
	/* Forward unchanged, then look at whole lines. */
	for (ssize_t off = 0; off < n;) {
		ssize_t w = write(2, buf + off, (size_t)(n - off));
		if (w <= 0)
			break;
		off += w;
	}
	for (ssize_t i = 0; i < n; i++) {
		if (buf[i] == '\n' || procs->used == sizeof(procs->line) - 1) {
			procs->line[procs->used] = '\0';
			handle_line(procs, slots, procs->line);
			procs->used = 0;
			if (buf[i] == '\n')
				continue;
		}
		procs->line[procs->used++] = buf[i];
	}
	return 0;
}

static int reap(pid_t pid, int *status, double seconds)
{
	for (double t = 0; t < seconds; t += 0.05) {
		pid_t w = waitpid(pid, status, WNOHANG);
		if (w == pid || (w < 0 && errno == ECHILD))
			return 1;
		sleep_ms(50);
	}
	return 0;
}

void mw_run_end_program(struct mw_run_procs *procs, int *status)
{
	if (procs->launcher <= 0)
		return;
	kill(-procs->launcher, SIGTERM);
	if (!reap(procs->launcher, status, 5)) {
		kill(-procs->launcher, SIGKILL);
		reap(procs->launcher, status, 5);
	}
}

static void stop_one(pid_t *pid, double grace)
{
	int st;
	if (*pid <= 0)
		return;
	kill(*pid, SIGTERM);
	if (!reap(*pid, &st, grace)) {
		kill(*pid, SIGKILL);
		reap(*pid, &st, 2);
	}
	*pid = 0;
}

void mw_run_stop_helpers(struct mw_run_procs *procs)
{
	stop_one(&procs->agent, 3);
	stop_one(&procs->collector, 10);
	stop_one(&procs->nhd, 3);
	if (procs->err_fd >= 0) {
		close(procs->err_fd);
		procs->err_fd = -1;
	}
}

int mw_run_copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	close(in);
	close(out);
	return n < 0 ? -1 : 0;
}

int mw_run_verdict_parse(const char *text, size_t textlen, char *buf, size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *root = NULL, *v;
	int end = 0;

	if (len)
		buf[0] = '\0';
	if (!tok)
		return 0;
	root = json_tokener_parse_ex(tok, text, textlen > INT_MAX ? INT_MAX : (int)textlen);
	json_tokener_free(tok);
	if (!root)
		return 0;
	if (len && json_object_object_get_ex(root, "verdict", &v) && json_object_is_type(v, json_type_string))
		snprintf(buf, len, "%s", json_object_get_string(v));
	if (len && buf[0] && strcmp(buf, "none") && json_object_object_get_ex(root, "confirmed", &v) &&
	    json_object_is_type(v, json_type_boolean))
		end = json_object_get_boolean(v);
	json_object_put(root);
	return end;
}
