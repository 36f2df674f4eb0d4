/* nhd_mexport.c - nodehealthd's metrics gathered on its loop and written
 * (nhd_metrics.c) to metrics_dir every NHD_MEXPORT_PERIOD s and soon after
 * a change. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "nhd.h"
#include "nhd_metrics.h"

static const char *const summary_results[NHD_SUM_N] = {"counted", "duplicate", "refused"};

char *nhd_mexport_text(struct nhd *d, size_t *len)
{
	struct nhd_mtext t = {0};
	struct nhd_health *h = malloc(sizeof(*h));
	struct nhd_calib k;
	uint64_t drains = NHD_GET(d, drains), already = d->mx.already_drained;

	if (!h)
		return NULL;
	pthread_mutex_lock(&d->health_mu);
	*h = d->health;
	k = d->calib;
	pthread_mutex_unlock(&d->health_mu);

	nhd_mtext_add(&t, NHD_M_UP, NULL, 1);
	nhd_mtext_add(&t, NHD_M_START_TIME, NULL, (double)time(NULL) - (mw_now() - d->started));
	nhd_mtext_add(&t, NHD_M_PROBES_RECEIVED, NULL, (double)NHD_GET(d, rx));
	nhd_mtext_add(&t, NHD_M_PROBES_ANSWERED, NULL, (double)NHD_GET(d, replies));
	for (int e = 1; e < MW_PROBE_E_NCODES; e++)
		nhd_mtext_add(&t, NHD_M_PROBES_DROPPED, mw_probe_err_name((enum mw_probe_err)e),
			      (double)NHD_GET(d, malformed[e]));
	nhd_mtext_add(&t, NHD_M_PROBES_DROPPED, "send_error", (double)NHD_GET(d, send_errors));
	nhd_mtext_add(&t, NHD_M_PROBES_RATE_LIMITED, "user", (double)NHD_GET(d, rate_limited));
	nhd_mtext_add(&t, NHD_M_PROBES_RATE_LIMITED, "privileged", (double)NHD_GET(d, privileged_rate_limited));
	nhd_mtext_add(&t, NHD_M_DRAIN_REQUESTS, "drained", (double)(drains >= already ? drains - already : 0));
	nhd_mtext_add(&t, NHD_M_DRAIN_REQUESTS, "already_drained", (double)already);
	nhd_mtext_add(&t, NHD_M_DRAIN_REQUESTS, "refused", (double)NHD_GET(d, drains_refused));
	nhd_mtext_add(&t, NHD_M_BAD_REQUESTS, NULL, (double)NHD_GET(d, bad_requests));
	if (h->mono > 0) {
		nhd_mtext_add(&t, NHD_M_HEALTHY, NULL, h->failed == 0);
		/* One series per check: a check made of several results (a
		 * daemon, a mount each) passed if all of them did. */
		for (int i = 0; i < h->n; i++) {
			int seen = 0, ok = 1;
			for (int j = 0; j < h->n; j++) {
				if (strcmp(h->r[j].name, h->r[i].name))
					continue;
				seen |= j < i;
				ok &= h->r[j].ok != 0;
			}
			if (!seen)
				nhd_mtext_add(&t, NHD_M_CHECK_OK, h->r[i].name, ok);
		}
	}
	nhd_mtext_add(&t, NHD_M_CHECK_RUNS, NULL, (double)NHD_GET(d, checks_run));
	nhd_mtext_add(&t, NHD_M_CALIB_RUNS, NULL, (double)k.ran);
	if (k.ran) {
		nhd_mtext_add(&t, NHD_M_CALIB_DEGRADED, NULL, k.degraded != 0);
		if (k.obs.noise >= 0)
			nhd_mtext_add(&t, NHD_M_CALIB_RESOLUTION, NULL, k.resolution_ns * 1e-9);
		if (k.obs.found)
			nhd_mtext_add(&t, NHD_M_CALIB_INTERVAL, NULL, k.r0_ns * 1e-9);
	}
	nhd_mtext_add(&t, NHD_M_JOBS_WATCHED, NULL, (double)d->mx.jobs_watched);
	for (int v = 0; v < MW_SUMMARY_NVERDICTS; v++)
		nhd_mtext_add(&t, NHD_M_VERDICTS, mw_summary_verdicts[v], (double)d->mx.verdicts[v]);
	for (int r = 0; r < NHD_SUM_N; r++)
		nhd_mtext_add(&t, NHD_M_SUMMARIES, summary_results[r], (double)d->mx.summaries[r]);
	free(h);
	if (t.err) {
		free(t.buf);
		errno = t.err;
		return NULL;
	}
	*len = t.len;
	return t.buf;
}

