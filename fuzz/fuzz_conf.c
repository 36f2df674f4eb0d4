/* libFuzzer target for the shared "key = value" parser (shared/conf.c). */
#include <stddef.h>
#include <stdint.h>

#include "conf.h"

struct cfg {
	long n;
	double d;
	int b;
	char *s;
	struct mw_strlist l;
	int e;
};

static const char *const choices[] = {"a", "b", NULL};
static const struct mw_conf_key keys[] = {
	{"n", MW_CONF_INT, offsetof(struct cfg, n), -5, 1000, NULL},
	{"d", MW_CONF_DOUBLE, offsetof(struct cfg, d), 0, 1e6, NULL},
	{"b", MW_CONF_BOOL, offsetof(struct cfg, b), 0, 0, NULL},
	{"s", MW_CONF_STRING, offsetof(struct cfg, s), 0, 0, NULL},
	{"l", MW_CONF_LIST, offsetof(struct cfg, l), 0, 0, NULL},
	{"e", MW_CONF_ENUM, offsetof(struct cfg, e), 0, 0, choices},
	{NULL, 0, 0, 0, 0, NULL},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cfg c = {0};
	struct mw_conf_errors errs = {0};
	mw_conf_parse_buffer("fuzz", (const char *)data, size, keys, &c, &errs);
	mw_conf_free(keys, &c);
	mw_conf_errors_free(&errs);
	return 0;
}
