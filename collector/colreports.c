/* colreports.c - the collector's reports (colreports.h): report.json and
 * its companions written, the files read into them (the agents' link
 * errors, the MPI library's lines, the job's output file), the deadlock
 * analysis of the dumps and the imbalance analysis at the end.
 */
#include "colreports.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coleval.h"
#include "dl.h"
#include "imb.h"
#include "imb_phases.h"
#include "joblog.h"
#include "jobconf.h"
#include "log.h"
#include "mw_link.h"
#include "nodecal.h"
#include "slurm.h"
#include "uvslurm.h"
#include "settings.h"

static struct mw_ratelimit report_rl = MW_RATELIMIT_INIT(0.1, 2);

/* A report left by an earlier collector of the same job (the job was
 * requeued and runs again) is kept as report-runN.{json,txt}. */
void col_reports_keep_old(const char *dir)
{
	char from[4200], to[4200];
	int n;
	snprintf(from, sizeof from, "%s/report.json", dir);
	if (access(from, F_OK) != 0)
		return;
	for (n = 1; n < 1000; n++) {
		snprintf(to, sizeof to, "%s/report-run%d.json", dir, n);
		if (access(to, F_OK) != 0)
			break;
	}
	if (rename(from, to) == 0)
		mw_info("kept the previous run's report as %s", to);
	snprintf(from, sizeof from, "%s/report.txt", dir);
	snprintf(to, sizeof to, "%s/report-run%d.txt", dir, n);
	rename(from, to);
}

/* The plugin's mark that a watched task ended badly (MW_PENDING_FILE): srun
 * waits for it to go before it prints the answer.  Removed once the report
 * tells what happened (a verdict, or nothing is suspicious). */
void col_reports_pending_clear(const struct collector *c)
{
	char path[4200];
	(void)c;
	if (!mw_setting_str(MW_SET_DIR)[0])
		return;
	snprintf(path, sizeof path, "%s/%s", mw_setting_str(MW_SET_DIR), MW_PENDING_FILE);
	unlink(path);
}


/* A write of the report's files on libuv's pool: made on the loop, written
 * off it. */
struct rep_write {
	uv_work_t w;
	struct collector *c;
	struct col_report_files f;
	int rc, err;       /* the write's */
	int made_rc, made_err; /* the making's */
	int clear;         /* remove the pending mark once written */
};

static void rep_work(uv_work_t *w)
{
	struct rep_write *r = w->data;
	r->rc = col_report_files_write(&r->f);
	r->err = errno;
}

/* The write is over: told (rate-limited), the pending mark removed. */
static void rep_told(struct collector *c, int rc, int err, int clear)
{
	if (rc < 0)
		mw_log_limited(&report_rl, LOG_ERR, "cannot write the report in %s: %s",
			       c->o->report[0] ? c->o->report : mw_setting_str(MW_SET_DIR), strerror(err));
	else if (clear)
		col_reports_pending_clear(c);
}

static void rep_done(uv_work_t *w, int status)
{
	struct rep_write *r = w->data;
	struct collector *c = r->c;
	(void)status;
	rep_told(c, r->made_rc < 0 ? r->made_rc : r->rc, r->made_rc < 0 ? r->made_err : r->err, r->clear);
	col_report_files_free(&r->f);
	free(r);
	c->write_busy = 0;
	if (c->write_again) {
		c->write_again = 0;
		col_reports_write(c);
	}
}

void col_reports_write(struct collector *c)
{
	struct rep_write *r;
	int clear;
	if (c->stop || col_now(c) - c->links_read_at >= 5.0) { /* the agents' link errors, now and then */
		c->links_read_at = col_now(c);
		col_reports_read_link_errors(c);
	}
	clear = c->s.decided || c->stop || !col_eval_suspicious(&c->s);
	if (c->loop && !c->writes_inline && c->write_busy) {
		c->write_again = 1; /* written again, as it is then, once this one is over */
		return;
	}
	if (c->loop && !c->writes_inline && (r = calloc(1, sizeof *r))) {
		r->c = c;
		r->w.data = r;
		r->clear = clear;
		r->made_rc = col_report_render(&c->s, mw_setting_str(MW_SET_DIR), c->o->report, &r->f);
		r->made_err = errno;
		if (uv_queue_work(c->loop, &r->w, rep_work, rep_done) == 0) {
			c->write_busy = 1;
			return;
		}
		col_report_files_free(&r->f);
		free(r);
	}
	{
		int rc = col_report_write(&c->s, mw_setting_str(MW_SET_DIR), c->o->report);
		rep_told(c, rc, errno, clear);
	}
}

