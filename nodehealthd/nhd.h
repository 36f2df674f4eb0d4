/* nhd.h - the nodehealthd daemon state shared by its modules. */
#ifndef NHD_H
#define NHD_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "nhd_calib.h"
#include "nhd_checks.h"
#include "nhd_conf.h"
#include "nhd_drain.h"
#include "nhd_rl.h"
#include "probe.h"

#define NHD_QUEUE 32
#define NHD_UID_SHARE 4    /* connections of one uid queued or served at once */
#define NHD_READ_TIMEOUT 2 /* seconds a client has to send its request */

/* Counters, written by one thread each, read by the status reply
 * (relaxed atomics: a status may be a few packets stale). */
struct nhd_counters {
	uint64_t rx;                         /* datagrams received */
	uint64_t replies;                    /* replies sent */
	uint64_t malformed[MW_PROBE_E_NCODES]; /* by reason; [0] unused */
	uint64_t rate_limited;
	uint64_t privileged;                 /* probes from source ports < 1024 */
	uint64_t privileged_rate_limited;
	uint64_t send_errors;
	uint64_t drain_requests;
	uint64_t drains;
	uint64_t drains_refused;
	uint64_t bad_requests;
	uint64_t status_requests;
	uint64_t busy;                       /* connections refused: queue full */
	uint64_t checks_run;
	uint64_t reloads;
	uint64_t reload_failures;
};

struct nhd {
	const char *conf_path;
	char self[64];            /* this node's name (changed under conf_mu) */
	double started;           /* monotonic */

	pthread_mutex_t conf_mu;  /* guards conf pointer and refs */
	struct nhd_conf *conf;

	pthread_mutex_t health_mu;
	pthread_cond_t health_cv; /* wakes the checker: stop or re-run */
	struct nhd_health health;
	struct nhd_check_state check_state;
	int rerun_checks;
	struct nhd_calib calib;   /* written by the checker under health_mu */
	int calib_req;            /* 1: calibrate, 2: even while job steps run */
	pthread_cond_t calib_cv;  /* broadcast when calib.gen changes */

	struct nhd_counters cnt;
	struct nhd_rl rl;         /* users' probes: per source address */
	struct nhd_rl rl_priv;    /* probes from privileged source ports (root:
				   * other daemons' re-probes), their own buckets */
	struct nhd_storm storm;   /* used by the worker thread only */

	int udp_fd, unix_fd, sig_fd;
	char unix_path[108];      /* path unix_fd is bound to (changed under conf_mu) */

	pthread_mutex_t q_mu;
	pthread_cond_t q_cv;
	int q[NHD_QUEUE];
	uid_t q_uid[NHD_QUEUE];   /* peer uid of each queued connection */
	int q_head, q_len;
	int serving;              /* the worker serves a connection of serving_uid */
	uid_t serving_uid;

	int stop;                 /* set under both health_mu and q_mu */
	pthread_t checker, worker;
};

#define NHD_INC(d, field) __atomic_fetch_add(&(d)->cnt.field, 1, __ATOMIC_RELAXED)
#define NHD_ADD(d, field, v) __atomic_fetch_add(&(d)->cnt.field, (v), __ATOMIC_RELAXED)
#define NHD_GET(d, field) __atomic_load_n(&(d)->cnt.field, __ATOMIC_RELAXED)

/* Take / release a reference to the current configuration. */
struct nhd_conf *nhd_conf_get(struct nhd *d);
void nhd_conf_put(struct nhd *d, struct nhd_conf *c);

/* UDP: open the probe socket for conf.  Return the fd, or -1 (errno set). */
int nhd_udp_open(const struct nhd_conf *c);
/* Answer the datagrams waiting on d->udp_fd (a bounded number of batches). */
void nhd_udp_serve(struct nhd *d);

/* Unix socket: open (replacing a stale socket file).  Return fd or -1. */
int nhd_unix_open(const char *path);
/* Accept waiting connections and queue them for the worker. */
void nhd_unix_accept(struct nhd *d);
/* The worker thread: serves queued connections until d->stop. */
void *nhd_worker_main(void *arg);
/* The status object as JSON text (malloc'd). */
char *nhd_status_json(struct nhd *d);

/* The checker thread: runs the health checks every check_interval. */
void *nhd_checker_main(void *arg);

#endif
