/* nhd_rl.h - per-source token buckets in a small fixed table. */
#ifndef NHD_RL_H
#define NHD_RL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define NHD_RL_WAYS 4

struct nhd_rl_entry {
	uint8_t key[16]; /* IPv6 address, IPv4 as ::ffff:a.b.c.d */
	uint8_t used;
	double tokens;
	double last;     /* monotonic seconds of the last refill */
};

/* A set-associative table: a source maps to one set of NHD_RL_WAYS entries;
 * an unknown source takes the least recently used entry of its set (so a
 * flood of spoofed sources can only reset buckets to full, never block). */
struct nhd_rl {
	size_t nsets;
	struct nhd_rl_entry *e;
	double rate;   /* tokens per second; 0 = no limit */
	double burst;
	uint64_t seed; /* random hash key */
};

/* Make a table of about entries buckets (rounded up to a power of two
 * multiple of NHD_RL_WAYS).  Return 0, or -1 (errno ENOMEM/EINVAL). */
int nhd_rl_init(struct nhd_rl *rl, size_t entries, double rate, double burst);

/* Change the rate and burst (buckets are kept, clamped to the new burst). */
void nhd_rl_set(struct nhd_rl *rl, double rate, double burst);

void nhd_rl_destroy(struct nhd_rl *rl);

/* Return 1 if a packet from sa may be answered at monotonic time now (and
 * take a token), 0 if the source is over its rate. */
int nhd_rl_allow(struct nhd_rl *rl, const struct sockaddr *sa, double now);

#endif
