/* nhd_calib.c - nodehealthd's quick calibration and its degraded rule
 * (nhd_calib.h, doc/nodehealthd.md "Calibration"). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cal_calib.h"
#include "cal_timer.h"
#include "nhd_calib.h"

/* The whole calibration must end within 2 s and 1 CPU-second: the budget
 * is checked between rounds (one takes up to ~0.1 s on a loaded node) and
 * the two 20 ms rate windows come on top, hence the margin. */
#define NHD_CALIB_BUDGET_S 1.7     /* wall time the rounds may take */
#define NHD_CALIB_BUDGET_CPU_S 0.8 /* CPU time they may take */
#define NHD_CALIB_RATE_MS 20       /* each TSC rate window */
#define SLURM_EXTERN_STEP "4294967292"

int nhd_calib_judge(const struct nhd_calib_obs *o, const struct nhd_conf *c, double *rate_diff, char *detail,
		    size_t len)
{
	double rd = 0;
	if (o->tsc_ghz_start > 0 && o->tsc_ghz_end > 0)
		rd = fabs(o->tsc_ghz_end - o->tsc_ghz_start) / o->tsc_ghz_start;
	*rate_diff = rd;
	if (o->backward_steps > 0) {
		snprintf(detail, len, "timer untrustworthy: %ld backward steps", o->backward_steps);
		return 1;
	}
	if ((o->tsc_ghz_start > 0) != (o->tsc_ghz_end > 0) || rd > c->calibrate_max_rate_diff) {
		snprintf(detail, len, "timer untrustworthy: TSC and CLOCK_MONOTONIC rates disagree by %.3g %% > %.3g %%",
			 rd * 100, c->calibrate_max_rate_diff * 100);
		return 1;
	}
	if (c->calibrate_max_noise > 0) {
		if (!o->found) {
			snprintf(detail, len, "timer noise: no trustworthy interval (bound %.3g %%)",
				 c->calibrate_max_noise * 100);
			return 1;
		}
		if (o->noise < 0) {
			snprintf(detail, len, "timer noise: no slowdown resolved by the quick calibration (bound %.3g %%)",
				 c->calibrate_max_noise * 100);
			return 1;
		}
		if (o->noise > c->calibrate_max_noise) {
			snprintf(detail, len, "timer noise: resolution %.3g %% > %.3g %%", o->noise * 100,
				 c->calibrate_max_noise * 100);
			return 1;
		}
	}
	if (!o->found)
		snprintf(detail, len, "timers ok, no trustworthy interval (noise not bounded)");
	else if (o->noise < 0)
		snprintf(detail, len, "timers ok, resolution not reached (noise not bounded)");
	else
		snprintf(detail, len, "timers ok, resolution %.3g %%", o->noise * 100);
	return 0;
}

/* Does a slurmstepd listen on this step socket?  A slurmstepd that was
 * killed (a node failure, an OOM kill) leaves its socket behind until slurmd
 * restarts: connect() to it is refused.  (Slurm's own tools find live steps
 * the same way.) */
static int step_alive(const char *path)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int fd, ok;
	if (strlen(path) >= sizeof(sun.sun_path))
		return 1; /* cannot tell: count it, so no calibration disturbs it */
	memcpy(sun.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 1;
	ok = connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0 || (errno != ECONNREFUSED && errno != ENOENT);
	close(fd);
	return ok;
}

int nhd_calib_busy_steps(const char *spool, const char *node)
{
	DIR *dir = opendir(spool);
	struct dirent *e;
	size_t nl = strlen(node);
	int n = 0;
	if (!dir)
		return -1;
	while ((e = readdir(dir))) {
		char path[4096];
		struct stat st;
		const char *dot;
		if (strncmp(e->d_name, node, nl) || e->d_name[nl] != '_')
			continue;
		dot = strchr(e->d_name + nl + 1, '.');
		if (!dot || !strcmp(dot + 1, SLURM_EXTERN_STEP))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", spool, e->d_name) >= (int)sizeof(path) ||
		    stat(path, &st) < 0 || !S_ISSOCK(st.st_mode) || !step_alive(path))
			continue;
		n++;
	}
	closedir(dir);
	return n;
}

void nhd_calib_take(const struct nhd_conf *c, struct nhd_calib *k, const struct cal_result *r, double tsc_start,
		    double tsc_end)
{
	k->ran++;
	k->skipped[0] = 0;
	k->seconds = r->seconds;
	k->cpu_seconds = r->cpu_seconds;
	k->truncated = r->truncated;
	k->obs.backward_steps = r->timer.backward_steps;
	k->obs.tsc_ghz_start = tsc_start;
	k->obs.tsc_ghz_end = tsc_end;
	k->obs.found = r->interval.found;
	/* The resolution sent in the probe reply (the job's flag judges with
	 * it) and the noise the degraded rule checks: the calibration file's
	 * criterion's rule (cal_resolution_judged: the upper end of the spread
	 * over blocks, one block excepted, at least two steps of the clock). */
	double up_ns, up_cy, up_rel;
	cal_resolution_judged(&r->node, r->timer.step_ns, &up_ns, &up_cy, &up_rel);
	k->obs.noise = r->node.found ? up_rel : -1;
	k->r0_ns = r->interval.found ? r->interval.ns : 0;
	k->resolution_ns = r->node.found ? up_ns : 0;
	k->degraded = nhd_calib_judge(&k->obs, c, &k->rate_diff, k->detail, sizeof(k->detail));
}

int nhd_calib_run(const struct nhd_conf *c, struct nhd_calib *k)
{
	struct cal_opts o;
	struct cal_result r;
	struct timespec ts;
	double start;
	int tscp;

	cal_opts_defaults(&o, 1);
	o.budget_s = NHD_CALIB_BUDGET_S;
	o.budget_cpu_s = NHD_CALIB_BUDGET_CPU_S;
	{
		struct cal_timer_info ti;
		cal_timer_detect(&ti);
		tscp = ti.rdtscp;
		start = ti.have_cycles ? cal_tsc_rate(tscp, NHD_CALIB_RATE_MS) : 0;
	}
	k->gen++;
	if (cal_run(&o, &r) < 0) {
		snprintf(k->skipped, sizeof(k->skipped), "calibration failed: %s", strerror(errno));
		return -1;
	}
	nhd_calib_take(c, k, &r, start, r.timer.have_cycles ? cal_tsc_rate(tscp, NHD_CALIB_RATE_MS) : 0);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	k->mono = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	k->wall = time(NULL);
	cal_result_free(&r);
	return 0;
}

void nhd_calib_to_health(const struct nhd_calib *k, struct nhd_health *h)
{
	struct nhd_check_result *r;
	if (!k->ran || h->n >= NHD_MAX_CHECKS)
		return;
	r = &h->r[h->n++];
	snprintf(r->name, sizeof(r->name), "calibration");
	r->ok = !k->degraded;
	snprintf(r->detail, sizeof(r->detail), "%s", k->detail);
	nhd_health_summarize(h);
}
