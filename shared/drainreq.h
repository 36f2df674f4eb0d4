/* drainreq.h - the drain-request protocol between a job collector and the
 * node's nodehealthd (a unix stream socket).
 *
 * One request per connection: the client writes one JSON object, ends it with
 * a newline (or shuts down its write side), and reads one JSON object back.
 *
 *   {"version":1,"op":"drain","job":"1234","node":"n2","evidence":{...}}
 *   {"version":1,"op":"status"}
 *   {"version":1,"op":"status","calibrate":true[,"force":true]}
 *   {"version":1,"op":"summary","job":"1234","verdict":"software"}
 *   -> {"ok":true,"result":"drained","message":"..."}
 *   -> {"ok":false,"error":"node n2 answered our probe: it is alive"}
 *   -> {"ok":false,"error":"nodehealthd is busy, try again later","retry":true}
 *   -> {"ok":true,"status":{...counters...}}
 *
 * See doc/protocol.md.
 */
#ifndef MW_DRAINREQ_H
#define MW_DRAINREQ_H

#include <stddef.h>

#define MW_DRAIN_DEFAULT_SOCKET "/run/mpiwatch/nodehealthd.sock"
#define MW_DRAIN_REASON_PREFIX "mpiwatch:"
#define MW_DRAINREQ_MAX 65536      /* largest request accepted, bytes */
#define MW_DRAINREQ_EVIDENCE_MAX 8192 /* largest evidence, as compact JSON */
#define MW_DRAINREQ_SUMMARY_MAX 160   /* evidence text put in the Slurm reason */

enum mw_drainreq_op {
	MW_DRAINREQ_DRAIN = 1,
	MW_DRAINREQ_STATUS = 2,
	MW_DRAINREQ_SUMMARY = 3, /* a collector's end: its job's verdict, counted
				  * by the node's nodehealthd (its metrics) */
};

/* The verdicts a summary may carry, in this order (NULL-terminated); the
 * collector's own names (col_verdict_name) are these
 * (t/unit/test_colsummary.c checks it). */
extern const char *const mw_summary_verdicts[];
#define MW_SUMMARY_NVERDICTS 3

struct mw_drainreq {
	enum mw_drainreq_op op;
	char job[32];   /* digits, '_' and '+' only */
	char node[64];  /* [A-Za-z0-9._-], starts with a letter or digit */
	char *evidence; /* compact JSON of the evidence (malloc'd), "null" if absent */
	char summary[MW_DRAINREQ_SUMMARY_MAX + 1]; /* printable text for the reason */
	int calibrate;  /* status: calibrate first (nodehealthd's quick calibration) */
	int force;      /* status: ... even while job steps run (root only) */
	int verdict;    /* summary: index into mw_summary_verdicts (job is set too) */
};

/* Parse a request of len bytes (need not be NUL-terminated).  Return 0 and
 * fill req (free it with mw_drainreq_free), or -1 with a message in err
 * (errno EINVAL, or ENOMEM). */
int mw_drainreq_parse(const char *buf, size_t len, struct mw_drainreq *req, char *err, size_t errlen);

void mw_drainreq_free(struct mw_drainreq *req);

/* Check a job id / node name as the parser does.  Return 1 if valid. */
int mw_drainreq_valid_job(const char *s);
int mw_drainreq_valid_node(const char *s);

/* Send one request (a JSON text) to the daemon's socket and read the reply
 * (malloc'd, NUL-terminated, in *reply).  Return 0, or -1 (errno set:
 * ENOENT/ECONNREFUSED no daemon, ETIMEDOUT, EPROTO bad reply). */
int mw_drainreq_call(const char *sockpath, const char *request, double timeout_s, char **reply);

/* mw_drainreq_call, again after a pause (50 ms doubling to 1 s, jittered)
 * while the daemon answers "busy" ({"ok":false,...,"retry":true}) or its
 * listen backlog is full, all within timeout_s.  Return 0 with the reply
 * (the last busy one if the time ran out), or -1 (errno as
 * mw_drainreq_call; ETIMEDOUT when the backlog stayed full). */
int mw_drainreq_call_retry(const char *sockpath, const char *request, double timeout_s, char **reply);

/* Ask the daemon at sockpath (NULL = default) to drain node for job jobid,
 * with evidence_json (a JSON value, or NULL).  The daemon checks that the
 * caller owns the job, that node belongs to it and that node fails its own
 * probes before draining.  Waits up to 60 s, asking again while the
 * daemon is busy (mw_drainreq_call_retry).
 * Return 0 if node is drained (msg says so), or -1 with the reason in msg:
 * errno EPERM when the daemon refused, another errno when it could not be
 * asked. */
int mw_drain_request(const char *sockpath, const char *jobid, const char *node,
		     const char *evidence_json, char *msg, size_t msglen);

/* Ask the daemon for its status; calibrate 1: after a fresh quick
 * calibration (unless job steps run), 2: even while job steps run (the
 * daemon allows it to root only).  Return 0 with the status object as JSON
 * text in *json (malloc'd), or -1 with a message in msg: errno EPERM when the
 * daemon answered and refused (msg is its reason), another errno when it
 * could not be asked or answered nonsense. */
int mw_drain_status(const char *sockpath, int calibrate, char **json, char *msg, size_t msglen);

#endif
