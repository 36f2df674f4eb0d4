/* agap.h - the agent's auxiliary processes (APs, seed 003): when the
 * collector declares a suspicious event it sends APREQ; the agent runs the
 * site's commands (shared/apconf.h) one after the other, each started on
 * the agent's libuv loop (shared/uvcmd.h, uv_spawn) and bounded in time and
 * output, as the job user it runs as, niced, stdin /dev/null, outside the
 * ranks, and sends each result up as one APOUT frame.  The agent's own
 * loop never waits for them. */
#ifndef AG_AP_H
#define AG_AP_H

#include <uv.h>

#include "heartbeat.h"

#define AG_AP_MAX_ROUNDS 8      /* rounds one agent runs in its life */
#define AG_AP_MIN_INTERVAL 10.0 /* s between the starts of two rounds */
#define AG_AP_NICE 10           /* niceness added to the commands */

struct ag_ap;

/* The APs of the site file path ("" or NULL: none) for this node, run on
 * loop (NULL: a request fails; ag_ap_run_round still works).  A file
 * that cannot be used is logged (every error, file and line) and gives an
 * AP set with no command: the agent runs on.  owner_uid: the owner the file
 * must have (0 = root; -1 = any, for tests).  Return NULL only when out of
 * memory. */
struct ag_ap *ag_ap_create(uv_loop_t *loop, const char *path, long owner_uid, const char *node);

/* Kill a running round's command (its process group) and free ap: at
 * once, or on the loop when the killed command's end comes (run the loop
 * after this, as one does to close handles). */
void ag_ap_destroy(struct ag_ap *ap);

/* Number of commands configured. */
size_t ag_ap_ncommands(const struct ag_ap *ap);

/* An APREQ: start round req->round on the loop unless it is not meant for
 * this node, a round still runs, the last one started less than
 * AG_AP_MIN_INTERVAL ago or AG_AP_MAX_ROUNDS were run (each refusal
 * logged).  Each command's result joins the queue when it ends (at most
 * 2 x MW_AP_MAX_COMMANDS results wait: more are dropped, logged); a
 * command that cannot be started gives a result that says so.  Return 1 if
 * a round started, 0 if not, -1 without a loop (logged). */
int ag_ap_request(struct ag_ap *ap, const struct mw_hb_apreq *req);

/* 1 while a round runs (its last command not yet over), else 0. */
int ag_ap_running(const struct ag_ap *ap);

/* Send the queued results with send(m, arg) (0 = sent, else kept for the
 * next call) in order.  Return the number sent. */
int ag_ap_flush(struct ag_ap *ap, int (*send)(const struct mw_hb_msg *m, void *arg), void *arg);

/* Run every command of ap for round, as a request does but on a private
 * loop of its own until the round is over (it blocks: for the unit tests,
 * never the agent), then write one APOUT frame per command to fd.  ap's
 * queue and limits are not touched.  Return 0, or -1 if a frame could not
 * be written. */
int ag_ap_run_round(const struct ag_ap *ap, uint32_t round, int fd);

#endif
