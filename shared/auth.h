/* auth.h - mutual authentication of the agent <-> collector link
 * (doc/protocol.md "Handshake", doc/security.md).
 *
 * The agent opens with VERIFY (its nonce); the collector (or a tree CP)
 * answers with a CHALLENGE carrying its own nonce and its proof over
 * mw_hb_proof_payload(job, endpoint, both nonces); only once that proof is
 * checked does the agent send its HELLO, whose proof covers
 * mw_hb_auth_payload(job, node, endpoint, the collector's nonce).  A proof
 * is a MUNGE credential (MUNGE vouches for the uid that encoded it and
 * refuses one decoded twice) or, under mpiwatch run, "hmac:" and the
 * HMAC-SHA256 of the payload keyed by the run's token (the token itself
 * never goes on the wire).  The nonces bind a proof to one connection, the
 * endpoint (the address:port the agent connected to, which the collector
 * accepted on) to one collector: a relay on another port cannot pass
 * either side's proof on. */
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

/* How one end proves itself and checks its peer: with MUNGE through
 * munge_socket (NULL or "" = MUNGE's default), or, when token is non-empty,
 * with that token (mpiwatch run). */
struct mw_auth {
	const char *munge_socket;
	const char *token;
};

/* This end's proof over payload into cred (at least MW_HB_CRED_MAX + 1
 * bytes): a MUNGE credential, or "hmac:" and 64 hex digits.  Return 0, or
 * -1 with the reason in err. */
int mw_auth_sign(const struct mw_auth *a, const char *payload, char *cred, size_t len, char *err,
		 size_t errlen);

/* Check the peer's proof: over exactly expect, and (MUNGE) made by this
 * process's uid or by root, not expired, not replayed; (token) the HMAC
 * matches.  May block on munged.  Return 0, or -1 with the reason in err. */
int mw_auth_verify(const struct mw_auth *a, const char *cred, const char *expect, char *err,
		   size_t errlen);

/* One machine without MUNGE (mpiwatch run): a secret token in a file only
 * the user can read.  mw_auth_token_read reads it (at most len - 1
 * characters, hex) into tok; return 0 or -1 with the reason in err. */
int mw_auth_token_read(const char *path, char *tok, size_t len, char *err, size_t errlen);

/* The token proof over payload: "hmac:" and the HMAC-SHA256 of payload
 * keyed by tok, in hex, into cred.  Return 0, or -1 if len is too small. */
int mw_auth_token_sign(const char *tok, const char *payload, char *cred, size_t len);

/* Compare a token proof with the one tok makes over payload, in constant
 * time.  Return 0 if equal, or -1 with the reason in err. */
int mw_auth_token_check(const char *cred, const char *tok, const char *payload, char *err,
			size_t errlen);

#endif
