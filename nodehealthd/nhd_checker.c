/* nhd_checker.c - the health check schedule on the loop: a timer starts a
 * run every check_interval (or at once when a reload or a calibration
 * request asks), the checks and the calibration run in libuv's thread pool
 * (they may block on a dead mount, or take 2 s), and their result is
 * published on the loop. */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "nhd.h"

/* One run: the checks, then the calibration when one was asked for. */
struct run {
	struct nhd *d;
	struct nhd_conf *c;       /* the configuration the run uses (a reference) */
	struct nhd_health h;
	int req;                  /* calibration asked at the start of the run */
	int calibrating;          /* the second step (calibrate) is the one in the pool */
};

static void after_work(uv_work_t *w, int status);
static void on_timer(uv_timer_t *t);

/* Make h the published health (health_mu held), logging changes of state or
 * of the number of failed checks, not every new load figure. */
static void publish(struct nhd *d, const struct nhd_health *h)
{
	if (h->state != d->health.state || h->failed != d->health.failed)
		mw_log(h->failed ? LOG_WARNING : LOG_NOTICE, "health: %s (%s)", mw_probe_state_name(h->state),
		       h->summary);
	d->health = *h;
}

/* The quick calibration (req 1: unless job steps run on this node, 2: even
 * then), its result stored in d->calib and logged.  In the thread pool,
 * without health_mu. */
static void calibrate(struct nhd *d, const struct nhd_conf *c, int req)
{
	struct nhd_calib k;
	char self[sizeof(d->self)];
	int steps = 0;

	pthread_mutex_lock(&d->conf_mu);
	memcpy(self, d->self, sizeof(self));
	pthread_mutex_unlock(&d->conf_mu);
	pthread_mutex_lock(&d->health_mu);
	k = d->calib;
	pthread_mutex_unlock(&d->health_mu);
	if (!c->calibrate) {
		k.gen++;
		snprintf(k.skipped, sizeof(k.skipped), "calibration is off (calibrate = no)");
	} else if (req < 2 && (steps = nhd_calib_busy_steps(c->slurmd_spool_dir, self)) != 0 &&
		   !(steps < 0 && errno == ENOENT)) {
		k.gen++;
		if (steps > 0)
			snprintf(k.skipped, sizeof(k.skipped), "skipped: %d job steps run on this node", steps);
		else
			snprintf(k.skipped, sizeof(k.skipped), "skipped: cannot read %.60s: %s", c->slurmd_spool_dir,
				 strerror(errno));
		mw_info("calibration %s", k.skipped);
	} else if (nhd_calib_run(c, &k) < 0) {
		mw_warn("%s", k.skipped);
	} else {
		mw_log(k.degraded ? LOG_WARNING : LOG_NOTICE,
		       "calibration: %s: %s (R0 %.0f ns, TSC %.4f GHz, %.2f s, %.2f CPU-s%s%s)",
		       k.degraded ? "degraded" : "ok", k.detail, k.r0_ns, k.obs.tsc_ghz_end, k.seconds,
		       k.cpu_seconds, k.truncated ? ", budget ran out" : "", req > 1 ? ", forced" : "");
	}
	pthread_mutex_lock(&d->health_mu);
	d->calib = k;
	d->calib_req = 0;
	pthread_mutex_unlock(&d->health_mu);
}

/* In the thread pool. */
static void work(uv_work_t *w)
{
	struct run *r = w->data;
	if (r->calibrating)
		calibrate(r->d, r->c, r->req);
	else
		nhd_checks_run(r->c, &r->d->check_state, &r->h);
}

static void start_run(struct nhd *d)
{
	struct run *r = calloc(1, sizeof(*r));
	if (!r) {
		mw_err("health checker: out of memory");
		uv_timer_start(&d->check_timer, on_timer, 1000, 0); /* try again */
		return;
	}
	r->d = d;
	r->c = nhd_conf_get(d);
	pthread_mutex_lock(&d->health_mu);
	r->req = d->calib_req;
	pthread_mutex_unlock(&d->health_mu);
	d->check_work.data = r;
	d->check_running = 1;
	uv_queue_work(d->loop, &d->check_work, work, after_work);
}

static void on_timer(uv_timer_t *t)
{
	struct nhd *d = t->data;
	if (!d->stop && !d->check_running)
		start_run(d);
}

/* On the loop, after each step of a run. */
static void after_work(uv_work_t *w, int status)
{
	struct run *r = w->data;
	struct nhd *d = r->d;
	double interval = r->c->check_interval;

	if (status == 0 && !r->calibrating) {
		NHD_INC(d, checks_run);
		pthread_mutex_lock(&d->health_mu);
		/* The last calibration judged again: bounds changed by a reload apply. */
		if (d->calib.ran)
			d->calib.degraded = nhd_calib_judge(&d->calib.obs, r->c, &d->calib.rate_diff, d->calib.detail,
							    sizeof(d->calib.detail));
		nhd_calib_to_health(&d->calib, &r->h);
		publish(d, &r->h);
		d->rerun_checks = 0;
		pthread_mutex_unlock(&d->health_mu);
		if (r->req && !d->stop) {
			/* After the checks are out: a calibration takes up to 2 s. */
			r->calibrating = 1;
			uv_queue_work(d->loop, &d->check_work, work, after_work);
			return;
		}
	} else if (status == 0) {
		pthread_mutex_lock(&d->health_mu);
		r->h = d->health;
		r->h.n -= r->h.n > 0 && !strcmp(r->h.r[r->h.n - 1].name, "calibration");
		nhd_calib_to_health(&d->calib, &r->h);
		publish(d, &r->h);
		pthread_mutex_unlock(&d->health_mu);
		nhd_unix_calibrated(d);
		/* The calibration's samples (about 1 MB) were freed in the
		 * pool thread's own malloc arena, which keeps them resident
		 * for the daemon's life: give them back (1 MB of a 4 MB RSS). */
		malloc_trim(0);
	}
	nhd_conf_put(d, r->c);
	free(r);
	d->check_running = 0;
	nhd_mexport_changed(d); /* the checks' or the calibration's result */
	if (d->stop)
		return;
	if (d->rerun_checks || d->calib_req)
		start_run(d);
	else
		uv_timer_start(&d->check_timer, on_timer, (uint64_t)(interval * 1e3), 0);
}

void nhd_checker_start(struct nhd *d)
{
	uv_timer_init(d->loop, &d->check_timer);
	d->check_timer.data = d;
	d->calib_req = 1; /* the calibration at start */
	start_run(d);
}

void nhd_checker_kick(struct nhd *d)
{
	if (d->stop || d->check_running)
		return; /* the run under way starts the next at its end */
	uv_timer_stop(&d->check_timer);
	start_run(d);
}

void nhd_checker_stop(struct nhd *d)
{
	uv_timer_stop(&d->check_timer);
	uv_close((uv_handle_t *)&d->check_timer, NULL);
	if (d->check_running)
		uv_cancel((uv_req_t *)&d->check_work); /* only if it has not started */
}
