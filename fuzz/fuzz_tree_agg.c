/* libFuzzer target for the decoder of a CP's aggregate (tree/mwt_agg.c,
 * the payload of an MW_HB_AGG frame): what decodes must encode and decode
 * back to the same text, and merging it twice must count nothing the
 * second time. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mwt_agg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[128];
	struct mwt_agg *a = mwt_agg_from_json((const char *)data, size, err, sizeof(err)), *b, *root;
	struct mwt_seq *seen;
	char *j1, *j2;
	long n;
	if (!a) {
		if (strncmp(err, "aggregate: ", 11) != 0)
			abort();
		return 0;
	}
	j1 = mwt_agg_to_json(a);
	if (!j1)
		abort();
	b = mwt_agg_from_json(j1, strlen(j1), err, sizeof(err));
	if (!b)
		abort();
	j2 = mwt_agg_to_json(b);
	if (!j2 || strcmp(j1, j2) != 0)
		abort();
	seen = mwt_seq_create();
	root = mwt_agg_create("root");
	n = mwt_agg_merge(root, seen, a);
	if (n < 0 || (uint64_t)n > mwt_agg_events(a) || mwt_agg_events(root) != (uint64_t)n)
		abort();
	if (mwt_agg_merge(root, seen, b) != 0 || mwt_agg_events(root) != (uint64_t)n)
		abort();
	free(j1);
	free(j2);
	mwt_agg_destroy(a);
	mwt_agg_destroy(b);
	mwt_agg_destroy(root);
	mwt_seq_destroy(seen);
	return 0;
}
