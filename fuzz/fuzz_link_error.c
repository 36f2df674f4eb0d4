/* libFuzzer target for the collector's reading of an agent's link error
 * (mw_link_error_parse, shared/mw_link.c; the collector's read_link_errors
 * reads OUTDIR/logs/link-error-NODE.txt with it): the input is a file name,
 * a NUL, then the file's text.  A file accepted gives a node name that is
 * not empty, fits, has no '/', and one line without a newline that fits. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mw_link.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t nl = nul ? (size_t)(nul - data) : size;
	char *name = malloc(nl + 1), node[64], line[40];
	const char *text = nul ? (const char *)nul + 1 : "";
	size_t tl = nul ? size - nl - 1 : 0;
	if (!name)
		return 0;
	memcpy(name, data, nl);
	name[nl] = 0;
	if (mw_link_error_parse(name, text, tl, node, sizeof node, line, sizeof line) == 0) {
		if (!node[0] || strlen(node) >= sizeof node || strchr(node, '/') || !line[0] ||
		    strlen(line) >= sizeof line || strchr(line, '\n'))
			abort();
	} else if (node[0] || line[0]) {
		abort();
	}
	free(name);
	return 0;
}
