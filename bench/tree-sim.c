/* bench/tree-sim: the tree overlay in one process, over the real planner
 * (tree/mwt_plan.c) and the real messages (shared/heartbeat.c frames,
 * tree/mwt_agg.c aggregates): N simulated BEs (one per node) under fanout
 * F.  Measures
 *   - the time to plan the tree and to build it (one aggregator and one
 *     sequence table per CP and at the front end);
 *   - one event from one leaf: a heartbeat encoded, decoded by its IBE,
 *     aggregated, and each CP on the path encodes its AGG frame, its parent
 *     decodes and merges it, up to the front end (the path's processing time,
 *     measured; the CPs' flush intervals come on top in a real tree);
 *   - the big event: every BE sends R heartbeats (all ranks stuck in one
 *     MPI_Allreduce), every CP aggregates bottom-up; the frames the front end
 *     handles, the events it counts, and the time of all the processing done
 *     in series (an upper bound: real CPs work in parallel);
 *   - the same heartbeats re-sent (every BE re-attached): the front end's
 *     count must not change;
 *   - the peak memory (ru_maxrss).
 * Usage: tree-sim [-n BES] [-f FANOUT] [-r RANKS_PER_BE]
 * Exit status 0 when the counts check out (events counted once, the front
 * end handled at most FANOUT frames per event), 1 otherwise. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "heartbeat.h"
#include "mwt_agg.h"
#include "mwt_plan.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long maxrss_kib(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

struct sim {
	struct mwt_plan p;
	size_t ncp;
	struct mwt_agg **agg; /* [ncp + 1]: the front end is index ncp */
	struct mwt_seq **seen;
	unsigned long fe_frames;
	unsigned long long fe_bytes;
};

static void die(const char *what)
{
	perror(what);
	exit(2);
}

/* BE b sends its heartbeat (rank, seq) to its IBE (or the front end), or
 * to the IBE of BE via when via != b (a re-attachment): one frame encoded,
 * decoded and added. */
static void be_send(struct sim *s, size_t b, size_t via, int rank, uint32_t seq, double t)
{
	struct mw_hb_msg m, d;
	uint8_t *buf;
	size_t len;
	int to = s->p.be_cp[via] < 0 ? (int)s->ncp : s->p.be_cp[via];
	memset(&m, 0, sizeof(m));
	m.type = MW_HB_HEARTBEAT;
	m.u.beat.rank = rank;
	m.u.beat.size = 1 << 23;
	m.u.beat.state = MW_HB_S_IN_MPI;
	strcpy(m.u.beat.call, "MPI_Allreduce");
	strcpy(m.u.beat.kind, "wait");
	strcpy(m.u.beat.comm, "world");
	m.u.beat.peer_world = -1;
	m.u.beat.root_world = -1;
	m.u.beat.tag = -1;
	m.u.beat.exit_code = -1;
	m.u.beat.idle_s = 60;
	m.u.beat.seq = seq;
	if (mw_hb_encode(&m, &buf, &len) < 0 || mw_hb_decode(buf, len, &d) != MW_HB_OK)
		die("heartbeat frame");
	if (to == (int)s->ncp) {
		s->fe_frames++;
		s->fe_bytes += len;
	}
	if (mwt_agg_add(s->agg[to], s->seen[to], s->p.hosts[s->p.be_host[b]].name, &d.u.beat, t) < 0)
		die("mwt_agg_add");
	free(buf);
}

/* CP c sends its aggregate (if not empty) to its parent: one AGG frame
 * encoded, decoded, parsed and merged; c's aggregate is then empty. */
static void cp_flush(struct sim *s, size_t c)
{
	struct mw_hb_msg d;
	struct mwt_agg *in;
	uint8_t *buf;
	size_t len;
	char err[128];
	int to = s->p.cp_parent[c] < 0 ? (int)s->ncp : s->p.cp_parent[c];
	if (!mwt_agg_events(s->agg[c]))
		return;
	if (mwt_agg_encode(s->agg[c], &buf, &len) < 0 || mw_hb_decode(buf, len, &d) != MW_HB_OK)
		die("aggregate frame");
	in = mwt_agg_from_json(d.u.agg.json, strlen(d.u.agg.json), err, sizeof(err));
	if (!in) {
		fprintf(stderr, "tree-sim: %s: %.600s\n", err, d.u.agg.json);
		exit(2);
	}
	if (to == (int)s->ncp) {
		s->fe_frames++;
		s->fe_bytes += len;
	}
	if (mwt_agg_merge(s->agg[to], s->seen[to], in) < 0)
		die("mwt_agg_merge");
	mwt_agg_destroy(in);
	mw_hb_msg_free(&d);
	free(buf);
	mwt_agg_reset(s->agg[c]);
}

