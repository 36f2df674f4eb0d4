/* monitor_poll.c - repeated polls through the real wrappers (run by
 * t/unit/monitor_poll.sh: one MPICH rank started as a singleton with
 * LD_PRELOAD=libmpiwatch.so and a settings file with timeout = 1 and the
 * slot and dump folders; the slot folder is its argument).  The program maps its own slot, as the agent does,
 * and checks what a reader sees while it polls the same requests from the
 * same call site (the repeated-poll path of monitor/gen.py) and when it
 * changes them.  Prints TAP. */
#include <json-c/json.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mw_slot.h"
#include "stall.h"

static int n, failed;

static void ok(int cond, const char *name)
{
	n++;
	printf("%sok %d - %s\n", cond ? "" : "not ", n, name);
	if (!cond)
		failed++;
}

static struct mw_slot *slot;

static struct mw_slot_snap snap(void)
{
	struct mw_slot_snap s;
	if (mw_slot_snapshot(slot, &s) < 0)
		memset(&s, 0, sizeof(s));
	return s;
}

/* one call site for every poll of the same kind */
static __attribute__((noinline)) void poll_test(MPI_Request *r, int *flag)
{
	if (MPI_Test(r, flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) /* no tail call: one site */
		abort();
}

static __attribute__((noinline)) void poll_any(MPI_Request *r, int *flag)
{
	int idx;
	if (MPI_Testany(4, r, &idx, flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
		abort();
}

/* MPI_Testany / MPI_Testsome over k handles, one call site each */
static __attribute__((noinline)) int poll_anyn(int k, MPI_Request *r, int *flag)
{
	int idx = MPI_UNDEFINED;
	if (MPI_Testany(k, r, &idx, flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
		abort();
	return idx;
}

static __attribute__((noinline)) int poll_somen(int k, MPI_Request *r, int *flag)
{
	int oc = 0, idx[16];
	MPI_Status st[16];
	if (MPI_Testsome(k, r, &oc, idx, st) != MPI_SUCCESS)
		abort();
	*flag = oc > 0 && oc != MPI_UNDEFINED;
	return *flag ? idx[0] : MPI_UNDEFINED;
}

static __attribute__((noinline)) void poll_probe(int tag, int *flag)
{
	if (MPI_Iprobe(0, tag, MPI_COMM_SELF, flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
		abort();
}

/* MPI_Testany / MPI_Testsome over k of up to 80 handles, one call site each
 * (arrays beyond the unrolled 8, up to and beyond the skip path's bound) */
static __attribute__((noinline)) int poll_anybig(int k, MPI_Request *r, int *flag)
{
	int idx = MPI_UNDEFINED;
	if (MPI_Testany(k, r, &idx, flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
		abort();
	return idx;
}

static __attribute__((noinline)) int poll_somebig(int k, MPI_Request *r, int *flag)
{
	int oc = 0, idx[80];
	static MPI_Status st[80]; /* (MPI_STATUSES_IGNORE: gcc's -Wstringop-overflow on MPICH's mpi.h) */
	if (MPI_Testsome(k, r, &oc, idx, st) != MPI_SUCCESS)
		abort();
	*flag = oc > 0 && oc != MPI_UNDEFINED;
	return *flag ? idx[0] : MPI_UNDEFINED;
}

/* a generalized request whose query callback polls another request */
static int gq_nested;
static int gq_query(void *extra, MPI_Status *st)
{
	int fl = 0;
	MPI_Test((MPI_Request *)extra, &fl, MPI_STATUS_IGNORE);
	gq_nested++;
	MPI_Status_set_elements(st, MPI_BYTE, 0);
	MPI_Status_set_cancelled(st, 0);
	st->MPI_SOURCE = MPI_UNDEFINED;
	st->MPI_TAG = MPI_UNDEFINED;
	return MPI_SUCCESS;
}
static int gq_free(void *extra)
{
	(void)extra;
	return MPI_SUCCESS;
}
static int gq_cancel(void *extra, int complete)
{
	(void)extra, (void)complete;
	return MPI_SUCCESS;
}

/* a reader copying the slot while the main thread polls */
static volatile int stop;
static volatile long nsnaps, bad;
static uint64_t diff0;
static void *reader(void *arg)
{
	(void)arg;
	while (!stop) {
		struct mw_slot_snap s;
		if (mw_slot_snapshot(slot, &s) < 0 || !s.live_ok)
			continue;
		nsnaps++;
		if (s.s.calls - s.s.tests != diff0 ||
		    (s.s.state != MW_STATE_IN_MPI && s.s.state != MW_STATE_COMPUTING) ||
		    (strcmp(s.s.call.name, "MPI_Test") && strcmp(s.s.call.name, "MPI_Iprobe")) ||
		    (!strcmp(s.s.call.name, "MPI_Test") && s.s.call.nreqs != 1))
			bad++;
	}
	return NULL;
}

static json_object *jpath(json_object *o, const char *a, const char *b);

/* an agent's look: the one stall rule applied, every 200 ms, to copies of
 * the slot, until it says 'polling' (agent_polling) or stop is set */
static volatile int agent_stop, agent_polling;
static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}
static void *agent(void *arg)
{
	struct mw_stall st;
	(void)arg;
	memset(&st, 0, sizeof(st));
	while (!agent_stop && !agent_polling) {
		struct mw_slot_snap s;
		if (mw_slot_snapshot(slot, &s) == 0 && s.live_ok &&
		    mw_stall_rule(&st, &s.s, now_s(), 1.0) == MW_STALL_POLLING)
			agent_polling = 1;
		usleep(200000);
	}
	return NULL;
}

/* the tag of the pending receive whose request id the dump's call names at
 * position i, or -1 */
static int64_t dump_req_tag(json_object *j, size_t i)
{
	json_object *reqs = jpath(j, "call", "requests"), *pend = jpath(j, "pending_recvs", NULL);
	if (!reqs || !pend || i >= json_object_array_length(reqs))
		return -1;
	int64_t id = json_object_get_int64(json_object_array_get_idx(reqs, i));
	for (size_t k = 0; k < json_object_array_length(pend); k++) {
		json_object *e = json_object_array_get_idx(pend, k);
		if (json_object_get_int64(jpath(e, "req", NULL)) == id)
			return json_object_get_int64(jpath(e, "tag", NULL));
	}
	return -1;
}

static json_object *jpath(json_object *o, const char *a, const char *b)
{
	json_object *x = NULL, *y = NULL;
	if (!json_object_object_get_ex(o, a, &x))
		return NULL;
	if (!b)
		return x;
	return json_object_object_get_ex(x, b, &y) ? y : NULL;
}

/* One round of cases 11 and 11b: a receive with tag in a variable of
 * this frame, after a tick without polls (the variable armed in the last
 * one, z's, is disarmed), polled 1000 times (armed, then blind); with
 * recycle, then cancelled, waited for and posted again in the same
 * variable (*reused counts the rounds the MPI gave it the same handle) and
 * polled 1000 times more; then the send it matches and the polls until it
 * completes (*later, unless NULL, counts the completions not yet counted
 * right after the poll that made them: a blind poll's); then only *z
 * polled for 250 ms (no other MPI call).  Return 0 if the completion was
 * counted and the receive left the table (pending: z and the send, which
 * MPICH completes when it is received), else 1 (printed). */
static int blind_round(int k, int tag, int recycle, MPI_Request *z, int *later, int *reused)
{
	MPI_Request q, sr, old;
	char qb[8], sb[8] = "b";
	int fl = 0, fz = 0, miss = 0;
	MPI_Irecv(qb, 8, MPI_CHAR, 0, tag, MPI_COMM_SELF, &q);
	usleep(150000);
	for (int i = 0; i < 1000; i++)
		poll_test(&q, &fl);
	if (recycle) {
		old = q;
		MPI_Cancel(&q);
		MPI_Wait(&q, MPI_STATUS_IGNORE);
		MPI_Irecv(qb, 8, MPI_CHAR, 0, tag, MPI_COMM_SELF, &q);
		*reused += q == old;
		for (int i = 0; i < 1000; i++)
			poll_test(&q, &fl);
	}
	MPI_Isend(sb, 1, MPI_CHAR, 0, tag, MPI_COMM_SELF, &sr);
	struct mw_slot_snap s0 = snap();
	while (!fl)
		poll_test(&q, &fl);
	if (later)
		*later += snap().s.completions == s0.s.completions;
	double t = now_s();
	while (now_s() - t < 0.25)
		poll_test(z, &fz);
	struct mw_slot_snap s2 = snap();
	if (s2.s.completions != s0.s.completions + 1 || s2.s.pending != 2) {
		miss = 1;
		printf("# round %d: completions +%llu, pending %u\n", k,
		       (unsigned long long)(s2.s.completions - s0.s.completions), s2.s.pending);
	}
	MPI_Wait(&sr, MPI_STATUS_IGNORE);
	return miss;
}

int main(int argc, char **argv)
{
	int flag = 0, tags[4] = {11, 12, 13, 14};
	char buf[4][8], path[1200];
	MPI_Request r[4], sw[4];
	const char *rundir = argc > 1 ? argv[1] : NULL; /* the settings' slot_dir */
	MPI_Init(&argc, &argv);
	snprintf(path, sizeof(path), "%s/rank-0", rundir ? rundir : ".");
	slot = mw_slot_map(path, 0);
	ok(slot != NULL, "the rank's slot is mapped");
	if (!slot) {
		MPI_Finalize();
		printf("1..%d\n", n);
		return 1;
	}
	for (int i = 0; i < 4; i++)
		MPI_Irecv(buf[i], 8, MPI_CHAR, 0, tags[i], MPI_COMM_SELF, &r[i]);

	/* 1. the same MPI_Test 1000 times: every poll is counted (the polls
	 * within a tick of the watcher's clock as the last published one, by
	 * the next published poll: one more after a tick has passed) */
	poll_test(&r[0], &flag);
	struct mw_slot_snap a = snap();
	for (int i = 0; i < 1000; i++)
		poll_test(&r[0], &flag);
	usleep(300000); /* the tick is min(timeout / 10, 100 ms) */
	poll_test(&r[0], &flag);
	struct mw_slot_snap b = snap();
	ok(a.live_ok && b.live_ok, "consistent snapshots");
	ok(b.s.tests - a.s.tests == 1001 && b.s.calls - a.s.calls == 1001,
	   "1000 repeated MPI_Test and one a tick later: calls and tests grow by 1001");
	ok(!strcmp(b.s.call.name, "MPI_Test") && b.s.call.nreqs == 1 && b.s.call.site == a.s.call.site,
	   "the call record is MPI_Test on 1 request, same call site");
	ok(b.s.state == MW_STATE_COMPUTING, "state computing between polls");
	ok(b.s.completions == a.s.completions && b.s.pending == 4, "nothing completed, 4 requests pending");

	/* 2. MPI_Iprobe at one site, the tag changing: a probe that finds
	 * nothing within the tick of the watcher's clock of the last published
	 * poll skips (the record keeps that poll's tag); the first probe of a
	 * later tick writes its own (and a probe that finds a message writes
	 * its own at once: 3b) */
	for (int i = 0; i < 100; i++)
		poll_probe(i % 2 ? 7 : 8, &flag);
	usleep(300000);
	poll_probe(7, &flag);
	b = snap();
	ok(!strcmp(b.s.call.name, "MPI_Iprobe") && b.s.call.tag == 7 && b.s.call.peer == 0,
	   "MPI_Iprobe with a changing tag: the first probe a tick later writes its tag");
	usleep(300000);
	poll_probe(8, &flag);
	b = snap();
	ok(b.s.call.tag == 8, "a different tag from the same site a tick later is written");

	/* 3. a reader copying the slot all along sees consistent counters */
	b = snap();
	diff0 = b.s.calls - b.s.tests;
	pthread_t th;
	pthread_create(&th, NULL, reader, NULL);
	/* at least 200 rounds, and until the reader has made 1000 copies (the
	 * polls that skip within a tick are fast enough for 200 rounds to end
	 * before the reader thread is first scheduled on a busy machine) */
	for (int k = 0; k < 200 || (nsnaps < 1000 && k < 2000000); k++) {
		for (int i = 0; i < 500; i++)
			poll_test(&r[0], &flag);
		for (int i = 0; i < 500; i++)
			poll_probe(5, &flag);
	}
	stop = 1;
	pthread_join(th, NULL);
	ok(nsnaps > 0 && bad == 0, "a concurrent reader's copies: calls - tests constant, state and call valid");
	if (bad)
		printf("# %ld of %ld copies inconsistent\n", bad, nsnaps);

	/* 3b. a probe that finds a message within the tick of the last
	 * published poll is published at once (after case 3: the calls it
	 * makes, MPI_Recv and MPI_Wait, are the record until the next
	 * published poll, at most a tick) */
	{
		MPI_Request sr;
		char sb[8] = "p", rb[8];
		/* (MPICH completes a send to itself when it is received) */
		MPI_Isend(sb, 1, MPI_CHAR, 0, 9, MPI_COMM_SELF, &sr);
		for (int i = 0; i < 100; i++)
			poll_probe(8, &flag);
		poll_probe(9, &flag);
		b = snap();
		ok(flag && !strcmp(b.s.call.name, "MPI_Iprobe") && b.s.call.tag == 9,
		   "a probe that finds a message writes the record at once: its tag");
		MPI_Recv(rb, 8, MPI_CHAR, 0, 9, MPI_COMM_SELF, MPI_STATUS_IGNORE);
		MPI_Wait(&sr, MPI_STATUS_IGNORE);
	}

	/* 3c. the same for MPI_Improbe: repeated without a message, then
	 * finding one (tag 10), which the record names at once and MPI_Mrecv
	 * receives */
	{
		MPI_Request sr;
		MPI_Message msg = MPI_MESSAGE_NULL;
		char sb[8] = "m", rb[8] = "";
		int fl = 0;
		MPI_Isend(sb, 1, MPI_CHAR, 0, 10, MPI_COMM_SELF, &sr);
		for (int i = 0; i < 101 && !fl; i++)
			if (MPI_Improbe(0, i < 100 ? 8 : 10, MPI_COMM_SELF, &fl, &msg, MPI_STATUS_IGNORE) != MPI_SUCCESS)
				abort();
		b = snap();
		ok(fl && !strcmp(b.s.call.name, "MPI_Improbe") && b.s.call.tag == 10,
		   "MPI_Improbe that finds a message writes the record at once: its tag");
		if (fl)
			MPI_Mrecv(rb, 8, MPI_CHAR, &msg, MPI_STATUS_IGNORE);
		MPI_Wait(&sr, MPI_STATUS_IGNORE);
		ok(rb[0] == 'm', "MPI_Mrecv receives the message MPI_Improbe found");
	}

	/* 4. MPI_Testany from one site on r, then on a permutation of r: the
	 * polling dump lists the current order (r0 r2 r1 r3) */
	for (int i = 0; i < 100; i++)
		poll_any(r, &flag);
	sw[0] = r[0], sw[1] = r[2], sw[2] = r[1], sw[3] = r[3];
	int dumps0 = snap().s.dumps;
	for (int t = 0; t < 100000 && snap().s.dumps == dumps0; t++) {
		for (int i = 0; i < 100; i++)
			poll_any(sw, &flag);
		usleep(100);
	}
	struct mw_slot_snap d = snap();
	ok(d.s.dumps > dumps0 && d.s.dump_path[0], "the polling rank wrote a dump");
	json_object *j = json_object_from_file(d.s.dump_path);
	json_object *reqs = j ? jpath(j, "call", "requests") : NULL, *pend = j ? jpath(j, "pending_recvs", NULL) : NULL;
	ok(j && !strcmp(json_object_get_string(jpath(j, "reason", NULL)), "polling") &&
		   !strcmp(json_object_get_string(jpath(j, "call", "name")), "MPI_Testany"),
	   "the dump: reason polling, call MPI_Testany");
	int want[4] = {11, 13, 12, 14}, same = reqs && pend && json_object_array_length(reqs) == 4;
	for (int i = 0; same && i < 4; i++) {
		int64_t id = json_object_get_int64(json_object_array_get_idx(reqs, (size_t)i)), tag = -1;
		for (size_t k = 0; k < json_object_array_length(pend); k++) {
			json_object *e = json_object_array_get_idx(pend, k);
			if (json_object_get_int64(jpath(e, "req", NULL)) == id)
				tag = json_object_get_int64(jpath(e, "tag", NULL));
		}
		same = tag == want[i];
	}
	ok(same, "the dump's requests are the permuted array's (tags 11 13 12 14)");
	double in_call = j ? json_object_get_double(jpath(j, "time", "in_call_s")) : 99;
	ok(in_call < 0.5, "the dump's time in the call is the current poll's, not the first poll's");
	if (j)
		json_object_put(j);

	for (int i = 0; i < 4; i++) {
		MPI_Cancel(&r[i]);
		MPI_Wait(&r[i], MPI_STATUS_IGNORE);
	}
	b = snap();
	ok(b.s.pending == 0, "after the cancels nothing is pending");

	/* 5. MPI_Testany and MPI_Testsome over 1..10 handles (the unrolled
	 * comparison up to 8, the loop above), polled again from one site after
	 * one handle, at each position, was replaced by a new receive that then
	 * completes: the completion is the new request's (the request table
	 * removes it), so nothing stays pending once the others are cancelled */
	int misses = 0, cases = 0;
	for (int kind = 0; kind < 2; kind++)
		for (int k = 1; k <= 10; k++)
			for (int pos = 0; pos < k; pos++) {
				MPI_Request rr[10], q, sr, old;
				char rb[10][8], qb[8], sb[8] = "x";
				int idx = MPI_UNDEFINED, fl = 0;
				for (int i = 0; i < k; i++)
					MPI_Irecv(rb[i], 8, MPI_CHAR, 0, 100 + i, MPI_COMM_SELF, &rr[i]);
				MPI_Irecv(qb, 8, MPI_CHAR, 0, 99, MPI_COMM_SELF, &q);
				MPI_Isend(sb, 1, MPI_CHAR, 0, 99, MPI_COMM_SELF, &sr);
				MPI_Wait(&sr, MPI_STATUS_IGNORE);
				/* repeated polls, then the handle replaced with no MPI
				 * call in between (any would write the record anew) */
				for (int i = 0; i < 3; i++)
					kind ? poll_somen(k, rr, &fl) : poll_anyn(k, rr, &fl);
				old = rr[pos];
				rr[pos] = q;
				for (int t = 0; t < 1000000 && !fl; t++)
					idx = kind ? poll_somen(k, rr, &fl) : poll_anyn(k, rr, &fl);
				rr[pos] = old;
				for (int i = 0; i < k; i++) {
					MPI_Cancel(&rr[i]);
					MPI_Wait(&rr[i], MPI_STATUS_IGNORE);
				}
				cases++;
				if (!fl || idx != pos || snap().s.pending != 0) {
					misses++;
					printf("# %s(%d), handle %d replaced: flag %d index %d pending %u\n",
					       kind ? "MPI_Testsome" : "MPI_Testany", k, pos, fl, idx, snap().s.pending);
				}
			}
	ok(cases == 110 && misses == 0,
	   "Testany/Testsome of 1..10 handles, one replaced between repeated polls: its completion is attributed");

	/* 6. a generalized request's query callback, run inside an MPI_Testany
	 * that completes it, polls another request with MPI_Test (a nested
	 * wrapper that writes the call record and its handle): the outer
	 * completion is the generalized request's, which the monitor does not
	 * track, so the receives it tracks stay pending (crediting the index
	 * to the nested call's handle would remove that receive) */
	{
		MPI_Request g[2], inner;
		char gb[2][8];
		int fl = 0, idx = MPI_UNDEFINED;
		MPI_Irecv(gb[0], 8, MPI_CHAR, 0, 201, MPI_COMM_SELF, &g[1]);
		MPI_Irecv(gb[1], 8, MPI_CHAR, 0, 202, MPI_COMM_SELF, &inner);
		MPI_Grequest_start(gq_query, gq_free, gq_cancel, &inner, &g[0]);
		for (int i = 0; i < 3; i++)
			poll_anyn(2, g, &fl); /* repeated polls, nothing completes */
		MPI_Grequest_complete(g[0]);
		for (int t = 0; t < 1000 && !fl; t++)
			idx = poll_anyn(2, g, &fl);
		b = snap();
		ok(fl && idx == 0 && gq_nested > 0 && b.s.pending == 2,
		   "a nested MPI_Test in a generalized request's callback: the outer completion is not credited to its handle");
		if (b.s.pending != 2)
			printf("# flag %d index %d nested %d pending %u\n", fl, idx, gq_nested, b.s.pending);
		MPI_Cancel(&g[1]);
		MPI_Wait(&g[1], MPI_STATUS_IGNORE);
		MPI_Cancel(&inner);
		MPI_Wait(&inner, MPI_STATUS_IGNORE);
	}

	/* 7. a rank that only repeats one MPI_Test on a receive that never
	 * completes (most of its polls fall within a tick of the watcher's
	 * clock as the one before): the stall rule, applied by an agent to
	 * copies of the slot, says 'polling' after the timeout; the watcher
	 * writes a polling dump, which names this poll and its request */
	{
		MPI_Request q;
		char qb[8];
		pthread_t ag;
		MPI_Irecv(qb, 8, MPI_CHAR, 0, 301, MPI_COMM_SELF, &q);
		int dumps7 = snap().s.dumps;
		pthread_create(&ag, NULL, agent, NULL);
		double t7 = now_s();
		while (now_s() - t7 < 30 && (!agent_polling || snap().s.dumps == dumps7))
			for (int i = 0; i < 1000; i++)
				poll_test(&q, &flag);
		agent_stop = 1;
		pthread_join(ag, NULL);
		ok(agent_polling, "a rank repeating one MPI_Test: the agent's stall rule says polling");
		d = snap();
		ok(d.s.dumps > dumps7, "a rank repeating one MPI_Test: the watcher wrote a polling dump");
		j = d.s.dumps > dumps7 ? json_object_from_file(d.s.dump_path) : NULL;
		ok(j && !strcmp(json_object_get_string(jpath(j, "reason", NULL)), "polling") &&
			   !strcmp(json_object_get_string(jpath(j, "call", "name")), "MPI_Test") &&
			   json_object_array_length(jpath(j, "call", "requests")) == 1 && dump_req_tag(j, 0) == 301,
		   "its dump: reason polling, MPI_Test on the receive with tag 301");
		if (j)
			json_object_put(j);
		MPI_Cancel(&q);
		MPI_Wait(&q, MPI_STATUS_IGNORE);
	}

	/* 8. MPI_Testany repeated on an array, then on a permutation of it,
	 * with a send in between that a receive of the array matches: the poll
	 * that completes it (likely in the same tick as the polls before)
	 * returns its index in the permuted array, and the completion is that
	 * receive's (nothing stays pending once the others are cancelled) */
	{
		MPI_Request p[4], w[4], sr;
		char pb[4][8], sb[8] = "y";
		int fl = 0, idx = MPI_UNDEFINED;
		for (int i = 0; i < 4; i++)
			MPI_Irecv(pb[i], 8, MPI_CHAR, 0, 401 + i, MPI_COMM_SELF, &p[i]);
		for (int i = 0; i < 100; i++)
			poll_anyn(4, p, &fl);
		w[0] = p[3], w[1] = p[1], w[2] = p[0], w[3] = p[2];
		MPI_Isend(sb, 1, MPI_CHAR, 0, 401, MPI_COMM_SELF, &sr);
		MPI_Wait(&sr, MPI_STATUS_IGNORE);
		for (int t = 0; t < 1000000 && !fl; t++)
			idx = poll_anyn(4, w, &fl);
		for (int i = 0; i < 4; i++)
			if (w[i] != MPI_REQUEST_NULL) {
				MPI_Cancel(&w[i]);
				MPI_Wait(&w[i], MPI_STATUS_IGNORE);
			}
		b = snap();
		ok(fl && idx == 2 && b.s.pending == 0,
		   "MPI_Testany on a permuted array completes its 3rd handle: the completion is that receive's");
		if (!(fl && idx == 2 && b.s.pending == 0))
			printf("# flag %d index %d pending %u\n", fl, idx, b.s.pending);
	}

	/* 9. a rank that only repeats one MPI_Iprobe that never finds a
	 * message (most of its probes fall within a tick of the watcher's clock
	 * as the one before): the agent's stall rule says 'polling' after the
	 * timeout, and the watcher's polling dump names the probe (MPI_Iprobe,
	 * source 0, tag 501, MPI_COMM_SELF) */
	{
		int dumps9 = snap().s.dumps;
		pthread_t ag;
		agent_stop = agent_polling = 0;
		pthread_create(&ag, NULL, agent, NULL);
		double t9 = now_s();
		while (now_s() - t9 < 30 && (!agent_polling || snap().s.dumps == dumps9))
			for (int i = 0; i < 1000; i++)
				poll_probe(501, &flag);
		agent_stop = 1;
		pthread_join(ag, NULL);
		ok(agent_polling && !flag, "a rank repeating one MPI_Iprobe: the agent's stall rule says polling");
		d = snap();
		ok(d.s.dumps > dumps9, "a rank repeating one MPI_Iprobe: the watcher wrote a polling dump");
		j = d.s.dumps > dumps9 ? json_object_from_file(d.s.dump_path) : NULL;
		int self_id = -2;
		json_object *comms = j ? jpath(j, "comms", NULL) : NULL;
		for (size_t k = 0; comms && k < json_object_array_length(comms); k++) {
			json_object *e = json_object_array_get_idx(comms, k), *nm = jpath(e, "name", NULL);
			if (nm && !strcmp(json_object_get_string(nm), "MPI_COMM_SELF"))
				self_id = json_object_get_int(jpath(e, "id", NULL));
		}
		ok(j && !strcmp(json_object_get_string(jpath(j, "reason", NULL)), "polling") &&
			   !strcmp(json_object_get_string(jpath(j, "call", "name")), "MPI_Iprobe") &&
			   json_object_get_int(jpath(j, "call", "peer")) == 0 &&
			   json_object_get_int(jpath(j, "call", "tag")) == 501 &&
			   json_object_get_int(jpath(j, "call", "comm")) == self_id,
		   "its dump: reason polling, MPI_Iprobe of source 0, tag 501 on MPI_COMM_SELF");
		if (j)
			json_object_put(j);
	}

	/* 10. MPI_Testany and MPI_Testsome over arrays of more than 8 handles
	 * (9, 16, 64: up to the skip path's bound; 65: beyond it), polled from
	 * one site, then (a) on the reversed array, with a send that the
	 * receive at position pos of the original array matches, or (b) on the
	 * array with the handle at pos replaced by another receive, which a
	 * send then matches (no MPI call between the repeated polls and the
	 * change): the poll that completes it (likely within the same tick as
	 * the polls before) returns its index in the array it was given, and
	 * the completion is that receive's (nothing stays pending once the
	 * others are cancelled) */
	{
		static const int ks[] = {9, 16, 64, 65};
		int misses10 = 0, cases10 = 0;
		for (int kind = 0; kind < 2; kind++)
			for (int how = 0; how < 2; how++)
				for (size_t ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++)
					for (int pi = 0; pi < 3; pi++) {
						int k = ks[ki], pos = pi == 0 ? 0 : pi == 1 ? k / 2 : k - 1;
						MPI_Request rr[80], w[80], q = MPI_REQUEST_NULL, sr;
						char rb[80][8], qb[8], sb[8] = "z";
						int idx = MPI_UNDEFINED, fl = 0, want;
						for (int i = 0; i < k; i++)
							MPI_Irecv(rb[i], 8, MPI_CHAR, 0, 600 + i, MPI_COMM_SELF, &rr[i]);
						for (int i = 0; i < 100; i++)
							kind ? poll_somebig(k, rr, &fl) : poll_anybig(k, rr, &fl);
						if (how == 0) {
							for (int i = 0; i < k; i++)
								w[i] = rr[k - 1 - i];
							want = k - 1 - pos;
							MPI_Isend(sb, 1, MPI_CHAR, 0, 600 + pos, MPI_COMM_SELF, &sr);
						} else {
							memcpy(w, rr, sizeof(MPI_Request) * (size_t)k);
							MPI_Irecv(qb, 8, MPI_CHAR, 0, 599, MPI_COMM_SELF, &q);
							for (int i = 0; i < 3; i++)
								kind ? poll_somebig(k, rr, &fl) : poll_anybig(k, rr, &fl);
							w[pos] = q;
							want = pos;
							MPI_Isend(sb, 1, MPI_CHAR, 0, 599, MPI_COMM_SELF, &sr);
						}
						MPI_Wait(&sr, MPI_STATUS_IGNORE);
						for (int t = 0; t < 1000000 && !fl; t++)
							idx = kind ? poll_somebig(k, w, &fl) : poll_anybig(k, w, &fl);
						/* w holds every pending receive but the
						 * completed one (MPI_REQUEST_NULL), and the
						 * replaced one (rr[pos]) in (b) */
						if (how == 1)
							w[k] = rr[pos];
						for (int i = 0; i < k + how; i++)
							if (w[i] != MPI_REQUEST_NULL) {
								MPI_Cancel(&w[i]);
								MPI_Wait(&w[i], MPI_STATUS_IGNORE);
							}
						cases10++;
						if (!fl || idx != want || snap().s.pending != 0) {
							misses10++;
							printf("# %s(%d), %s, position %d: flag %d index %d (want %d) pending %u\n",
							       kind ? "MPI_Testsome" : "MPI_Testany", k,
							       how ? "handle replaced" : "array reversed", pos, fl, idx, want,
							       snap().s.pending);
						}
					}
		ok(cases10 == 48 && misses10 == 0,
		   "Testany/Testsome of 9..65 handles, reversed or one replaced within a tick: the completion is that receive's");
	}

	/* 11. blind polls (monitor/blind.c): an MPI_Test repeated on a
	 * receive in a variable of this frame (armed: the polls after it in
	 * the tick call the MPI at once and save nothing), then a send that
	 * it matches, and the poll that completes the receive; afterwards the
	 * rank only polls another receive that never completes (no other MPI
	 * call): the completion is counted, and the receive has left the
	 * table, within a tick (the agents' view of the rank); ten rounds */
	{
		int misses11 = 0, later = 0;
		MPI_Request z;
		char zb[8];
		MPI_Irecv(zb, 8, MPI_CHAR, 0, 701, MPI_COMM_SELF, &z);
		for (int k = 0; k < 10; k++)
			misses11 += blind_round(k, 700, 0, &z, &later, NULL);
		ok(misses11 == 0, "a receive completed by a blind MPI_Test, then only polls: counted, and gone from the table, within a tick");
		printf("# %d of 10 completions counted after the fact (blind polls)\n", later);
		ok(later > 0, "the blind polls were taken (a completion counted after the poll that made it)");
		MPI_Cancel(&z);
		MPI_Wait(&z, MPI_STATUS_IGNORE);
	}

	/* 11b. the armed receive completed by another call (its cancel and
	 * MPI_Wait), then a new receive in the same variable, which the MPI
	 * may give the same handle: the polls on it within the tick are blind;
	 * the one that completes it is counted all the same (an arm that
	 * outlived its request would take the new one for the old), ten
	 * rounds */
	{
		int misses11b = 0, reused = 0;
		MPI_Request z;
		char zb[8];
		MPI_Irecv(zb, 8, MPI_CHAR, 0, 741, MPI_COMM_SELF, &z);
		for (int k = 0; k < 10; k++)
			misses11b += blind_round(k, 740, 1, &z, NULL, &reused);
		printf("# the new receive got the cancelled one's handle in %d of 10 rounds\n", reused);
		ok(misses11b == 0, "a receive completed by a blind MPI_Test after the armed one was cancelled and waited for: counted");
		MPI_Cancel(&z);
		MPI_Wait(&z, MPI_STATUS_IGNORE);
	}

	/* 12. a rank that completes a receive every 50 ms, each in a blind
	 * MPI_Test (a new receive in the same variable, polled, then the send
	 * it matches), for 3 s: the agent's stall rule (timeout 1 s) never says
	 * polling (its progress is counted) */
	{
		pthread_t ag;
		agent_stop = agent_polling = 0;
		pthread_create(&ag, NULL, agent, NULL);
		double t12 = now_s();
		int rounds = 0;
		/* the sends are waited for at the end: their completions must
		 * not be what the rule counts */
		MPI_Request srs[100];
		while (now_s() - t12 < 3 && !agent_polling && rounds < 100) {
			MPI_Request q;
			char qb[8], sb[8] = "c";
			int fl = 0;
			MPI_Irecv(qb, 8, MPI_CHAR, 0, 710, MPI_COMM_SELF, &q);
			double t = now_s();
			while (now_s() - t < 0.05)
				poll_test(&q, &fl);
			MPI_Isend(sb, 1, MPI_CHAR, 0, 710, MPI_COMM_SELF, &srs[rounds]);
			while (!fl)
				poll_test(&q, &fl);
			for (int i = 0; i < 1000; i++)
				poll_test(&q, &fl); /* MPI_REQUEST_NULL now */
			rounds++;
		}
		agent_stop = 1;
		pthread_join(ag, NULL);
		ok(!agent_polling && rounds > 10, "completions every 50 ms in blind polls for 3 s: never judged polling");
		if (agent_polling)
			printf("# judged polling after %d rounds\n", rounds);
		for (int i = 0; i < rounds; i++)
			MPI_Wait(&srs[i], MPI_STATUS_IGNORE);
	}

	/* 13. two receives that never complete, polled in turn through one
	 * variable the program copies each handle into (no MPI call between):
	 * the variable's handle changes without the MPI; that the armed
	 * receive completed cannot be told and is counted as progress once,
	 * then the variable is never armed again: the agent's stall rule still
	 * says polling (within 30 s) */
	{
		MPI_Request a2, b2, cur;
		char ab[2][8];
		int fl = 0;
		pthread_t ag;
		MPI_Irecv(ab[0], 8, MPI_CHAR, 0, 720, MPI_COMM_SELF, &a2);
		MPI_Irecv(ab[1], 8, MPI_CHAR, 0, 721, MPI_COMM_SELF, &b2);
		agent_stop = agent_polling = 0;
		pthread_create(&ag, NULL, agent, NULL);
		double t13 = now_s();
		while (now_s() - t13 < 30 && !agent_polling)
			for (int i = 0; i < 1000; i++) {
				cur = i % 2 ? b2 : a2;
				poll_test(&cur, &fl);
			}
		agent_stop = 1;
		pthread_join(ag, NULL);
		ok(agent_polling && !fl, "two receives polled in turn through one copied-into variable: judged polling");
		MPI_Cancel(&a2);
		MPI_Wait(&a2, MPI_STATUS_IGNORE);
		MPI_Cancel(&b2);
		MPI_Wait(&b2, MPI_STATUS_IGNORE);
	}

	/* 14. a receive completed by a blind MPI_Test on a copy of its handle
	 * (a variable of this frame), then another handle copied into that
	 * variable by the program and polled (no MPI call between): the
	 * progress is counted (whether the first completed cannot be told;
	 * its table entry stays) */
	{
		MPI_Request q, z, sr, cur2;
		char qb[8], zb[8], sb[8] = "d";
		int fl = 0;
		MPI_Irecv(qb, 8, MPI_CHAR, 0, 730, MPI_COMM_SELF, &q);
		MPI_Irecv(zb, 8, MPI_CHAR, 0, 731, MPI_COMM_SELF, &z);
		cur2 = q;
		for (int i = 0; i < 1000; i++)
			poll_test(&cur2, &fl);
		MPI_Isend(sb, 1, MPI_CHAR, 0, 730, MPI_COMM_SELF, &sr);
		struct mw_slot_snap s0 = snap();
		while (!fl)
			poll_test(&cur2, &fl);
		cur2 = z;
		double t14 = now_s();
		while (now_s() - t14 < 0.25)
			poll_test(&cur2, &fl);
		struct mw_slot_snap s1 = snap();
		ok(s1.s.completions >= s0.s.completions + 1,
		   "a receive completed by a blind poll on a copy the program then overwrote: the progress is counted");
		MPI_Wait(&sr, MPI_STATUS_IGNORE);
		MPI_Cancel(&z);
		MPI_Wait(&z, MPI_STATUS_IGNORE);
	}
	MPI_Finalize();
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
