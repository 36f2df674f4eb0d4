/* nfdelay - hold every packet of a netfilter queue for a fixed time, then
 * let it pass: added latency on a lab node's link where the kernel has no
 * sch_netem (tc netem).  A lab tool (t/lab/slow-link), not part of the
 * product.
 *
 *   nfdelay QUEUE MS
 *
 * Packets are sent to the queue by an iptables rule (NFQUEUE --queue-num
 * QUEUE --queue-bypass: if nfdelay is not running, they pass at once).  Each
 * is accepted MS milliseconds after it arrived, in arrival order; nothing is
 * dropped or changed (only the metadata is copied up).  Ends on SIGTERM or
 * SIGINT, accepting what it holds first.  Prints "nfdelay: ready" on stdout
 * once bound, and on exit the number of packets it held. */
#include <arpa/inet.h>
#include <errno.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <libnfnetlink/libnfnetlink.h>
#include <linux/netfilter.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HOLD_MAX 65536 /* packets held at once (a power of 2) */

struct held {
	uint32_t id;
	double due;
};

static struct held ring[HOLD_MAX];
static size_t head, tail; /* ring[tail..head) are held */
static double delay_s;
static unsigned long held_total, dropped;
static volatile sig_atomic_t stop;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int on_packet(struct nfq_q_handle *qh, struct nfgenmsg *msg, struct nfq_data *nfa, void *data)
{
	struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr(nfa);
	uint32_t id;
	(void)msg;
	(void)data;
	if (!ph)
		return 0;
	id = ntohl(ph->packet_id);
	if (head - tail >= HOLD_MAX) { /* full: let it pass now rather than lose it */
		dropped++;
		return nfq_set_verdict(qh, id, NF_ACCEPT, 0, NULL);
	}
	ring[head % HOLD_MAX].id = id;
	ring[head % HOLD_MAX].due = now_s() + delay_s;
	head++;
	held_total++;
	return 0;
}

/* Accept every held packet due by t (all of them when t < 0). */
static void release(struct nfq_q_handle *qh, double t)
{
	while (tail != head && (t < 0 || ring[tail % HOLD_MAX].due <= t)) {
		nfq_set_verdict(qh, ring[tail % HOLD_MAX].id, NF_ACCEPT, 0, NULL);
		tail++;
	}
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct nfq_handle *h;
	struct nfq_q_handle *qh;
	struct sigaction sa;
	char buf[65536];
	long q, ms;
	char *end;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: nfdelay QUEUE MS\n");
		return 2;
	}
	q = strtol(argv[1], &end, 10);
	if (*end || q < 0 || q > 65535) {
		fprintf(stderr, "nfdelay: QUEUE %s: expected a number from 0 to 65535\n", argv[1]);
		return 2;
	}
	ms = strtol(argv[2], &end, 10);
	if (*end || ms < 0 || ms > 10000) {
		fprintf(stderr, "nfdelay: MS %s: expected milliseconds from 0 to 10000\n", argv[2]);
		return 2;
	}
	delay_s = (double)ms / 1000.0;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	h = nfq_open();
	if (!h) {
		fprintf(stderr, "nfdelay: nfq_open: %s\n", strerror(errno));
		return 1;
	}
	qh = nfq_create_queue(h, (uint16_t)q, on_packet, NULL);
	if (!qh) {
		fprintf(stderr, "nfdelay: queue %ld: %s\n", q, strerror(errno));
		nfq_close(h);
		return 1;
	}
	/* the kernel's queue full (or our socket's buffer): packets pass
	 * rather than being dropped */
	nfq_set_queue_flags(qh, NFQA_CFG_F_FAIL_OPEN, NFQA_CFG_F_FAIL_OPEN);
	nfnl_rcvbufsiz(nfq_nfnlh(h), 8u << 20);
	if (nfq_set_mode(qh, NFQNL_COPY_META, 0) < 0 || nfq_set_queue_maxlen(qh, HOLD_MAX) < 0) {
		fprintf(stderr, "nfdelay: queue %ld: cannot set its mode: %s\n", q, strerror(errno));
		nfq_destroy_queue(qh);
		nfq_close(h);
		return 1;
	}
	fd = nfq_fd(h);
	printf("nfdelay: ready (queue %ld, %ld ms)\n", q, ms);
	fflush(stdout);

	while (!stop) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		double t = now_s();
		int wait_ms = 100;
		release(qh, t);
		if (tail != head) {
			double w = ring[tail % HOLD_MAX].due - t;
			wait_ms = w <= 0 ? 0 : (int)(w * 1000.0) + 1;
			if (wait_ms > 100)
				wait_ms = 100;
		}
		if (poll(&p, 1, wait_ms) > 0) {
			ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
			if (n > 0)
				nfq_handle_packet(h, buf, (int)n);
			else if (n < 0 && errno == ENOBUFS)
				fprintf(stderr, "nfdelay: the kernel's queue overflowed (packets passed unheld)\n");
		}
	}
	release(qh, -1);
	nfq_destroy_queue(qh);
	nfq_close(h);
	printf("nfdelay: held %lu packet(s) %ld ms each; %lu passed at once (full)\n", held_total, ms, dropped);
	return 0;
}
