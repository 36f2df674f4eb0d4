/* report.c - report.json, report.txt, collector-stats.json and the Slurm
 * comment (colstate.h). */
#include "colstate.h"
#include "coltree.h"
#include "answer.h"
#include "colap.h"
#include "html.h"
#include "jobconf.h"
#include "settings.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dl.h"
#include "fsutil.h"
#include "hostlist.h"
#include "log.h"

static json_object *int_array(const int *v, size_t n)
{
	json_object *a = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_int(v[i]));
	return a;
}

static json_object *jstr_or_null(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

static void iso(double t, char *buf, size_t len)
{
	time_t sec = (time_t)t;
	struct tm tm;
	gmtime_r(&sec, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)((t - (double)sec) * 1000));
}

/* The analysis' stack tree (borrowed), or NULL. */
static json_object *stack_tree(const struct col_state *s)
{
	json_object *t;
	if (s->analysis && json_object_object_get_ex(s->analysis, "stack_tree", &t) &&
	    json_object_is_type(t, json_type_array))
		return t;
	return NULL;
}

/* The report's deadlock answer: the analysis', unless a rank it had no dump
 * of ended (then the others wait for an ended rank). */
static int dl_found(const struct col_state *s)
{
	return s->dl.found && col_deadlock_ended_rank(s) < 0;
}

static const char *summary_line(const struct col_state *s, char *buf, size_t len)
{
	const struct col_result *r = &s->res;
	if (s->have_res && r->launcher_killed) {
		snprintf(buf, len, "the launcher was killed: the ranks ended all at once with no exit status");
	} else if (!s->have_res || r->verdict == COL_V_NONE) {
		int a = 0;
		for (size_t i = 0; s->have_res && i < r->ncauses; i++)
			a += r->causes[i].cause == 'A';
		snprintf(buf, len, COL_ANSWER_NOTHING "%s", a ? COL_ANSWER_CAUSE_A : "");
	} else if (r->verdict == COL_V_HARDWARE) {
		char names[256] = "";
		struct mw_hostlist hl = {0};
		char *v[64];
		for (size_t i = 0; i < r->ndead && i < 64; i++)
			v[hl.n++] = (char *)s->nodes[r->dead_nodes[i]].name;
		hl.host = v;
		mw_hostlist_compress(&hl, names, sizeof names);
		if (r->partition)
			snprintf(buf, len, "network partition suspected: %zu of the job's %zu nodes (%s) do not "
				 "answer the collector's node at once; nothing drained", r->ndead, s->nnodes, names);
		else
			snprintf(buf, len, "hardware failure: node(s) %s dead", names);
	} else if (!s->confirmed) {
		char none[1024];
		snprintf(buf, len, "suspected hang, not confirmed: ranks stuck in MPI, %s",
			 s->dl_dumps ? col_dl_none(s, 1, none, sizeof none) : "no dump analysed yet");
	} else {
		snprintf(buf, len, "software failure%s", dl_found(s) ? ": deadlock" : "");
	}
	return buf;
}

/* A cause's detail: the B ranks of a cycle are a deadlock only if the
 * analysis of the dumps says so. */
static const char *cause_detail(const struct col_state *s, const struct col_cause *c, char *buf,
				size_t len)
{
	if (!c->cycle || c->deadlock)
		return c->detail;
	if (dl_found(s))
		snprintf(buf, len, "deadlock (%s): %s", s->dl.kind, c->detail);
	else {
		char none[1024];
		snprintf(buf, len, "%s (%s)", c->detail,
			 s->dl_dumps ? col_dl_none(s, 0, none, sizeof none) : "no dump analysed yet");
	}
	return buf;
}

