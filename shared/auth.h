/* auth.h - MUNGE credentials on the agent -> collector link (doc/security.md).
 *
 * The collector opens every connection with a CHALLENGE (a fresh nonce);
 * the agent answers with a HELLO whose MUNGE credential carries
 * mw_hb_auth_payload(job, node, nonce).  MUNGE itself vouches for the uid of
 * the process that encoded it and refuses a credential decoded twice; the
 * nonce binds it to this connection. */
#ifndef MW_AUTH_H
#define MW_AUTH_H

#include <stddef.h>
#include <sys/types.h>

/* A fresh challenge: MW_HB_NONCE_LEN lowercase hex digits of getrandom()
 * into nonce (at least MW_HB_NONCE_LEN + 1 bytes).  Return 0 or -1. */
int mw_auth_nonce(char *nonce, size_t len);

/* Encode payload as a MUNGE credential through socket (NULL or "" = MUNGE's
 * default) into cred.  Return 0, or -1 with MUNGE's reason in err. */
int mw_auth_encode(const char *socket, const char *payload, char *cred, size_t len, char *err,
		    size_t errlen);

/* Check a credential: MUNGE decodes it (valid, not expired, not replayed),
 * it was made by uid want or by root, and it carries exactly expect.
 * Return 0, or -1 with the reason in err. */
int mw_auth_check(const char *socket, const char *cred, const char *expect, uid_t want,
		   char *err, size_t errlen);

/* One machine without MUNGE (mpiwatch run): a secret token in a file only
 * the user can read.  mw_auth_token_read reads it (at most len - 1
 * characters, hex) into tok; return 0 or -1 with the reason in err. */
int mw_auth_token_read(const char *path, char *tok, size_t len, char *err, size_t errlen);

/* Compare a HELLO's credential with "token:" TOK in constant time.  Return
 * 0 if equal, or -1 with the reason in err. */
int mw_auth_token_check(const char *cred, const char *tok, char *err, size_t errlen);

#endif
