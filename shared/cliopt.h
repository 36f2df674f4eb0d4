/* cliopt.h - command-line options from one table per command: the options,
 * their values' checks and the --help text all follow from it.
 *
 * Each option names the field it fills and how its value is checked: a
 * number with its range, one of a list of words, a custom parser, or a
 * setting of a shared/conf.h key table (a setting's range and wording are
 * the table's own, so they are written once).  Every error is one line in
 * one wording that names the option as the user typed it:
 *
 *   --timeout abc: expected seconds, a number from 1 to 604800
 *   -n 0: expected a rank count, a whole number from 1 to 4096
 *   --port: expected a port, a whole number from 1 to 65535   (no value)
 *   --bogus: unknown option (see mpiwatch status --help)
 *   --dry-run=yes: takes no value
 *
 * "What is expected" is shared/conf.c's mw_conf_expect wording.  Options
 * and operands may mix ("DIR --top 3"), unless the command reads its options
 * in order (mpiwatch run: the program's own options follow); "--" ends the
 * options.  A long option may be abbreviated to an unambiguous prefix, as
 * getopt_long allows; "--name=value" and "--name value", "-nV" and "-n V"
 * are alike; short flags group ("-jc").  "-h" and "--help" are always
 * there (unless the table gives -h another meaning).
 *
 * The library never prints: it returns the error text and the help text,
 * and the program prints them.
 */
#ifndef MW_CLIOPT_H
#define MW_CLIOPT_H

#include <stddef.h>

#include "conf.h"

enum mw_cliopt_kind {
	MW_CLIOPT_FLAG,    /* no value: *(int *)dst = ival (1 when ival is 0) */
	MW_CLIOPT_STRING,  /* *(const char **)dst = the value (argv's own string) */
	MW_CLIOPT_LONG,    /* *(long *)dst, a whole number from min to max */
	MW_CLIOPT_DOUBLE,  /* *(double *)dst, a number from min to max */
	MW_CLIOPT_CHOICE,  /* *(int *)dst = the value's index in choices */
	MW_CLIOPT_SETTING, /* the key setting of the command's keys, into its conf
			    * (mw_conf_set); with fixed, a flag that sets that text */
	MW_CLIOPT_CUSTOM,  /* parse(value, dst) == 0, else "expected what" */
};

struct mw_cliopt {
	const char *name;   /* long name, without "--"; NULL ends the table */
	char shortname;     /* 0: none */
	enum mw_cliopt_kind kind;
	void *dst;          /* what it fills (not used by SETTING) */
	const char *arg;    /* the value's name in the help ("N", "FILE"); NULL: a flag */
	const char *help;   /* what it does: lines separated by '\n' (NULL for a
			     * SETTING: the settings table's doc) */
	double min, max;    /* LONG, DOUBLE */
	const char *unit;   /* LONG, DOUBLE: what the number is ("seconds", "a port") */
	const char *const *choices; /* CHOICE: NULL-terminated */
	const char *setting;        /* SETTING: the key's name */
	const char *fixed;          /* SETTING: a flag setting this text ("yes") */
	int ival;                   /* FLAG: the value stored (0 means 1) */
	int (*parse)(const char *v, void *dst); /* CUSTOM: 0 or -1 */
	const char *what;           /* CUSTOM: what it expects */
	int *given;                 /* if not NULL: set to 1 when the option is given */
	/* If not NULL: set to the value's text when the option is given (the
	 * fixed text of a flag SETTING), e.g. to apply a setting later, after
	 * a settings file. */
	const char **text;
};

struct mw_cliopt_cmd {
	const char *prog;   /* "mpiwatch run": errors' prefix, the usage line's start */
	const char *lead;   /* operands before the options in the usage line ("DIR"), or NULL */
	const char *args;   /* operands after them ("-- PROGRAM [ARGS...]"), or NULL */
	const char *more;   /* further usage lines, whole ("       mpiwatch status --job JOB"), or NULL */
	const char *intro;  /* what the command does, after the usage */
	const char *epilog; /* after the options (exit status...), or NULL */
	int in_order;       /* options end at the first operand */
	const struct mw_conf_key *keys; /* SETTING: the settings table ... */
	void *conf;                     /* ... and the struct it fills */
	const struct mw_cliopt *opts;   /* ended by a NULL name */
};

enum { MW_CLIOPT_OK = 0, MW_CLIOPT_HELP = 1, MW_CLIOPT_ERROR = -1 };

/* Read the options of argv[1..argc) (argv[0] is the command's name) into
 * their fields, in order (a later one wins).  argv is permuted so that the
 * operands come last, in their order; "--" is dropped.  Return
 * MW_CLIOPT_OK with *first the index of the first operand (argc if none),
 * MW_CLIOPT_HELP if --help was given (nothing after it is read), or
 * MW_CLIOPT_ERROR with one line (no newline, no program name) in err. */
int mw_cliopt_parse(const struct mw_cliopt_cmd *c, int argc, char **argv, int *first, char *err,
		    size_t errlen);

/* The command's help text: the usage line (the options from the table,
 * wrapped at 80 columns with continuation lines indented), the more lines,
 * intro, one line per option ("  -n, --np N           ranks (default 2)"),
 * epilog.  Return a malloc'd string, or NULL (errno ENOMEM). */
char *mw_cliopt_help(const struct mw_cliopt_cmd *c);

/* What option o expects, e.g. "seconds, a number from 1 to 604800", into
 * buf (the conf.h wording; c for a SETTING's table).  Return buf. */
const char *mw_cliopt_expect(const struct mw_cliopt_cmd *c, const struct mw_cliopt *o, char *buf,
			     size_t len);

#endif
