/* apconf.c - the site's auxiliary processes (apconf.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "apconf.h"
#include "heartbeat.h"

#define AP_FILE_MAX (64 * 1024)

static const char *const nodes_names[] = {"all", "suspicious", NULL};

/* "NAME WORD..." with NAME a valid AP name: the length of NAME, or 0. */
static size_t name_len(const char *v)
{
	char name[64];
	size_t n = strcspn(v, " \t");
	if (n == 0 || n >= sizeof name)
		return 0;
	memcpy(name, v, n);
	name[n] = 0;
	return mw_hb_valid_ap_name(name) ? n : 0;
}

static int printable(const char *v)
{
	for (; *v; v++)
		if ((unsigned char)*v < 0x20 || (unsigned char)*v > 0x7e)
			return 0;
	return 1;
}

static const char *check_command(const char *v)
{
	static const char want[] = "NAME /absolute/path [ARG...] (NAME: letters, digits, . _ -; "
				   "at most 64 words of printable text)";
	size_t n = name_len(v), words = 0;
	const char *p;
	if (!n || !printable(v) || strlen(v) >= 1024)
		return want;
	p = v + n + strspn(v + n, " \t");
	if (*p != '/')
		return want;
	for (; *p; words++) {
		p += strcspn(p, " \t");
		p += strspn(p, " \t");
	}
	return words < MW_AP_MAX_ARGS ? NULL : want;
}

static const char *check_shell(const char *v)
{
	static const char want[] = "NAME TEXT (NAME: letters, digits, . _ -; TEXT: printable)";
	size_t n = name_len(v);
	if (!n || !printable(v) || strlen(v) >= 1024 || !v[n + strspn(v + n, " \t")])
		return want;
	return NULL;
}

#define F(field) offsetof(struct mw_apconf, field)
const struct mw_conf_key mw_apconf_keys[] = {
	{"command", MW_CONF_LIST, F(command), 0, 0, NULL, NULL, "NAME /absolute/path [ARG...]",
	 "a command run without a shell (repeatable; words split at blanks, no quoting)", 0,
	 check_command},
	{"shell_command", MW_CONF_LIST, F(shell_command), 0, 0, NULL, NULL, "NAME TEXT",
	 "a command run by " MW_AP_SHELL " -c TEXT (repeatable)", 0, check_shell},
	{"nodes", MW_CONF_ENUM, F(nodes), 0, 0, nodes_names, "all", NULL,
	 "run on every node of the job, or only on the nodes of the suspicious ranks", 0, NULL},
	{"timeout", MW_CONF_DOUBLE, F(timeout), 0.1, 300, NULL, "10", "seconds",
	 "time each command may run before it is killed", 0, NULL},
	{"max_output", MW_CONF_INT, F(max_output), 256, MW_HB_AP_OUTPUT_MAX, NULL, "16384", "bytes",
	 "output kept of each command (stdout and stderr); more is cut and the command killed", 0,
	 NULL},
	{NULL, 0, 0, 0, 0, NULL, NULL, NULL, NULL, 0, NULL},
};
#undef F

int mw_apconf_load_logged(struct mw_apconf *c, const char *path, long owner_uid, mw_apconf_say_fn say)
{
	struct mw_conf_errors errs = {0};
	int rv = 0;
	if (!path || !*path)
		return 0;
	if (mw_apconf_load(c, path, owner_uid, &errs)) {
		for (size_t i = 0; i < errs.n; i++)
			say(LOG_WARNING, "auxiliary processes: %s", errs.msg[i]);
		say(LOG_WARNING, "auxiliary processes: none will run (%s unusable)", path);
		mw_apconf_free(c);
		mw_apconf_init(c);
		rv = -1;
	} else {
		say(LOG_INFO, "auxiliary processes: %zu command(s) from %s (timeout %g s, max output %ld bytes)",
			c->ncmd, path, c->timeout, c->max_output);
	}
	mw_conf_errors_free(&errs);
	return rv;
}

const char *mw_apconf_nodes_name(int nodes)
{
	return nodes == MW_AP_SUSPICIOUS ? "suspicious" : "all";
}

