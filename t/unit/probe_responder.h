/* probe_responder.h - a nodehealthd's probe answer for the unit tests of
 * probe rounds (test_uvprobe, test_colprobe, test_nodecal): a uv_udp_t on
 * loopback, on the test's own loop, that answers every probe as ALIVE (with
 * the factors and calibration blocks it is given), or stays silent, or
 * answers late (a slow link, a loaded node).  Being on the same loop, it
 * answers only while that loop turns: a probe round that blocked the loop
 * would find it silent.  A datagram that is not a valid probe fails the
 * test. */
#ifndef MW_PROBE_RESPONDER_H
#define MW_PROBE_RESPONDER_H

#include <netinet/in.h>
#include <stdint.h>
#include <uv.h>

#include "probe.h"

struct probe_responder {
	uv_udp_t udp;
	int port;                    /* bound to */
	int probes;                  /* probes received */
	unsigned src_port;           /* the source port of the last probe */
	int answer;                  /* 0: stay silent */
	uint64_t delay_ms;           /* answer this late (the last probe's answer only) */
	const struct mw_probe_factors *f; /* the factors block sent, or NULL */
	const struct mw_probe_calib *cal; /* the calibration block sent, or NULL */
	/* the late answer, kept for its timer */
	uv_timer_t late;
	uint8_t rep[MW_PROBE_MAX_SIZE];
	int replen;
	struct sockaddr_in to;
};

/* Start r on ip:port (port 0: any free one, r->port tells) on loop,
 * answering (answer 1) with f and cal (the caller's, kept; NULL: none) or
 * silent (answer 0).  Set r->delay_ms after it to answer late.  Fails the
 * test on error. */
void probe_responder_start_at(uv_loop_t *loop, struct probe_responder *r, const char *ip, int port, int answer,
			      const struct mw_probe_factors *f, const struct mw_probe_calib *cal);

/* probe_responder_start_at on any free port, answering. */
void probe_responder_start(uv_loop_t *loop, struct probe_responder *r, const char *ip,
			   const struct mw_probe_factors *f, const struct mw_probe_calib *cal);

/* Close r's socket and its late-answer timer (on the loop's next turn). */
void probe_responder_stop(struct probe_responder *r);

#endif
