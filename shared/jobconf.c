/* jobconf.c - the one table of per-job settings (jobconf.h). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "jobconf.h"
#include "probe.h"

#define S MW_JC_SITE
#define U MW_JC_USER
#define J MW_JC_JOB
#define H MW_JC_HELPER

static const char *const onoff[] = {"off", "on", NULL};
static const char *const actions[] = {"report", "cancel", "requeue", NULL};
static const char *const mpits[] = {"auto", "yes", "no", NULL}; /* enum mw_jc_mpit's order */
static const char *const strategies[] = {"average", "fuzzy", NULL}; /* enum mwt_strategy's order */

/* Whether s holds a control character: the settings file is one value
 * per line, so no value may hold a newline (nor any other control). */
static int has_ctl(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

static const char *check_abs_path(const char *v)
{
	return v[0] == '/' && strlen(v) < PATH_MAX && !has_ctl(v) ? NULL : "bad";
}

static const char *check_opt_abs_path(const char *v)
{
	return !*v ? NULL : check_abs_path(v);
}

static const char *check_path(const char *v)
{
	return *v && strlen(v) < PATH_MAX && !has_ctl(v) ? NULL : "bad";
}

static const char *check_opt_path(const char *v)
{
	return !*v || !check_path(v) ? NULL : "bad";
}

static const char *check_url(const char *v)
{
	if (!*v)
		return NULL;
	return strlen(v) < 256 && !has_ctl(v) && (!strncmp(v, "http://", 7) || !strncmp(v, "https://", 8))
		       ? NULL
		       : "bad";
}

static const char *check_partitions(const char *v)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-,";
	return strlen(v) < 512 && strspn(v, ok) == strlen(v) ? NULL : "bad";
}

static const char *check_threshold(const char *v)
{
	long n;
	int pct;
	return mw_jobconf_threshold(v, &n, &pct) == 0 ? NULL : "bad";
}

int mw_jobconf_weights(const char *s, double *w, size_t n)
{
	char buf[256], *save = NULL, *tok;
	size_t i = 0;
	double sum = 0;
	if (n != MW_JOBCONF_NWEIGHTS || strlen(s) >= sizeof(buf))
		goto bad;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (i == n || mw_conf_parse_double(tok, 0, 1e6, &w[i]) < 0)
			goto bad;
		sum += w[i++];
	}
	if (i == n && sum > 0)
		return 0;
bad:
	errno = EINVAL;
	return -1;
}

static const char *check_weights(const char *v)
{
	double w[MW_JOBCONF_NWEIGHTS];
	return !*v || mw_jobconf_weights(v, w, MW_JOBCONF_NWEIGHTS) == 0 ? NULL : "bad";
}

