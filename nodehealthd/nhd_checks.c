/* nhd_checks.c - NHC-style local health checks: load, memory, mounts, /tmp,
 * daemons, clock and EDAC counters. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "nhd_checks.h"
#include "probe.h"

static const char *proc_root = "/proc";

void nhd_checks_set_proc_root(const char *root)
{
	proc_root = root ? root : "/proc";
}

static void add(struct nhd_health *h, const char *name, int ok, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void add(struct nhd_health *h, const char *name, int ok, const char *fmt, ...)
{
	va_list ap;
	struct nhd_check_result *r;
	if (h->n >= NHD_MAX_CHECKS)
		return;
	r = &h->r[h->n++];
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->ok = ok;
	va_start(ap, fmt);
	vsnprintf(r->detail, sizeof(r->detail), fmt, ap);
	va_end(ap);
}

/* Read a small file into buf; return bytes or -1. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got = 0, r;
	if (fd < 0)
		return -1;
	while ((size_t)got + 1 < len && (r = read(fd, buf + got, len - 1 - (size_t)got)) > 0)
		got += r;
	close(fd);
	buf[got] = 0;
	return got;
}

static void check_load(const struct nhd_conf *c, struct nhd_health *h)
{
	char path[512], buf[128];
	double load;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	if (c->load_max_per_core <= 0)
		return;
	if (cores < 1)
		cores = 1;
	snprintf(path, sizeof(path), "%s/loadavg", proc_root);
	if (read_small(path, buf, sizeof(buf)) <= 0 || sscanf(buf, "%lf", &load) != 1) {
		add(h, "load", 0, "cannot read %s", path);
		return;
	}
	if (load > c->load_max_per_core * (double)cores)
		add(h, "load", 0, "load %.2f > %.2f (%g x %ld cores)", load,
		    c->load_max_per_core * (double)cores, c->load_max_per_core, cores);
	else
		add(h, "load", 1, "load %.2f, %ld cores", load, cores);
}

static void check_memory(const struct nhd_conf *c, struct nhd_health *h)
{
	char path[512], buf[8192], *p;
	long long kb = -1;

	if (c->mem_min_free_mb <= 0)
		return;
	snprintf(path, sizeof(path), "%s/meminfo", proc_root);
	if (read_small(path, buf, sizeof(buf)) <= 0 || !(p = strstr(buf, "MemAvailable:")) ||
	    sscanf(p + 13, "%lld", &kb) != 1) {
		add(h, "memory", 0, "cannot read MemAvailable from %s", path);
		return;
	}
	if (kb / 1024 < c->mem_min_free_mb)
		add(h, "memory", 0, "free memory %lld MB < %ld MB", kb / 1024, c->mem_min_free_mb);
	else
		add(h, "memory", 1, "free memory %lld MB", kb / 1024);
}

/* Undo mountinfo's octal escapes (\040 for space) in place. */
static void unescape(char *s)
{
	char *d = s;
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)(((s[1] - '0') << 6) | ((s[2] - '0') << 3) | (s[3] - '0'));
			s += 3;
		} else
			*d++ = *s;
	}
	*d = 0;
}

static int is_mounted(const char *mnt)
{
	char path[512], line[4096];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "%s/self/mountinfo", proc_root);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		char *save = NULL, *tok = strtok_r(line, " ", &save);
		for (int i = 0; tok && i < 4; i++)
			tok = strtok_r(NULL, " ", &save);
		if (tok) {
			unescape(tok);
			found = !strcmp(tok, mnt);
		}
	}
	fclose(f);
	return found;
}

