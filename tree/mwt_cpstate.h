/* mwt_cpstate.h - the CP role's state (mwt_cp.h), shared by its two parts:
 * mwt_cp.c (the children's links on the loop, their handshake, the
 * aggregates) and mwt_cpprobe.c (probing down the tree).  Internal to
 * tree/: the functions here are the parts' contracts with each other, all
 * called on the loop's thread. */
#ifndef MWT_CPSTATE_H
#define MWT_CPSTATE_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "heartbeat.h"
#include "log.h"
#include "mw_link.h"
#include "mwt_agg.h"
#include "mwt_cp.h"
#include "mwt_probe.h"
#include "probe.h"

#define CP_MAX_CHILDREN 4096

struct mw_uvprobe;

struct cp_watch;

struct child {
	struct mw_link *l;
	uint64_t id;        /* unique in the CP's life: found again after a wait */
	struct cp_watch *w; /* its socket's uv_poll (mwt_cp.c) */
	int verifying;      /* a credential of its handshake is made or checked (thread pool) */
	char node[MW_HB_STR_MAX + 1];
	char nonce[MW_HB_NONCE_LEN + 1];
	char src[64];       /* the peer's address, without the port */
	int verified;       /* its VERIFY answered with our challenge */
	int hello;
	double t_conn;
	char (*desc)[MW_HB_STR_MAX + 1]; /* nodes below it, from the CHILD frames it sent up */
	size_t ndesc;
	unsigned char *ddep; /* each desc's depth below it (1: a child of its own) */
	unsigned levels;     /* CP levels at and below it: its deepest desc's depth (0: a BE) */
	int is_cp;          /* it has children of its own (a CHILD naming it, an AGG from it) */
	uint32_t asked;     /* the probe round it was asked to probe (0 none) */
	int delivered;      /* ... and its summary came */
};

/* A child lost without a goodbye: the prime suspect, probed in the next
 * rounds too (until it attaches here again). */
struct lostrec {
	char node[MW_HB_STR_MAX + 1];
	char host[64];
};

struct rankrec {
	struct mw_hb_rank r;
};

struct cp_work;

struct mwt_cp {
	struct mwt_cp_opts o;
	uv_loop_t *loop;
	uv_poll_t *lpoll;        /* the listening socket */
	uv_timer_t *timer;       /* the next flush, summary or hello deadline */
	uv_prepare_t *prep;      /* before each wait: the children's watchers follow their queues */
	uint64_t next_id;
	struct cp_work **works;  /* HELLO checks under way in the thread pool */
	size_t nworks;
	char job[32], node[MW_HB_STR_MAX + 1], munge[512], token[128];
	mwt_cp_up_fn up;
	void *arg;
	int lfd;
	struct child *c;
	size_t nc;
	struct mwt_agg *pending; /* not sent up yet */
	struct mwt_agg *all;     /* everything counted: sent again after a re-attachment */
	struct mwt_seq *seen;    /* events counted into pending/all */
	struct mwt_seq *allseen; /* events merged into all */
	double flush_at;         /* 0: nothing pending */
	struct rankrec *ranks;   /* RANK frames of the children, to send again */
	size_t nranks, capranks;
	unsigned long aggs, events;
	struct mwt_psum *psum;   /* the probe round under way, NULL none */
	struct lostrec *lost;    /* children lost without a goodbye */
	size_t nlost;
	double probe_due;        /* when its summary goes up at the latest */
	unsigned long probe_rounds, probed;
	/* Our own probe of the child nodes, under way on the loop
	 * (mw_uvprobe): NULL none.  Its nodes, addresses and results live
	 * until it is over. */
	struct mw_uvprobe *pround;
	int pdiscard;            /* stopping it: its results are not wanted */
	const char **pnames, **paddrs;
	char (*phosts)[64];
	char (*pnodes)[MW_HB_STR_MAX + 1]; /* the names pnames point to (children may come and go) */
	struct mw_probe_result *pout;
	size_t pn;
	double pdue;             /* probe_due once our own results are in */
	/* Auxiliary output from the children that could not go up (no parent
	 * link: ours was lost and we are attaching again), sent after the
	 * re-attachment (mwt_cp_uplink); CP_APOUT_KEEP at most. */
	struct mw_hb_msg *apq;
	size_t napq;
};

/* The CP's log limit for what children may cause (mwt_cp.c). */
extern struct mw_ratelimit mwt_cp_rl;

/* mwt_cpprobe.c: child ch goes (closed): a probe round that asked it and
 * got nothing counts it missing. */
void mwt_cpp_child_gone(struct mwt_cp *cp, struct child *ch);

/* mwt_cpprobe.c: a child lost without a goodbye is probed in the next
 * rounds (kept), until a child of that node attaches again (forgotten). */
void mwt_cpp_lost_keep(struct mwt_cp *cp, const struct child *ch);
void mwt_cpp_lost_forget(struct mwt_cp *cp, const char *node);

/* mwt_cpprobe.c: every child CP asked has answered: the summary goes up. */
void mwt_cpp_check_done(struct mwt_cp *cp);

/* mwt_cpprobe.c: a child's PROBESUM (json). */
void mwt_cpp_sum(struct mwt_cp *cp, struct child *ch, const char *json);

/* mwt_cpprobe.c: the summary goes up when its time is up; return the
 * earlier of next and the summary's deadline. */
double mwt_cpp_tick(struct mwt_cp *cp, double now, double next);

/* mwt_cpprobe.c: stop our own round (its results dropped) and free the
 * round's state. */
void mwt_cpp_free(struct mwt_cp *cp);

/* mwt_cphello.c: a child's VERIFY (our CHALLENGE) and HELLO (the WELCOME
 * or a refusal), their credentials made and checked in the thread pool;
 * the child is not read meanwhile.  Return 2 (under way; the answer comes
 * on the loop, then what the child sent meanwhile is read), or -1 (close
 * the child). */
int mwt_cph_verify(struct mwt_cp *cp, struct child *ch, const struct mw_hb_verify *v);
int mwt_cph_hello(struct mwt_cp *cp, struct child *ch, const struct mw_hb_hello *h);

/* mwt_cphello.c: the CP goes: the work under way forgets it (freed when
 * done). */
void mwt_cph_orphan(struct mwt_cp *cp);

/* mwt_cp.c: the child with that id, or -1. */
long mwt_cp_child_find(const struct mwt_cp *cp, uint64_t id);

/* mwt_cp.c: close child k (bye: it said goodbye; else it is lost, why);
 * a CHILD frame goes up for a welcomed one. */
void mwt_cp_child_close(struct mwt_cp *cp, size_t k, int bye, const char *why);

/* mwt_cp.c: what child k's socket reported (UV_READABLE, UV_WRITABLE):
 * flush, read, authenticate and forward. */
void mwt_cp_child_serve(struct mwt_cp *cp, size_t k, int events, double now);

/* mwt_cp.c: close the stale links of children that came back on a new one. */
void mwt_cp_sweep(struct mwt_cp *cp);

/* mwt_cp.c: watch a child's socket for ev (UV_READABLE, UV_WRITABLE; 0:
 * none). */
void mwt_cp_watch(struct cp_watch *w, int ev);

/* mwt_cp.c: the host part of a peer "ADDR:PORT" into buf. */
void mwt_cp_peer_host(const char *peer, char *buf, size_t len);

#endif