#define F(field) offsetof(struct mw_jobconf, field)
/* name, type, offset, min, max, choices, default, unit, doc, scope, check */
const struct mw_conf_key mw_jobconf_keys[] = {
	[MW_SET_DEFAULT] = {"default", MW_CONF_ENUM, F(on), 0, 0, onoff, "off", NULL,
	 "whether jobs are watched without --mpiwatch (site); --mpiwatch=off|on (user)", S | U, NULL},
	[MW_SET_TIMEOUT] = {"timeout", MW_CONF_DOUBLE, F(timeout), MW_TIMEOUT_MIN, MW_TIMEOUT_MAX, NULL, "60", "seconds",
	 "time a rank may stay in one MPI call, or poll without progress, before it counts as stuck",
	 S | U | J, NULL},
	[MW_SET_HANG_LIMIT] = {"hang_limit", MW_CONF_DOUBLE, F(hang_limit), 1, 31536000, NULL, NULL, "seconds",
	 "act on a hang the deadlock analysis does not confirm only after this long "
	 "(default: 10 x timeout)",
	 S | U | J, NULL},
	[MW_SET_THRESHOLD] = {"threshold", MW_CONF_STRING, F(threshold), 0, 0, NULL, "1",
	 "a rank count (e.g. 4) or a percentage (e.g. 50%)",
	 "stuck ranks (N, 1-1000000, or P%, 1%-100%) that make a suspicious event", S | U | J,
	 check_threshold},
	[MW_SET_ACTION] = {"action", MW_CONF_ENUM, F(action), 0, 0, actions, "report", NULL,
	 "what a confirmed hang verdict does to the job", S | U | J, NULL},
	[MW_SET_PROFILE] = {"profile", MW_CONF_BOOL, F(profile), 0, 0, NULL, "no", NULL,
	 "write per-rank profiles and the load-imbalance analysis", S | U | J, NULL},
	[MW_SET_DIR] = {"dir", MW_CONF_STRING, F(dir), 0, 0, NULL, NULL, "a path (no control characters)",
	 "the report folder (relative to the job's working directory; default mpiwatch-JOBID)",
	 U | J, check_path},
	[MW_SET_PROFILE_DIR] = {"profile_dir", MW_CONF_STRING, F(profile_dir), 0, 0, NULL, "", "a path (no control characters)",
	 "the ranks' profile folder (empty: DIR/profile/STEP, STEP as mw_jobconf_step_label names "
	 "the rank's Slurm step; mpiwatch run gives its own)",
	 J, check_opt_path},
	/* Where the ranks' monitor keeps its slots and writes its dumps: the
	 * plugin and mpiwatch run write them (the plugin with "%h", one value
	 * for every node); the monitor reads them here and nowhere else. */
	[MW_SET_SLOT_DIR] = {"slot_dir", MW_CONF_STRING, F(slot_dir), 0, 0, NULL, "", "a path (no control characters)",
	 "the ranks' slot folder, %h = the node's short name (empty: "
	 "/dev/shm/mpiwatch.UID.JOB.HOST, removed at exit outside Slurm)",
	 J, check_opt_path},
	[MW_SET_DUMP_DIR] = {"dump_dir", MW_CONF_STRING, F(dump_dir), 0, 0, NULL, "", "a path (no control characters)",
	 "the ranks' dump folder, %h = the node's short name (empty: DIR/dumps)", J, check_opt_path},
	[MW_SET_DRAIN] = {"drain", MW_CONF_BOOL, F(drain), 0, 0, NULL, "yes", NULL,
	 "ask nodehealthd to drain a node the collector finds dead", S | J, NULL},
	[MW_SET_POST] = {"post", MW_CONF_BOOL, F(post), 0, 0, NULL, "yes", NULL,
	 "post the verdict as the job's comment in Slurm", S | J, NULL},
	[MW_SET_STRICT] = {"strict", MW_CONF_BOOL, F(strict), 0, 0, NULL, "no", NULL,
	 "fail a watched step when the watch cannot start", S, NULL},
	[MW_SET_LIB] = {"lib", MW_CONF_STRING, F(lib), 0, 0, NULL, NULL, "an absolute path",
	 "the monitor library to inject (default: the installed libmpiwatch.so)", S, check_abs_path},
	[MW_SET_BINDIR] = {"bindir", MW_CONF_STRING, F(bindir), 0, 0, NULL, NULL, "an absolute path",
	 "where mpiwatch-agent and mpiwatch-collector are (default: the install's bin folder)", S,
	 check_abs_path},
	[MW_SET_RUNDIR] = {"rundir", MW_CONF_STRING, F(rundir), 0, 0, NULL, MW_RUNDIR_BASE, "an absolute path",
	 "base of the per-node run directory (RUNDIR/mpiwatch.UID.JOB.HOST)", S, check_abs_path},
	[MW_SET_RESTD] = {"restd", MW_CONF_STRING, F(restd), 0, 0, NULL, "", "an http:// or https:// URL",
	 "slurmrestd's URL for the job comment (empty: scontrol)", S | J, check_url},
	[MW_SET_MUNGE_SOCKET] = {"munge_socket", MW_CONF_STRING, F(munge_socket), 0, 0, NULL, "", "an absolute path",
	 "munged's socket (empty: MUNGE's default)", S | J, check_opt_abs_path},
	[MW_SET_NHD_SOCKET] = {"nhd_socket", MW_CONF_STRING, F(nhd_socket), 0, 0, NULL, "/run/mpiwatch/nodehealthd.sock",
	 "an absolute path", "nodehealthd's drain socket", S | J, check_abs_path},
	[MW_SET_OFF_PARTITIONS] = {"off_partitions", MW_CONF_STRING, F(off_partitions), 0, 0, NULL, "",
	 "a comma-separated list of partition names",
	 "partitions whose jobs are never watched", S, check_partitions},
	[MW_SET_PROBE_PORT] = {"probe_port", MW_CONF_INT, F(probe_port), 1, 65535, NULL, MW_PROBE_DEFAULT_PORT_STR, "a UDP port",
	 "nodehealthd's probe port", S | J, NULL},
	[MW_SET_PORT_BASE] = {"port_base", MW_CONF_INT, F(port_base), 1024, 65535 - 505, NULL, "7300", "a TCP port",
	 "the collector listens on port_base + JOBID % 500", S, NULL},
	[MW_SET_PORT] = {"port", MW_CONF_INT, F(port), 1, 65535, NULL, NULL, "a TCP port",
	 "the collector's port (resolved from port_base)", J, NULL},
	[MW_SET_AP_CONF] = {"ap_conf", MW_CONF_STRING, F(ap_conf), 0, 0, NULL, "", "an absolute path",
	 "the auxiliary processes file, mpiwatch-ap.conf(5), owned by root (empty: none)", S,
	 check_opt_abs_path},
	/* The monitor's own (libmpiwatch): a site's choice, or a line of one's
	 * own settings file under plain mpirun. */
	[MW_SET_MPIT] = {"mpit", MW_CONF_ENUM, F(mpit), 0, 0, mpits, "auto", NULL,
	 "the monitor reads MPI_T's unexpected-queue length for its dumps: auto = only when the "
	 "program runs at MPI_THREAD_MULTIPLE (MPI_T from the watcher thread is safe only then)",
	 S | J, NULL},
	[MW_SET_MONITOR_DEBUG] = {"monitor_debug", MW_CONF_BOOL, F(monitor_debug), 0, 0, NULL, "no", NULL,
	 "the monitor prints a few diagnostics on the ranks' stderr (MPI_T discovery, a transfer "
	 "that moves)", S | J, NULL},
	[MW_SET_TREE_THRESHOLD] = {"tree_threshold", MW_CONF_INT, F(tree_threshold), 1, 1000000, NULL, "512", "a node count",
	 "a job on more nodes than this runs through the tree overlay (at or below it: the flat star)",
	 S | U | J, NULL},
	[MW_SET_TREE_FANOUT] = {"tree_fanout", MW_CONF_INT, F(tree_fanout), 2, 1024, NULL, "32", "a count",
	 "children per node of the tree overlay", S | U | J, NULL},
	[MW_SET_TREE_CPS] = {"tree_cps", MW_CONF_INT, F(tree_cps), 0, 1000000, NULL, "0", "a count",
	 "communication processes of the tree overlay (0: as many as the fanout needs)", S | U | J, NULL},
	[MW_SET_TREE_STRATEGY] = {"tree_strategy", MW_CONF_ENUM, F(tree_strategy), 0, 0, strategies, "average", NULL,
	 "where the tree's communication processes go: average (the same share of processes on every "
	 "node) or fuzzy (the nodes nodehealthd finds best: load, memory, cores, health, round-trip)",
	 S | U | J, NULL},
	[MW_SET_TREE_WEIGHTS] = {"tree_weights", MW_CONF_STRING, F(tree_weights), 0, 0, NULL, "",
	 "five numbers L,M,C,H,R (0-1000000, not all 0)",
	 "the fuzzy placement's weights of load, free memory, cores, health and round-trip "
	 "(empty: 0.3,0.2,0.1,0.3,0.1)",
	 S | J, check_weights},
	[MW_SET_LIVENESS] = {"liveness", MW_CONF_DOUBLE, F(liveness), 0, 600, NULL, "5", "seconds (0 = off)",
	 "a link (agent-collector) silent for this long while its peer does not answer TCP "
	 "keepalive probes is lost, and the collector probes that node at once; 0 = off "
	 "(no traffic on an idle link; a dead node is then noticed after the stall timeout)",
	 S | J, NULL},
	[MW_SET_CONNECT_TIMEOUT] = {"connect_timeout", MW_CONF_DOUBLE, F(connect_timeout), 0.1, 60, NULL, "2", "seconds",
	 "an agent's TCP connect to its collector fails after this long", S | J, NULL},
	[MW_SET_HANDSHAKE_TIMEOUT] = {"handshake_timeout", MW_CONF_DOUBLE, F(handshake_timeout), 0.1, 60, NULL, "5", "seconds",
	 "each step of the hello exchange (challenge, welcome) fails after this long", S | J, NULL},
	/* 60 s for both the agents and the collector: the plugin stops them
	 * when the step ends, this only catches an end it missed (a killed
	 * slurmstepd), and each check is one request to slurmctld per node
	 * (agents) per interval: halving it would double that load for nothing
	 * a user sees. */
	[MW_SET_JOB_CHECK] = {"job_check", MW_CONF_DOUBLE, F(job_check), 0, 86400, NULL, "60", "seconds (0 = never)",
	 "the agents and the collector ask Slurm this often whether the job still runs, and leave "
	 "when it is over; 0 = never (outside Slurm)", S | J, NULL},
	/* The helpers' own options (mpiwatch-collector, mpiwatch-agent): on
	 * their command lines only, never in a settings file. */
	[MW_SET_SETTLE] = {"settle", MW_CONF_DOUBLE, F(settle), 0, 600, NULL, NULL, "seconds",
	 "the collector waits this long after the threshold for more heartbeats and dumps before it "
	 "probes (default: timeout/4, within 1-3 s)", H, NULL},
	[MW_SET_PROBE_BUDGET] = {"probe_budget", MW_CONF_DOUBLE, F(probe_budget), 0.1, 60, NULL, "3", "seconds",
	 "time budget of one probe round of the collector", H, NULL},
	[MW_SET_PROBE_TRIES] = {"probe_tries", MW_CONF_INT, F(probe_tries), 1, 20, NULL, "3", NULL,
	 "probes per node per probe round of the collector", H, NULL},
	[MW_SET_PORTS] = {"ports", MW_CONF_INT, F(ports), 1, 100, NULL, "5", NULL,
	 "TCP ports tried from the collector's port on (the collector listens on the first free one, "
	 "the agents try them in order)", H, NULL},
	[MW_SET_TICK] = {"tick", MW_CONF_DOUBLE, F(tick), 0.01, 60, NULL, NULL, "seconds",
	 "the agent's slot scan period (default: timeout/4; kept within 0.1-0.5 s), on multiples of "
	 "it on the wall clock", H, NULL},
	[MW_SET_COUNT] = {NULL, 0, 0, 0, 0, NULL, NULL, NULL, NULL, 0, NULL},
};
_Static_assert(sizeof mw_jobconf_keys / sizeof mw_jobconf_keys[0] == MW_SET_COUNT + 1,
	       "one row of mw_jobconf_keys per enum mw_setting");