int main(int argc, char **argv)
{
	long nbe = 100000, fanout = MWT_FANOUT_DEFAULT, ranks = 1;
	struct mwt_host *hosts;
	struct mwt_plan_opts o = {MWT_AVERAGE, MWT_FANOUT_DEFAULT, -1, NULL};
	struct sim s;
	char err[256];
	double t0, t_plan, t_build, t_leaf, t_event, t_resend;
	unsigned long leaf_frames, event_frames;
	uint64_t counted;
	long rss_plan, rss_build, rss_event;
	size_t i, c, b, leaf;
	int opt, ok = 1, depth_path = 0;

	while ((opt = getopt(argc, argv, "n:f:r:")) != -1) {
		switch (opt) {
		case 'n': nbe = atol(optarg); break;
		case 'f': fanout = atol(optarg); break;
		case 'r': ranks = atol(optarg); break;
		default:
			fprintf(stderr, "usage: tree-sim [-n BES] [-f FANOUT] [-r RANKS_PER_BE]\n");
			return 2;
		}
	}
	if (nbe < 1 || nbe > 10000000 || fanout < 2 || fanout > MWT_FANOUT_MAX || ranks < 1 || ranks > 1024) {
		fprintf(stderr, "tree-sim: -n 1..10000000, -f 2..%d, -r 1..1024\n", MWT_FANOUT_MAX);
		return 2;
	}
	hosts = calloc((size_t)nbe, sizeof(*hosts));
	if (!hosts)
		die("calloc");
	for (i = 0; i < (size_t)nbe; i++) {
		snprintf(hosts[i].name, sizeof(hosts[i].name), "n%07zu", i + 1);
		hosts[i].be = 1;
	}
	o.fanout = (int)fanout;

	/* plan, then build: an aggregator and a sequence table per CP and at the front end */
	t0 = now();
	if (mwt_plan_build(hosts, (size_t)nbe, &o, &s.p, err, sizeof(err)) < 0) {
		fprintf(stderr, "tree-sim: %s\n", err);
		return 2;
	}
	t_plan = now() - t0;
	rss_plan = maxrss_kib();
	s.ncp = s.p.ncp;
	s.fe_frames = 0;
	s.fe_bytes = 0;
	s.agg = calloc(s.ncp + 1, sizeof(*s.agg));
	s.seen = calloc(s.ncp + 1, sizeof(*s.seen));
	if (!s.agg || !s.seen)
		die("calloc");
	for (c = 0; c <= s.ncp; c++) {
		s.agg[c] = mwt_agg_create(c == s.ncp ? hosts[0].name : hosts[s.p.cp_host[c]].name);
		s.seen[c] = mwt_seq_create();
		if (!s.agg[c] || !s.seen[c])
			die("create");
	}
	t_build = now() - t0;
	rss_build = maxrss_kib();

	/* one event from one leaf: the last BE (the far end of the tree) */
	leaf = (size_t)nbe - 1;
	t0 = now();
	be_send(&s, leaf, leaf, (int)leaf, 1, 1.0);
	for (c = s.p.be_cp[leaf] < 0 ? s.ncp : (size_t)s.p.be_cp[leaf]; c < s.ncp;
	     c = s.p.cp_parent[c] < 0 ? s.ncp : (size_t)s.p.cp_parent[c]) {
		cp_flush(&s, c);
		depth_path++;
	}
	t_leaf = now() - t0;
	leaf_frames = s.fe_frames;
	if (mwt_agg_events(s.agg[s.ncp]) != 1)
		ok = 0;

	/* the big event: every BE, every rank (seq 2..ranks+1; the leaf's seq 1 was sent) */
	s.fe_frames = 0;
	t0 = now();
	for (b = 0; b < (size_t)nbe; b++)
		for (i = 0; i < (size_t)ranks; i++)
			be_send(&s, b, b, (int)(b * (size_t)ranks + i), (uint32_t)(i + 2), 2.0 + b * 1e-6);
	for (c = s.ncp; c-- > 0;) /* children have larger indexes than their parent */
		cp_flush(&s, c);
	t_event = now() - t0;
	event_frames = s.fe_frames;
	counted = mwt_agg_events(s.agg[s.ncp]);
	rss_event = maxrss_kib();
	if (counted != 1 + (uint64_t)nbe * (uint64_t)ranks || event_frames > (unsigned long)fanout)
		ok = 0;

	/* every BE re-sends through another IBE (as after a re-attachment):
	 * nothing counted twice */
	t0 = now();
	for (b = 0; b < (size_t)nbe; b++)
		for (i = 0; i < (size_t)ranks; i++)
			be_send(&s, b, (b + (size_t)s.p.attach_fanout) % (size_t)nbe, (int)(b * (size_t)ranks + i),
				(uint32_t)(i + 2), 3.0);
	for (c = s.ncp; c-- > 0;)
		cp_flush(&s, c);
	t_resend = now() - t0;
	if (mwt_agg_events(s.agg[s.ncp]) != counted)
		ok = 0;

	printf("bes=%ld fanout=%ld ranks_per_be=%ld cps=%zu ibes=%zu depth=%d attach_fanout=%d\n", nbe, fanout,
	       ranks, s.ncp, s.p.nibe, s.p.depth, s.p.attach_fanout);
	printf("plan_s=%.3f plan_and_build_s=%.3f rss_after_plan_kib=%ld rss_after_build_kib=%ld\n", t_plan,
	       t_build, rss_plan, rss_build);
	printf("leaf_event: hops=%d processing_s=%.6f fe_frames=%lu fe_events=1\n", depth_path + 1, t_leaf,
	       leaf_frames);
	printf("big_event: heartbeats=%ld fe_frames=%lu fe_bytes=%llu fe_events=%llu fe_classes=%zu "
	       "serial_processing_s=%.3f rss_kib=%ld\n",
	       nbe * ranks, event_frames, s.fe_bytes, (unsigned long long)counted - 1, mwt_agg_nclasses(s.agg[s.ncp]),
	       t_event, rss_event);
	printf("resend: fe_events=%llu (unchanged: %s) serial_processing_s=%.3f\n",
	       (unsigned long long)mwt_agg_events(s.agg[s.ncp]) - 1, mwt_agg_events(s.agg[s.ncp]) == counted ? "yes" : "NO",
	       t_resend);
	printf("%s\n", ok ? "ok" : "FAILED");
	for (c = 0; c <= s.ncp; c++) {
		mwt_agg_destroy(s.agg[c]);
		mwt_seq_destroy(s.seen[c]);
	}
	free(s.agg);
	free(s.seen);
	mwt_plan_free(&s.p);
	free(hosts);
	return ok ? 0 : 1;
}
