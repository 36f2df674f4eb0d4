/* nhd_rl.c - per-source token buckets in a small fixed table. */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "nhd_rl.h"

int nhd_rl_init(struct nhd_rl *rl, size_t entries, double rate, double burst)
{
	size_t sets = 1;
	memset(rl, 0, sizeof(*rl));
	if (entries == 0 || entries > (1u << 24)) {
		errno = EINVAL;
		return -1;
	}
	while (sets * NHD_RL_WAYS < entries)
		sets <<= 1;
	rl->e = calloc(sets * NHD_RL_WAYS, sizeof(*rl->e));
	if (!rl->e)
		return -1;
	rl->nsets = sets;
	if (getrandom(&rl->seed, sizeof(rl->seed), GRND_NONBLOCK) != sizeof(rl->seed))
		rl->seed = (uint64_t)(uintptr_t)rl ^ 0x9e3779b97f4a7c15ull;
	nhd_rl_set(rl, rate, burst);
	return 0;
}

void nhd_rl_set(struct nhd_rl *rl, double rate, double burst)
{
	rl->rate = rate > 0 ? rate : 0;
	rl->burst = burst >= 1 ? burst : 1;
	for (size_t i = 0; i < rl->nsets * NHD_RL_WAYS; i++)
		if (rl->e[i].tokens > rl->burst)
			rl->e[i].tokens = rl->burst;
}

void nhd_rl_destroy(struct nhd_rl *rl)
{
	free(rl->e);
	memset(rl, 0, sizeof(*rl));
}

static void make_key(const struct sockaddr *sa, uint8_t key[16])
{
	memset(key, 0, 16);
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)(const void *)sa;
		key[10] = key[11] = 0xff;
		memcpy(key + 12, &s4->sin_addr, 4);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)(const void *)sa;
		memcpy(key, &s6->sin6_addr, 16);
	}
}

static uint64_t hash_key(const uint8_t key[16], uint64_t seed)
{
	uint64_t h = 1469598103934665603ull ^ seed;
	for (int i = 0; i < 16; i++) {
		h ^= key[i];
		h *= 1099511628211ull;
	}
	return h ^ (h >> 29);
}

int nhd_rl_allow(struct nhd_rl *rl, const struct sockaddr *sa, double now)
{
	uint8_t key[16];
	struct nhd_rl_entry *set, *x = NULL, *victim = NULL;

	if (rl->rate <= 0 || !rl->e)
		return 1;
	make_key(sa, key);
	set = &rl->e[(hash_key(key, rl->seed) & (rl->nsets - 1)) * NHD_RL_WAYS];
	for (int i = 0; i < NHD_RL_WAYS && !x; i++)
		if (set[i].used && !memcmp(set[i].key, key, 16))
			x = &set[i];
	for (int i = 0; i < NHD_RL_WAYS && !x; i++) {
		if (!set[i].used) {
			victim = &set[i];
			break;
		}
		if (!victim || set[i].last < victim->last)
			victim = &set[i];
	}
	if (!x) {
		x = victim;
		memcpy(x->key, key, 16);
		x->used = 1;
		x->tokens = rl->burst;
		x->last = now;
	}
	if (now > x->last) {
		x->tokens += (now - x->last) * rl->rate;
		if (x->tokens > rl->burst)
			x->tokens = rl->burst;
	}
	x->last = now;
	if (x->tokens >= 1) {
		x->tokens -= 1;
		return 1;
	}
	return 0;
}