json_object *col_report_json(const struct col_state *s)
{
	json_object *o = json_object_new_object(), *a, *d;
	const struct col_result *r = &s->res;
	char buf[512];

	json_object_object_add(o, "mpiwatch_report", json_object_new_int(1));
	json_object_object_add(o, "job", json_object_new_string(s->job));
	json_object_object_add(o, "generated_unix", json_object_new_double((double)time(NULL)));
	json_object_object_add(o, "verdict",
			       json_object_new_string(col_verdict_name(s->have_res ? r->verdict : COL_V_NONE)));
	json_object_object_add(o, "summary", json_object_new_string(summary_line(s, buf, sizeof buf)));
	{
		struct col_answer *ans = malloc(sizeof *ans);
		a = json_object_new_array();
		if (ans) {
			col_answer(s, ans);
			for (size_t i = 0; i < ans->n; i++)
				json_object_array_add(a, json_object_new_string(ans->line[i]));
			free(ans);
		}
		json_object_object_add(o, "answer", a);
	}
	json_object_object_add(o, "confirmed",
			       json_object_new_boolean(s->have_res && r->verdict != COL_V_NONE && s->confirmed));
	json_object_object_add(o, "confirmed_by", s->confirmed && s->confirmed_by[0]
							  ? json_object_new_string(s->confirmed_by)
							  : NULL);
	json_object_object_add(o, "partition_suspected",
			       json_object_new_boolean(s->have_res && r->verdict == COL_V_HARDWARE && r->partition));
	json_object_object_add(o, "hang_limit_s", json_object_new_double(mw_settings_hang_limit()));
	json_object_object_add(o, "timeout_s", json_object_new_double(mw_setting_double(MW_SET_TIMEOUT)));
	d = json_object_new_object();
	json_object_object_add(d, "spec", json_object_new_string(mw_setting_str(MW_SET_THRESHOLD)));
	json_object_object_add(d, "ranks_needed",
			       json_object_new_int64(col_threshold_setting_need(s->expected_ranks ? s->expected_ranks
												     : (long)s->size)));
	json_object_object_add(o, "threshold", d);
	json_object_object_add(o, "ranks_total", json_object_new_int64((int64_t)s->size));

	a = json_object_new_array();
	for (size_t i = 0; s->have_res && i < r->ncauses; i++) {
		const struct col_cause *c = &r->causes[i];
		json_object *e = json_object_new_object();
		char cs[2] = {c->cause, 0};
		json_object_object_add(e, "cause", json_object_new_string(cs));
		json_object_object_add(e, "ranks", int_array(c->ranks, c->n));
		mw_ranges_format(c->ranks, c->n, buf, sizeof buf);
		json_object_object_add(e, "ranks_text", json_object_new_string(buf));
		json_object_object_add(e, "detail",
				       json_object_new_string(cause_detail(s, c, buf, sizeof buf)));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "causes", a);

	a = json_object_new_array();
	for (size_t i = 0; i < s->nnodes; i++) {
		const struct col_node *n = &s->nodes[i];
		const struct col_agent *g = &s->agents[i];
		json_object *e = json_object_new_object();
		json_object_object_add(e, "name", json_object_new_string(n->name));
		json_object_object_add(e, "addr", json_object_new_string(n->addr[0] ? n->addr : g->addr));
		json_object_object_add(e, "state",
				       json_object_new_string(!n->probed ? "unprobed"
						       : n->state == MW_PROBE_ERROR
							       ? "unknown"
							       : mw_probe_state_name(n->state)));
		json_object_object_add(e, "rtt_ms", n->probed && n->rtt_ms >= 0
							    ? json_object_new_double(n->rtt_ms)
							    : NULL);
		json_object_object_add(e, "health", jstr_or_null(n->summary));
		if (n->probed)
			json_object_object_add(e, "probed_by", json_object_new_string(n->probed_by[0] ? n->probed_by
												      : "collector"));
		json_object_object_add(e, "agent",
				       json_object_new_string(g->vanished    ? "lost"
							      : g->bye       ? "left"
							      : g->connected ? "connected"
									     : "never"));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "nodes", a);

	/* The deadlock answer is the analysis' alone; the collector's own wait
	 * graph is at most a note, and a rank that ended (which the analysis
	 * has no dump of) explains the others' wait instead. */
	int ended = col_deadlock_ended_rank(s), found = s->dl.found && ended < 0;
	d = json_object_new_object();
	json_object_object_add(d, "found", json_object_new_boolean(found));
	json_object_object_add(d, "kind", found ? json_object_new_string(s->dl.kind) : NULL);
	json_object_object_add(d, "ranks", found ? int_array(s->dl.ranks, s->dl.n) : json_object_new_array());
	json_object_object_add(d, "source", s->dl_dumps ? json_object_new_string("analyze") : NULL);
	if (found)
		snprintf(buf, sizeof buf, "%s", s->dl.detail);
	else if (ended >= 0)
		snprintf(buf, sizeof buf,
			 "no deadlock: rank %d ended%s%s before MPI_Finalize and the others wait for it "
			 "(the analysis, which has no dump of rank %d, found %s)",
			 ended, s->ranks[ended].call[0] ? " inside " : "", s->ranks[ended].call, ended,
			 s->dl.kind);
	else if (s->dl_dumps && json_object_object_get_ex(s->analysis, "incomplete_reason", NULL) &&
		 json_object_is_type(json_object_object_get(s->analysis, "incomplete_reason"), json_type_string))
		col_dl_none(s, 0, buf, sizeof buf);
	else if (s->dl_dumps)
		snprintf(buf, sizeof buf, "the analysis of %d dump(s) finds no deadlock", s->dl_dumps);
	else
		snprintf(buf, sizeof buf, "no dump was analysed");
	json_object_object_add(d, "detail", json_object_new_string(buf));
	if (s->have_res && r->cycle.found && !found) {
		char rl[256];
		mw_ranges_format(r->cycle.ranks, r->cycle.n, rl, sizeof rl);
		snprintf(buf, sizeof buf, "the collector's wait graph has a cycle among ranks %s; not a deadlock by the analysis",
			 rl);
		json_object_object_add(d, "note", json_object_new_string(buf));
	}
	if (s->analysis)
		json_object_object_add(d, "analysis", json_object_get(s->analysis));
	json_object_object_add(o, "deadlock", d);
	/* The stack classes (STAT's equivalence classes) of the dumped ranks. */
	{
		json_object *t = stack_tree(s);
		json_object_object_add(o, "stack_tree", t ? json_object_get(t) : json_object_new_array());
	}

	a = json_object_new_array();
	for (size_t i = 0; i < s->size; i++) {
		const struct col_rank *x = &s->ranks[i];
		json_object *e;
		char cs[2] = {s->have_res && i < r->size ? r->rank_cause[i] : 0, 0};
		if (!x->state)
			continue;
		e = json_object_new_object();
		json_object_object_add(e, "rank", json_object_new_int((int)i));
		json_object_object_add(e, "node", x->node >= 0 ? json_object_new_string(s->nodes[x->node].name)
							       : NULL);
		json_object_object_add(e, "state", json_object_new_string(mw_hb_state_name(x->state)));
		json_object_object_add(e, "call", jstr_or_null(x->call));
		json_object_object_add(e, "kind", jstr_or_null(x->kind));
		json_object_object_add(e, "comm", jstr_or_null(x->comm));
		json_object_object_add(e, "peer_world", json_object_new_int(x->peer_world));
		json_object_object_add(e, "tag", json_object_new_int(x->tag));
		json_object_object_add(e, "idle_s", json_object_new_double(x->idle_s));
		json_object_object_add(e, "exit_code",
				       x->exit_code >= 0 ? json_object_new_int(x->exit_code) : NULL);
		json_object_object_add(e, "exit_signal",
				       x->exit_signal > 0 ? json_object_new_int(x->exit_signal) : NULL);
		json_object_object_add(e, "cause", cs[0] ? json_object_new_string(cs) : NULL);
		if (s->dumps[i]) {
			snprintf(buf, sizeof buf, "dumps/rank-%zu.json", i);
			json_object_object_add(e, "dump", json_object_new_string(buf));
		} else {
			json_object_object_add(e, "dump", NULL);
		}
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "ranks", a);

	a = json_object_new_array();
	for (size_t i = 0; i < s->ntl; i++) {
		json_object *e = json_object_new_object();
		iso(s->tl[i].t_unix, buf, sizeof buf);
		json_object_object_add(e, "time_unix", json_object_new_double(s->tl[i].t_unix));
		json_object_object_add(e, "time", json_object_new_string(buf));
		json_object_object_add(e, "t_s",
				       json_object_new_double(s->tl[i].t_unix - s->t_start_unix));
		json_object_object_add(e, "event", json_object_new_string(s->tl[i].event));
		json_object_object_add(e, "detail", json_object_new_string(s->tl[i].detail));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "timeline", a);

	a = json_object_new_array();
	for (size_t i = 0; i < s->nacts; i++) {
		json_object *e = json_object_new_object();
		json_object_object_add(e, "action", json_object_new_string(s->acts[i].what));
		json_object_object_add(e, "target", json_object_new_string(s->acts[i].target));
		json_object_object_add(e, "ok", json_object_new_boolean(s->acts[i].ok));
		json_object_object_add(e, "message", json_object_new_string(s->acts[i].message));
		json_object_object_add(e, "time_unix", json_object_new_double(s->acts[i].t_unix));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "actions", a);
	col_ap_report_json(s->ap, o);
	a = json_object_new_array();
	for (size_t i = 0; i < s->nlink_errors; i++) {
		json_object *e = json_object_new_object();
		json_object_object_add(e, "node", json_object_new_string(s->link_errors[i].node));
		json_object_object_add(e, "source", json_object_new_string(s->link_errors[i].source));
		json_object_object_add(e, "error", json_object_new_string(s->link_errors[i].error));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "link_errors", a);
	json_object_object_add(o, "stats", col_stats_json(s));
	return o;
}

