/* Unit tests for the collector's state and reports: report.json against
 * doc/schemas/report.schema.json, waits derived from dumps, the Slurm
 * comment, slurmrestd's API version. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "answer.h"
#include "colstate.h"
#include "html.h"
#include "joblog.h"
#include "hostlist.h"
#include "jobconf.h"
#include "jsonschema.h"
#include "restd.h"
#include "log.h"
#include "unit.h"

static json_object *schema(void)
{
	char err[256];
	json_object *s = mw_json_read_file("doc/schemas/report.schema.json", err, sizeof err);
	ck_assert_msg(s != NULL, "schema: %s", err);
	return s;
}

static void beat(struct col_state *s, int rank, int node, int state, const char *call,
		 const char *kind, int peer, int code, int sig)
{
	struct col_rank *r;
	ck_assert_int_eq(col_state_grow(s, (size_t)rank + 1), 0);
	r = &s->ranks[rank];
	r->known = 1;
	r->node = node;
	r->state = state;
	snprintf(r->call, sizeof r->call, "%s", call);
	snprintf(r->kind, sizeof r->kind, "%s", kind);
	snprintf(r->comm, sizeof r->comm, "world");
	r->peer_world = peer;
	r->exit_code = code;
	r->exit_signal = sig;
	r->idle_s = 2.0;
}

/* Scenario states -> classify -> JSON report valid against the schema. */
static const struct {
	const char *name;
	int dead; /* node index judged dead, -1 none */
	int scenario;
	const char *verdict;
} rep_cases[] = {
	{"healthy (no heartbeat, never probed)", -1, 0, "none"},
	{"deadlock", -1, 1, "software"},
	{"crash", -1, 2, "software"},
	{"node failure", 1, 3, "hardware"},
	{"long computation", -1, 4, "none"},
};

START_TEST(test_report_schema)
{
	struct col_state s;
	json_object *sch = schema(), *rep, *v;
	char err[512];
	int probe = rep_cases[_i].scenario != 0;

	col_state_init(&s, "1234");
	mw_unit_set(MW_SET_TIMEOUT, "2");
	ck_assert_int_eq(col_state_node(&s, "n1"), 0);
	ck_assert_int_eq(col_state_node(&s, "n2"), 1);
	ck_assert_int_eq(col_state_node(&s, "n1"), 0);
	col_state_grow(&s, 4);
	col_state_event(&s, "start", "collector listening on port %d", 7300);
	switch (rep_cases[_i].scenario) {
	case 1:
		for (int r = 0; r < 4; r++)
			beat(&s, r, r / 2, MW_HB_S_IN_MPI, "MPI_Recv", "recv", (r + 3) % 4, -1, 0);
		break;
	case 2:
		beat(&s, 1, 0, MW_HB_S_EXITED, "", "", -1, -1, 11);
		beat(&s, 0, 0, MW_HB_S_IN_MPI, "MPI_Recv", "recv", 1, -1, 0);
		beat(&s, 2, 1, MW_HB_S_IN_MPI, "MPI_Barrier", "collective", -1, -1, 0);
		break;
	case 3:
		beat(&s, 0, 0, MW_HB_S_IN_MPI, "MPI_Recv", "recv", 2, -1, 0);
		beat(&s, 1, 0, MW_HB_S_IN_MPI, "MPI_Recv", "recv", 3, -1, 0);
		s.ranks[2].node = s.ranks[3].node = 1;
		break;
	case 4:
		for (int r = 0; r < 4; r++)
			beat(&s, r, r / 2, MW_HB_S_COMPUTING, "", "", -1, -1, 0);
		break;
	}
	if (probe) {
		for (size_t n = 0; n < s.nnodes; n++) {
			s.nodes[n].probed = 1;
			s.nodes[n].state = (int)n == rep_cases[_i].dead ? MW_PROBE_DEAD : MW_PROBE_ALIVE;
			s.nodes[n].rtt_ms = (int)n == rep_cases[_i].dead ? -1 : 0.25;
			snprintf(s.nodes[n].addr, sizeof s.nodes[n].addr, "198.18.5.%zu", n + 1);
		}
		ck_assert_int_eq(col_classify(s.ranks, s.size, s.nodes, s.nnodes, &s.res), 0);
		s.have_res = 1;
		col_state_event(&s, "verdict", "%s", col_verdict_name(s.res.verdict));
		col_state_action(&s, "comment", "1234", 1, "posted with scontrol update");
	}
	col_state_event(&s, "shutdown", "done");
	rep = col_report_json(&s);
	ck_assert_msg(mw_jsonschema_validate(sch, rep, err, sizeof err) == 0, "%s: %s\n%s",
		      rep_cases[_i].name, err, json_object_to_json_string(rep));
	ck_assert(json_object_object_get_ex(rep, "verdict", &v));
	ck_assert_str_eq(json_object_get_string(v), rep_cases[_i].verdict);
	json_object_put(rep);
	json_object_put(sch);
	col_state_free(&s);
}
END_TEST

