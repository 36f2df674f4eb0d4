/* mws_munge.c - whether this node's munged will vouch for the job's agents. */
#include "mws_munge.h"

#include <munge.h>
#include <stdio.h>
#include <stdlib.h>

int mws_munge_check(const char *socket, char *err, size_t errlen)
{
	munge_ctx_t ctx = NULL;
	munge_err_t e;
	char *cred = NULL;
	if (socket && *socket) {
		ctx = munge_ctx_create();
		if (!ctx || munge_ctx_set(ctx, MUNGE_OPT_SOCKET, socket) != EMUNGE_SUCCESS) {
			snprintf(err, errlen, "MUNGE socket %s: %s", socket,
				 ctx ? munge_ctx_strerror(ctx) : "out of memory");
			if (ctx)
				munge_ctx_destroy(ctx);
			return -1;
		}
	}
	e = munge_encode(&cred, ctx, NULL, 0);
	if (e != EMUNGE_SUCCESS)
		snprintf(err, errlen, "MUNGE: %s", ctx ? munge_ctx_strerror(ctx) : munge_strerror(e));
	free(cred);
	if (ctx)
		munge_ctx_destroy(ctx);
	return e == EMUNGE_SUCCESS ? 0 : -1;
}
