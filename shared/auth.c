/* auth.c - MUNGE credentials on the agent -> collector link (auth.h). */
#include "auth.h"

#include <errno.h>
#include <munge.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "heartbeat.h"
#include "hmac.h"

int mw_auth_nonce(char *nonce, size_t len)
{
	unsigned char r[MW_HB_NONCE_LEN / 2];
	size_t got = 0;
	if (len < MW_HB_NONCE_LEN + 1)
		return -1;
	while (got < sizeof r) {
		ssize_t n = getrandom(r + got, sizeof r - got, 0);
		if (n < 0 && errno != EINTR)
			return -1;
		if (n > 0)
			got += (size_t)n;
	}
	for (size_t i = 0; i < sizeof r; i++)
		snprintf(nonce + 2 * i, 3, "%02x", r[i]);
	return 0;
}

/* A context on socket, or NULL (MUNGE's default) when none is given. */
static munge_ctx_t ctx_for(const char *socket, char *err, size_t errlen, int *bad)
{
	munge_ctx_t ctx;
	*bad = 0;
	if (!socket || !*socket)
		return NULL;
	ctx = munge_ctx_create();
	if (!ctx || munge_ctx_set(ctx, MUNGE_OPT_SOCKET, socket) != EMUNGE_SUCCESS) {
		snprintf(err, errlen, "MUNGE socket %s: %s", socket,
			 ctx ? munge_ctx_strerror(ctx) : "out of memory");
		if (ctx)
			munge_ctx_destroy(ctx);
		*bad = 1;
		return NULL;
	}
	return ctx;
}

int mw_auth_encode(const char *socket, const char *payload, char *cred, size_t len, char *err,
		    size_t errlen)
{
	char *c = NULL;
	int bad;
	munge_ctx_t ctx = ctx_for(socket, err, errlen, &bad);
	munge_err_t e;
	if (bad)
		return -1;
	e = munge_encode(&c, ctx, payload, (int)strlen(payload));
	if (e != EMUNGE_SUCCESS) {
		snprintf(err, errlen, "MUNGE: %s", ctx ? munge_ctx_strerror(ctx) : munge_strerror(e));
	} else if (strlen(c) >= len) {
		snprintf(err, errlen, "MUNGE credential too long (%zu characters)", strlen(c));
		e = EMUNGE_OVERFLOW;
	} else {
		memcpy(cred, c, strlen(c) + 1);
	}
	free(c);
	if (ctx)
		munge_ctx_destroy(ctx);
	return e == EMUNGE_SUCCESS ? 0 : -1;
}

int mw_auth_check(const char *socket, const char *cred, const char *expect, uid_t want,
		   char *err, size_t errlen)
{
	void *buf = NULL;
	int blen = 0, bad, rc = -1;
	uid_t uid = (uid_t)-1;
	gid_t gid = (gid_t)-1;
	munge_ctx_t ctx;
	munge_err_t e;
	if (!cred || !*cred) {
		snprintf(err, errlen, "no MUNGE credential");
		return -1;
	}
	ctx = ctx_for(socket, err, errlen, &bad);
	if (bad)
		return -1;
	e = munge_decode(cred, ctx, &buf, &blen, &uid, &gid);
	if (e != EMUNGE_SUCCESS)
		snprintf(err, errlen, "MUNGE credential refused: %s",
			 ctx ? munge_ctx_strerror(ctx) : munge_strerror(e));
	else if (uid != want && uid != 0)
		snprintf(err, errlen, "MUNGE credential of uid %u, not the job's (%u)", (unsigned)uid,
			 (unsigned)want);
	else if (!buf || blen != (int)strlen(expect) || memcmp(buf, expect, (size_t)blen) != 0)
		snprintf(err, errlen, "MUNGE credential for another job, node or connection");
	else
		rc = 0;
	free(buf);
	if (ctx)
		munge_ctx_destroy(ctx);
	return rc;
}

int mw_auth_token_read(const char *path, char *tok, size_t len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	size_t n;
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	n = fread(tok, 1, len - 1, f);
	fclose(f);
	tok[n] = 0;
	tok[strcspn(tok, "\n")] = 0;
	if (strlen(tok) < 32 || strspn(tok, "0123456789abcdef") != strlen(tok)) {
		snprintf(err, errlen, "%s: not a token (32 or more hex digits)", path);
		return -1;
	}
	return 0;
}

int mw_auth_token_sign(const char *tok, const char *payload, char *cred, size_t len)
{
	uint8_t mac[MW_SHA256_LEN];
	if (len < 5 + 2 * MW_SHA256_LEN + 1)
		return -1;
	mw_hmac_sha256(tok, strlen(tok), payload, strlen(payload), mac);
	memcpy(cred, "hmac:", 5);
	for (size_t i = 0; i < sizeof mac; i++)
		snprintf(cred + 5 + 2 * i, 3, "%02x", mac[i]);
	return 0;
}

int mw_auth_token_check(const char *cred, const char *tok, const char *payload, char *err,
			size_t errlen)
{
	char want[5 + 2 * MW_SHA256_LEN + 1];
	unsigned char d = 0;
	mw_auth_token_sign(tok, payload, want, sizeof want);
	if (strncmp(cred, "hmac:", 5) != 0 || strlen(cred) != strlen(want)) {
		snprintf(err, errlen, "no token proof");
		return -1;
	}
	for (size_t i = 5; want[i]; i++)
		d |= (unsigned char)(cred[i] ^ want[i]);
	if (d) {
		snprintf(err, errlen, "wrong token (or a proof for another job, node or connection)");
		return -1;
	}
	return 0;
}

int mw_auth_sign(const struct mw_auth *a, const char *payload, char *cred, size_t len, char *err,
		 size_t errlen)
{
	if (a->token && a->token[0]) {
		if (mw_auth_token_sign(a->token, payload, cred, len) < 0) {
			snprintf(err, errlen, "no room for the token proof");
			return -1;
		}
		return 0;
	}
	return mw_auth_encode(a->munge_socket, payload, cred, len, err, errlen);
}

int mw_auth_verify(const struct mw_auth *a, const char *cred, const char *expect, char *err,
		   size_t errlen)
{
	if (a->token && a->token[0])
		return mw_auth_token_check(cred, a->token, expect, err, errlen);
	return mw_auth_check(a->munge_socket, cred, expect, getuid(), err, errlen);
}