/* The text report collapses ranks into classes; the comment is one line. */
START_TEST(test_text_and_comment)
{
	struct col_state s;
	char *txt = NULL, comment[512];
	size_t len = 0;
	FILE *f;

	col_state_init(&s, "77");
	col_state_node(&s, "n1");
	for (int r = 0; r < 6; r++)
		beat(&s, r, 0, MW_HB_S_IN_MPI, "MPI_Recv", "recv", (r + 5) % 6, -1, 0);
	s.nodes[0].probed = 1;
	ck_assert_int_eq(col_classify(s.ranks, s.size, s.nodes, s.nnodes, &s.res), 0);
	s.have_res = 1;
	f = open_memstream(&txt, &len);
	col_report_text(&s, f);
	fclose(f);
	/* Before the analysis: a cycle of waits is a suspected hang, not a deadlock. */
	ck_assert_msg(strstr(txt, "verdict software"), "%s", txt);
	ck_assert_msg(strstr(txt, "suspected hang, not confirmed"), "%s", txt);
	ck_assert_msg(strstr(txt, "ranks 0-5: B (the program's own error): stuck in MPI, waiting for each other in a cycle (no dump"),
		      "%s", txt);
	ck_assert_msg(!strstr(txt, "B: deadlock"), "%s", txt);
	/* The answer first, even before the analysis: what is known, plainly. */
	ck_assert_msg(!strncmp(txt, "suspected hang (not confirmed yet): hang: ranks 0-5 wait for each other in a cycle; no dump was analysed", 104),
		      "%s", txt);
	free(txt);
	txt = NULL;
	/* The analysis finds the deadlock: ONE classification takes it in and
	 * its sentence is the answer everywhere. */
	s.dl.found = 1;
	s.dl_dumps = 6;
	snprintf(s.dl.kind, sizeof s.dl.kind, "cycle");
	snprintf(s.dl.what, sizeof s.dl.what, "cycle");
	s.dl.ranks = malloc(6 * sizeof *s.dl.ranks);
	for (int r = 0; r < 6; r++)
		s.dl.ranks[r] = r;
	s.dl.n = 6;
	s.analysis = json_tokener_parse(
		"{\"classes\": [{\"ranks\": \"0-5\", \"count\": 6, \"where\": \"MPI_Recv (ring.c:9)\"}],"
		" \"findings\": [{\"sentence\": \"deadlock: ranks 0-5 wait for each other in MPI_Recv (ring.c:9): a cycle\"}]}");
	col_result_free(&s.res);
	{
		struct col_dl_input in = {.ranks = s.dl.ranks, .n = s.dl.n, .waiting = s.dl.waiting, .nwaiting = s.dl.nwaiting, .what = s.dl.what};
		ck_assert_int_eq(col_classify_dl(s.ranks, s.size, s.nodes, s.nnodes, &in, &s.res), 0);
	}
	s.confirmed = 1;
	snprintf(s.confirmed_by, sizeof s.confirmed_by, "the analysis of the dumps finds a deadlock (cycle)");
	f = open_memstream(&txt, &len);
	col_report_text(&s, f);
	fclose(f);
	ck_assert_msg(!strncmp(txt, "deadlock: ranks 0-5 wait for each other in MPI_Recv (ring.c:9): a cycle\n", 72), "%s", txt);
	ck_assert_msg(strstr(txt, "ranks 0-5: B (the program's own error): deadlocked (cycle)"), "%s", txt);
	ck_assert_msg(strstr(txt, "confirmed: the analysis of the dumps finds a deadlock"), "%s", txt);
	/* The comment: the answer and the report's path, after the user's own. */
	col_report_comment(&s, NULL, "/w/mpiwatch-77/report.txt", comment, sizeof comment);
	ck_assert_str_eq(comment, "mpiwatch: deadlock: ranks 0-5 wait for each other in MPI_Recv (ring.c:9): a cycle; "
				  "report /w/mpiwatch-77/report.txt");
	col_report_comment(&s, "my run \"7\"", "/w/r.txt", comment, sizeof comment);
	ck_assert_str_eq(comment, "my run \"7\" | mpiwatch: deadlock: ranks 0-5 wait for each other in MPI_Recv (ring.c:9): a cycle; "
				  "report /w/r.txt");
	/* Posted again (a later verdict): the user's part stays, ours is replaced. */
	{
		char again[512];
		col_report_comment(&s, comment, "/w/r.txt", again, sizeof again);
		ck_assert_str_eq(again, comment);
		col_report_comment(&s, "mpiwatch: old answer", "/w/r.txt", again, sizeof again);
		ck_assert(!strncmp(again, "mpiwatch: deadlock:", 19));
	}
	ck_assert(!strchr(comment, '\n'));
	free(txt);
	col_state_free(&s);
}
END_TEST

