/* libFuzzer target for the BE counts file of "mpiwatch topo --be-counts"
 * (tree/mwt_counts.c): every error names the file, a success gives valid
 * nodes and counts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heartbeat.h"
#include "mwt_counts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mw_conf_errors errs = {0};
	struct mwt_counts c;
	size_t i;
	int n = mwt_counts_parse((const char *)data, size, "fuzz", &c, &errs);
	if (n != (int)errs.n)
		abort();
	if (n == 0) {
		if (c.n == 0 || !c.host)
			abort();
		for (i = 0; i < c.n; i++)
			if (!mw_hb_valid_name(c.host[i].name) || c.host[i].be < 0 ||
			    c.host[i].be > MWT_COUNTS_BE_MAX || (int)c.host[i].f.health < 0 ||
			    c.host[i].f.health > MWT_HEALTH_DOWN)
				abort();
	} else {
		if (c.host || c.n)
			abort();
		for (i = 0; i < errs.n; i++)
			if (strncmp(errs.msg[i], "fuzz", 4) != 0)
				abort();
	}
	mwt_counts_free(&c);
	mw_conf_errors_free(&errs);
	return 0;
}
