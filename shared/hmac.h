/* hmac.h - HMAC-SHA256 (RFC 2104, FIPS 180-4), for the token proofs of the
 * agent <-> collector link without MUNGE (auth.h).  Computed by Debian's nettle
 * (libnettle8, a dependency of GnuTLS on every Debian system): no hand-written
 * hash. */
#ifndef MW_HMAC_H
#define MW_HMAC_H

#include <stddef.h>
#include <stdint.h>

#define MW_SHA256_LEN 32

/* HMAC-SHA256 of msg (len bytes) keyed by key (keylen bytes) into out.
 * Cannot fail; never prints. */
void mw_hmac_sha256(const void *key, size_t keylen, const void *msg, size_t len,
		    uint8_t out[MW_SHA256_LEN]);

#endif
