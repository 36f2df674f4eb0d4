/* profile.c - a light mpiP-like profile in TAU's text format. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "mwm.h"
#include "runtime.h"

const char *mwm_op_group(int op)
{
	const char *n = mwm_ops[op].name;
	switch (mwm_ops[op].kind) {
	case MW_KIND_IO:
		return "MPI_IO";
	case MW_KIND_RMA_SYNC:
		return "MPI_ONESIDED";
	case MW_KIND_COLLECTIVE:
		return strncmp(n, "MPI_Win", 7) == 0 ? "MPI_ONESIDED" : "MPI_COLLECTIVE";
	case MW_KIND_SEND:
	case MW_KIND_RECV:
	case MW_KIND_SENDRECV:
	case MW_KIND_PROBE:
		return "MPI_P2P_BLOCKING";
	case MW_KIND_WAIT:
	case MW_KIND_TEST:
		return "MPI_P2P_NONBLOCKING";
	case MW_KIND_NONBLOCKING:
		if (strncmp(n, "MPI_File", 8) == 0)
			return "MPI_IO";
		if (strstr(n, "send") || strstr(n, "recv") || strstr(n, "Start") || strstr(n, "_init"))
			return "MPI_P2P_NONBLOCKING";
		return "MPI_COLLECTIVE";
	default:
		return "MPI_OTHER";
	}
}

/* ---- compute phases (issue 14, doc/monitor.md "Compute phases") ----
 * The interval from the end of one MPI call to the start of the next is a
 * compute phase, named by the two calls' sites.  Per rank at most
 * MWM_PHASES pairs are kept (later new pairs are only counted) and of each
 * at most MWM_PHASE_SAMPLES intervals, a uniform sample of all of them
 * (reservoir sampling): 32 * (256 * 8 + 40) bytes, about 66 KiB, allocated
 * at the first interval.  Like the rest of the profile, meant for calls from
 * one thread at a time. */
#define MWM_PHASES 32
#define MWM_PHASE_SAMPLES 256

struct mwm_phase {
	uint64_t prev_site, site;
	int prev_op, op;
	uint64_t count; /* intervals seen */
	uint32_t n;     /* samples kept */
	double ns[MWM_PHASE_SAMPLES];
};

/* The pairs are found through a small open-addressed index (a pair's
 * slot is a hash of its two sites), so that a call costs the same few
 * instructions however many pairs the program has; a linear scan cost up
 * to MWM_PHASES comparisons (and as many divisions) on every call once the
 * table was full (hpcc: doc/benchmarks.md). */
#define MWM_PHASE_IDX 64 /* a power of two, at least 2 * MWM_PHASES */

static struct {
	struct mwm_phase *p; /* [MWM_PHASES] */
	int n;               /* pairs in use */
	uint8_t idx[MWM_PHASE_IDX]; /* 1 + index into p, 0 empty */
	uint64_t dropped;    /* intervals of pairs beyond MWM_PHASES */
	uint64_t last_end, last_site, rng;
	int last_op;
	struct mwm_phase *last_p; /* the pair found last: a polling loop repeats it */
} ph;

static unsigned phase_hash(uint64_t prev_site, uint64_t site)
{
	uint64_t h = (site ^ (prev_site * 0x9e3779b97f4a7c15ull)) * 0xbf58476d1ce4e5b9ull;
	return (unsigned)(h >> 58) & (MWM_PHASE_IDX - 1);
}

/* The pair (prev_site, site), added if there is room: NULL if the table is
 * full.  Every index is read once and checked before use: should threads
 * call MPI at once, a sample may be lost, never written outside. */
