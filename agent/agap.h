/* agap.h - the agent's auxiliary processes (APs, seed 003): when the
 * collector declares a suspicious event it sends APREQ; the agent runs the
 * site's commands (shared/apconf.h) in a runner child process, one after
 * the other, each bounded in time and output (shared/runcmd.h), as the job
 * user it runs as, niced, stdin /dev/null, outside the ranks, and sends each
 * result up as one APOUT frame.  The agent's own loop never waits for them. */
#ifndef AG_AP_H
#define AG_AP_H

#include "heartbeat.h"

#define AG_AP_MAX_ROUNDS 8      /* rounds one agent runs in its life */
#define AG_AP_MIN_INTERVAL 10.0 /* s between the starts of two rounds */
#define AG_AP_NICE 10           /* niceness added to the commands */

struct ag_ap;

/* The APs of the site file path ("" or NULL: none) for this node.  A file
 * that cannot be used is logged (every error, file and line) and gives an
 * AP set with no command: the agent runs on.  owner_uid: the owner the file
 * must have (0 = root; -1 = any, for tests).  Return NULL only when out of
 * memory. */
struct ag_ap *ag_ap_create(const char *path, long owner_uid, const char *node);

/* Kill a running round's runner (its commands die with it) and free ap. */
void ag_ap_destroy(struct ag_ap *ap);

/* Number of commands configured. */
size_t ag_ap_ncommands(const struct ag_ap *ap);

/* An APREQ: start round req->round unless it is not meant for this node,
 * a round still runs, the last one started less than AG_AP_MIN_INTERVAL
 * ago or AG_AP_MAX_ROUNDS were run (each refusal logged).  Return 1 if a
 * round started, 0 if not, -1 on error (fork, pipe: logged). */
int ag_ap_request(struct ag_ap *ap, const struct mw_hb_apreq *req);

/* The descriptor to poll for POLLIN while a round runs, or -1. */
int ag_ap_fd(const struct ag_ap *ap);

/* Read what the runner wrote (call when ag_ap_fd polls readable): its
 * complete APOUT frames join the queue (at most 2 x MW_AP_MAX_COMMANDS
 * results wait: more are dropped, logged); at its end the runner is
 * reaped. */
void ag_ap_read(struct ag_ap *ap);

/* Send the queued results with send(m, arg) (0 = sent, else kept for the
 * next call) in order.  Return the number sent. */
int ag_ap_flush(struct ag_ap *ap, int (*send)(const struct mw_hb_msg *m, void *arg), void *arg);

/* In the runner child: run every command of ap for round, writing one APOUT
 * frame per command to fd.  Exposed for the unit tests (run in-process
 * there).  Return 0, or -1 if a frame could not be written. */
int ag_ap_run_round(const struct ag_ap *ap, uint32_t round, int fd);

#endif