/* Issue 35 item 6: when a rank's dump could not be read, the analysis is
 * incomplete (its report's "incomplete_reason"): the answer mpiwatch run
 * prints and the report say so, never "the analysis finds no deadlock". */
START_TEST(test_incomplete_analysis)
{
	struct col_state s;
	char *txt = NULL;
	size_t len = 0;
	FILE *f;
	const char *why = "rank 1's dump is unreadable (rank-1.json: truncated JSON (input ends inside a "
			  "value after 300 bytes)): no deadlock among the ranks that could be read, but no "
			  "verdict on rank 1 and the ranks that wait for it (0,2-5)";
	char want[600];

	col_state_init(&s, "77");
	col_state_node(&s, "n1");
	for (int r = 0; r < 6; r++)
		beat(&s, r, 0, MW_HB_S_IN_MPI, "MPI_Recv", "recv", (r + 5) % 6, -1, 0);
	s.nodes[0].probed = 1;
	ck_assert_int_eq(col_classify(s.ranks, s.size, s.nodes, s.nnodes, &s.res), 0);
	s.have_res = 1;
	s.dl_dumps = 5;
	s.analysis = json_object_new_object();
	json_object_object_add(s.analysis, "found", json_object_new_boolean(0));
	json_object_object_add(s.analysis, "incomplete", json_object_new_boolean(1));
	json_object_object_add(s.analysis, "incomplete_reason", json_object_new_string(why));
	f = open_memstream(&txt, &len);
	col_report_text(&s, f);
	fclose(f);
	snprintf(want, sizeof want, "the analysis of the dumps is incomplete: %s", why);
	ck_assert_msg(strstr(txt, want) && strstr(txt, want) < strchr(txt, '\n'),
		      "the first line says incomplete and why: %s", txt);
	ck_assert_msg(!strstr(txt, "finds no deadlock"), "%s", txt);
	free(txt);
	{
		json_object *rep = col_report_json(&s), *d, *det;
		ck_assert(json_object_object_get_ex(rep, "deadlock", &d));
		ck_assert(json_object_object_get_ex(d, "detail", &det));
		ck_assert_str_eq(json_object_get_string(det), want);
		json_object_put(rep);
	}
	col_state_free(&s);
}
END_TEST

/* The answer's first line for what is not a deadlock: a crash by a signal
 * (where it died, from the stack "mpiwatch run" or the job's output gives),
 * abort() (the program's frame, not libc's), a rank the MPI library ended,
 * a killed launcher, a node failure.  3 ranks, ranks 0-1 on n1, rank 2 on n2. */
static const struct {
	const char *name;
	int scenario;
	const char *first;
} answer_cases[] = {
	{"SIGSEGV", 0,
	 "crash: rank 1 killed by signal 11 (SIGSEGV) in fill_halo (run_crash.c:15), without MPI_Finalize; "
	 "ranks 0,2 were blocked on it (cause C: blocked by a failed or stuck peer)"},
	{"abort()", 1,
	 "crash: rank 1 killed by signal 6 (SIGABRT) in check_input (run_crash.c:23), without MPI_Finalize; "
	 "ranks 0,2 were blocked on it (cause C: blocked by a failed or stuck peer)"},
	{"SIGSEGV, no debug info", 2,
	 "crash: rank 1 killed by signal 11 (SIGSEGV) in fill_halo (in prog, no source line: no debug info), "
	 "without MPI_Finalize; ranks 0,2 were blocked on it (cause C: blocked by a failed or stuck peer)"},
	{"MPI error", 3,
	 "crash: rank 1 ended by the MPI library in MPI_Bcast: MPI_Bcast: MPI_ERR_COUNT: "
	 "invalid count argument; ranks 0,2 were blocked on it (cause C: blocked by a failed or stuck peer)"},
	{"killed launcher", 4,
	 "the launcher was killed: ranks 0-2 ended all at once with no exit status of their own (mpirun or srun "
	 "was killed, or the job was ended from outside); not a failure of the program or of a node"},
	{"node failure", 5,
	 "hardware: node n2 dead (no answer to the probes): rank 2 lost with it, ranks 0-1 left waiting for it"},
};

