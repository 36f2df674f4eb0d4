/* hmac.h - HMAC-SHA256 (RFC 2104, FIPS 180-4), for the token proofs of the
 * agent <-> collector link without MUNGE (auth.h). */
#ifndef MW_HMAC_H
#define MW_HMAC_H

#include <stddef.h>
#include <stdint.h>

#define MW_SHA256_LEN 32

/* SHA-256 of msg (len bytes) into out. */
void mw_sha256(const void *msg, size_t len, uint8_t out[MW_SHA256_LEN]);

/* HMAC-SHA256 of msg keyed by key into out. */
void mw_hmac_sha256(const void *key, size_t keylen, const void *msg, size_t len,
		    uint8_t out[MW_SHA256_LEN]);

#endif
