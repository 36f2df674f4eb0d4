/* cliopt.c - command-line options from one table per command (cliopt.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliopt.h"

/* Every table has these unless it gives -h another meaning. */
static const struct mw_cliopt help_opt = {.name = "help", .shortname = 'h', .help = "show this help and exit"};

/* Values quoted in an error are cut to this many bytes. */
#define CLIOPT_VAL_MAX 200
/* The help's option column: the text starts here. */
#define CLIOPT_HELP_COL 23
#define CLIOPT_WIDTH 79

static int takes_value(const struct mw_cliopt *o)
{
	return o->kind != MW_CLIOPT_FLAG && !(o->kind == MW_CLIOPT_SETTING && o->fixed);
}

static int help_short(const struct mw_cliopt_cmd *c)
{
	for (const struct mw_cliopt *o = c->opts; o->name; o++)
		if (o->shortname == 'h')
			return 0;
	return 'h';
}

const char *mw_cliopt_expect(const struct mw_cliopt_cmd *c, const struct mw_cliopt *o, char *buf,
			     size_t len)
{
	struct mw_conf_key k = {.name = o->name, .min = o->min, .max = o->max, .unit = o->unit,
				.choices = o->choices};
	const struct mw_conf_key *s;

	switch (o->kind) {
	case MW_CLIOPT_LONG:
		k.type = MW_CONF_INT;
		mw_conf_expect(&k, buf, len);
		break;
	case MW_CLIOPT_DOUBLE:
		k.type = MW_CONF_DOUBLE;
		mw_conf_expect(&k, buf, len);
		break;
	case MW_CLIOPT_CHOICE:
		k.type = MW_CONF_ENUM;
		mw_conf_expect(&k, buf, len);
		break;
	case MW_CLIOPT_SETTING:
		if (c->keys && (s = mw_conf_find(c->keys, o->setting)))
			mw_conf_expect(s, buf, len);
		else
			snprintf(buf, len, "a value");
		break;
	case MW_CLIOPT_CUSTOM:
		snprintf(buf, len, "%s", o->what ? o->what : "a value");
		break;
	default:
		snprintf(buf, len, "%s", o->arg ? o->arg : "a value");
		break;
	}
	return buf;
}

/* The option of long name name[0..n): exact, else an unambiguous prefix.
 * NULL with *ambiguous set when several match. */
static const struct mw_cliopt *find_long(const struct mw_cliopt_cmd *c, const char *name, size_t n,
					 int *ambiguous)
{
	const struct mw_cliopt *hit = NULL;
	int hits = 0;

	*ambiguous = 0;
	for (const struct mw_cliopt *o = c->opts; o->name; o++)
		if (strlen(o->name) == n && !strncmp(o->name, name, n))
			return o;
	if (n == 4 && !strncmp(name, "help", 4))
		return &help_opt;
	for (const struct mw_cliopt *o = c->opts; o->name; o++)
		if (n && !strncmp(o->name, name, n))
			hit = o, hits++;
	if (n && !strncmp("help", name, n))
		hit = &help_opt, hits++;
	if (hits > 1) {
		*ambiguous = 1;
		return NULL;
	}
	return hit;
}

static const struct mw_cliopt *find_short(const struct mw_cliopt_cmd *c, char ch)
{
	if (!ch)
		return NULL;
	for (const struct mw_cliopt *o = c->opts; o->name; o++)
		if (o->shortname == ch)
			return o;
	return ch == help_short(c) ? &help_opt : NULL;
}

/* "OPT VALUE: expected WHAT": the one wording of a bad value, naming the
 * option as the user typed it, with what the table (or, for a setting, the
 * settings table) expects. */
static void bad_value(const struct mw_cliopt_cmd *c, const struct mw_cliopt *o, const char *typed,
		      const char *v, char *err, size_t errlen)
{
	char what[512];

	mw_cliopt_expect(c, o, what, sizeof(what));
	snprintf(err, errlen, "%s %.*s: expected %s", typed, CLIOPT_VAL_MAX, v, what);
}