START_TEST(test_answer_cases)
{
	struct col_state s;
	struct col_answer a;
	int sc = answer_cases[_i].scenario;

	col_state_init(&s, "77");
	col_state_node(&s, "n1");
	col_state_node(&s, "n2");
	beat(&s, 0, 0, MW_HB_S_IN_MPI, "MPI_Recv", "recv", 1, -1, 0);
	beat(&s, 2, 1, MW_HB_S_IN_MPI, "MPI_Barrier", "collective", -1, -1, 0);
	switch (sc) {
	case 0:
	case 2:
		beat(&s, 1, 0, MW_HB_S_EXITED, "", "", -1, -1, 11);
		s.crash_stacks = strdup(sc == 0 ? "1\tfill_halo (run_crash.c:15)\tmain (run_crash.c:36)\n"
						: "1\tfill_halo (in prog, no source line: no debug info)\t"
						  "main (in prog, no source line: no debug info)\n");
		break;
	case 1: /* the innermost frames are the C library's: the program's is named */
		beat(&s, 1, 0, MW_HB_S_EXITED, "", "", -1, -1, 6);
		s.crash_stacks = strdup("1\traise (in libc.so.6)\tabort (in libc.so.6)\t"
					"check_input (run_crash.c:23)\tmain (run_crash.c:40)\n");
		break;
	case 3:
		beat(&s, 1, 0, MW_HB_S_VANISHED, "MPI_Bcast", "collective", -1, -1, 0);
		s.mpi_errors = strdup("1\tMPI_Bcast: MPI_ERR_COUNT: invalid count argument\n");
		break;
	case 4:
		for (int r = 0; r < 3; r++)
			beat(&s, r, r / 2, MW_HB_S_VANISHED, "", "", -1, -1, 0);
		break;
	case 5:
		beat(&s, 1, 0, MW_HB_S_IN_MPI, "MPI_Recv", "recv", 2, -1, 0);
		break;
	}
	for (size_t n = 0; n < s.nnodes; n++) {
		s.nodes[n].probed = 1;
		s.nodes[n].state = sc == 5 && n == 1 ? MW_PROBE_DEAD : MW_PROBE_ALIVE;
	}
	ck_assert_int_eq(col_classify(s.ranks, s.size, s.nodes, s.nnodes, &s.res), 0);
	s.have_res = 1;
	col_answer(&s, &a);
	ck_assert_uint_ge(a.n, 1);
	ck_assert_str_eq(a.line[0], answer_cases[_i].first);
	/* and it is report.txt's first line */
	{
		char *txt = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&txt, &len);
		col_report_text(&s, f);
		fclose(f);
		ck_assert_msg(!strncmp(txt, answer_cases[_i].first, strlen(answer_cases[_i].first)) &&
				      txt[strlen(answer_cases[_i].first)] == '\n',
			      "%s", txt);
		free(txt);
	}
	/* and answer.txt, what srun prints, holds the same sentences, or
	 * nothing when nothing failed */
	{
		struct col_report_files rf;
		char want[COL_ANSWER_MAX * COL_ANSWER_LEN] = "";
		const char *got = NULL;
		for (size_t i = 0; !a.nothing && i < a.n; i++)
			snprintf(want + strlen(want), sizeof want - strlen(want), "%s\n", a.line[i]);
		ck_assert_int_eq(col_report_render(&s, "/nonexistent", NULL, &rf), 0);
		for (size_t i = 0; i < rf.n; i++)
			if (!strcmp(rf.f[i].path, "/nonexistent/" MW_ANSWER_FILE))
				got = rf.f[i].text;
		ck_assert_ptr_nonnull(got);
		ck_assert_str_eq(got, want);
		ck_assert_int_eq(a.nothing, !strncmp(a.line[0], COL_ANSWER_NOTHING, strlen(COL_ANSWER_NOTHING)));
		col_report_files_free(&rf);
	}
	col_state_free(&s);
}
END_TEST

/* report.json is the last of the job's report files written: whoever
 * waits for the verdict in it (a script, a test, the user) then finds
 * report.txt, report.html and srun's answer already saying the same (t/0605
 * once read report.txt's "no failure detected" after report.json's verdict). */
START_TEST(test_report_json_last)
{
	struct col_state s;
	struct col_report_files rf;
	size_t json = SIZE_MAX;
	col_state_init(&s, "2");
	ck_assert_int_eq(col_report_render(&s, "/nonexistent", NULL, &rf), 0);
	for (size_t i = 0; i < rf.n; i++)
		if (!strcmp(rf.f[i].path, "/nonexistent/report.json"))
			json = i;
	ck_assert_uint_ne(json, SIZE_MAX);
	for (size_t i = 0; i < rf.n; i++)
		if (strstr(rf.f[i].path, "/report.txt") || strstr(rf.f[i].path, "/report.html") ||
		    strstr(rf.f[i].path, "/" MW_ANSWER_FILE))
			ck_assert_msg(i < json, "%s is written after report.json", rf.f[i].path);
	col_report_files_free(&rf);
	col_state_free(&s);
}
END_TEST