#undef F
#undef S
#undef U
#undef J
#undef H

int mw_jobconf_init(struct mw_jobconf *c)
{
	char err[256];
	memset(c, 0, sizeof(*c));
	if (mw_conf_apply_defaults(mw_jobconf_keys, c, err, sizeof(err)) < 0) {
		mw_jobconf_free(c);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void mw_jobconf_free(struct mw_jobconf *c)
{
	mw_conf_free(mw_jobconf_keys, c);
}

int mw_jobconf_set(struct mw_jobconf *c, unsigned scope, const char *key, const char *val, char *err,
		   size_t errlen)
{
	const struct mw_conf_key *k = mw_conf_find(mw_jobconf_keys, key);

	if (!k || !(k->scope & scope)) {
		snprintf(err, errlen, "unknown setting '%s'", key);
		errno = ENOENT;
		return -1;
	}
	return mw_conf_set(mw_jobconf_keys, c, key, val, err, errlen);
}

static void add_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_err(char *err, size_t errlen, const char *fmt, ...)
{
	size_t used = strlen(err);
	va_list ap;
	if (used + 2 >= errlen)
		return;
	if (used)
		err[used++] = '\n', err[used] = '\0';
	va_start(ap, fmt);
	vsnprintf(err + used, errlen - used, fmt, ap);
	va_end(ap);
}

int mw_jobconf_parse_site(struct mw_jobconf *c, int argc, char *const *argv, char *err, size_t errlen)
{
	int bad = 0;

	if (errlen)
		err[0] = '\0';
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		char key[32], why[400];

		if (!eq || eq == a || (size_t)(eq - a) >= sizeof(key)) {
			add_err(err, errlen, "plugstack.conf argument %d (%s): expected key=value", i + 1, a);
			bad++;
			continue;
		}
		memcpy(key, a, (size_t)(eq - a));
		key[eq - a] = '\0';
		if (mw_jobconf_set(c, MW_JC_SITE, key, eq + 1, why, sizeof(why)) < 0) {
			add_err(err, errlen, "plugstack.conf argument %d (%s): %s", i + 1, a, why);
			bad++;
		}
	}
	return bad;
}

const char *mw_jobconf_user_items(void)
{
	static char items[512];
	if (items[0])
		return items;
	snprintf(items, sizeof(items), "off, on");
	for (const struct mw_conf_key *k = mw_jobconf_keys; k->name; k++) {
		size_t used = strlen(items);
		if (!(k->scope & MW_JC_USER) || !strcmp(k->name, "default"))
			continue;
		if (k->type == MW_CONF_BOOL)
			snprintf(items + used, sizeof(items) - used, ", %s", k->name);
		else if (k->type == MW_CONF_ENUM) {
			snprintf(items + used, sizeof(items) - used, ", %s=", k->name);
			for (int i = 0; k->choices[i]; i++) {
				used = strlen(items);
				snprintf(items + used, sizeof(items) - used, "%s%s", i ? "|" : "", k->choices[i]);
			}
		} else
			snprintf(items + used, sizeof(items) - used, ", %s=%s", k->name,
				 k->type == MW_CONF_DOUBLE ? "S" : !strcmp(k->name, "threshold") ? "N|P%"
											: "PATH");
	}
	return items;
}

int mw_jobconf_parse_user(struct mw_jobconf *c, const char *arg, char *err, size_t errlen)
{
	char buf[1024], why[400];
	char *save = NULL, *w;

	if (errlen)
		err[0] = '\0';
	c->on = 1;
	if (!arg || !*arg || !strcmp(arg, "(null)"))
		return 0;
	if (strlen(arg) >= sizeof(buf)) {
		add_err(err, errlen, "--mpiwatch: argument too long");
		return -1;
	}
	strcpy(buf, arg);
	if (buf[0] == ',' || buf[strlen(buf) - 1] == ',' || strstr(buf, ",,")) {
		add_err(err, errlen, "--mpiwatch=%s: empty item in the list", arg);
		return -1;
	}
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(w, '=');
		const struct mw_conf_key *k;
		int r;

		if (eq)
			*eq = '\0';
		k = mw_conf_find(mw_jobconf_keys, w);
		if (!eq && (!strcmp(w, "off") || !strcmp(w, "on")))
			r = mw_jobconf_set(c, MW_JC_USER, "default", w, why, sizeof(why));
		else if (k && (k->scope & MW_JC_USER) && strcmp(w, "default") &&
			 (eq ? k->type != MW_CONF_BOOL : k->type == MW_CONF_BOOL))
			r = mw_jobconf_set(c, MW_JC_USER, w, eq ? eq + 1 : "yes", why, sizeof(why));
		else {
			add_err(err, errlen, "--mpiwatch: unknown item '%s%s%s' (expected %s)", w,
				eq ? "=" : "", eq ? eq + 1 : "", mw_jobconf_user_items());
			return -1;
		}
		if (r < 0) {
			add_err(err, errlen, "--mpiwatch: %s", why);
			return -1;
		}
	}
	return 0;
}

