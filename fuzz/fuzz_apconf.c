/* fuzz_apconf: the site's auxiliary processes file (shared/apconf.c on top
 * of shared/conf.c): parsed, its commands split into argv; every resolved
 * command must have a valid name and an absolute argv[0]. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "apconf.h"
#include "heartbeat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mw_apconf c;
	struct mw_conf_errors errs = {0};
	if (mw_apconf_init(&c) < 0)
		return 0;
	if (mw_apconf_parse_buffer(&c, "fuzz", (const char *)data, size, &errs) == 0)
		for (size_t i = 0; i < c.ncmd; i++)
			if (!mw_hb_valid_ap_name(c.cmd[i].name) || !c.cmd[i].argv[0] ||
			    c.cmd[i].argv[0][0] != '/')
				abort();
	mw_apconf_free(&c);
	mw_conf_errors_free(&errs);
	return 0;
}
