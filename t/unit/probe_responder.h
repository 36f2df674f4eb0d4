/* probe_responder.h - a nodehealthd's probe answer for the collector's
 * unit tests: a uv_udp_t on loopback, on the test's own loop, that answers
 * every probe as ALIVE with the factors and calibration blocks it is given.
 * Being on the same loop, it answers only while that loop turns: a probe
 * round that blocked the loop would find it silent. */
#ifndef MW_PROBE_RESPONDER_H
#define MW_PROBE_RESPONDER_H

#include <uv.h>

#include "probe.h"

struct probe_responder {
	uv_udp_t udp;
	int port;                    /* bound to (any free one) */
	int probes;                  /* probes received */
	const struct mw_probe_factors *f; /* the factors block sent, or NULL */
	const struct mw_probe_calib *cal; /* the calibration block sent, or NULL */
};

/* Start r on ip (any free port: r->port) on loop, answering with f and
 * cal (the caller's, kept; NULL: none).  Fails the test on error. */
void probe_responder_start(uv_loop_t *loop, struct probe_responder *r, const char *ip,
			   const struct mw_probe_factors *f, const struct mw_probe_calib *cal);

/* Close r's socket (on the loop's next turn). */
void probe_responder_stop(struct probe_responder *r);

#endif