static struct mwm_phase *phase_find(uint64_t prev_site, uint64_t site, int op)
{
	unsigned h = phase_hash(prev_site, site);
	for (int probe = 0; probe < MWM_PHASE_IDX; probe++, h = (h + 1) & (MWM_PHASE_IDX - 1)) {
		unsigned e = ph.idx[h];
		struct mwm_phase *p;
		int np;
		if (e) {
			if (e > MWM_PHASES)
				return NULL;
			p = &ph.p[e - 1];
			if (p->site == site && p->prev_site == prev_site)
				return p;
			continue;
		}
		np = ph.n;
		if (np < 0 || np >= MWM_PHASES)
			return NULL;
		p = &ph.p[np];
		p->prev_site = prev_site;
		p->site = site;
		p->prev_op = ph.last_op;
		p->op = op;
		ph.n = np + 1;
		ph.idx[h] = (uint8_t)(np + 1);
		return p;
	}
	return NULL;
}

void mwm_phase_scale(double r)
{
	for (int i = 0; ph.p && i < ph.n; i++)
		for (uint32_t k = 0; k < ph.p[i].n; k++)
			ph.p[i].ns[k] *= r;
}

/* The pair (ph.last_site, site) when it is not the one found last: the
 * table allocated at the first interval, the pair looked up (added if
 * there is room).  Out of line, so that the common call, a loop repeating
 * its pair, saves no registers. */
static __attribute__((noinline, cold)) struct mwm_phase *phase_lookup(uint64_t site, int op)
{
	if (!ph.p) {
		if (!(ph.p = calloc(MWM_PHASES, sizeof(*ph.p))))
			return NULL;
		ph.rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)mwm.slot->world_rank;
	}
	return ph.last_p = phase_find(ph.last_site, site, op);
}

void mwm_phase_add(int op, uint64_t t0, uint64_t t1)
{
	uint64_t site = mwm.slot->call.site;
	if (ph.last_end && t0 >= ph.last_end) {
		struct mwm_phase *p = ph.last_p;
		if (!p || p->site != site || p->prev_site != ph.last_site)
			p = phase_lookup(site, op);
		if (!p) {
			ph.dropped++;
		} else {
			double v = (double)(t0 - ph.last_end);
			uint32_t k = p->n;
			p->count++;
			if (k < MWM_PHASE_SAMPLES) {
				p->ns[k] = v;
				p->n = k + 1;
			} else {
				/* xorshift64: keep each interval with probability K / count */
				uint64_t j, r = ph.rng;
				r ^= r << 13;
				r ^= r >> 7;
				r ^= r << 17;
				ph.rng = r;
				/* uniform in [0, count) without a division */
				j = (uint64_t)(((unsigned __int128)r * p->count) >> 64);
				if (j < MWM_PHASE_SAMPLES)
					p->ns[j] = v;
			}
		}
	}
	ph.last_end = t1;
	ph.last_site = site;
	ph.last_op = op;
}

/* "MPI_Recv@prog+0x1a2b": the op and its site relative to the object that
 * holds it (the same on every rank of one binary, whatever the load address). */
static void site_name(char *buf, size_t len, int op, uint64_t site)
{
	Dl_info di;
	const char *obj = "?", *slash;
	uint64_t off = site;
	if (site && dladdr((void *)(uintptr_t)site, &di) && di.dli_fname) {
		obj = di.dli_fname;
		off = site - (uint64_t)(uintptr_t)di.dli_fbase;
	}
	slash = strrchr(obj, '/');
	snprintf(buf, len, "%s@%s+0x%llx", mwm_ops[op].name, slash ? slash + 1 : obj, (unsigned long long)off);
	for (char *c = buf; *c; c++)
		if (*c == ' ' || *c == '\t' || *c == '\n' || *c == '>')
			*c = '_';
}

