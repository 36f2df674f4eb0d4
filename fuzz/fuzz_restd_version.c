/* libFuzzer target for the reading of slurmrestd's OpenAPI document
 * (col_restd_version, collector/restd.c): whatever the server sends, the
 * answer is a version "vX..." that fits, or a refusal. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "restd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *doc = malloc(size + 1), ver[16];
	if (!doc)
		return 0;
	memcpy(doc, data, size);
	doc[size] = 0;
	memset(ver, 'x', sizeof ver);
	if (col_restd_version(doc, ver, sizeof ver) == 0 &&
	    (ver[0] != 'v' || memchr(ver, 0, sizeof ver) == NULL))
		abort();
	free(doc);
	return 0;
}