void col_reports_inline(struct collector *c)
{
	while (c->loop && c->write_busy)
		uv_run(c->loop, UV_RUN_ONCE);
	c->write_again = 0;
	c->writes_inline = 1;
}

static int has_profiles(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	if (!d)
		return 0;
	while (!n && (e = readdir(d)))
		n = strncmp(e->d_name, "profile.", 8) == 0 || strncmp(e->d_name, "MULTI__", 7) == 0;
	closedir(d);
	return n;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One analysis written to OUTDIR/imbalance<suffix>.*, told in the timeline. */
static void imbalance_one(struct collector *c, const struct imb_fluct_opts *fo, const char *prof, const char *label,
			  const char *suffix)
{
	char err[1024];
	struct imb_fluct_result fl;
	if (imb_write_reports(prof, mw_setting_str(MW_SET_DIR), suffix, fo, &fl, err, sizeof err) == 0) {
		mw_info("load imbalance of %s in %s/imbalance%s.txt", label, mw_setting_str(MW_SET_DIR), suffix);
		col_state_event(&c->s, "note", "load imbalance of %s: imbalance%s.txt, imbalance%s.html",
				label, suffix, suffix);
		/* The compute-phase fluctuation flags (issue 14), one note each. */
		for (size_t i = 0; i < fl.nnode; i++)
			col_state_event(&c->s, "note", "%s: %s", label, fl.node_message[i]);
		for (size_t i = 0; i < fl.n; i++)
			col_state_event(&c->s, "note", "%s: %s", label, fl.f[i].message);
		for (size_t i = 0; i < fl.nunjudged; i++)
			col_state_event(&c->s, "note", "%s: %s", label, fl.unjudged[i].message);
		imb_fluct_free(&fl);
	} else {
		mw_warn("no load-imbalance analysis of %s: %s", label, err);
		col_state_event(&c->s, "note", "no load-imbalance analysis of %s: %.300s", label, err);
	}
}

/* --profile DIR at the end of the job: the imbalance analysis of the profiles
 * in DIR, or of each step's folder in it (imbalance.STEP.* when there are
 * several), beside the report. */
void col_reports_imbalance(struct collector *c)
{
	const char *prof = c->o->profile;
	char *names[256], sub[8300], suffix[300];
	size_t n = 0;
	DIR *d;
	struct dirent *e;

	struct imb_fluct_opts fo;
	struct imb_nodecal *cal = NULL;

	if (!prof[0] || !mw_setting_str(MW_SET_DIR)[0])
		return;
	/* The flag judges with each node's own calibration (issue 32). */
	imb_fluct_defaults(&fo);
	if (has_profiles(prof)) {
		if (col_nodecal_get(c, &cal, &fo.ncal) == 0)
			fo.cal = cal;
		imbalance_one(c, &fo, prof, "the job", "");
		free(cal);
		return;
	}
	d = opendir(prof);
	if (!d)
		return; /* nothing profiled */
	while ((e = readdir(d)) && n < sizeof names / sizeof names[0]) {
		if (e->d_name[0] == '.' || strlen(e->d_name) > 200)
			continue;
		snprintf(sub, sizeof sub, "%s/%s", prof, e->d_name);
		if (has_profiles(sub) && (names[n] = strdup(e->d_name)))
			n++;
	}
	closedir(d);
	qsort(names, n, sizeof names[0], name_cmp);
	if (n && col_nodecal_get(c, &cal, &fo.ncal) == 0)
		fo.cal = cal;
	for (size_t i = 0; i < n; i++) {
		char label[256];
		snprintf(sub, sizeof sub, "%s/%s", prof, names[i]);
		snprintf(label, sizeof label, "%s", names[i]);
		snprintf(suffix, sizeof suffix, n == 1 ? "%s" : ".%s", n == 1 ? "" : names[i]);
		imbalance_one(c, &fo, sub, label, suffix);
		free(names[i]);
	}
	free(cal);
}

/* The integer array o[key] as a new array (*n entries; NULL and 0 when it
 * is missing or memory runs out). */
static int *int_list(json_object *o, const char *key, size_t *n)
{
	json_object *a = NULL;
	int *v;
	*n = 0;
	if (!json_object_object_get_ex(o, key, &a) || !json_object_is_type(a, json_type_array))
		return NULL;
	size_t len = json_object_array_length(a);
	v = malloc((len ? len : 1) * sizeof *v);
	if (!v)
		return NULL;
	for (size_t i = 0; i < len; i++)
		v[i] = json_object_get_int(json_object_array_get_idx(a, i));
	*n = len;
	return v;
}

/* Run the deadlock analysis (analyze/) over the dumps received so far: its
 * answer, found or not, is the report's deadlock answer (s->dl). */
void col_reports_analyse_dumps(struct collector *c)
{
	struct col_state *s = &c->s;
	struct dl_options opt;
	struct dl_result *dr = NULL;
	char dir[4200];
	const char **names = NULL;
	char **bufs = NULL, (*nb)[32] = NULL;
	size_t *lens = NULL;
	int ndumps = 0, rc;
	FILE *f;

	for (size_t i = 0; i < s->size; i++)
		ndumps += s->dumps[i] != NULL;
	if (!ndumps || !s->have_res)
		return;
	/* From memory, not from DIR/dumps: a full or lost report folder must
	 * not lose the analysis. */
	names = calloc((size_t)ndumps, sizeof *names);
	bufs = calloc((size_t)ndumps, sizeof *bufs);
	lens = calloc((size_t)ndumps, sizeof *lens);
	nb = calloc((size_t)ndumps, sizeof *nb);
	if (!names || !bufs || !lens || !nb) {
		mw_warn("deadlock analysis: out of memory");
		goto out;
	}
	ndumps = 0;
	for (size_t i = 0; i < s->size; i++) {
		if (!s->dumps[i])
			continue;
		snprintf(nb[ndumps], sizeof nb[ndumps], "rank-%zu.json", i);
		names[ndumps] = nb[ndumps];
		bufs[ndumps] = s->dumps[i];
		lens[ndumps] = strlen(s->dumps[i]);
		ndumps++;
	}
	dl_options_init(&opt);
	opt.expect_size = (int)s->size;
	opt.progress = -1;
	rc = dl_analyze_buffers(ndumps, names, bufs, lens, &opt, &dr);
	if (rc < 0) {
		mw_warn("deadlock analysis of %d dump(s): %s", ndumps, strerror(errno));
		goto out;
	}
	if (s->analysis)
		json_object_put(s->analysis);
	s->analysis = json_object_get(dl_result_json(dr));
	if (mw_setting_str(MW_SET_DIR)[0]) {
		snprintf(dir, sizeof dir, "%s/deadlock.txt", mw_setting_str(MW_SET_DIR));
		f = fopen(dir, "we");
		if (f) {
			dl_write_text(f, dr);
			if (fclose(f) != 0)
				mw_warn("cannot write %s: %s", dir, strerror(errno));
		}
	}
	{
		struct col_deadlock *d = &s->dl;
		json_object *reason = NULL;
		free(d->ranks);
		free(d->waiting);
		memset(d, 0, sizeof *d);
		s->dl_dumps = ndumps;
		d->found = dl_result_found(dr);
		if (d->found) {
			json_object *cause = NULL;
			const char *cs = json_object_object_get_ex(s->analysis, "cause", &cause)
						 ? json_object_get_string(cause)
						 : NULL;
			snprintf(d->kind, sizeof d->kind, "%s", dl_result_kind(dr));
			/* "wrong_tag" -> "wrong tag": the cause when there is one */
			snprintf(d->what, sizeof d->what, "%s", cs && *cs ? cs : d->kind);
			for (char *p = d->what; *p; p++)
				if (*p == '_')
					*p = ' ';
		}
		if (d->found) {
			d->ranks = int_list(s->analysis, "ranks", &d->n);
			d->waiting = int_list(s->analysis, "waiting_ranks", &d->nwaiting);
		}
		if (json_object_object_get_ex(s->analysis, "reason", &reason) && json_object_get_string(reason))
			snprintf(d->detail, sizeof d->detail, "%s", json_object_get_string(reason));
		else
			snprintf(d->detail, sizeof d->detail, "see deadlock.txt");
	}
	dl_result_free(dr);
out:
	free(names);
	free(bufs);
	free(lens);
	free(nb);
}

/* OUTDIR/NAME (at most 64 KiB) into *text, replacing it, if it exists. */
static void read_side_file(const char *name, char **text)
{
	char path[4200];
	FILE *f;
	size_t n;
	if (!mw_setting_str(MW_SET_DIR)[0])
		return;
	snprintf(path, sizeof path, "%s/%s", mw_setting_str(MW_SET_DIR), name);
	if (!(f = fopen(path, "re")))
		return;
	free(*text);
	*text = malloc(65536);
	if (*text) {
		n = fread(*text, 1, 65535, f);
		(*text)[n] = 0;
	}
	fclose(f);
}

/* Whether rank x was killed by a signal of its own (a crash), not from
 * outside. */
static int own_signal(const struct col_rank *x)
{
	return x->exit_signal > 0 && !col_killed_from_outside(x);
}

/* Whether rank x ended inside an MPI call of its own (not MPI_Finalize),
 * not by a signal of its own: the MPI library may have ended it. */
static int ended_in_call(const struct col_rank *x)
{
	return (x->state == MW_HB_S_EXITED || x->state == MW_HB_S_VANISHED) && x->call[0] &&
	       strcmp(x->call, "MPI_Finalize") && !own_signal(x);
}

/* Whether rank i ended inside a send to a rank that had ended inside the
 * receive matching it (from rank i or any rank, with its tag or any): the
 * message was being delivered when the launcher tore the job down, and
 * where the MPI library failed is the receive (a truncation), not the send. */
static int delivering(const struct col_state *s, size_t i)
{
	const struct col_rank *x = &s->ranks[i], *y;
	if (strcmp(x->kind, "send") || x->peer_world < 0 || (size_t)x->peer_world >= s->size)
		return 0;
	y = &s->ranks[x->peer_world];
	return ended_in_call(y) && !strcmp(y->kind, "recv") &&
	       (y->peer_world == (int)i || y->peer_world == MW_RANK_ANY) && (y->tag < 0 || y->tag == x->tag);
}

/* The launcher exited by itself with a failure (OUTDIR/launcher-exit.txt,
 * its exit status, written by "mpiwatch run" once it read the launcher's
 * output to its end) but no MPI library line was read: Open MPI's help
 * aggregation loses it when the ranks are torn down first (issue 35 item 7).
 * The ranks that ended inside a call of their own (a point-to-point call or
 * a wait when any did, else every one that ended inside a call; not a send
 * its receiver was taking: delivering()) get a line saying so in
 * s->mpi_errors: they are the MPI error, not a killed launcher. */
static void lost_mpi_errors(struct collector *c)
{
	struct col_state *s = &c->s;
	char *st = NULL, tmp[8];
	int code, own = 0;
	read_side_file(MW_LAUNCHER_EXIT_FILE, &st);
	code = st ? atoi(st) : 0;
	free(st);
	if (code <= 0 || !s->mpi_errors)
		return;
	for (size_t i = 0; i < s->size; i++) {
		const struct col_rank *x = &s->ranks[i];
		if (col_mpi_error(s, (int)i, tmp, sizeof tmp))
			return; /* the library's own line tells it */
		if (own_signal(x) || x->preinit || col_rank_line(s->crash_stacks, (int)i, tmp, sizeof tmp))
			return; /* a rank killed by a signal of its own, or one that ended before
				   MPI_Init: a crash, not the library */
		own |= ended_in_call(x) && strcmp(x->kind, "collective");
	}
	size_t len = strlen(s->mpi_errors), cap = len + s->size * 128 + 1;
	char *t = malloc(cap);
	if (!t)
		return;
	memcpy(t, s->mpi_errors, len + 1);
	for (size_t i = 0; i < s->size; i++) {
		const struct col_rank *x = &s->ranks[i];
		if (ended_in_call(x) && (!own || strcmp(x->kind, "collective")) && !delivering(s, i))
			len += (size_t)snprintf(t + len, cap - len,
						"%zu\tits own error message was not printed (the launcher exited "
						"with status %d)\n", i, code);
	}
	free(s->mpi_errors);
	s->mpi_errors = t;
}

/* What "mpiwatch run" read from the launcher's output and wrote beside the
 * report (none under Slurm): the MPI library's error lines and where
 * crashed ranks died. */
void col_reports_read_mpi_errors(struct collector *c)
{
	read_side_file(MW_MPI_ERRORS_FILE, &c->s.mpi_errors);
	read_side_file(MW_CRASH_STACKS_FILE, &c->s.crash_stacks);
	lost_mpi_errors(c);
}

/* Under Slurm, where a crashed rank died: the MPI library's crash report in
 * the batch job's output file (joblog.h), read when a rank ended and has no
 * stack yet; the MPI library's own error line for a rank it ended too.  Not under "mpiwatch run" (it reads the launcher's output
 * itself: OUTDIR/mpi-errors.txt exists) nor without Slurm (--job-check 0). */
static int job_output_needed(struct collector *c)
{
	struct col_state *s = &c->s;
	char path[4200], have[8];
	int need = 0;
	if (mw_setting_double(MW_SET_JOB_CHECK) <= 0)
		return 0;
	if (mw_setting_str(MW_SET_DIR)[0]) {
		snprintf(path, sizeof path, "%s/" MW_MPI_ERRORS_FILE, mw_setting_str(MW_SET_DIR));
		if (access(path, F_OK) == 0)
			return 0;
	}
	for (size_t i = 0; i < s->size && !need; i++)
		need = (s->ranks[i].state == MW_HB_S_EXITED || s->ranks[i].state == MW_HB_S_VANISHED) &&
		       !col_rank_line(s->crash_stacks, (int)i, have, sizeof have);
	return need;
}

/* Slurm's answer about the job (rc 0: j): the output file's path into
 * c->joblog, or a note saying why there is none. */
static void joblog_path_told(struct collector *c, const struct mw_slurm_job *j, int rc, const char *err)
{
	struct col_state *s = &c->s;
	if (rc < 0)
		col_state_event(s, "note", "where crashed ranks died: cannot ask Slurm for the job's "
					   "output file: %.300s", err);
	else if (col_joblog_path(j, s->job, c->joblog, sizeof c->joblog) < 0)
		col_state_event(s, "note", "where crashed ranks died: %s",
				j->batch ? "the job's output file name has a pattern mpiwatch does not expand"
					 : "not a batch job: its ranks' output goes to srun's terminal, "
					   "which mpiwatch does not read");
}

static void joblog_job_told(void *arg, long rc, const char *err);

/* Ask Slurm (squeue, on the loop) where the job's output goes: 1 while
 * the answer is under way (joblog_job_told ends it), 0 if it could not be
 * asked (told as such). */
static int joblog_ask(struct collector *c)
{
	char err[256];
	c->joblog_asked = 1;
	if (mw_uvslurm_job(c->loop, NULL, c->s.job, &c->joblog_j, joblog_job_told, c, err, sizeof err)) {
		c->joblog_busy = 1;
		return 1;
	}
	joblog_path_told(c, &c->joblog_j, -1, err);
	return 0;
}

void col_reports_read_job_output(struct collector *c)
{
	struct col_state *s = &c->s;
	int n, nerr = 0;
	char *text = c->joblog_text;
	c->joblog_text = NULL;
	if (!job_output_needed(c)) {
		free(text);
		return;
	}
	if (!c->joblog_asked && c->loop && joblog_ask(c)) {
		/* squeue on the loop (uv_spawn, its time limit), the loop turning
		 * until it answers */
		while (c->joblog_busy)
			uv_run(c->loop, UV_RUN_ONCE);
	}
	if (!c->joblog_asked) { /* no loop: in line */
		struct mw_slurm_job j = {0};
		char err[256];
		c->joblog_asked = 1;
		joblog_path_told(c, &j, mw_slurm_job(NULL, s->job, &j, err, sizeof err), err);
		mw_slurm_job_free(&j);
	}
	if (!c->joblog[0]) {
		free(text);
		return;
	}
	if (text && !c->final_eval) /* read on the pool just now (col_reports_job_output_ready) */
		n = col_joblog_apply(s, text, &nerr);
	else
		n = col_joblog_scan(s, c->joblog, &nerr);
	free(text);
	if (n > 0)
		col_state_event(s, "note", "where %d crashed rank(s) died: read from the MPI library's "
					   "crash report in %.300s", n, c->joblog);
	if (nerr > 0)
		col_state_event(s, "note", "the MPI library's own error line for %d rank(s) it ended: read "
					   "from %.300s", nerr, c->joblog);
}

/* The job output's read on the loop's pool. */
struct joblog_read {
	uv_work_t w;
	struct collector *c;
	char path[4200];
	char *text;
};

static void joblog_read_work(uv_work_t *w)
{
	struct joblog_read *r = w->data;
	r->text = col_joblog_read(r->path);
}

static void joblog_read_done(uv_work_t *w, int status)
{
	struct joblog_read *r = w->data;
	struct collector *c = r->c;
	(void)status;
	c->joblog_busy = 0;
	free(c->joblog_text);
	/* unreadable: nothing to apply, but read (no new try at once) */
	c->joblog_text = r->text ? r->text : strdup("");
	free(r);
	col_eval_schedule(c, 0);
}

static void joblog_job_told(void *arg, long rc, const char *err)
{
	struct collector *c = arg;
	c->joblog_busy = 0;
	joblog_path_told(c, &c->joblog_j, (int)rc, err);
	mw_slurm_job_free(&c->joblog_j);
	col_eval_schedule(c, 0);
}

int col_reports_job_output_ready(struct collector *c)
{
	struct joblog_read *r;
	if (!c->loop || c->final_eval || !job_output_needed(c))
		return 1;
	if (c->joblog_busy)
		return 0;
	if (c->joblog_text)
		return 1; /* read: col_reports_read_job_output applies it */
	if (!c->joblog_asked && joblog_ask(c))
		return 0;
	if (!c->joblog[0] || !(r = calloc(1, sizeof *r)))
		return 1;
	r->w.data = r;
	r->c = c;
	snprintf(r->path, sizeof r->path, "%s", c->joblog);
	if (uv_queue_work(c->loop, &r->w, joblog_read_work, joblog_read_done) < 0) {
		free(r);
		return 1; /* read in line */
	}
	c->joblog_busy = 1;
	return 0;
}

/* The agents' link errors (OUTDIR/logs/link-error-NODE.txt, written by an
 * agent that could not reach us or was refused) into the report. */
void col_reports_read_link_errors(struct collector *c)
{
	char dir[4200];
	DIR *d;
	struct dirent *e;
	if (!mw_setting_str(MW_SET_DIR)[0])
		return;
	snprintf(dir, sizeof dir, "%s/logs", mw_setting_str(MW_SET_DIR));
	if (!(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		char node[64], line[400];
		/* shared/mw_link.h: the name's node, the file's first line */
		if (mw_link_error_read(dir, e->d_name, node, sizeof node, line, sizeof line) == 0)
			col_state_link_error(&c->s, node, "agent", line);
	}
	closedir(d);
}