void col_report_text(const struct col_state *s, FILE *f)
{
	const struct col_result *r = &s->res;
	char buf[512];

	struct col_answer *ans = malloc(sizeof *ans);

	/* The answer first: one sentence per finding. */
	if (ans) {
		col_answer(s, ans);
		for (size_t i = 0; i < ans->n; i++)
			fprintf(f, "%s\n", ans->line[i]);
		free(ans);
	}
	fprintf(f, "\nmpiwatch report for job %s: verdict %s\n", s->job,
		col_verdict_name(s->have_res ? r->verdict : COL_V_NONE));
	fprintf(f, "  %s\n", summary_line(s, buf, sizeof buf));
	if (s->have_res && r->ncauses) {
		fprintf(f, "causes:\n");
		for (size_t i = 0; i < r->ncauses; i++) {
			mw_ranges_format(r->causes[i].ranks, r->causes[i].n, buf, sizeof buf);
			char det[400];
			fprintf(f, "  rank%s %s: %c (%s): %s\n", r->causes[i].n > 1 ? "s" : "", buf,
				r->causes[i].cause, col_cause_meaning(r->causes[i].cause),
				cause_detail(s, &r->causes[i], det, sizeof det));
		}
	}
	if (dl_found(s)) {
		mw_ranges_format(s->dl.ranks, s->dl.n, buf, sizeof buf);
		fprintf(f, "deadlock: %s among ranks %s (%s)\n", s->dl.kind, buf, s->dl.detail);
	} else if (s->have_res && r->verdict == COL_V_SOFTWARE) {
		fprintf(f, "deadlock: none found (%s)\n",
			s->dl_dumps ? "the analysis of the dumps finds none" : "no dump was analysed");
	}
	for (size_t i = 0; i < s->size; i++)
		col_answer_stack(s, (int)i, f);
	{
		json_object *t, *tr;
		int trunc = s->analysis && json_object_object_get_ex(s->analysis, "stack_tree_truncated", &tr) &&
			    json_object_get_boolean(tr);
		if ((t = stack_tree(s)))
			dl_stack_tree_text(f, t, trunc);
	}
	if (s->have_res && r->verdict != COL_V_NONE)
		fprintf(f, "confirmed: %s\n", s->confirmed ? s->confirmed_by
			: "no: the program runs on until the hang limit");
	fprintf(f, "nodes:\n");
	for (size_t i = 0; i < s->nnodes; i++) {
		const struct col_node *n = &s->nodes[i];
		char rtt[32] = "-";
		if (n->probed && n->rtt_ms >= 0)
			snprintf(rtt, sizeof rtt, "%.2f ms", n->rtt_ms);
		fprintf(f, "  %-12s %-16s %-9s %-10s%s%s%s%s%s\n", n->name,
			n->addr[0] ? n->addr : (s->agents[i].addr[0] ? s->agents[i].addr : "-"),
			!n->probed ? "unprobed" : mw_probe_state_name(n->state), rtt,
			n->summary[0] ? " " : "", n->summary, n->probed_by[0] ? " (probed by CP on " : "",
			n->probed_by, n->probed_by[0] ? ")" : "");
	}
	for (size_t i = 0; i < s->nlink_errors; i++)
		fprintf(f, "link error: node %s: %s\n", s->link_errors[i].node, s->link_errors[i].error);
	{
		int printed = 0;
		for (size_t i = 0; i < s->size; i++) {
			const struct col_rank *x = &s->ranks[i];
			if (!x->state)
				continue;
			if (!printed++)
				fprintf(f, "ranks that sent heartbeats:\n");
			fprintf(f, "  rank %zu on %s: %s", i, x->node >= 0 ? s->nodes[x->node].name : "?",
				mw_hb_state_name(x->state));
			if (x->call[0])
				fprintf(f, " in %s", x->call);
			if (x->peer_world >= 0)
				fprintf(f, " peer %d", x->peer_world);
			if (x->tag >= 0)
				fprintf(f, " tag %d", x->tag);
			if (x->exit_signal > 0)
				fprintf(f, " signal %d", x->exit_signal);
			else if (x->exit_code >= 0)
				fprintf(f, " status %d", x->exit_code);
			if (s->dumps[i])
				fprintf(f, " [dumps/rank-%zu.json]", i);
			fprintf(f, "\n");
		}
	}
	col_ap_report_text(s->ap, f);
	if (s->ntl) {
		fprintf(f, "timeline:\n");
		for (size_t i = 0; i < s->ntl; i++)
			fprintf(f, "  +%8.3fs %-16s %s\n", s->tl[i].t_unix - s->t_start_unix,
				s->tl[i].event, s->tl[i].detail);
	}
}

