/* libFuzzer target for the collector's reading of a rank's state dump
 * (collector/colstate.c, col_dump_waits): the dump is JSON an agent sends
 * over the network, so the collector must survive any bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "colstate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct col_rank r;
	char *json = malloc(size + 1);
	if (!json)
		return 0;
	memcpy(json, data, size);
	json[size] = '\0';
	memset(&r, 0, sizeof(r));
	if (col_dump_waits(json, &r) == 0) {
		if (!r.waits_known || (r.nwaits && !r.waits))
			abort();
	} else if (r.waits_known) {
		abort();
	}
	/* a second dump replaces the first one's waits (no leak, no reuse) */
	(void)col_dump_waits(json, &r);
	free(r.waits);
	free(json);
	return 0;
}
