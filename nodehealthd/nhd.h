/* nhd.h - the nodehealthd daemon state shared by its modules.  One libuv
 * loop in the main thread owns every socket, timer, signal and child
 * (doc/architecture.md, "nodehealthd's loop"); only the health checks and
 * the calibration run in libuv's thread pool (uv_queue_work), and publish
 * their result on the loop. */
#ifndef NHD_H
#define NHD_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

#include "nhd_calib.h"
#include "nhd_checks.h"
#include "nhd_conf.h"
#include "nhd_drain.h"
#include "nhd_mexport.h"
#include "nhd_rl.h"
#include "probe.h"

#define NHD_QUEUE 32
#define NHD_UID_SHARE 4    /* connections of one uid queued or served at once */
#define NHD_READ_TIMEOUT 2 /* seconds a client has to send its request */

/* Counters, written on the loop (checks_run too: counted when a run is
 * published), read by the status reply (relaxed atomics, as when threads
 * wrote them). */
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

struct nhd_conn; /* the connection served (nhd_unix.c) */

struct nhd {
	const char *conf_path;
	char self[64];            /* this node's name */
	double started;           /* monotonic */

	/* conf_mu and health_mu guard what the thread pool's check run and
	 * the loop share: the configuration's reference count, the published
	 * health and calibration. */
	pthread_mutex_t conf_mu;  /* guards conf pointer and refs */
	struct nhd_conf *conf;

	pthread_mutex_t health_mu;
	struct nhd_health health;
	struct nhd_check_state check_state; /* the check run's own */
	int rerun_checks;         /* a reload asks for a run now */
	struct nhd_calib calib;   /* written by the calibration under health_mu */
	int calib_req;            /* 1: calibrate, 2: even while job steps run */

	struct nhd_counters cnt;
	struct nhd_rl rl;         /* users' probes: per source address */
	struct nhd_rl rl_priv;    /* probes from privileged source ports (root:
				   * other daemons' re-probes), their own buckets */
	struct nhd_storm storm;
	struct nhd_mexport mx;    /* the metrics' own counts and timers (nhd_mexport.c) */

	int udp_fd, unix_fd;
	char unix_path[108];      /* path unix_fd is bound to */

	/* The loop and what it owns (nhd_main.c, nhd_checker.c, nhd_unix.c). */
	uv_loop_t *loop;
	uv_poll_t *udp_watch;     /* udp_fd readable: nhd_udp_serve */
	uv_poll_t *unix_watch;    /* unix_fd readable: nhd_unix_accept */
	uv_signal_t sig_term, sig_int, sig_hup;
	uv_timer_t check_timer;   /* the next health check run */
	uv_work_t check_work;     /* a check run or a calibration in the pool */
	int check_running;        /* check_work is queued or running */

	int q[NHD_QUEUE];         /* accepted connections waiting */
	uid_t q_uid[NHD_QUEUE];   /* peer uid of each queued connection */
	int q_head, q_len;
	int serving;              /* a connection of serving_uid is served */
	uid_t serving_uid;
	struct nhd_conn *conn;    /* that connection */

	int stop;                 /* stopping: nothing new is started */
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
/* Accept waiting connections, queue them and serve the next (on the loop). */
void nhd_unix_accept(struct nhd *d);
/* A calibration ended (calib.gen changed): answer the request waiting for
 * it, if any. */
void nhd_unix_calibrated(struct nhd *d);
/* Stopping: close the queued connections; a request waiting for a
 * calibration is answered now; the one served goes on to its end. */
void nhd_unix_stop(struct nhd *d);
/* End the connection served now: its Slurm command or hook is killed
 * (SIGKILL, before this returns), its probe round ended. */
void nhd_unix_kill(struct nhd *d);
/* The status object as JSON text (malloc'd). */
char *nhd_status_json(struct nhd *d);

/* The health check schedule on d->loop: the first run (with the
 * calibration at start) now, then every check_interval; the runs and the
 * calibration themselves in the thread pool. */
void nhd_checker_start(struct nhd *d);
/* A run is asked for now (d->rerun_checks or d->calib_req set): at once,
 * or as soon as the one under way ends. */
void nhd_checker_kick(struct nhd *d);
/* Stopping: no further run (one under way cannot be cancelled; the loop
 * ends when it has). */
void nhd_checker_stop(struct nhd *d);

#endif
