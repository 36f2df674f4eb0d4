/* libFuzzer target for hostlist and rank-range parsing (shared/hostlist.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct mw_hostlist hl;
	int *v;
	char buf[512];

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (mw_hostlist_expand(s, 4096, &hl) == 0) {
		mw_hostlist_compress(&hl, buf, sizeof(buf));
		mw_hostlist_free(&hl);
	}
	long n = mw_ranges_parse(s, 4096, &v);
	if (n > 0) {
		mw_ranges_format(v, (size_t)n, buf, sizeof(buf));
		free(v);
	}
	free(s);
	return 0;
}