/* Files written through temp + rename, and the report is valid JSON. */
START_TEST(test_report_write)
{
	struct col_state s;
	char dir[] = "/tmp/mwcoltestXXXXXX", path[256], err[256];
	json_object *o, *sch = schema();
	ck_assert(mkdtemp(dir));
	col_state_init(&s, "5");
	ck_assert_int_eq(col_report_write(&s, dir, NULL), 0);
	snprintf(path, sizeof path, "%s/report.json", dir);
	o = mw_json_read_file(path, err, sizeof err);
	ck_assert_msg(o, "%s", err);
	ck_assert_msg(mw_jsonschema_validate(sch, o, err, sizeof err) == 0, "%s", err);
	json_object_put(o);
	snprintf(path, sizeof path, "%s/collector-stats.json", dir);
	o = mw_json_read_file(path, err, sizeof err);
	ck_assert_msg(o, "%s", err);
	json_object_put(o);
	snprintf(path, sizeof path, "%s/report.txt", dir);
	ck_assert_int_eq(access(path, R_OK), 0);
	unlink(path);
	snprintf(path, sizeof path, "%s/report.html", dir);
	ck_assert_int_eq(access(path, R_OK), 0);
	unlink(path);
	snprintf(path, sizeof path, "%s/report.json", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/collector-stats.json", dir);
	unlink(path);
	/* nothing failed: srun's answer file is there, empty */
	{
		struct stat st;
		snprintf(path, sizeof path, "%s/" MW_ANSWER_FILE, dir);
		ck_assert_int_eq(stat(path, &st), 0);
		ck_assert_int_eq(st.st_size, 0);
		unlink(path);
	}
	ck_assert_int_eq(rmdir(dir), 0);
	json_object_put(sch);
	col_state_free(&s);
}
END_TEST

/* report.html: everything from the job is escaped; nothing is loaded. */
START_TEST(test_report_html_escapes)
{
	const char *rep_text =
		"{\"job\":\"7<b>\",\"verdict\":\"software\",\"summary\":\"s\","
		"\"answer\":[\"crash: rank 1 in f<x> (a&b.c:3) \\\"q\\\" 'q'\"],"
		"\"causes\":[{\"cause\":\"B\",\"ranks_text\":\"1\",\"detail\":\"<script>alert(1)</script>\"}],"
		"\"nodes\":[{\"name\":\"n<img src=x onerror=alert(1)>\",\"addr\":\"a\",\"state\":\"alive\"}],"
		"\"ranks\":[{\"rank\":1,\"state\":\"in_mpi\",\"call\":\"MPI_<Recv>\",\"peer_world\":0,\"tag\":-1}],"
		"\"deadlock\":{\"found\":false,\"ranks\":[],\"detail\":\"</p><iframe>\"},"
		"\"stack_tree\":[{\"frame\":\"main (<a>.c:1)\",\"ranks\":\"1\",\"count\":1,\"children\":[]}],"
		"\"timeline\":[{\"time\":\"t\",\"t_s\":1,\"event\":\"note\",\"detail\":\"x\\u0001</td><link href=//e>\"}]}";
	json_object *rep = json_tokener_parse(rep_text);
	char *out = NULL;
	size_t len = 0;
	FILE *f;
	ck_assert(rep != NULL);
	f = open_memstream(&out, &len);
	ck_assert(f != NULL);
	ck_assert_int_eq(col_report_html(NULL, rep, f), 0);
	fclose(f);
	ck_assert_msg(!strstr(out, "<script") && !strstr(out, "<img") && !strstr(out, "<iframe") &&
			      !strstr(out, "<link") && !strstr(out, "<a>") && !strstr(out, "<x>") &&
			      !strstr(out, "7<b>") && !strstr(out, "<Recv>"),
		      "a string from the job reached the page as markup:\n%s", out);
	ck_assert(strstr(out, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	ck_assert(strstr(out, "f&lt;x&gt; (a&amp;b.c:3) &quot;q&quot; &#39;q&#39;"));
	ck_assert(strstr(out, "x\xef\xbf\xbd&lt;/td&gt;")); /* a control character is replaced */
	ck_assert(strstr(out, "default-src 'none'"));           /* the browser loads nothing */
	/* the answer is the first text of the body */
	ck_assert(strstr(strstr(out, "<body>"), "<section id=\"answer\">\n<p>crash: rank 1") ==
		  strstr(out, "<body>") + strlen("<body>\n"));
	free(out);
	json_object_put(rep);
}
END_TEST

/* Under Slurm: the batch job's output file, and the crash reports in it. */
static const struct {
	int batch;
	const char *out, *err, *workdir, *want;
} joblog_cases[] = {
	{1, "", "", "/home/u/run", "/home/u/run/slurm-42.out"},
	{1, "/scratch/%u/job-%j.out", "", "/w", "/scratch/alice/job-42.out"},
	{1, "out.%J", "", "/w", "/w/out.42"},
	{1, "o.txt", "/e/%A.err", "/w", "/e/42.err"},
	{1, "/x/100%%.out", "", "/w", "/x/100%.out"},
	{1, "/x/%x.out", "", "/w", NULL},   /* the job's name: not expanded */
	{1, "/x/%N-%t.out", "", "/w", NULL}, /* per node or task: not one file */
	{1, "rel.out", "", "", NULL},        /* relative, no working directory */
	{0, "/x/o.out", "", "/w", NULL},     /* not a batch job: srun's terminal */
};

START_TEST(test_joblog_path)
{
	struct mw_slurm_job j = {0};
	char buf[256];
	j.batch = joblog_cases[_i].batch;
	snprintf(j.user, sizeof j.user, "alice");
	snprintf(j.std_out, sizeof j.std_out, "%s", joblog_cases[_i].out);
	snprintf(j.std_err, sizeof j.std_err, "%s", joblog_cases[_i].err);
	snprintf(j.workdir, sizeof j.workdir, "%s", joblog_cases[_i].workdir);
	if (!joblog_cases[_i].want) {
		ck_assert_int_eq(col_joblog_path(&j, "42", buf, sizeof buf), -1);
	} else {
		ck_assert_int_eq(col_joblog_path(&j, "42", buf, sizeof buf), 0);
		ck_assert_str_eq(buf, joblog_cases[_i].want);
	}
}
END_TEST

START_TEST(test_joblog_scan)
{
	struct col_state s;
	char path[] = "/tmp/mwjoblogXXXXXX", st[512];
	int fd = mkstemp(path), nerr = -1;
	FILE *f;
	ck_assert(fd >= 0);
	f = fdopen(fd, "w");
	/* Open MPI's own report of a rank on n2 (pid 4242), one of a process
	 * that is no rank (pid 7), and the same pid on another node. */
	fputs("hello from the program\n"
	      "[n2:04242] *** Process received signal ***\n"
	      "[n2:04242] Signal: Segmentation fault (11)\n"
	      "[n2:04242] [ 0] /lib/x86_64-linux-gnu/libc.so.6(+0x3bfd0)[0x7f0]\n"
	      "[n2:04242] [ 1] /nonexistent/prog(fill_halo+0x12)[0x55d]\n"
	      "[n2:04242] [ 2] /nonexistent/prog(main+0x40)[0x55e]\n"
	      "[n2:04242] *** End of error message ***\n"
	      "[n1:00007] *** Process received signal ***\n"
	      "[n1:00007] [ 0] /lib/x86_64-linux-gnu/libc.so.6(+0x3bfd0)[0x7f0]\n"
	      "[n1:00007] [ 1] /nonexistent/prog(other+0x12)[0x55d]\n"
	      "[n1:00007] *** End of error message ***\n"
	      "[n3.cluster:04242] *** Process received signal ***\n"
	      "[n3.cluster:04242] [ 0] /lib/x86_64-linux-gnu/libc.so.6(+0x3bfd0)[0x7f0]\n"
	      "[n3.cluster:04242] [ 1] /nonexistent/prog(solve+0x12)[0x55d]\n"
	      "[n3.cluster:04242] *** End of error message ***\n"
	      /* Open MPI's error block for rank 3 it ended, MPICH's line for
	       * rank 4, and one for a rank the job does not have */
	      "[n1:00009] *** An error occurred in MPI_Bcast\n"
	      "[n1:00009] *** reported by process [711524353,3]\n"
	      "[n1:00009] *** on communicator MPI_COMM_WORLD\n"
	      "[n1:00009] *** MPI_ERR_COUNT: invalid count argument\n"
	      "Abort(738796802) on node 4 (rank 4 in comm 0): Fatal error in internal_Bcast: Invalid count, error stack:\n"
	      "Abort(738796802) on node 9 (rank 9 in comm 0): Fatal error in internal_Bcast: Invalid count, error stack:\n",
	      f);
	fclose(f);
	col_state_init(&s, "42");
	col_state_node(&s, "n1");
	col_state_node(&s, "n2");
	col_state_node(&s, "n3");
	beat(&s, 0, 0, MW_HB_S_IN_MPI, "MPI_Recv", "recv", 1, -1, 0);
	beat(&s, 1, 1, MW_HB_S_EXITED, "", "", -1, -1, 11);
	beat(&s, 2, 2, MW_HB_S_EXITED, "", "", -1, -1, 11);
	s.ranks[0].pid = 8;
	s.ranks[1].pid = 4242;
	s.ranks[2].pid = 4242;
	beat(&s, 3, 0, MW_HB_S_VANISHED, "MPI_Bcast", "collective", -1, -1, 0);
	beat(&s, 4, 0, MW_HB_S_VANISHED, "MPI_Bcast", "collective", -1, -1, 0);
	ck_assert_int_eq(col_joblog_scan(&s, path, &nerr), 2);
	ck_assert_int_eq(nerr, 2);
	ck_assert(col_mpi_error(&s, 3, st, sizeof st));
	ck_assert_str_eq(st, "MPI_Bcast: MPI_ERR_COUNT: invalid count argument");
	ck_assert(col_mpi_error(&s, 4, st, sizeof st));
	ck_assert_str_eq(st, "Fatal error in internal_Bcast: Invalid count");
	ck_assert(!col_mpi_error(&s, 9, st, sizeof st));
	ck_assert(col_rank_line(s.crash_stacks, 1, st, sizeof st));
	ck_assert_str_eq(st, "fill_halo (in prog, no source line: no debug info)\tmain (in prog, no source line: no debug info)");
	ck_assert(col_rank_line(s.crash_stacks, 2, st, sizeof st));
	ck_assert_str_eq(st, "solve (in prog, no source line: no debug info)");
	ck_assert(!col_rank_line(s.crash_stacks, 0, st, sizeof st));
	ck_assert_int_eq(col_joblog_scan(&s, path, &nerr), 0); /* known already: not added twice */
	ck_assert_int_eq(nerr, 0);
	unlink(path);
	ck_assert_int_eq(col_joblog_scan(&s, path, &nerr), -1);
	col_state_free(&s);
}
END_TEST

/* Link errors: one per node (the last replaces), one line of text, in
 * report.json (valid against the schema) and as report.txt lines. */
START_TEST(test_link_errors)
{
	struct col_state s;
	json_object *o, *sch = schema(), *a;
	char err[256], *txt = NULL;
	size_t len = 0;
	FILE *f;
	col_state_init(&s, "5");
	col_state_link_error(&s, "n2", "agent", "first");
	col_state_link_error(&s, "n2", "agent", "cannot reach the collector\nof job 5");
	col_state_link_error(&s, "n3x", "collector", "node n3x is not in job 5");
	for (int i = 0; i < 2 * COL_LINK_ERRORS_MAX; i++) {
		char n[16];
		snprintf(n, sizeof n, "m%d", i);
		col_state_link_error(&s, n, "agent", "x");
	}
	ck_assert_uint_eq(s.nlink_errors, COL_LINK_ERRORS_MAX);
	ck_assert_str_eq(s.link_errors[0].error, "cannot reach the collector of job 5");
	o = col_report_json(&s);
	ck_assert_msg(mw_jsonschema_validate(sch, o, err, sizeof err) == 0, "%s", err);
	ck_assert(json_object_object_get_ex(o, "link_errors", &a));
	ck_assert_uint_eq(json_object_array_length(a), COL_LINK_ERRORS_MAX);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(json_object_array_get_idx(a, 1), "source")),
			 "collector");
	json_object_put(o);
	f = open_memstream(&txt, &len);
	col_report_text(&s, f);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(txt, "link error: node n2: cannot reach the collector of job 5\n"));
	ck_assert_ptr_nonnull(strstr(txt, "link error: node n3x: node n3x is not in job 5\n"));
	free(txt);
	json_object_put(sch);
	col_state_free(&s);
}
END_TEST

