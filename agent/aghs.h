/* aghs.h - the node agent's handshake with one parent (the collector or a
 * tree CP: doc/protocol.md "Handshake") on the agent's libuv loop, without
 * ever waiting in the loop's thread: the name resolved by uv_getaddrinfo,
 * the TCP connect watched by a uv_poll, each answer read as it comes, a
 * uv_timer bounding each step, and the two credentials (checking the
 * parent's proof, making our HELLO's) in one uv_queue_work.  agconnect.c
 * tries its candidates one such handshake at a time. */
#ifndef AG_AGHS_H
#define AG_AGHS_H

#include <stdint.h>
#include <uv.h>

#include "mw_link.h"

struct ag_hs;

/* How a handshake ended. */
enum ag_hs_stage {
	AG_HS_OK,           /* welcomed: the link is the caller's */
	AG_HS_CONNECT,      /* no TCP connection (err: ENOENT the name does not resolve,
			     * ECONNREFUSED, ETIMEDOUT after connect_s...) */
	AG_HS_NO_CHALLENGE, /* connected, but no valid CHALLENGE within handshake_s */
	AG_HS_IMPOSTOR,     /* the peer's proof failed: not our job's parent (told nothing) */
	AG_HS_REFUSED,      /* the parent's WELCOME refused us (why: its words) */
	AG_HS_NO_WELCOME,   /* no WELCOME within handshake_s */
	AG_HS_SEND          /* our VERIFY or HELLO could not be sent */
};

/* What a handshake needs.  The strings are copied by ag_hs_start. */
struct ag_hs_params {
	const char *job, *node;
	const char *munge_socket; /* NULL or "": MUNGE's default */
	const char *token;        /* non-empty: the run's token instead of MUNGE */
	int32_t ranks;            /* the HELLO's rank count */
	double connect_s;         /* bound of the TCP connect (name resolution not included) */
	double handshake_s;       /* bound of each answer (the CHALLENGE, the WELCOME) */
	double liveness_s;        /* applied to the link once welcomed (mw_link_set_liveness) */
};

/* The end of a handshake, on the loop, once (never from within ag_hs_start,
 * never after ag_hs_stop): l (stage AG_HS_OK; the caller owns it, liveness
 * set, no payload cap, any frames that came after the WELCOME still in its
 * buffer), or NULL with stage, err (errno, AG_HS_CONNECT) and why (the
 * other stages, in words; "" for AG_HS_CONNECT). */
typedef void (*ag_hs_fn)(void *arg, struct mw_link *l, int stage, int err, const char *why);

/* Begin the handshake with host:port on loop; done(arg, ...) tells its end.
 * Return the handshake under way, or NULL if it could not begin (errno
 * set; done is not called). */
struct ag_hs *ag_hs_start(uv_loop_t *loop, const struct ag_hs_params *p, const char *host, uint16_t port,
			  ag_hs_fn done, void *arg);

/* Give up the handshake h under way (NULL fine): done is not called, its
 * socket is closed now, its handles close on the loop, and a resolution or
 * credential still in the pool is let finish and then freed. */
void ag_hs_stop(struct ag_hs *h);

#endif
