/* watcher.c - the library's watcher thread: coarse clock, stall rule,
 * dumps.  It takes no signal (all blocked), installs no handler and makes
 * no MPI call except the thread-safe MPI_T queries of the glue. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dump.h"
#include "log.h"
#include "motion.h"
#include "ops.h"
#include "mwm.h"
#include "runtime.h"

static pthread_t th;
static int th_running;
static int th_stop;
static pthread_mutex_t th_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t th_cv;

int mwm_stall_check(struct mwm_stall *st, const struct mw_slot *s, uint64_t now_ns, double timeout_s)
{
	/* the one rule (shared/stall.c); a dump once per stuck call or
	 * polling episode */
	enum mw_stall_class c = mw_stall_rule(&st->rule, s, (double)now_ns / 1e9, timeout_s);
	if (c == MW_STALL_STUCK && st->dumped_a != s->a + 1) {
		st->dumped_a = s->a + 1;
		return 1;
	}
	if (c == MW_STALL_POLLING && st->dumped_compl != s->completions + 1) {
		st->dumped_compl = s->completions + 1;
		return 2;
	}
	return 0;
}

/* Sample the motion signals while the rank waits (in a blocking call, or
 * polling with requests pending) with nothing completed since the last
 * tick, and publish a movement in the slot's motion block; *sn gets the new
 * values too. */