int mw_apconf_init(struct mw_apconf *c)
{
	char err[200];
	memset(c, 0, sizeof *c);
	if (mw_conf_apply_defaults(mw_apconf_keys, c, err, sizeof err) < 0) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

static void free_cmds(struct mw_apconf *c)
{
	for (size_t i = 0; i < c->ncmd; i++) {
		for (char **a = c->cmd[i].argv; a && *a; a++)
			free(*a);
		free(c->cmd[i].argv);
	}
	free(c->cmd);
	c->cmd = NULL;
	c->ncmd = 0;
}

void mw_apconf_free(struct mw_apconf *c)
{
	free_cmds(c);
	mw_conf_free(mw_apconf_keys, c);
}

/* Split "NAME REST" into cmd (shell: argv = sh -c REST). */
static int add_cmd(struct mw_apconf *c, const char *v, int shell)
{
	struct mw_ap_cmd *x = &c->cmd[c->ncmd];
	size_t n = strcspn(v, " \t"), k = 0;
	const char *p = v + n + strspn(v + n, " \t");

	memset(x, 0, sizeof *x);
	memcpy(x->name, v, n);
	x->shell = shell;
	x->argv = calloc(MW_AP_MAX_ARGS + 1, sizeof *x->argv);
	if (!x->argv)
		return -1;
	c->ncmd++;
	if (shell) {
		if (!(x->argv[0] = strdup(MW_AP_SHELL)) || !(x->argv[1] = strdup("-c")) ||
		    !(x->argv[2] = strdup(p)))
			return -1;
		return 0;
	}
	while (*p && k < MW_AP_MAX_ARGS) {
		size_t w = strcspn(p, " \t");
		if (!(x->argv[k++] = strndup(p, w)))
			return -1;
		p += w;
		p += strspn(p, " \t");
	}
	return 0;
}

static int resolve(struct mw_apconf *c, const char *source, struct mw_conf_errors *errs)
{
	size_t total = c->command.n + c->shell_command.n;
	int bad = 0;

	free_cmds(c);
	if (total > MW_AP_MAX_COMMANDS) {
		mw_conf_error(errs, "%s: %zu commands: at most %d", source, total, MW_AP_MAX_COMMANDS);
		return 1;
	}
	c->cmd = calloc(total ? total : 1, sizeof *c->cmd);
	if (!c->cmd) {
		mw_conf_error(errs, "%s: out of memory", source);
		return 1;
	}
	for (size_t i = 0; i < total; i++) {
		int shell = i >= c->command.n;
		const char *v = shell ? c->shell_command.v[i - c->command.n] : c->command.v[i];
		if (add_cmd(c, v, shell) < 0) {
			mw_conf_error(errs, "%s: out of memory", source);
			return 1;
		}
		for (size_t j = 0; j + 1 < c->ncmd; j++)
			if (!strcmp(c->cmd[j].name, c->cmd[c->ncmd - 1].name)) {
				mw_conf_error(errs, "%s: command name '%s' given twice", source,
					      c->cmd[j].name);
				bad++;
			}
	}
	return bad;
}

int mw_apconf_parse_buffer(struct mw_apconf *c, const char *source, const char *buf, size_t len,
			   struct mw_conf_errors *errs)
{
	int bad = mw_conf_parse_buffer(source, buf, len, mw_apconf_keys, c, errs);
	return bad + resolve(c, source, errs);
}

int mw_apconf_load(struct mw_apconf *c, const char *path, long owner_uid, struct mw_conf_errors *errs)
{
	struct stat st;
	char *buf = NULL;
	ssize_t n;
	int fd, rv;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		mw_conf_error(errs, "%s: %s", path, strerror(errno));
		return 1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		mw_conf_error(errs, "%s: not a regular file", path);
		close(fd);
		return 1;
	}
	/* Only the site names a command: a file anyone else can change is
	 * refused whole. */
	if ((owner_uid >= 0 && st.st_uid != (uid_t)owner_uid) || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		mw_conf_error(errs, "%s: must be owned by %s and writable by its owner only "
				    "(owner uid %u, mode %04o)",
			      path, owner_uid == 0 ? "root" : "the site", (unsigned)st.st_uid,
			      (unsigned)(st.st_mode & 07777));
		close(fd);
		return 1;
	}
	if (st.st_size > AP_FILE_MAX || !(buf = malloc((size_t)st.st_size + 1))) {
		mw_conf_error(errs, "%s: larger than %d bytes", path, AP_FILE_MAX);
		close(fd);
		return 1;
	}
	n = read(fd, buf, (size_t)st.st_size);
	close(fd);
	if (n < 0) {
		mw_conf_error(errs, "%s: %s", path, strerror(errno));
		free(buf);
		return 1;
	}
	rv = mw_apconf_parse_buffer(c, path, buf, (size_t)n, errs);
	free(buf);
	return rv;
}