double mw_jobconf_hang_limit(double hang_limit, double timeout)
{
	const struct mw_conf_key *k = mw_conf_find(mw_jobconf_keys, "hang_limit");
	double v = hang_limit > 0 ? hang_limit : MW_HANG_LIMIT_FACTOR * timeout;
	return v > k->max ? k->max : v;
}

long mw_jobconf_collector_port(long port_base, unsigned jobid)
{
	return port_base + (long)(jobid % 500u);
}

int mw_jobconf_resolve(struct mw_jobconf *c, unsigned jobid, const char *cwd)
{
	char path[PATH_MAX], *d;
	int n;

	c->hang_limit = mw_jobconf_hang_limit(c->hang_limit, c->timeout);
	if (c->dir && c->dir[0] == '/')
		n = snprintf(path, sizeof(path), "%s", c->dir);
	else if (c->dir && c->dir[0])
		n = snprintf(path, sizeof(path), "%s/%s", cwd, c->dir);
	else
		n = snprintf(path, sizeof(path), "%s/mpiwatch-%u", cwd, jobid);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (has_ctl(path)) { /* a working directory with a newline in its name */
		errno = EINVAL;
		return -1;
	}
	if (!(d = strdup(path)))
		return -1;
	free(c->dir);
	c->dir = d;
	c->port = mw_jobconf_collector_port(c->port_base, jobid);
	return 0;
}

