/* liveness-cost.c - what the link liveness setting (jobconf liveness,
 * mw_link_liveness_fd) costs on an idle link: one agent -> collector link
 * per value over loopback, made and tuned by the real link code
 * (mw_link_listen/connect/accept, mw_link_set_liveness on both ends), left
 * idle for SECONDS, then the segments each end sent (TCP_INFO).  An idle
 * link carries only keepalive probes and their answers, each an empty TCP
 * segment: 66 bytes on an Ethernet wire (14 Ethernet + 20 IPv4 + 32 TCP
 * with timestamps).
 *
 *   liveness-cost SECONDS LIVENESS...      e.g. liveness-cost 60 0 5 15 30
 *
 * Prints per value: segments each way, wire bytes per node per minute. */
#include <linux/tcp.h> /* struct tcp_info with tcpi_segs_in/out */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <stdint.h>
#include <unistd.h>

#include "mw_link.h"

#define WIRE_BYTES_PER_SEGMENT 66

static int segs(int fd, unsigned *out, unsigned *in)
{
	struct tcp_info ti;
	socklen_t l = sizeof ti;
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &l) < 0)
		return -1;
	*out = ti.tcpi_segs_out;
	*in = ti.tcpi_segs_in;
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc - 2, lfd;
	double secs;
	uint16_t port;
	struct mw_link **ag, **co;
	unsigned (*base)[2];

	if (argc < 3) {
		fprintf(stderr, "usage: liveness-cost SECONDS LIVENESS...\n");
		return 2;
	}
	secs = atof(argv[1]);
	ag = calloc((size_t)n, sizeof *ag);
	co = calloc((size_t)n, sizeof *co);
	base = calloc((size_t)n, sizeof *base);
	lfd = mw_link_listen(27500, 100, &port);
	if (!ag || !co || !base || lfd < 0) {
		perror("liveness-cost");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		double s = atof(argv[i + 2]);
		unsigned x;
		ag[i] = mw_link_connect("127.0.0.1", port, 2.0);
		for (int k = 0; k < 200 && ag[i] && !co[i]; k++)
			if (!(co[i] = mw_link_accept(lfd)))
				usleep(10000);
		if (!ag[i] || !co[i] || mw_link_set_liveness(ag[i], s) < 0 || mw_link_set_liveness_watch(co[i], s) < 0) {
			perror("liveness-cost: link");
			return 1;
		}
		segs(mw_link_fd(ag[i]), &base[i][0], &x);
		segs(mw_link_fd(co[i]), &base[i][1], &x);
	}
	usleep((useconds_t)(secs * 1e6));
	printf("%-10s %-10s %-12s %-14s %s\n", "liveness", "keepidle", "agent->coll", "coll->agent",
	       "wire bytes per node per minute");
	for (int i = 0; i < n; i++) {
		double s = atof(argv[i + 2]);
		unsigned ao, co_, x;
		segs(mw_link_fd(ag[i]), &ao, &x);
		segs(mw_link_fd(co[i]), &co_, &x);
		ao -= base[i][0];
		co_ -= base[i][1];
		char idle[16] = "off";
		if (s > 0)
			snprintf(idle, sizeof idle, "%d s", mw_link_keepidle(s));
		printf("%-10g %-10s %-12u %-14u %.0f\n", s, idle, ao, co_,
		       (double)(ao + co_) * WIRE_BYTES_PER_SEGMENT * 60.0 / secs);
	}
	return 0;
}