/* phases.RANK in dir: doc/schemas/profile.md "Compute phases". */
static int phases_write(const char *dir, int rank, const char *host)
{
	char path[PATH_MAX + 64], a[256], b[256];
	struct mw_atomic_file af;
	if (!ph.n)
		return 0;
	snprintf(path, sizeof(path), "%s/phases.%d", dir, rank);
	if (mw_atomic_open(&af, path, 0666) < 0)
		return -1;
	fprintf(af.f, "mpiwatch-phases 1\nrank %d node %s dropped %llu\n", rank, host,
		(unsigned long long)ph.dropped);
	for (int i = 0; i < ph.n && i < MWM_PHASES; i++) {
		const struct mwm_phase *p = &ph.p[i];
		site_name(a, sizeof(a), p->prev_op, p->prev_site);
		site_name(b, sizeof(b), p->op, p->site);
		uint32_t n = p->n < MWM_PHASE_SAMPLES ? p->n : MWM_PHASE_SAMPLES;
		fprintf(af.f, "phase %s>%s %llu %u\n", a, b, (unsigned long long)(p->count > n ? p->count : n), n);
		for (uint32_t k = 0; k < n; k++)
			fprintf(af.f, "%s%.0f", k ? " " : "", p->ns[k]);
		fputc('\n', af.f);
	}
	return mw_atomic_close(&af, 1);
}

int mwm_profile_write(void)
{
	const char *dir = mwm.profdir;
	char path[PATH_MAX + 64], host[64] = "";
	uint64_t in_mpi = 0, total;
	int nfun = 1, rank = mwm.slot->world_rank;
	FILE *f;
	if (!dir[0] || !mwm.prof)
		return 0;
	if (mwm_mkdirs(dir) < 0)
		return -1;
	mw_node_name(host, sizeof(host));
	for (int i = 0; i < mwm_nops; i++)
		if (mwm.prof[i].calls) {
			nfun++;
			in_mpi += mwm.prof[i].ns;
		}
	total = (mwm.prof_end_ns > mwm.prof_start_ns ? mwm.prof_end_ns : mwm_now_ns()) - mwm.prof_start_ns;
	snprintf(path, sizeof(path), "%s/profile.%d.0.0", dir, rank);
	struct mw_atomic_file af;
	if (mw_atomic_open(&af, path, 0666) < 0)
		return -1;
	f = af.f;
	fprintf(f, "%d templated_functions_MULTI_TIME\n", nfun);
	fprintf(f, "# Name Calls Subrs Excl Incl ProfileCalls # <metadata><attribute><name>Node "
		   "Name</name><value>%s</value></attribute><attribute><name>MPI Rank</name><value>%d"
		   "</value></attribute><attribute><name>Tool</name><value>mpiwatch %s</value>"
		   "</attribute></metadata>\n",
		host, rank, MW_VERSION);
	/* the application entry: exclusive = time outside MPI, inclusive = total */
	fprintf(f, "\".TAU application\" 1 %llu %.3f %.3f 0 GROUP=\"TAU_DEFAULT\"\n",
		(unsigned long long)(nfun - 1), (total > in_mpi ? total - in_mpi : 0) / 1e3, total / 1e3);
	for (int i = 0; i < mwm_nops; i++) {
		const struct mwm_prof *p = &mwm.prof[i];
		if (!p->calls)
			continue;
		fprintf(f, "\"%s()\" %llu 0 %.3f %.3f 0 GROUP=\"MPI|%s\"\n", mwm_ops[i].name,
			(unsigned long long)p->calls, p->ns / 1e3, p->ns / 1e3, mwm_op_group(i));
	}
	fprintf(f, "0 aggregates\n");
	int nev = 0;
	for (int i = 0; i < mwm_nops; i++)
		if (mwm.prof[i].bytes)
			nev++;
	fprintf(f, "%d userevents\n# eventname numevents max min mean sumsqr\n", nev);
	for (int i = 0; i < mwm_nops; i++) {
		const struct mwm_prof *p = &mwm.prof[i];
		if (!p->bytes)
			continue;
		/* over the calls that moved data (count > 0, known datatype) */
		fprintf(f, "\"Message size for %s()\" %llu %llu %llu %.3f %.1f\n", mwm_ops[i].name,
			(unsigned long long)p->nb, (unsigned long long)p->bmax, (unsigned long long)p->bmin,
			(double)p->bytes / (double)p->nb, p->bsumsq);
	}
	if (mw_atomic_close(&af, 1) < 0)
		return -1;
	return phases_write(dir, rank, host);
}