/* 1 writable, 0 not (reason in why), for a directory. */
static int writable(const char *dir, char *why, size_t whylen)
{
	struct statvfs sv;
	char tmpl[4096];
	int fd;

	if (statvfs(dir, &sv) < 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		return 0;
	}
	if (sv.f_flag & ST_RDONLY) {
		snprintf(why, whylen, "read-only");
		return 0;
	}
	snprintf(tmpl, sizeof(tmpl), "%s/.mpiwatch-nhd-XXXXXX", strcmp(dir, "/") ? dir : "");
	fd = mkstemp(tmpl);
	if (fd < 0) {
		/* Without CAP_DAC_OVERRIDE the daemon may lack permission on a
		 * directory that others can write: that is not a node fault. */
		if (errno == EACCES || errno == EPERM)
			return 1;
		snprintf(why, whylen, "cannot create a file: %s", strerror(errno));
		return 0;
	}
	close(fd);
	unlink(tmpl);
	return 1;
}

static void check_mounts(const struct nhd_conf *c, struct nhd_health *h)
{
	for (size_t i = 0; i < c->mount.n; i++) {
		const char *m = c->mount.v[i];
		char why[128];
		int r = is_mounted(m);
		if (r < 0)
			add(h, "mount", 0, "cannot read mountinfo");
		else if (!r)
			add(h, "mount", 0, "%s not mounted", m);
		else if (c->mount_writable && !writable(m, why, sizeof(why)))
			add(h, "mount", 0, "%s not writable: %s", m, why);
		else
			add(h, "mount", 1, "%s mounted", m);
	}
}

static void check_tmp(const struct nhd_conf *c, struct nhd_health *h)
{
	struct statvfs sv;
	unsigned long long mb;

	if (c->tmp_min_free_mb <= 0)
		return;
	if (statvfs(c->tmp_path, &sv) < 0) {
		add(h, "tmp", 0, "%s: %s", c->tmp_path, strerror(errno));
		return;
	}
	mb = (unsigned long long)sv.f_bavail * sv.f_frsize / (1024 * 1024);
	if (mb < (unsigned long long)c->tmp_min_free_mb)
		add(h, "tmp", 0, "%s free %llu MB < %ld MB", c->tmp_path, mb, c->tmp_min_free_mb);
	else
		add(h, "tmp", 1, "%s free %llu MB", c->tmp_path, mb);
}

static void check_daemons(const struct nhd_conf *c, struct nhd_health *h)
{
	int found[64] = {0};
	size_t n = c->daemon.n < 64 ? c->daemon.n : 64;
	DIR *d;
	struct dirent *e;

	if (n == 0)
		return;
	d = opendir(proc_root);
	if (!d) {
		add(h, "daemon", 0, "cannot read %s", proc_root);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		char path[512], comm[64];
		ssize_t len;
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/%s/comm", proc_root, e->d_name);
		len = read_small(path, comm, sizeof(comm));
		if (len <= 0)
			continue;
		if (comm[len - 1] == '\n')
			comm[len - 1] = 0;
		for (size_t i = 0; i < n; i++)
			/* comm holds at most 15 characters of the name */
			if (!found[i] && !strncmp(comm, c->daemon.v[i], 15))
				found[i] = 1;
	}
	closedir(d);
	for (size_t i = 0; i < n; i++)
		add(h, "daemon", found[i], found[i] ? "%s running" : "%s not running", c->daemon.v[i]);
}

static void check_clock(const struct nhd_conf *c, struct nhd_check_state *st, struct nhd_health *h)
{
	struct timespec rt, mono;
	struct tm tm;
	double off;
	int year;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	gmtime_r(&rt.tv_sec, &tm);
	year = tm.tm_year + 1900;
	off = ((double)rt.tv_sec + rt.tv_nsec / 1e9) - ((double)mono.tv_sec + mono.tv_nsec / 1e9);
	if (year < c->clock_min_year || year > 2200) {
		add(h, "clock", 0, "wall clock year %d out of range [%ld, 2200]", year, c->clock_min_year);
	} else if (c->clock_max_jump > 0 && st->have_offset &&
		   (off - st->offset > c->clock_max_jump || st->offset - off > c->clock_max_jump)) {
		add(h, "clock", 0, "wall clock jumped by %+.1f s", off - st->offset);
	} else {
		add(h, "clock", 1, "year %d", year);
	}
	st->offset = off;
	st->have_offset = 1;
}