int mw_jobconf_write(const struct mw_jobconf *c, const char *path, uid_t uid, gid_t gid)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f)
		return -1;
	fprintf(f, "# mpiwatch: this job's settings, resolved once (shared/jobconf.c)\n");
	rc = mw_conf_write(mw_jobconf_keys, c, MW_JC_JOB, f);
	if (fclose(f) != 0 || rc < 0) {
		free(buf);
		errno = EIO;
		return -1;
	}
	rc = mw_write_atomic(path, buf, len, 0644, uid, gid);
	free(buf);
	return rc;
}

int mw_jobconf_read(struct mw_jobconf *c, const char *path, char *err, size_t errlen)
{
	/* Only job-scope keys are valid in the file. */
	static struct mw_conf_key job_keys[sizeof(mw_jobconf_keys) / sizeof(mw_jobconf_keys[0])];
	static int have;
	struct mw_conf_errors errs = {0};
	int n;

	if (!have) {
		size_t j = 0;
		for (const struct mw_conf_key *k = mw_jobconf_keys; k->name; k++)
			if (k->scope & MW_JC_JOB)
				job_keys[j++] = *k;
		have = 1;
	}
	n = mw_conf_parse_file(path, job_keys, c, &errs);
	if (n)
		snprintf(err, errlen, "%s", errs.n ? errs.msg[0] : "bad settings file");
	mw_conf_errors_free(&errs);
	return n ? -1 : 0;
}