/* Store the value v of o.  Return 0, or -1 with err set. */
static int set_value(const struct mw_cliopt_cmd *c, const struct mw_cliopt *o, const char *typed,
		     const char *v, char *err, size_t errlen)
{
	char why[512];
	long l;
	double d;

	switch (o->kind) {
	case MW_CLIOPT_STRING:
		*(const char **)o->dst = v;
		break;
	case MW_CLIOPT_LONG:
		if (mw_conf_parse_long(v, (long)o->min, (long)o->max, &l) < 0)
			goto bad;
		*(long *)o->dst = l;
		break;
	case MW_CLIOPT_DOUBLE:
		if (mw_conf_parse_double(v, o->min, o->max, &d) < 0)
			goto bad;
		*(double *)o->dst = d;
		break;
	case MW_CLIOPT_CHOICE: {
		int i;
		for (i = 0; o->choices && o->choices[i]; i++)
			if (!strcmp(o->choices[i], v))
				break;
		if (!o->choices || !o->choices[i])
			goto bad;
		*(int *)o->dst = i;
		break;
	}
	case MW_CLIOPT_SETTING:
		if (!c->keys || mw_conf_set(c->keys, c->conf, o->setting, v, why, sizeof(why)) < 0) {
			if (!c->keys || errno == ENOENT) { /* a bug in the table */
				snprintf(err, errlen, "%s: no setting '%s'", typed, o->setting);
				return -1;
			}
			bad_value(c, o, typed, v, err, errlen);
			return -1;
		}
		break;
	case MW_CLIOPT_CUSTOM:
		if (!o->parse || o->parse(v, o->dst) < 0)
			goto bad;
		break;
	case MW_CLIOPT_FLAG:
		break;
	}
	if (o->given)
		*o->given = 1;
	if (o->text)
		*o->text = v;
	return 0;
bad:
	bad_value(c, o, typed, v, err, errlen);
	return -1;
}

/* A flag given: store it.  Return 0, or -1 with err set. */
static int set_flag(const struct mw_cliopt_cmd *c, const struct mw_cliopt *o, const char *typed,
		    char *err, size_t errlen)
{
	if (o->kind == MW_CLIOPT_SETTING)
		return set_value(c, o, typed, o->fixed, err, errlen);
	if (o->dst)
		*(int *)o->dst = o->ival ? o->ival : 1;
	if (o->given)
		*o->given = 1;
	return 0;
}

/* One line: control characters of the user's text become '?'. */
static void one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

int mw_cliopt_parse(const struct mw_cliopt_cmd *c, int argc, char **argv, int *first, char *err,
		    size_t errlen)
{
	char **opts = NULL, **ops = NULL, what[512], typed[80];
	int nopts = 0, nops = 0, i, rc = MW_CLIOPT_ERROR;

	if (errlen)
		err[0] = '\0';
	opts = malloc((size_t)(argc > 0 ? argc : 1) * sizeof(*opts));
	ops = malloc((size_t)(argc > 0 ? argc : 1) * sizeof(*ops));
	if (!opts || !ops) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (i = 1; i < argc; i++) {
		char *a = argv[i];
		const struct mw_cliopt *o;

		if (!strcmp(a, "--")) {
			opts[nopts++] = a;
			i++;
			break;
		}
		if (a[0] != '-' || !a[1]) {
			if (c->in_order)
				break;
			ops[nops++] = a;
			continue;
		}
		opts[nopts++] = a;
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t n = eq ? (size_t)(eq - name) : strlen(name);
			int ambiguous;

			snprintf(typed, sizeof(typed), "--%.*s", (int)(n > 60 ? 60 : n), name);
			if (!(o = find_long(c, name, n, &ambiguous))) {
				snprintf(err, errlen, "%s: %s option (see %s --help)", typed,
					 ambiguous ? "ambiguous" : "unknown", c->prog);
				goto out;
			}
			/* Named in full, as the table has it. */
			snprintf(typed, sizeof(typed), "--%s", o->name);
			if (o == &help_opt || !takes_value(o)) {
				if (eq) {
					snprintf(err, errlen, "%.*s: takes no value", CLIOPT_VAL_MAX, a);
					goto out;
				}
				if (o == &help_opt) {
					rc = MW_CLIOPT_HELP;
					goto out;
				}
				if (set_flag(c, o, typed, err, errlen) < 0)
					goto out;
				continue;
			}
			if (!eq && i + 1 >= argc) {
				snprintf(err, errlen, "%s: expected %s", typed, mw_cliopt_expect(c, o, what, sizeof(what)));
				goto out;
			}
			if (!eq)
				opts[nopts++] = argv[++i];
			if (set_value(c, o, typed, eq ? eq + 1 : argv[i], err, errlen) < 0)
				goto out;
			continue;
		}
		for (const char *p = a + 1; *p; p++) {
			snprintf(typed, sizeof(typed), "-%c", *p);
			if (!(o = find_short(c, *p))) {
				if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
					snprintf(typed, sizeof(typed), "-?");
				snprintf(err, errlen, "%s: unknown option (see %s --help)", typed, c->prog);
				goto out;
			}
			if (o == &help_opt) {
				rc = MW_CLIOPT_HELP;
				goto out;
			}
			if (!takes_value(o)) {
				if (set_flag(c, o, typed, err, errlen) < 0)
					goto out;
				continue;
			}
			if (!p[1] && i + 1 >= argc) {
				snprintf(err, errlen, "%s: expected %s", typed, mw_cliopt_expect(c, o, what, sizeof(what)));
				goto out;
			}
			if (!p[1])
				opts[nopts++] = argv[++i];
			if (set_value(c, o, typed, p[1] ? p + 1 : argv[i], err, errlen) < 0)
				goto out;
			break;
		}
	}
	for (; i < argc; i++)
		ops[nops++] = argv[i];
	/* Options first, then the operands, each in their order. */
	for (i = 0; i < nopts; i++)
		argv[1 + i] = opts[i];
	for (i = 0; i < nops; i++)
		argv[1 + nopts + i] = ops[i];
	*first = argc < 1 ? argc : 1 + nopts;
	rc = MW_CLIOPT_OK;
