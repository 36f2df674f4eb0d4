/* apconf.h - the site's auxiliary processes (APs, seed 003): the commands
 * mpiwatch runs on the nodes of a job when the collector declares a
 * suspicious event, read from a "key = value" file that only the site can
 * name (the plugin's ap_conf= argument in plugstack.conf) and that must be
 * owned by root and writable by nobody else (mpiwatch-ap.conf(5)).
 *
 *   command       = NAME /absolute/path [ARG...]   (repeatable; no shell)
 *   shell_command = NAME TEXT                      (repeatable; /bin/sh -c TEXT)
 *   nodes         = all | suspicious
 *   timeout       = seconds each command may run (10)
 *   max_output    = bytes of each command's output kept (16384)
 */
#ifndef MW_APCONF_H
#define MW_APCONF_H

#include <stddef.h>

#include "conf.h"

#define MW_AP_MAX_COMMANDS 16
#define MW_AP_MAX_ARGS 64
#define MW_AP_SHELL "/bin/sh"

enum mw_ap_nodes { MW_AP_ALL = 0, MW_AP_SUSPICIOUS = 1 };

struct mw_ap_cmd {
	char name[32];
	char **argv;      /* NULL-terminated, malloc'd; argv[0] an absolute path */
	int shell;        /* given as shell_command */
};

struct mw_apconf {
	/* as parsed */
	struct mw_strlist command, shell_command;
	int nodes;        /* enum mw_ap_nodes */
	double timeout;   /* s */
	long max_output;  /* bytes */
	/* resolved by mw_apconf_load: command lines first, then shell ones */
	struct mw_ap_cmd *cmd;
	size_t ncmd;
};

/* The file's keys (for the man page test), ended by a NULL name. */
extern const struct mw_conf_key mw_apconf_keys[];

/* Fill c with the defaults (no command).  Return 0, or -1 (ENOMEM). */
int mw_apconf_init(struct mw_apconf *c);

/* Release c. */
void mw_apconf_free(struct mw_apconf *c);

/* Parse a buffer (source names it in errors) into c (from mw_apconf_init)
 * and resolve its commands.  Return the number of errors (each appended to
 * errs as "SOURCE:LINE: ..." or "SOURCE: ..."); c's commands are usable
 * only when it returns 0. */
int mw_apconf_parse_buffer(struct mw_apconf *c, const char *source, const char *buf, size_t len,
			   struct mw_conf_errors *errs);

/* Read path into c (from mw_apconf_init): the file must be a regular file
 * owned by root (uid 0; owner_uid in tests, -1 = any) and not writable by
 * group or others, else it is one error and nothing is read.  Return the
 * number of errors (0 = c holds the site's commands). */
int mw_apconf_load(struct mw_apconf *c, const char *path, long owner_uid, struct mw_conf_errors *errs);

/* How a program reports: a syslog level and a printf format (mw_log of
 * shared/log.h fits). */
typedef void (*mw_apconf_say_fn)(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* What the agent and the collector do: path ("" or NULL: none) into c
 * (from mw_apconf_init) with mw_apconf_load; every error is reported
 * through say (a LOG_WARNING each, then "none will run"), and c is then left
 * with no command; a good file is reported as one LOG_INFO line.  The
 * library itself prints nothing.  Return 0 if c holds the file's commands
 * (or no file was named), -1 if the file was unusable. */
int mw_apconf_load_logged(struct mw_apconf *c, const char *path, long owner_uid, mw_apconf_say_fn say);

/* "all" / "suspicious". */
const char *mw_apconf_nodes_name(int nodes);

#endif