int mw_jobconf_load(struct mw_jobconf *c, const char *file, const struct mw_jobconf_override *ov,
		    int n, char *err, size_t errlen)
{
	if (mw_jobconf_init(c) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (file && mw_jobconf_read(c, file, err, errlen) < 0)
		goto fail;
	for (int i = 0; i < n; i++)
		if (mw_jobconf_set(c, MW_JC_JOB | MW_JC_HELPER, ov[i].key, ov[i].val, err, errlen) < 0)
			goto fail;
	return 0;
fail:
	mw_jobconf_free(c);
	return -1;
}

void mw_jobconf_summary(const struct mw_jobconf *c, char *buf, size_t len)
{
	char v[PATH_MAX];
	buf[0] = '\0';
	for (const struct mw_conf_key *k = mw_jobconf_keys; k->name; k++) {
		size_t used = strlen(buf);
		if (!(k->scope & MW_JC_JOB))
			continue;
		snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "", k->name,
			 mw_conf_format(k, c, v, sizeof(v)));
	}
}

int mw_jobconf_threshold(const char *s, long *n, int *pct)
{
	char num[32];
	size_t len = s ? strlen(s) : 0;

	if (len == 0 || len >= sizeof(num))
		return -1;
	if (s[len - 1] == '%') {
		memcpy(num, s, len - 1);
		num[len - 1] = '\0';
		if (mw_conf_parse_long(num, 1, 100, n) < 0)
			return -1;
		*pct = 1;
		return 0;
	}
	if (mw_conf_parse_long(s, 1, 1000000, n) < 0)
		return -1;
	*pct = 0;
	return 0;
}

const char *mw_jobconf_action_name(int action)
{
	return action >= 0 && action <= MW_JC_REQUEUE ? actions[action] : "report";
}

void mw_jobconf_step_label(const char *step_id, char *buf, size_t len)
{
	char *end;
	unsigned long id;
	errno = 0;
	id = step_id && *step_id ? strtoul(step_id, &end, 10) : MW_STEP_BATCH;
	if (step_id && *step_id && (errno || *end || id > 0xffffffffUL))
		id = MW_STEP_BATCH;
	if (id == MW_STEP_BATCH)
		snprintf(buf, len, "batch");
	else if (id == MW_STEP_INTERACTIVE)
		snprintf(buf, len, "interactive");
	else
		snprintf(buf, len, "step%lu", id);
}

int mw_jobconf_profile_folder(const struct mw_jobconf *c, const char *step_id, char *buf, size_t len)
{
	char label[32];
	int n;
	if (!c->profile) {
		buf[0] = 0;
		return 0;
	}
	if (c->profile_dir && *c->profile_dir) {
		n = snprintf(buf, len, "%s", c->profile_dir);
	} else {
		mw_jobconf_step_label(step_id, label, sizeof(label));
		n = snprintf(buf, len, "%s/profile/%s", c->dir ? c->dir : ".", label);
	}
	if (n < 0 || (size_t)n >= len) {
		buf[0] = 0;
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}
