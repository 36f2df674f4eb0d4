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
	{.name = "n", .type = MW_CONF_INT, .offset = offsetof(struct cfg, n), .min = -5, .max = 1000, .choices = NULL},
	{.name = "d", .type = MW_CONF_DOUBLE, .offset = offsetof(struct cfg, d), .min = 0, .max = 1e6, .choices = NULL},
	{.name = "b", .type = MW_CONF_BOOL, .offset = offsetof(struct cfg, b), .min = 0, .max = 0, .choices = NULL},
	{.name = "s", .type = MW_CONF_STRING, .offset = offsetof(struct cfg, s), .min = 0, .max = 0, .choices = NULL},
	{.name = "l", .type = MW_CONF_LIST, .offset = offsetof(struct cfg, l), .min = 0, .max = 0, .choices = NULL},
	{.name = "e", .type = MW_CONF_ENUM, .offset = offsetof(struct cfg, e), .min = 0, .max = 0, .choices = choices},
	{.name = NULL},
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