void col_report_comment(const struct col_state *s, const char *old, const char *report, char *buf,
			size_t len)
{
	struct col_answer *ans = malloc(sizeof *ans);
	if (!ans) {
		snprintf(buf, len, "mpiwatch: verdict %s",
			 col_verdict_name(s->have_res ? s->res.verdict : COL_V_NONE));
		return;
	}
	col_answer(s, ans);
	col_answer_comment(ans, old, report, buf, len);
	free(ans);
}

json_object *col_stats_json(const struct col_state *s)
{
	json_object *o = json_object_new_object(), *b = json_object_new_object();
	const struct col_stats *t = &s->st;
	json_object_object_add(o, "heartbeats", json_object_new_int64((int64_t)t->heartbeats));
	for (int i = 1; i < MW_HB_NSTATES; i++)
		json_object_object_add(b, mw_hb_state_name(i),
				       json_object_new_int64((int64_t)t->beats_by_state[i]));
	json_object_object_add(o, "heartbeats_by_state", b);
	json_object_object_add(o, "rank_announcements",
			       json_object_new_int64((int64_t)t->rank_announcements));
	json_object_object_add(o, "dumps", json_object_new_int64((int64_t)t->dumps));
	json_object_object_add(o, "malformed_frames", json_object_new_int64((int64_t)t->malformed));
	json_object_object_add(o, "connections", json_object_new_int64((int64_t)t->connections));
	json_object_object_add(o, "hellos_rejected", json_object_new_int64((int64_t)t->hellos_rejected));
	json_object_object_add(o, "hellos_unauthenticated",
			       json_object_new_int64((int64_t)t->hellos_unauthenticated));
	json_object_object_add(o, "unauthenticated_evicted", json_object_new_int64((int64_t)t->unauth_evicted));
	json_object_object_add(o, "agents_lost", json_object_new_int64((int64_t)t->agents_vanished));
	json_object_object_add(o, "evaluations", json_object_new_int64((int64_t)t->evaluations));
	json_object_object_add(o, "probe_rounds", json_object_new_int64((int64_t)t->probe_rounds));
	json_object_object_add(o, "probes_sent", json_object_new_int64((int64_t)t->probes_sent));
	json_object_object_add(o, "probe_answers", json_object_new_int64((int64_t)t->probe_answers));
	json_object_object_add(o, "probe_requests", json_object_new_int64((int64_t)t->probe_requests));
	json_object_object_add(o, "probe_summaries", json_object_new_int64((int64_t)t->probe_summaries));
	json_object_object_add(o, "drain_requests", json_object_new_int64((int64_t)t->drain_requests));
	json_object_object_add(o, "drains_ok", json_object_new_int64((int64_t)t->drains_ok));
	json_object_object_add(o, "comments_posted", json_object_new_int64((int64_t)t->comments));
	if (s->threshold_mono > 0 && s->first_beat_mono > 0)
		json_object_object_add(o, "first_heartbeat_to_threshold_s",
				       json_object_new_double(s->threshold_mono - s->first_beat_mono));
	if (s->verdict_mono > 0 && s->first_beat_mono > 0)
		json_object_object_add(o, "first_heartbeat_to_verdict_s",
				       json_object_new_double(s->verdict_mono - s->first_beat_mono));
	json_object_object_add(o, "uptime_s",
			       json_object_new_double((double)time(NULL) - s->t_start_unix));
	return o;
}

