/* hmac.c - HMAC-SHA256 through nettle (hmac.h). */
#include "hmac.h"

#include <nettle/hmac.h>

void mw_hmac_sha256(const void *key, size_t keylen, const void *msg, size_t len,
		    uint8_t out[MW_SHA256_LEN])
{
	struct hmac_sha256_ctx ctx;
	hmac_sha256_set_key(&ctx, keylen, key);
	hmac_sha256_update(&ctx, len, msg);
	hmac_sha256_digest(&ctx, MW_SHA256_LEN, out);
}