/* What a dump says a rank waits for. */
static const struct {
	const char *dump;
	int ok;
	const char *waits;
} wait_cases[] = {
	{"{\"call\":{\"kind\":\"collective\",\"comm\":3,\"peer_world\":-1},\"comms\":[{\"id\":0,\"world_ranks\":[0,1,2,3]},{\"id\":3,\"world_ranks\":[1,3]}]}", 1, "1,3"},
	{"{\"call\":{\"kind\":\"recv\",\"comm\":0,\"peer_world\":-2},\"comms\":[{\"id\":0,\"world_ranks\":[0,1,2]}]}", 1, "0-2"},
	{"{\"call\":{\"kind\":\"recv\",\"comm\":0,\"peer_world\":2},\"comms\":[]}", 1, "2"},
	{"{\"call\":{\"kind\":\"sendrecv\",\"comm\":0,\"peer_world\":2,\"send_peer_world\":4}}", 1, "2,4"},
	{"{\"call\":{\"kind\":\"wait\",\"comm\":-1,\"requests\":[5]},\"pending_recvs\":[{\"req\":5,\"peer_world\":7},{\"req\":6,\"peer_world\":8}],\"pending_sends\":[]}", 1, "7"},
	{"{\"call\":{\"kind\":\"wait\",\"comm\":-1},\"pending_recvs\":[{\"req\":5,\"peer_world\":7}],\"pending_sends\":[{\"req\":1,\"peer_world\":9}]}", 1, "7,9"},
	{"{\"call\":null}", 0, ""},
	{"not json", 0, ""},
	{"[1]", 0, ""},
	{"{\"call\":{\"kind\":\"collective\",\"comm\":9},\"comms\":[{\"id\":0,\"world_ranks\":[0]}]}", 0, ""},
};

