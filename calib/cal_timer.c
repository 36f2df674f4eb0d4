/* cal_timer.c - timer detection and timer costs (cal_timer.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "cal_stats.h"
#include "cal_timer.h"

/* Whether the whitespace-separated word w is on line [s, e). */
static int has_word(const char *s, const char *e, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = s; p + n <= e; p++)
		if (!memcmp(p, w, n) && (p == s || p[-1] == ' ' || p[-1] == '\t') &&
		    (p + n == e || p[n] == ' ' || p[n] == '\t' || p[n] == '\n'))
			return 1;
	return 0;
}

int cal_cpuinfo_invariant(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		if ((size_t)(e - p) > 5 && !memcmp(p, "flags", 5))
			return has_word(p, e, "constant_tsc") && has_word(p, e, "nonstop_tsc");
		p = e + 1;
	}
	return 0;
}

#if defined(__x86_64__)
/* The first "flags" line of /proc/cpuinfo into buf (empty if none). */
static void cpuinfo_flags(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	buf[0] = 0;
	if (!f)
		return;
	while (fgets(buf, (int)len, f))
		if (!strncmp(buf, "flags", 5)) {
			fclose(f);
			return;
		}
	buf[0] = 0;
	fclose(f);
}
#endif

void cal_timer_detect(struct cal_timer_info *ti)
{
	memset(ti, 0, sizeof(*ti));
	ti->invariant_how = "none";
#if defined(__x86_64__)
	unsigned a, b, c, d;
	char flags[8192];
	ti->have_cycles = 1;
	cpuinfo_flags(flags, sizeof(flags));
	if (__get_cpuid(0x80000000u, &a, &b, &c, &d) && a >= 0x80000001u) {
		/* rdtscp only if the kernel lists it too: hypervisors and emulators
		 * (valgrind) may claim it in cpuid and then fault on it. */
		if (__get_cpuid(0x80000001u, &a, &b, &c, &d))
			ti->rdtscp = ((d >> 27) & 1) &&
				     (!flags[0] || has_word(flags, flags + strlen(flags), "rdtscp"));
		if (__get_cpuid(0x80000000u, &a, &b, &c, &d) && a >= 0x80000007u &&
		    __get_cpuid(0x80000007u, &a, &b, &c, &d) && ((d >> 8) & 1)) {
			ti->invariant_tsc = 1;
			ti->invariant_how = "cpuid";
		}
	}
	if (!ti->invariant_tsc && cal_cpuinfo_invariant(flags, strlen(flags))) {
		ti->invariant_tsc = 1;
		ti->invariant_how = "cpuinfo";
	}
#endif
}

/* One (cycles, ns) pair read close together: of a few tries, the one whose
 * cycle reads around the clock_gettime are nearest (a preemption between
 * them would otherwise count as time on one clock only). */
static void paired_read(int tscp, double *cy, double *ns)
{
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 16; i++) {
		uint64_t c1 = cal_cycles_start(), n = cal_now_ns(), c2 = cal_cycles_stop(tscp);
		if (c2 >= c1 && c2 - c1 < best) {
			best = c2 - c1;
			*cy = (double)c1 + (double)(c2 - c1) / 2;
			*ns = (double)n;
		}
	}
}

double cal_tsc_rate(int use_rdtscp, unsigned ms)
{
	double c0 = 0, n0 = 0, c1 = 0, n1 = 0;
	if (!CAL_HAVE_CYCLES || ms == 0)
		return 0;
	paired_read(use_rdtscp, &c0, &n0);
	while (cal_now_ns() - (uint64_t)n0 < (uint64_t)ms * 1000000u)
		;
	paired_read(use_rdtscp, &c1, &n1);
	return n1 > n0 ? (c1 - c0) / (n1 - n0) : 0;
}

int cal_timer_measure(struct cal_timer_info *ti, size_t samples, unsigned rate_ms)
{
	int rv = -1;
	cal_timer_detect(ti);
	if (samples == 0) {
		errno = EINVAL;
		return -1;
	}
	double *a = malloc(samples * sizeof(*a)), *b = malloc(samples * sizeof(*b));
	double *c = malloc(samples * sizeof(*c)), *d = malloc(samples * sizeof(*d));
	if (!a || !b || !c || !d)
		goto fail;
	int tscp = ti->rdtscp;
	for (size_t i = 0; i < samples; i++) {
		uint64_t c1 = cal_cycles_start();
		uint64_t c2 = cal_cycles_stop(tscp);
		uint64_t n1 = cal_now_ns();
		uint64_t n2 = cal_now_ns();
		if (c2 < c1 || n2 < n1)
			ti->backward_steps++;
		a[i] = (double)(int64_t)(c2 - c1);
		b[i] = (double)(int64_t)(n2 - n1);
		/* The pair as the workload is timed, with nothing between. */
		n1 = cal_now_ns();
		c1 = cal_cycles_start();
		c2 = cal_cycles_stop(tscp);
		n2 = cal_now_ns();
		if (c2 < c1 || n2 < n1)
			ti->backward_steps++;
		c[i] = (double)(int64_t)(c2 - c1);
		d[i] = (double)(int64_t)(n2 - n1);
	}
	ti->step_ns = cal_clock_step(b, samples);
	cal_sort(a, samples);
	cal_sort(b, samples);
	cal_sort(c, samples);
	cal_sort(d, samples);
	ti->samples = samples;
	ti->read_cycles_cy = ti->have_cycles ? cal_quantile_sorted(a, samples, 0.5) : 0;
	ti->read_ns_ns = cal_quantile_sorted(b, samples, 0.5);
	ti->l_cy = ti->have_cycles ? cal_quantile_sorted(c, samples, 0.5) : 0;
	ti->l_ts = cal_quantile_sorted(d, samples, 0.5);
	if (ti->have_cycles && rate_ms > 0)
		ti->tsc_ghz = cal_tsc_rate(tscp, rate_ms);
	rv = 0;
fail:
	free(a);
	free(b);
	free(c);
	free(d);
	return rv;
}

double cal_clock_step(const double *x, size_t n)
{
	double *s, mean[64], step = 0;
	size_t nm = 0;
	if (n == 0 || !(s = malloc(n * sizeof(*s))))
		return 0;
	memcpy(s, x, n * sizeof(*s));
	cal_sort(s, n);
	/* The frequent values (at least 1 % of n each), joined into clusters
	 * where they are 1 ns apart: a 10 ns clock converted from the TSC gives
	 * 20 and 21, 30 and 31.  The step is the smallest distance between
	 * neighbouring clusters' means. */
	double sum = 0, prev = 0, first = 0;
	size_t cnt = 0;
	int wide = 0; /* a cluster wider than 1 ns: the clock resolves finer */
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && s[j] == s[i]; j++)
			;
		if (s[i] < 1 || (j - i) * 100 < n)
			continue;
		if (cnt && s[i] - prev > 1.5) { /* a new cluster */
			if (nm < 64)
				mean[nm++] = sum / (double)cnt;
			sum = 0, cnt = 0;
		}
		if (!cnt)
			first = s[i];
		sum += s[i] * (double)(j - i), cnt += j - i, prev = s[i];
		wide |= prev - first > 1.5;
	}
	if (cnt && nm < 64)
		mean[nm++] = sum / (double)cnt;
	free(s);
	for (size_t k = 1; k < nm; k++)
		if (step == 0 || mean[k] - mean[k - 1] < step)
			step = mean[k] - mean[k - 1];
	return nm > 1 && !wide ? round(step) : nm ? 1 : 0;
}
