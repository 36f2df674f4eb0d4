/* libFuzzer target for nodehealthd's configuration (schema in
 * nodehealthd/nhd_conf.c on top of shared/conf.c, plus its validation). */
#include <stddef.h>
#include <stdint.h>

#include "nhd_conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nhd_conf c;
	struct mw_conf_errors errs = {0};
	if (nhd_conf_defaults(&c) < 0)
		return 0;
	if (mw_conf_parse_buffer("fuzz", (const char *)data, size, nhd_conf_keys, &c, &errs) == 0)
		nhd_conf_validate(&c, "fuzz", &errs);
	mw_conf_free(nhd_conf_keys, &c);
	mw_conf_errors_free(&errs);
	return 0;
}