static void check_edac(const struct nhd_conf *c, struct nhd_health *h)
{
	DIR *d;
	struct dirent *e;
	long long ue = 0, ce = 0;
	int mcs = 0;

	if (c->edac_max_ue < 0 && c->edac_max_ce < 0)
		return;
	d = opendir(c->edac_path);
	if (!d)
		return; /* no EDAC on this node: nothing to check */
	while ((e = readdir(d)) != NULL) {
		char path[4096], buf[64];
		if (strncmp(e->d_name, "mc", 2) != 0 || e->d_name[2] < '0' || e->d_name[2] > '9')
			continue;
		mcs++;
		snprintf(path, sizeof(path), "%s/%s/ue_count", c->edac_path, e->d_name);
		if (read_small(path, buf, sizeof(buf)) > 0)
			ue += atoll(buf);
		snprintf(path, sizeof(path), "%s/%s/ce_count", c->edac_path, e->d_name);
		if (read_small(path, buf, sizeof(buf)) > 0)
			ce += atoll(buf);
	}
	closedir(d);
	if (mcs == 0)
		return;
	if (c->edac_max_ue >= 0 && ue > c->edac_max_ue)
		add(h, "edac", 0, "%lld uncorrected memory errors > %ld", ue, c->edac_max_ue);
	else if (c->edac_max_ce >= 0 && ce > c->edac_max_ce)
		add(h, "edac", 0, "%lld corrected memory errors > %ld", ce, c->edac_max_ce);
	else
		add(h, "edac", 1, "%d controllers, %lld UE, %lld CE", mcs, ue, ce);
}

void nhd_health_summarize(struct nhd_health *h)
{
	size_t len = 0;
	h->failed = 0;
	h->summary[0] = 0;
	for (int i = 0; i < h->n; i++) {
		int w;
		if (h->r[i].ok)
			continue;
		h->failed++;
		if (len >= sizeof(h->summary) - 1)
			continue;
		w = snprintf(h->summary + len, sizeof(h->summary) - len, "%s%s", len ? "; " : "",
			     h->r[i].detail);
		len += (w > 0) ? (size_t)w : 0;
		if (len >= sizeof(h->summary))
			len = sizeof(h->summary) - 1;
	}
	if (!h->failed)
		snprintf(h->summary, sizeof(h->summary), "ok");
	h->state = h->failed ? MW_PROBE_DEGRADED : MW_PROBE_ALIVE;
}

/* The node's load, free memory and cores, whatever checks are on (the
 * probe reply carries them for the tree's fuzzy placement). */
static void read_factors(struct mw_probe_factors *f)
{
	char path[512], buf[8192], *p;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	long long kb;
	f->load = f->mem_free_mb = -1;
	f->cores = cores > 0 ? (int)cores : 0;
	snprintf(path, sizeof(path), "%s/loadavg", proc_root);
	if (read_small(path, buf, sizeof(buf)) <= 0 || sscanf(buf, "%lf", &f->load) != 1)
		f->load = -1;
	snprintf(path, sizeof(path), "%s/meminfo", proc_root);
	if (read_small(path, buf, sizeof(buf)) > 0 && (p = strstr(buf, "MemAvailable:")) &&
	    sscanf(p + 13, "%lld", &kb) == 1 && kb >= 0)
		f->mem_free_mb = (double)(kb / 1024);
}

void nhd_checks_run(const struct nhd_conf *c, struct nhd_check_state *st, struct nhd_health *out)
{
	struct timespec ts;
	memset(out, 0, sizeof(*out));
	read_factors(&out->f);
	check_load(c, out);
	check_memory(c, out);
	check_mounts(c, out);
	check_tmp(c, out);
	check_daemons(c, out);
	check_clock(c, st, out);
	check_edac(c, out);
	nhd_health_summarize(out);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	out->mono = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	out->wall = time(NULL);
}