/* Write the file if metrics_dir is set; a failure is logged once until a
 * write succeeds again (never fatal: the probes come first). */
static void write_now(struct nhd *d)
{
	struct nhd_conf *c = nhd_conf_get(d);
	char err[512] = "out of memory";
	size_t len = 0;
	char *text = NULL;
	int rc = -1;

	if (c->metrics_dir && c->metrics_dir[0]) {
		text = nhd_mexport_text(d, &len);
		if (text)
			rc = nhd_metrics_write(c->metrics_dir, text, len, err, sizeof err);
		if (rc == 0 && d->mx.failing)
			mw_info("metrics: written to %s/%s again", c->metrics_dir, NHD_METRICS_FILE);
		else if (rc < 0 && !d->mx.failing)
			mw_warn("metrics: %s (no further message until a write succeeds)", err);
		d->mx.failing = rc < 0;
		free(text);
	}
	nhd_conf_put(d, c);
}

static void on_tick(uv_timer_t *t)
{
	write_now(t->data);
}

static void on_soon(uv_timer_t *t)
{
	struct nhd *d = t->data;
	d->mx.soon_pending = 0;
	write_now(d);
}

void nhd_mexport_start(struct nhd *d)
{
	uv_timer_init(d->loop, &d->mx.tick);
	uv_timer_init(d->loop, &d->mx.soon);
	d->mx.tick.data = d->mx.soon.data = d;
	d->mx.started = 1;
	uv_timer_start(&d->mx.tick, on_tick, 0, NHD_MEXPORT_PERIOD * 1000);
}

void nhd_mexport_changed(struct nhd *d)
{
	if (!d->mx.started || d->stop || d->mx.soon_pending)
		return;
	d->mx.soon_pending = 1;
	uv_timer_start(&d->mx.soon, on_soon, NHD_MEXPORT_SOON, 0);
}

void nhd_mexport_stop(struct nhd *d)
{
	struct nhd_conf *c;
	if (!d->mx.started)
		return;
	d->mx.started = 0;
	uv_close((uv_handle_t *)&d->mx.tick, NULL);
	uv_close((uv_handle_t *)&d->mx.soon, NULL);
	c = nhd_conf_get(d);
	nhd_metrics_remove(c->metrics_dir);
	nhd_conf_put(d, c);
}

enum nhd_summary_result nhd_mexport_summary(struct nhd *d, const char *job, int verdict)
{
	struct nhd_mexport *m = &d->mx;
	enum nhd_summary_result r = NHD_SUM_COUNTED;
	for (size_t i = 0; i < m->nseen; i++)
		if (!strcmp(m->seen[i], job))
			r = NHD_SUM_DUPLICATE;
	if (r == NHD_SUM_COUNTED) {
		snprintf(m->seen[m->next], sizeof m->seen[0], "%s", job);
		m->next = (m->next + 1) % NHD_SEEN_JOBS;
		if (m->nseen < NHD_SEEN_JOBS)
			m->nseen++;
		m->jobs_watched++;
		if (verdict >= 0 && verdict < MW_SUMMARY_NVERDICTS)
			m->verdicts[verdict]++;
	}
	m->summaries[r]++;
	nhd_mexport_changed(d);
	return r;
}

void nhd_mexport_refused(struct nhd *d)
{
	d->mx.summaries[NHD_SUM_REFUSED]++;
	nhd_mexport_changed(d);
}
