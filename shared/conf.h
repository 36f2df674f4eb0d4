/* conf.h - "key = value" configuration files with a declared schema.
 *
 * Every error names its source and line ("file:line: ..."); parsing goes on
 * after an error so all errors are reported, not just the first.  Unknown keys
 * are errors.  Defaults are whatever the destination struct held before.
 *
 * Syntax: one "key = value" per line; '#' starts a comment anywhere outside a
 * double-quoted value; blank lines are ignored; a value may be "quoted" (with
 * \" and \\ escapes).  A key of type MW_CONF_LIST may repeat: each line adds one
 * element.  Other keys given twice: the last one wins (and is not an error).
 */
#ifndef MW_CONF_H
#define MW_CONF_H

#include <stddef.h>
#include <stdio.h>

enum mw_conf_type {
	MW_CONF_INT,    /* long, range-checked against min/max */
	MW_CONF_DOUBLE, /* double, range-checked against min/max */
	MW_CONF_BOOL,   /* int: yes/no, true/false, on/off, 1/0 */
	MW_CONF_STRING, /* char * (malloc'd; the old value is freed) */
	MW_CONF_LIST,   /* struct mw_strlist (each occurrence appends) */
	MW_CONF_ENUM,   /* int: index into choices[] */
};

struct mw_strlist {
	char **v;
	size_t n;
};

struct mw_conf_key {
	const char *name;
	enum mw_conf_type type;
	size_t offset;               /* offsetof(struct your_conf, field) */
	double min, max;             /* for INT and DOUBLE */
	const char *const *choices;  /* for ENUM: NULL-terminated */
	/* Optional (a table that documents itself, e.g. shared/jobconf.c): */
	const char *def;             /* the default, as text; NULL = none */
	const char *unit;            /* INT/DOUBLE: "seconds"; STRING: what it is */
	const char *doc;             /* one line for man pages */
	unsigned scope;              /* the table's own flags */
	/* STRING, LIST (each element): NULL if v is acceptable, else what was
	 * expected. */
	const char *(*check)(const char *v);
};

/* Collected errors, each "source:line: message". */
struct mw_conf_errors {
	char **msg;
	size_t n;
};

/* Parse one line (without its newline) into dst.  Errors are appended to errs.
 * Return 0 if the line was fine, -1 if it produced an error. */
int mw_conf_parse_line(const char *source, int lineno, const char *line,
		       const struct mw_conf_key *keys, void *dst, struct mw_conf_errors *errs);

/* Parse a buffer of lines (need not be NUL-terminated).  Return the number of
 * errors found (0 = OK).  Lines longer than 4095 bytes and NUL bytes are errors. */
int mw_conf_parse_buffer(const char *source, const char *buf, size_t len,
			 const struct mw_conf_key *keys, void *dst, struct mw_conf_errors *errs);

/* Parse a file.  Return the number of errors (a file that cannot be read is
 * one error, "path: <strerror>"). */
int mw_conf_parse_file(const char *path, const struct mw_conf_key *keys, void *dst,
		       struct mw_conf_errors *errs);

/* Set key to the text val in dst exactly as a "key = val" line would
 * (range, choices and check applied).  Return 0, or -1 with one message
 * "KEY=VAL: expected WHAT" in err (errno ENOENT for an unknown key, else
 * EINVAL). */
int mw_conf_set(const struct mw_conf_key *keys, void *dst, const char *key, const char *val,
		char *err, size_t errlen);

/* Apply every key's def (keys without one are left alone).  Return 0, or -1
 * if a def does not parse (a bug in the table; err says which). */
int mw_conf_apply_defaults(const struct mw_conf_key *keys, void *dst, char *err, size_t errlen);

/* What key k accepts, e.g. "seconds, a number from 1 to 604800" or
 * "report, cancel or requeue", into buf. */
void mw_conf_expect(const struct mw_conf_key *k, char *buf, size_t len);

/* The value of k in src as the text a "key = value" line takes (strings
 * unquoted; lists joined by ','), into buf.  Return buf. */
const char *mw_conf_format(const struct mw_conf_key *k, const void *src, char *buf, size_t len);

/* Write "key = value" lines for the keys whose scope has a bit of mask
 * (strings quoted and escaped as the parser reads them) to f.  Return 0, or
 * -1 on a write error. */
int mw_conf_write(const struct mw_conf_key *keys, const void *src, unsigned mask, FILE *f);

/* The key named name, or NULL. */
const struct mw_conf_key *mw_conf_find(const struct mw_conf_key *keys, const char *name);

/* Release the strings and lists that parsing stored in dst. */
void mw_conf_free(const struct mw_conf_key *keys, void *dst);

/* Append a formatted error; release all errors. */
void mw_conf_error(struct mw_conf_errors *errs, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void mw_conf_errors_free(struct mw_conf_errors *errs);

/* Parse helpers, usable alone: return 0 and set *out, or -1 (errno = EINVAL or ERANGE). */
int mw_conf_parse_long(const char *s, long min, long max, long *out);
int mw_conf_parse_double(const char *s, double min, double max, double *out);
int mw_conf_parse_bool(const char *s, int *out);

void mw_strlist_add(struct mw_strlist *l, const char *s);
void mw_strlist_free(struct mw_strlist *l);

#endif