/* o as text with a final newline into out's next file (path); -1 (ENOMEM)
 * if it cannot be made. */
static int render_json(struct col_report_files *out, const char *path, json_object *o, int flags)
{
	const char *j = json_object_to_json_string_ext(o, flags);
	size_t n = strlen(j);
	char *jn = malloc(n + 2);
	if (!jn) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(jn, j, n);
	memcpy(jn + n, "\n", 2);
	snprintf(out->f[out->n].path, sizeof out->f[out->n].path, "%s", path);
	out->f[out->n++].text = jn;
	return 0;
}

int col_report_render(const struct col_state *s, const char *dir, const char *report_path,
		      struct col_report_files *out)
{
	char path[4096];
	json_object *o;
	char *txt = NULL;
	size_t tlen = 0;
	FILE *mf;
	int rv = 0;

	memset(out, 0, sizeof *out);
	o = col_report_json(s);
	if (s->tree) /* the tree overlay (coltree.c) */
		json_object_object_add(o, "tree", col_tree_json(s->tree, s));
	if (dir && *dir) {
		/* What srun prints after the step (the plugin): empty when nothing failed. */
		mf = open_memstream(&txt, &tlen);
		if (mf) {
			struct col_answer *ans = malloc(sizeof *ans);
			int made = ans != NULL;
			if (ans) {
				col_answer(s, ans);
				for (size_t i = 0; !ans->nothing && i < ans->n; i++)
					fprintf(mf, "%s\n", ans->line[i]);
				free(ans);
			}
			fclose(mf);
			if (made) {
				snprintf(out->f[out->n].path, sizeof out->f[out->n].path, "%s/%s", dir, MW_ANSWER_FILE);
				out->f[out->n++].text = txt;
			} else {
				free(txt);
				rv = -1;
			}
			txt = NULL;
		}
		mf = open_memstream(&txt, &tlen);
		if (mf) {
			col_report_text(s, mf);
			if (s->tree)
				col_tree_text(s->tree, s, mf);
			fclose(mf);
			snprintf(out->f[out->n].path, sizeof out->f[out->n].path, "%s/report.txt", dir);
			out->f[out->n++].text = txt;
			txt = NULL;
		}
		/* The same report as one offline HTML page (html.h). */
		mf = open_memstream(&txt, &tlen);
		if (mf) {
			int bad = col_report_html(s, o, mf);
			fclose(mf);
			if (bad) {
				free(txt);
				rv = -1;
			} else {
				snprintf(out->f[out->n].path, sizeof out->f[out->n].path, "%s/report.html", dir);
				out->f[out->n++].text = txt;
			}
			txt = NULL;
		}
		json_object *st = col_stats_json(s);
		snprintf(path, sizeof path, "%s/collector-stats.json", dir);
		if (render_json(out, path, st, JSON_C_TO_STRING_PRETTY) < 0)
			rv = -1;
		json_object_put(st);
	}
	/* report.json last (files are written in this order): whoever waits
	 * for the verdict in it finds the other files already saying it. */
	if (report_path && *report_path)
		snprintf(path, sizeof path, "%s", report_path);
	else
		snprintf(path, sizeof path, "%s/report.json", dir);
	if (render_json(out, path, o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE) < 0)
		rv = -1;
	json_object_put(o);
	return rv;
}

int col_report_files_write(const struct col_report_files *r)
{
	int rv = 0, e = 0;
	for (size_t i = 0; i < r->n; i++)
		if (mw_write_atomic(r->f[i].path, r->f[i].text, strlen(r->f[i].text), 0644, (uid_t)-1, (gid_t)-1)) {
			if (!rv)
				e = errno;
			rv = -1;
		}
	if (rv)
		errno = e;
	return rv;
}

void col_report_files_free(struct col_report_files *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->f[i].text);
	r->n = 0;
}

int col_report_write(const struct col_state *s, const char *dir, const char *report_path)
{
	struct col_report_files r;
	int rv = col_report_render(s, dir, report_path, &r), e = errno;
	if (col_report_files_write(&r) < 0) {
		e = errno;
		rv = -1;
	}
	col_report_files_free(&r);
	errno = e;
	return rv;
}
