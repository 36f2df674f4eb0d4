/* agstate.h - the node agent's state, shared by its three parts: agent.c
 * (the libuv loop and the messages), agwatch.c (the ranks' slots) and
 * agconnect.c (attaching to the collector or a CP).  Internal to
 * mpiwatch-agent: the functions here are the parts' contracts with each
 * other, every one called on the loop's thread. */
#ifndef AG_AGSTATE_H
#define AG_AGSTATE_H

#include <stdint.h>
#include <uv.h>

#include "agent.h"
#include "heartbeat.h"
#include "mw_link.h"
#include "stall.h"
#include "mw_slot.h"
#include "slurm.h"

struct ag_ap;
struct ag_hs;
struct ag_tree;
struct mw_uvslurm;

struct ag_rank {
	int rank;
	char path[1100];
	struct mw_slot *slot;
	int writable;
	int32_t pid;
	uint64_t start_ns;
	int size;
	struct mw_stall rule; /* the one stall rule's memory (shared/stall.h) */
	int gone_ticks;      /* ticks the pid was seen dead without an exit record */
	int32_t dumps_sent;  /* slot dumps count forwarded */
	/* what we told the collector */
	int announced;
	int beat_state;      /* state of the last heartbeat (0 = none: healthy) */
	int done;            /* finalized or exited: nothing more to watch */
	double t_vanished;   /* when reported vanished (0: not), for a late exit record */
	double t_init;       /* when first seen inside MPI_Init (0: not seen so) */
	struct mw_hb_beat beat; /* the last heartbeat (resent after a reconnect) */
	int beat_unsent;
	char *dump_json;     /* last dump (resent after a reconnect) */
	int dump_unsent;
	int dump_wanted;     /* tree: the collector asked for it (dumps go up on demand) */
};

struct agent {
	const struct ag_opts *o;
	struct ag_rank **r;
	size_t nr;
	struct mw_link *link;
	double next_connect, backoff;
	long long live_segs;   /* the link's segments received at live_at (mw_link_segs_in) */
	double live_at;        /* when they last moved: a parent silent for liveness_s is lost */
	int stop;
	int rundir_seen;
	int last_look; /* stopping: a rank found gone is told at once */
	double started;
	double beat_tol; /* the beats' clocks may disagree by this (tick/100) */
	unsigned long beats_sent, connects, connect_failures;
	struct ag_ap *ap; /* auxiliary processes (agap.h) */
	uint32_t seq;          /* the last heartbeat's sequence number (per origin: this node) */
	struct ag_tree *tree;  /* the tree overlay's part (agtree.c), NULL in the flat star */
	int move;              /* leave the collector for the parent CP the ROLE named */
	int fresh;             /* a new link: frames may wait in its buffer already (read them) */
	char target[256];      /* where the collector is tried: --collector's host, or Slurm's
				* NodeAddr for it when that name does not resolve here */
	int addr_tried;        /* Slurm was asked for that NodeAddr */
	struct mw_uvslurm *addrcall;   /* that sinfo under way (NULL: none) */
	struct mw_slurm_node addr_node; /* its answer */
	char last_error[400];  /* the last link error told (told again only when it changes) */
	/* A connection try under way (agconnect.c): a cursor over the
	 * candidates, one handshake (aghs.h) at a time. */
	struct ag_hs *hs;      /* the handshake under way (NULL: none) */
	int try_phase;         /* AG_TRY_* of agconnect.c (0: no try under way) */
	int try_port;          /* the collector's ports: the index of the one tried */
	int try_last;          /* the round's last connect error (errno), 0: none */
	char try_host[256];    /* the candidate under way */
	uint16_t try_tport;
	char try_why[300];     /* the round's last failure, in words */
	/* The loop (agent.c) and what it owns: */
	uv_loop_t *loop;
	uv_signal_t sig[3];      /* SIGTERM, SIGINT, SIGHUP (SIGPIPE is ignored) */
	uv_timer_t t_look;       /* the next look at the slots (on the job's beat) */
	uv_timer_t t_connect;    /* the next connection try (backoff) */
	uv_timer_t t_job;        /* the next "is the job still active?" */
	uv_prepare_t prep;       /* before each wait: send what waits, arm the watchers */
	uv_poll_t *lpoll;        /* the parent link's socket (NULL: no link) */
	int lpoll_ev;            /* the events it watches now */
	struct mw_uvslurm *jobcall; /* squeue under way (NULL: none) */
	double next_look;        /* when t_look fires (monotonic s) */
	int closing;             /* the loop is being taken down */
};

/* agent.c: a new link up (to the collector or a CP): it is watched on the
 * loop, and everything is told again. */
void ag_link_up(struct agent *a, struct mw_link *l);

/* agent.c: say goodbye (BYE with reason) on the current link and let it go:
 * it is flushed on the loop for up to 1 s, then closed; a->link is NULL
 * after the call.  Nothing when there is no link. */
void ag_link_leave(struct agent *a, const char *reason);

/* agwatch.c: the rank with that number, or NULL. */
struct ag_rank *ag_rank_find(struct agent *a, int rank);

/* agwatch.c: everything the next link must hear again: the ranks, the open
 * episodes' heartbeats (same numbers), the dumps wanted. */
void ag_retell(struct agent *a);

/* agwatch.c: one look at the run directory and every rank's slot, judged
 * at now (monotonic s); sets a->stop when the job is over (the directory
 * gone, or never there). */
void ag_watch_look(struct agent *a, double now);

/* agwatch.c: unmap every slot and free the ranks. */
void ag_watch_free(struct agent *a);

/* agconnect.c: begin a try of the parent (in the tree: the parent CP, then
 * each ancestor up) or else the collector's ports, one handshake at a time
 * on the loop (aghs.h; never waiting in it); nothing if a try or a move is
 * under way.  On success ag_link_up, else a->next_connect is the next try
 * (backoff) and the error is told when it lasts. */
void ag_connect_try(struct agent *a);

/* agconnect.c: the ROLE named a parent CP: begin attaching to it (or the
 * next ancestor) on the loop; once attached, leave the collector with a
 * goodbye (ag_link_leave).  If none answers, stay.  Nothing if a try or a
 * move is under way. */
void ag_connect_move(struct agent *a);

/* agconnect.c: 1 while a try or a move is under way (no new try then). */
int ag_connect_busy(const struct agent *a);

/* agconnect.c: 1 while a move into the tree is under way: the link is
 * still the collector's (ag_tree_parent_name names the CP tried). */
int ag_connect_moving(const struct agent *a);

/* agconnect.c: give up the try or move under way (the agent stops): its
 * handshake's socket closed, its handles closed on the loop. */
void ag_connect_stop(struct agent *a);

#endif