out:
	if (rc == MW_CLIOPT_ERROR && errlen)
		one_line(err);
	free(opts);
	free(ops);
	return rc;
}

/* The usage's word for o: "[--timeout S]", "[--json]". */
static void usage_word(const struct mw_cliopt *o, char *buf, size_t len)
{
	const char *arg = takes_value(o) && o->arg ? o->arg : NULL;

	snprintf(buf, len, "[--%s%s%s]", o->name, arg ? " " : "", arg ? arg : "");
}

/* Text with lines after the first indented by ind columns; a line longer
 * than the width is wrapped between words. */
static void put_indented(FILE *f, const char *text, int ind)
{
	int col = ind;

	for (const char *p = text; *p;) {
		size_t w = strcspn(p, " \n");
		if (col > ind && col + 1 + (int)w > CLIOPT_WIDTH) {
			fprintf(f, "\n%*s", ind, "");
			col = ind;
		} else if (col > ind) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, w, f);
		col += (int)w;
		p += w;
		if (*p == '\n') {
			if (p[1])
				fprintf(f, "\n%*s", ind, "");
			col = ind;
			p++;
		} else {
			while (*p == ' ')
				p++;
		}
	}
}

static void option_line(FILE *f, const struct mw_cliopt_cmd *c, const struct mw_cliopt *o)
{
	char left[160];
	const char *arg = takes_value(o) && o->arg ? o->arg : NULL, *help = o->help;
	const struct mw_conf_key *k;
	int n;

	/* A setting without its own text: the settings table's. */
	if (!help && o->kind == MW_CLIOPT_SETTING && c->keys && (k = mw_conf_find(c->keys, o->setting)))
		help = k->doc;

	if (o->shortname)
		n = snprintf(left, sizeof(left), "  -%c, --%s%s%s", o->shortname, o->name, arg ? " " : "",
			     arg ? arg : "");
	else
		n = snprintf(left, sizeof(left), "      --%s%s%s", o->name, arg ? " " : "", arg ? arg : "");
	fputs(left, f);
	if (n >= CLIOPT_HELP_COL - 1)
		fprintf(f, "\n%*s", CLIOPT_HELP_COL, "");
	else
		fprintf(f, "%*s", CLIOPT_HELP_COL - n, "");
	put_indented(f, help ? help : "", CLIOPT_HELP_COL);
	fputc('\n', f);
}

char *mw_cliopt_help(const struct mw_cliopt_cmd *c)
{
	char *text = NULL, word[160];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int col, ind, h = help_short(c);
	struct mw_cliopt help = help_opt;

	if (!f)
		return NULL;
	col = fprintf(f, "Usage: %s", c->prog);
	ind = col + 1;
	if (c->lead)
		col += fprintf(f, " %s", c->lead);
	help.shortname = (char)h;
	for (const struct mw_cliopt *o = c->opts;; o++) {
		const char *w = word;
		if (!o->name) {
			if (!c->args)
				break;
			w = c->args;
		} else {
			usage_word(o, word, sizeof(word));
		}
		if (col + 1 + (int)strlen(w) > CLIOPT_WIDTH && col > ind)
			col = fprintf(f, "\n%*s", ind - 1, "") - 1;
		col += fprintf(f, " %s", w);
		if (!o->name)
			break;
	}
	fputc('\n', f);
	if (c->more)
		fprintf(f, "%s\n", c->more);
	if (c->intro)
		fprintf(f, "%s\n", c->intro);
	fputc('\n', f);
	for (const struct mw_cliopt *o = c->opts; o->name; o++)
		option_line(f, c, o);
	option_line(f, c, &help);
	if (c->epilog)
		fprintf(f, "\n%s\n", c->epilog);
	if (fclose(f) != 0) {
		free(text);
		errno = ENOMEM;
		return NULL;
	}
	return text;
}