START_TEST(test_dump_waits)
{
	struct col_rank r;
	char buf[128];
	memset(&r, 0, sizeof r);
	int rc = col_dump_waits(wait_cases[_i].dump, &r);
	if (!wait_cases[_i].ok) {
		ck_assert_int_eq(rc, -1);
		ck_assert_int_eq(r.waits_known, 0);
		free(r.waits);
		return;
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(r.waits_known, 1);
	mw_ranges_format(r.waits, r.nwaits, buf, sizeof buf);
	ck_assert_str_eq(buf, wait_cases[_i].waits);
	free(r.waits);
}
END_TEST

/* slurmrestd's job API version, read from its OpenAPI document: the highest
 * version whose job path takes a POST; nothing from a document without one. */
START_TEST(test_restd_version)
{
	char v[32] = "";
	const char *doc =
		"{\"openapi\":\"3.0.2\",\"paths\":{"
		"\"/slurm/v0.0.37/job/{job_id}\":{\"get\":{},\"post\":{}},"
		"\"/slurm/v0.0.38/job/{job_id}\":{\"get\":{},\"post\":{},\"delete\":{}},"
		"\"/slurm/v0.0.39/job/{job_id}\":{\"get\":{}},"
		"\"/slurm/v0.0.40/jobs/\":{\"get\":{}},"
		"\"/slurmdb/v0.0.38/job/{job_id}\":{\"post\":{}}}}";
	ck_assert_int_eq(col_restd_version(doc, v, sizeof v), 0);
	ck_assert_str_eq(v, "v0.0.38");
	ck_assert_int_eq(col_restd_version(
				 "{\"paths\":{\"/slurm/v0.0.9/job/{job_id}\":{\"post\":{}},"
				 "\"/slurm/v0.0.10/job/{job_id}\":{\"post\":{}}}}",
				 v, sizeof v),
			 0);
	ck_assert_str_eq(v, "v0.0.10"); /* numbers, not strings, are compared */
	ck_assert_int_eq(col_restd_version("<html>401</html>", v, sizeof v), -1);
	ck_assert_int_eq(col_restd_version("{\"paths\":[]}", v, sizeof v), -1);
	ck_assert_int_eq(col_restd_version("{\"paths\":{\"/slurm/v0.0.38/job/{job_id}\":1}}", v,
						 sizeof v),
			 -1);
	ck_assert_int_eq(col_restd_version(NULL, v, sizeof v), -1);
}
END_TEST

int main(void)
{
	mw_log_open("test_collector", MW_LOG_STDERR, LOG_ERR);
	Suite *s = suite_create("collector");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_report_schema, 0, sizeof(rep_cases) / sizeof(rep_cases[0]));
	tcase_add_test(tc, test_text_and_comment);
	tcase_add_test(tc, test_incomplete_analysis);
	tcase_add_loop_test(tc, test_answer_cases, 0, sizeof answer_cases / sizeof answer_cases[0]);
	tcase_add_test(tc, test_report_json_last);
	tcase_add_test(tc, test_report_write);
	tcase_add_test(tc, test_report_html_escapes);
	tcase_add_loop_test(tc, test_joblog_path, 0, sizeof joblog_cases / sizeof joblog_cases[0]);
	tcase_add_test(tc, test_joblog_scan);
	tcase_add_test(tc, test_link_errors);
	tcase_add_loop_test(tc, test_dump_waits, 0, sizeof(wait_cases) / sizeof(wait_cases[0]));
	tcase_add_test(tc, test_restd_version);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
