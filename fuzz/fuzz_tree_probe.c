/* libFuzzer target for the decoder of a CP's probe summary (tree/mwt_probe.c,
 * the payload of an MW_HB_PROBESUM frame): what decodes must encode and
 * decode back to the same text, and merging it into an empty summary twice
 * must add its results once. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mwt_probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[128];
	struct mwt_psum *a = mwt_psum_from_json((const char *)data, size, err, sizeof(err)), *b, *root;
	char *j1, *j2;
	long n;
	if (!a) {
		if (strncmp(err, "probe summary: ", 15) != 0)
			abort();
		return 0;
	}
	j1 = mwt_psum_to_json(a);
	if (!j1)
		abort();
	b = mwt_psum_from_json(j1, strlen(j1), err, sizeof(err));
	if (!b)
		abort();
	j2 = mwt_psum_to_json(b);
	if (!j2 || strcmp(j1, j2) != 0)
		abort();
	root = mwt_psum_create(mwt_psum_round(a), "root");
	n = mwt_psum_merge(root, a);
	if (n < 0 || (size_t)n != mwt_psum_n(a) || mwt_psum_n(root) != mwt_psum_n(a) ||
	    mwt_psum_nmissing(root) != mwt_psum_nmissing(a))
		abort();
	if (mwt_psum_merge(root, b) != 0 || mwt_psum_n(root) != mwt_psum_n(a))
		abort();
	free(j1);
	free(j2);
	mwt_psum_destroy(a);
	mwt_psum_destroy(b);
	mwt_psum_destroy(root);
	return 0;
}
