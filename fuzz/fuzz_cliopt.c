/* libFuzzer target for the command-line option parser (shared/cliopt.c):
 * the input is an argv, its words separated by NUL bytes (the first byte
 * picks whether options end at the first operand).  Every kind of option is
 * in the table, a setting among them (through a conf.h key table). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cliopt.h"

#define MAX_ARGS 64

struct cfg {
	double timeout;
	int profile;
	char *name;
};

static const struct mw_conf_key keys[] = {
	{.name = "timeout", .type = MW_CONF_DOUBLE, .offset = offsetof(struct cfg, timeout), .min = 1,
	 .max = 604800, .unit = "seconds"},
	{.name = "profile", .type = MW_CONF_BOOL, .offset = offsetof(struct cfg, profile)},
	{.name = "name", .type = MW_CONF_STRING, .offset = offsetof(struct cfg, name)},
	{.name = NULL},
};

static const char *const modes[] = {"report", "cancel", "requeue", NULL};

static int parse_even(const char *v, void *dst)
{
	long n;
	if (mw_conf_parse_long(v, 0, 100, &n) < 0 || n % 2)
		return -1;
	*(long *)dst = n;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cfg conf = {0};
	long num = 0, even = 0;
	double ratio = 0;
	int flag = 0, mode = 0, given = 0, first, argc = 1;
	const char *file = NULL;
	char *buf, *argv[MAX_ARGS + 1], err[256];
	const struct mw_cliopt opts[] = {
		{.name = "num", .shortname = 'n', .kind = MW_CLIOPT_LONG, .dst = &num, .arg = "N", .min = 1,
		 .max = 10, .given = &given},
		{.name = "name-ratio", .kind = MW_CLIOPT_DOUBLE, .dst = &ratio, .arg = "R", .min = 0, .max = 1},
		{.name = "flag", .shortname = 'f', .kind = MW_CLIOPT_FLAG, .dst = &flag},
		{.name = "mode", .kind = MW_CLIOPT_CHOICE, .dst = &mode, .choices = modes, .arg = "M"},
		{.name = "file", .shortname = 'o', .kind = MW_CLIOPT_STRING, .dst = &file, .arg = "FILE"},
		{.name = "timeout", .shortname = 't', .kind = MW_CLIOPT_SETTING, .setting = "timeout", .arg = "S"},
		{.name = "label", .kind = MW_CLIOPT_SETTING, .setting = "name", .arg = "NAME"},
		{.name = "profile", .kind = MW_CLIOPT_SETTING, .setting = "profile", .fixed = "yes"},
		{.name = "even", .kind = MW_CLIOPT_CUSTOM, .dst = &even, .parse = parse_even, .what = "even"},
		{.name = NULL},
	};
	struct mw_cliopt_cmd c = {.prog = "fuzz", .keys = keys, .conf = &conf, .opts = opts};

	if (!size)
		return 0;
	c.in_order = data[0] & 1;
	/* The words, NUL-terminated (the last one too). */
	if (!(buf = malloc(size)))
		return 0;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	argv[0] = "cmd";
	for (size_t i = 0; i < size - 1 && argc < MAX_ARGS;) {
		argv[argc++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	argv[argc] = NULL;
	mw_cliopt_parse(&c, argc, argv, &first, err, sizeof(err));
	free(mw_cliopt_help(&c));
	mw_conf_free(keys, &conf);
	free(buf);
	return 0;
}
