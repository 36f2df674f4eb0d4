/* cal_work.c - the workload and its measurement (cal_work.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cal_work.h"

struct cal_flush {
	uint64_t *buf;
	size_t words;
	uint64_t state; /* xorshift64 */
};

uint64_t cal_chain(uint64_t groups)
{
	uint64_t acc = 0;
	if (groups == 0)
		return 0;
#if defined(__x86_64__)
	/* Eight additions, each waiting for the one before (one register);
	 * the loop counter is a second, independent chain. */
	__asm__ volatile("1:\n\t"
			 "add %[one], %[acc]\n\t"
			 "add %[one], %[acc]\n\t"
			 "add %[one], %[acc]\n\t"
			 "add %[one], %[acc]\n\t"
			 "add %[one], %[acc]\n\t"
			 "add %[one], %[acc]\n\t"
			 "add %[one], %[acc]\n\t"
			 "add %[one], %[acc]\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [acc] "+r"(acc), [n] "+r"(groups)
			 : [one] "r"((uint64_t)1)
			 : "cc");
#else
	/* The empty asm makes acc opaque after every addition: the compiler
	 * can neither fold the chain nor reorder it. */
	for (uint64_t g = 0; g < groups; g++)
		for (int k = 0; k < CAL_GROUP; k++) {
			acc += 1;
			__asm__ volatile("" : "+r"(acc));
		}
#endif
	return acc;
}

struct cal_flush *cal_flush_create(size_t bytes, uint64_t seed)
{
	struct cal_flush *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	bytes = (bytes + 4095) & ~(size_t)4095;
	f->words = bytes / sizeof(uint64_t);
	f->state = seed ? seed : 0x9e3779b97f4a7c15ull;
	if (f->words) {
		f->buf = malloc(bytes);
		if (!f->buf) {
			free(f);
			return NULL;
		}
		cal_flush_run(f);
	}
	return f;
}

void cal_flush_run(struct cal_flush *f)
{
	if (!f)
		return;
	uint64_t x = f->state;
	volatile uint64_t *b = f->buf;
	for (size_t i = 0; i < f->words; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b[i] = x;
	}
	f->state = x;
}

size_t cal_flush_bytes(const struct cal_flush *f)
{
	return f ? f->words * sizeof(uint64_t) : 0;
}

void cal_flush_destroy(struct cal_flush *f)
{
	if (f) {
		free(f->buf);
		free(f);
	}
}

size_t cal_flush_default(size_t cap)
{
	long best = 0;
#ifdef _SC_LEVEL3_CACHE_SIZE
	long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
	if (l3 > best)
		best = l3;
#endif
#ifdef _SC_LEVEL2_CACHE_SIZE
	long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
	if (l2 > best)
		best = l2;
#endif
	size_t b = best > 0 ? (size_t)best : (size_t)4 << 20;
	return b < cap ? b : cap;
}

int cal_round_init(struct cal_round *r, uint64_t adds, size_t n, int with_cycles)
{
	memset(r, 0, sizeof(*r));
	r->adds = adds;
	r->n = n;
	r->ns = calloc(n ? n : 1, sizeof(double));
	if (with_cycles)
		r->cy = calloc(n ? n : 1, sizeof(double));
	if (!r->ns || (with_cycles && !r->cy)) {
		cal_round_free(r);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void cal_round_free(struct cal_round *r)
{
	free(r->cy);
	free(r->ns);
	r->cy = r->ns = NULL;
	r->n = 0;
}

void cal_measure(struct cal_round *r, size_t i, const struct cal_timer_info *ti,
		 struct cal_flush *fl)
{
	uint64_t groups = r->adds / CAL_GROUP;
	int tscp = ti->rdtscp;
	cal_flush_run(fl);
	/* The cycle interval inside the wall interval: clock_gettime's cost
	 * varies by hundreds of cycles in a guest (kvm-clock), rdtsc's does
	 * not, so the cycle counter brackets only the work (doc/calibrate.md). */
	uint64_t n1 = cal_now_ns();
	uint64_t c1 = cal_cycles_start();
	uint64_t s = cal_chain(groups ? groups : 1);
	uint64_t c2 = cal_cycles_stop(tscp);
	uint64_t n2 = cal_now_ns();
	__asm__ volatile("" ::"r"(s));
	if (r->cy)
		r->cy[i] = (double)(int64_t)(c2 - c1) - ti->l_cy;
	r->ns[i] = (double)(int64_t)(n2 - n1) - ti->l_ts;
}