static void probe_motion(struct mwm_motion *m, struct mw_slot_snap *sn, uint64_t now)
{
	static uint64_t last_completions = UINT64_MAX, last_a = UINT64_MAX;
	struct mw_slot *s = mwm.slot;
	const struct mw_slot *v = &sn->s;
	int waiting = (v->state == MW_STATE_IN_MPI && v->call.blocking && v->a != v->b &&
		       v->call.op_id != MWM_OP_Finalize) ||
		      (v->pending > 0 && v->call.kind == MW_KIND_TEST);
	uint32_t moved;
	if (!waiting || v->completions != last_completions || v->a != last_a) {
		last_completions = v->completions;
		last_a = v->a;
		mwm_motion_reset(m);
		if (!waiting)
			return;
	}
	moved = mwm_motion_sample(m, v);
	if (!moved)
		return;
	if (mwm_settings()->debug) {
		char what[32];
		fprintf(stderr, "mpiwatch: rank %d: its transfer moves (%s)\n", v->world_rank,
			mw_motion_names(moved, what, sizeof what));
	}
	__atomic_store_n(&s->seq2, s->seq2 + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	s->motion++;
	s->motion_ns = now;
	s->motion_src = moved;
	__atomic_store_n(&s->seq2, s->seq2 + 1, __ATOMIC_RELEASE);
	sn->s.motion = s->motion;
	sn->s.motion_ns = now;
	sn->s.motion_src = moved;
}

/* Translate the current call's comm and ranks for the agent. */
static void resolve(const struct mw_slot_snap *sn)
{
	struct mw_slot *s = mwm.slot;
	const struct mw_slot_call *c = &sn->s.call;
	const struct mwm_comm *cm;
	if (sn->s.resolved_calls == sn->s.calls)
		return;
	mwm_comms_reader_begin(&mwm.comms);
	cm = c->comm ? mwm_comms_find(&mwm.comms, c->comm) : NULL;
	__atomic_store_n(&s->seq2, s->seq2 + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	s->resolved_a = sn->s.a;
	s->resolved_calls = sn->s.calls - sn->s.polls; /* the record's own count (mw_slot_snapshot) */
	s->comm_id = cm ? cm->id : -1;
	s->comm_size = cm ? cm->size : 0;
	snprintf(s->comm_gid, sizeof(s->comm_gid), "%s", cm ? cm->gid : "");
	s->peer_world = mwm_comm_to_world(cm, mwm_norm_rank(c->peer));
	s->root_world = mwm_comm_to_world(cm, mwm_norm_rank(c->root));
	s->send_peer_world = mwm_comm_to_world(cm, mwm_norm_rank(c->send_peer));
	__atomic_store_n(&s->seq2, s->seq2 + 1, __ATOMIC_RELEASE);
	mwm_comms_reader_end(&mwm.comms);
}

static void set_clock(uint64_t now)
{
	struct mw_slot *s = mwm.slot;
	__atomic_store_n(&mwm.clock_ns, now, __ATOMIC_RELAXED);
	/* a new tick: no poll is blind until the main thread arms again */
	__atomic_store_n(&mwm.blind.a, MWM_BLIND_NONE, __ATOMIC_RELAXED);
	__atomic_store_n(&s->seq2, s->seq2 + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	s->now_ns = now;
	__atomic_store_n(&s->seq2, s->seq2 + 1, __ATOMIC_RELEASE);
}

int mwm_dump_write(const char *reason)
{
	struct mw_slot_snap sn;
	struct mwm_callx x;
	struct mwm_dumpin in;
	struct mwm_req *pend = NULL, recent[MWM_RING], bsends[MWM_RING];
	struct mwm_frame *frames = NULL;
	struct json_object *obj = NULL;
	struct timespec rt;
	char path[1200];
	long unexp = -1, *pp = NULL;
	int rv = -1, tries;
	static int warned;

	if (!mwm.dumpdir[0])
		return 0; /* nowhere to write: stay quiet */
	memset(&in, 0, sizeof(in));
	/* consistent copy of the slot and of the wait list */
	for (tries = 0; tries < 100; tries++) {
		uint64_t q = __atomic_load_n(&mwm.slot->seq, __ATOMIC_ACQUIRE);
		if (q & 1)
			continue;
		mw_slot_snapshot(mwm.slot, &sn);
		memcpy(&x, &mwm.x, sizeof(x));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&mwm.slot->seq, __ATOMIC_RELAXED) == q && sn.live_ok)
			break;
	}
	if (tries == 100) {
		errno = EAGAIN;
		return -1;
	}
	pend = calloc(mwm.reqs.cap ? mwm.reqs.cap : 1, sizeof(*pend));
	frames = calloc(64, sizeof(*frames));
	if (!pend || !frames)
		goto out;
	in.reason = reason;
	in.slot = &sn.s;
	in.x = &x;
	in.pending = pend;
	in.npending = mwm_reqtab_snapshot(&mwm.reqs, pend, (int)mwm.reqs.cap);
	in.recent = recent;
	in.nrecent = mwm_ring_snapshot(&mwm.ring, recent);
	in.bsends = bsends;
	in.nbsends = mwm_bsends_snapshot(&mwm.bsends, bsends, &in.bsends_total);
	if (sn.s.state == MW_STATE_IN_MPI || !strcmp(reason, "polling")) {
		in.frames = frames;
		in.nframes = mwm_stack_scan((uintptr_t)sn.s.call.site,
					    sn.s.state == MW_STATE_IN_MPI ? (uintptr_t)sn.s.call.frame : 0,
					    mwm.stack_hi, frames, 64, &in.stack_method);
		for (int i = 0; i < in.nframes; i++)
			mwm_frame_symbolize(&frames[i]);
	}
	in.unexp_comm = sn.s.call.comm ? sn.s.call.comm : mwm.comm_world;
	pp = calloc(4096, sizeof(long));
	if (pp && mwm_glue_mpit_unexpected(in.unexp_comm, &unexp, pp, 4096, &in.unexp_npeers) == 0) {
		in.unexp_per_peer = pp;
		in.unexp_source = "mpi_t";
		in.unexp_count = unexp;
	} else {
		in.unexp_source = "none";
		in.unexp_count = -1;
	}
	clock_gettime(CLOCK_REALTIME, &rt);
	in.now_unix = (double)rt.tv_sec + rt.tv_nsec / 1e9;
	in.now_ns = mwm_now_ns();
	mwm_comms_reader_begin(&mwm.comms);
	obj = mwm_dump_build(&in);
	mwm_comms_reader_end(&mwm.comms);
	if (!obj)
		goto out;
	if (mwm_dump_save(obj, mwm.dumpdir, sn.s.world_rank, path, sizeof(path)) < 0) {
		if (!warned++) {
			mw_log_open("mpiwatch", MW_LOG_STDERR, LOG_WARNING);
			mw_warn("cannot write the state dump in %s: %s", mwm.dumpdir, strerror(errno));
		}
		goto out;
	}
	__atomic_store_n(&mwm.slot->seq2, mwm.slot->seq2 + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	snprintf(mwm.slot->dump_path, sizeof(mwm.slot->dump_path), "%.511s", path);
	mwm.slot->dumps++;
	__atomic_store_n(&mwm.slot->seq2, mwm.slot->seq2 + 1, __ATOMIC_RELEASE);
	rv = 0;
out:
	if (obj)
		json_object_put(obj);
	free(pp);
	free(pend);
	free(frames);
	return rv;
}

/* A dump describes one stuck moment.  Once the rank moves on (a new call, or
 * a request completes), the dump is renamed rank-<N>.json.stale, so neither
 * the analysis nor a person takes it for the rank's present state. */
static struct {
	int have;
	uint64_t a, completions;
} last_dump;

static void retire_stale_dump(const struct mw_slot_snap *sn)
{
	char stale[sizeof(mwm.slot->dump_path) + 8];
	if (!last_dump.have || (sn->s.a == last_dump.a && sn->s.completions == last_dump.completions))
		return;
	last_dump.have = 0;
	snprintf(stale, sizeof(stale), "%s.stale", mwm.slot->dump_path);
	if (mwm.slot->dump_path[0])
		rename(mwm.slot->dump_path, stale);
}

static void note_dump(const struct mw_slot_snap *sn)
{
	last_dump.have = 1;
	last_dump.a = sn->s.a;
	last_dump.completions = sn->s.completions;
}

static void *watch(void *arg)
{
	struct mwm_stall st;
	struct mwm_motion mo;
	uint64_t tick_ns = (uint64_t)(mwm.timeout_s * 1e8); /* timeout / 10 */
	(void)arg;
	memset(&st, 0, sizeof(st));
	memset(&mo, 0, sizeof(mo));
	if (tick_ns > 100000000ull)
		tick_ns = 100000000ull;
	pthread_mutex_lock(&th_mu);
	while (!th_stop) {
		struct timespec ts;
		struct mw_slot_snap sn;
		uint64_t now;
		int r;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += (long)tick_ns;
		while (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&th_cv, &th_mu, &ts);
		if (th_stop)
			break;
		pthread_mutex_unlock(&th_mu);
		now = mwm_now_ns();
		set_clock(now);
		int have_sn = mw_slot_snapshot(mwm.slot, &sn) == 0 || sn.live_ok;
		if (have_sn) {
			retire_stale_dump(&sn);
			if (sn.s.state == MW_STATE_IN_MPI)
				resolve(&sn);
			probe_motion(&mo, &sn, now);
			r = mwm_stall_check(&st, &sn.s, now, mwm.timeout_s);
			if (r && mwm_dump_write(r == 1 ? "stuck" : "polling") == 0)
				note_dump(&sn);
		}
		if (__atomic_load_n(&mwm.slot->dump_request, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&mwm.slot->dump_request, 0, __ATOMIC_RELEASE);
			if (mwm_dump_write("request") == 0 && have_sn)
				note_dump(&sn);
		}
		pthread_mutex_lock(&th_mu);
	}
	pthread_mutex_unlock(&th_mu);
	/* Stopping (MPI_Finalize): a dump of a call that has since returned is stale. */
	{
		struct mw_slot_snap sn;
		if (mw_slot_snapshot(mwm.slot, &sn) == 0 || sn.live_ok)
			retire_stale_dump(&sn);
	}
	return NULL;
}

int mwm_watcher_start(void)
{
	pthread_condattr_t ca;
	sigset_t all, old;
	int e;
	if (th_running)
		return 0;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&th_cv, &ca);
	pthread_condattr_destroy(&ca);
	th_stop = 0;
	/* the thread inherits a full mask: the application's signals never go to it */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&th, NULL, watch, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		errno = e;
		return -1;
	}
	th_running = 1;
	mwm.ticking = 1; /* the coarse clock advances: polls may skip within a tick */
	return 0;
}

void mwm_watcher_forget(void)
{
	th_running = 0;
	mwm.ticking = 0;
	mwm.poll_tick = 0;
	__atomic_store_n(&mwm.blind.a, MWM_BLIND_NONE, __ATOMIC_RELAXED);
	pthread_mutex_init(&th_mu, NULL);
}

void mwm_watcher_stop(void)
{
	if (!th_running || pthread_equal(pthread_self(), th))
		return;
	pthread_mutex_lock(&th_mu);
	th_stop = 1;
	pthread_cond_signal(&th_cv);
	pthread_mutex_unlock(&th_mu);
	mwm.ticking = 0;
	mwm.poll_tick = 0;
	__atomic_store_n(&mwm.blind.a, MWM_BLIND_NONE, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	th_running = 0;
}
