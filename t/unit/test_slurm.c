/* Unit tests for shared/slurm.c, against fake squeue, sinfo, scontrol and
 * scancel in a temporary folder: each prints the file out.NAME, exits with
 * the status in rc.NAME (0 if none) and logs its arguments. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slurm.h"
#include "unit.h"
#include "slurmplan.h"
#include "uvslurm.h"

static char dir[256], scontrol[300];

static void put(const char *name, const char *text)
{
	mw_unit_put(dir, name, text);
}

static const char *get(const char *name)
{
	const char *t = mw_unit_get(dir, name);
	return t ? t : "";
}

static void setup(void)
{
	char p[512];
	snprintf(dir, sizeof(dir), "/tmp/test_slurm.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(scontrol, sizeof(scontrol), "%s/scontrol", dir);
	put("fake", "#!/bin/sh\n"
		    "d=$(dirname \"$0\"); n=$(basename \"$0\")\n"
		    "{ printf '%s|' \"$n\" \"$@\"; echo; } >>\"$d/log\"\n"
		    "[ -f \"$d/sleep\" ] && sleep 5\n"
		    "[ -f \"$d/out.$n\" ] && cat \"$d/out.$n\"\n"
		    "exit $(cat \"$d/rc.$n\" 2>/dev/null || echo 0)\n");
	snprintf(p, sizeof(p), "%s/fake", dir);
	chmod(p, 0755);
	for (const char *const *f = (const char *const[]){"scontrol", "squeue", "sinfo", "scancel", NULL}; *f;
	     f++) {
		char l[512];
		snprintf(l, sizeof(l), "%s/%s", dir, *f);
		ck_assert_int_eq(symlink(p, l), 0);
	}
}

static void teardown(void)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

#define JOB(id, state, excluded)                                                              \
	"{\"jobs\": [{\"job_id\": " id ", \"user_id\": 2901, \"user_name\": \"mwuser1\", "        \
	"\"job_state\": \"" state "\", \"nodes\": \"n[1-2]\", \"excluded_nodes\": \"" excluded "\", " \
	"\"current_working_directory\": \"/home/u\"}]}"
#define NODES                                                                                   \
	"{\"nodes\": [{\"name\": \"n1\", \"address\": \"10.0.0.1\", \"state\": \"idle\", "          \
	"\"state_flags\": [], \"reason\": \"\"}, {\"name\": \"n2\", \"address\": \"10.0.0.2\", "     \
	"\"state\": \"idle\", \"state_flags\": [\"DRAIN\"], \"reason\": \"mpiwatch: job 5: dead\"}]}"

START_TEST(test_prog)
{
	struct mw_slurm s = {scontrol, 5};
	char buf[512], want[512], *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;

	ck_assert_int_eq(mw_slurm_prog(&s, "scontrol", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, scontrol);
	ck_assert_int_eq(mw_slurm_prog(&s, "sinfo", buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "%s/sinfo", dir);
	ck_assert_str_eq(buf, want); /* beside scontrol, not from $PATH */
	ck_assert_int_eq(mw_slurm_prog(&s, "sinfo", buf, 8), -1);
	ck_assert_int_eq(errno, ENAMETOOLONG);
	/* No scontrol path: $PATH, then the usual folders. */
	setenv("PATH", dir, 1);
	ck_assert_int_eq(mw_slurm_prog(NULL, "scancel", buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "%s/scancel", dir);
	ck_assert_str_eq(buf, want);
	ck_assert_int_eq(mw_slurm_prog(NULL, "mw-no-such-command", buf, sizeof(buf)), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(mw_slurm_run(NULL, "mw-no-such-command", NULL, NULL), -1);
	ck_assert_int_eq(errno, ENOENT);
	if (path)
		setenv("PATH", path, 1);
	free(path);
}
END_TEST

START_TEST(test_job)
{
	struct mw_slurm s = {scontrol, 5};
	struct mw_slurm_job j;
	char err[256] = "";

	put("out.squeue", JOB("5", "RUNNING", ""));
	ck_assert_int_eq(mw_slurm_job(&s, "5", &j, err, sizeof(err)), 0);
	ck_assert_int_eq(j.uid, 2901);
	ck_assert_str_eq(j.state, "RUNNING");
	ck_assert_str_eq(j.nodelist, "n[1-2]");
	ck_assert_str_eq(j.workdir, "/home/u");
	mw_slurm_job_free(&j);
	ck_assert_str_eq(get("log"), "squeue|--json|--states=all|-j|5|\n");
	ck_assert_int_eq(mw_slurm_job(&s, "6", &j, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "job 6: Invalid job id (not in squeue's answer)");
	put("out.squeue", "slurm_load_jobs error: Invalid job id specified\n");
	put("rc.squeue", "1");
	ck_assert_int_eq(mw_slurm_job(&s, "5", &j, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "squeue failed (status 1): slurm_load_jobs error: Invalid job id specified");
}
END_TEST

START_TEST(test_job_active)
{
	struct mw_slurm s = {scontrol, 5};

	put("out.squeue", "slurm_load_jobs error: Invalid job id specified\n");
	put("rc.squeue", "1");
	ck_assert_int_eq(mw_slurm_job_active(&s, "5"), -1); /* never seen: not "over" */
	put("rc.squeue", NULL);
	put("out.squeue", JOB("5", "RUNNING", ""));
	ck_assert_int_eq(mw_slurm_job_active(&s, "5"), 1);
	put("out.squeue", JOB("5", "COMPLETING", ""));
	ck_assert_int_eq(mw_slurm_job_active(&s, "5"), 1);
	put("out.squeue", JOB("5", "TIMEOUT", ""));
	ck_assert_int_eq(mw_slurm_job_active(&s, "5"), 0);
	put("out.squeue", "slurm_load_jobs error: Invalid job id specified\n");
	put("rc.squeue", "1");
	ck_assert_int_eq(mw_slurm_job_active(&s, "5"), 0); /* seen, now forgotten: over */
	put("out.squeue", "slurm_load_jobs error: Unable to contact slurm controller\n");
	ck_assert_int_eq(mw_slurm_job_active(&s, "5"), -1);
}
END_TEST

/* mw_uvslurm_job_active on a loop: the same answers as the blocking
 * mw_slurm_job_active (one rule, mw_slurm_job_active_answer), the same
 * squeue arguments. */
static long uv_rc;

static void uv_done(void *arg, long rc, const char *err)
{
	(void)arg, (void)err;
	uv_rc = rc;
}

static long uv_active(const struct mw_slurm *s, const char *job)
{
	uv_loop_t loop;
	char err[256];
	ck_assert_int_eq(uv_loop_init(&loop), 0);
	uv_rc = -99;
	ck_assert_ptr_nonnull(mw_uvslurm_job_active(&loop, s, job, uv_done, NULL, err, sizeof(err)));
	uv_run(&loop, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
	return uv_rc;
}

START_TEST(test_uvjob_active)
{
	struct mw_slurm s = {scontrol, 5};

	/* (Not "never seen": the process remembers a job seen, and without
	 * CK_FORK test_job_active has shown it already.) */
	put("out.squeue", JOB("5", "RUNNING", ""));
	ck_assert_int_eq(uv_active(&s, "5"), 1);
	ck_assert_str_eq(get("log"), "squeue|--json|--states=all|-j|5|\n");
	put("out.squeue", JOB("5", "TIMEOUT", ""));
	ck_assert_int_eq(uv_active(&s, "5"), 0);
	put("out.squeue", "slurm_load_jobs error: Invalid job id specified\n");
	put("rc.squeue", "1");
	ck_assert_int_eq(uv_active(&s, "5"), 0); /* seen, now forgotten: over */
	put("out.squeue", "slurm_load_jobs error: Unable to contact slurm controller\n");
	ck_assert_int_eq(uv_active(&s, "5"), -1);
}
END_TEST

START_TEST(test_nodes)
{
	struct mw_slurm s = {scontrol, 5};
	struct mw_slurm_node x, *v;
	char err[256] = "";

	put("out.sinfo", NODES);
	ck_assert_int_eq(mw_slurm_nodes(&s, &v, err, sizeof(err)), 2);
	ck_assert_str_eq(v[0].addr, "10.0.0.1");
	free(v);
	ck_assert_int_eq(mw_slurm_node(&s, "n2", &x, err, sizeof(err)), 0);
	ck_assert_str_eq(x.name, "n2");
	ck_assert_str_eq(x.state, "IDLE+DRAIN");
	ck_assert_str_eq(x.reason, "mpiwatch: job 5: dead");
	ck_assert_int_eq(mw_slurm_node(&s, "n3", &x, err, sizeof(err)), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_str_eq(err, "node n3 is unknown to Slurm");
	ck_assert_str_eq(get("log"), "sinfo|--json|\nsinfo|--json|\nsinfo|--json|\n");
	put("out.sinfo", "sinfo: error: no configuration\n");
	ck_assert_int_eq(mw_slurm_node(&s, "n2", &x, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "sinfo --json: not the JSON expected");
	put("rc.sinfo", "1");
	ck_assert_int_eq(mw_slurm_nodes(&s, &v, err, sizeof(err)), -1);
	ck_assert_ptr_null(v);
	ck_assert_str_eq(err, "sinfo failed (status 1): sinfo: error: no configuration");
}
END_TEST

/* The commands that change something: what they run and what they say. */
enum call { DRAIN, RESUME, COMMENT, CANCEL, REQUEUE, REQUEUE_NODES };
static const struct {
	const char *what;
	enum call call;
	const char *fail; /* the command that exits 1 with "denied", or NULL */
	int want_rv;
	const char *want_msg; /* "" for drain and resume success */
	const char *want_log;
} act_cases[] = {
	{"drain", DRAIN, NULL, 0, "", "scontrol|update|NodeName=n2|State=DRAIN|Reason=mpiwatch: job 5: x y|\n"},
	{"drain refused", DRAIN, "scontrol", -1, "scontrol failed (status 1): denied",
	 "scontrol|update|NodeName=n2|State=DRAIN|Reason=mpiwatch: job 5: x y|\n"},
	{"resume", RESUME, NULL, 0, "", "scontrol|update|NodeName=n2|State=RESUME|\n"},
	{"resume refused", RESUME, "scontrol", -1, "scontrol failed (status 1): denied",
	 "scontrol|update|NodeName=n2|State=RESUME|\n"},
	{"comment", COMMENT, NULL, 0, "", "scontrol|update|JobId=5|Comment=mpiwatch: x y|\n"},
	{"comment refused", COMMENT, "scontrol", -1, "scontrol update: denied",
	 "scontrol|update|JobId=5|Comment=mpiwatch: x y|\n"},
	{"cancel", CANCEL, NULL, 0, "job 5 cancelled", "scancel|5|\n"},
	{"cancel refused", CANCEL, "scancel", -1, "scancel 5: denied", "scancel|5|\n"},
	{"requeue", REQUEUE, NULL, 0, "job 5 requeued", "squeue|--json|--states=all|-j|5|\nscontrol|requeue|5|\n"},
	{"requeue refused", REQUEUE, "scontrol", -1, "scontrol requeue: denied",
	 "squeue|--json|--states=all|-j|5|\nscontrol|requeue|5|\n"},
	{"requeue excluding", REQUEUE_NODES, NULL, 0, "job 5 requeued excluding n[3,7-8]",
	 "squeue|--json|--states=all|-j|5|\nscontrol|requeuehold|5|\n"
	 "scontrol|update|JobId=5|ExcNodeList=n[3,7-8]|\nscontrol|release|5|\n"},
	{"requeue excluding, no requeuehold", REQUEUE_NODES, "scontrol", -1, "scontrol update ExcNodeList: denied",
	 "squeue|--json|--states=all|-j|5|\nscontrol|requeuehold|5|\nscontrol|update|JobId=5|ExcNodeList=n[3,7-8]|\n"},
};

/* Case i's fakes: the job, and the command that refuses. */
static void act_setup(int i)
{
	char rc[64];
	put("out.squeue", JOB("5", "RUNNING", "n3"));
	if (act_cases[i].fail) {
		snprintf(rc, sizeof(rc), "rc.%s", act_cases[i].fail);
		put(rc, "1");
		snprintf(rc, sizeof(rc), "out.%s", act_cases[i].fail);
		put(rc, "denied\nmore\n");
	}
}

START_TEST(test_actions)
{
	struct mw_slurm s = {scontrol, 5};
	const char *const dead[] = {"n8", "n7"};
	char msg[512] = "";
	int rv = -2;

	act_setup(_i);
	switch (act_cases[_i].call) {
	case DRAIN: rv = mw_slurm_drain(&s, "n2", "mpiwatch: job 5: x y", msg, sizeof(msg)); break;
	case RESUME: rv = mw_slurm_resume(&s, "n2", msg, sizeof(msg)); break;
	case COMMENT: rv = mw_slurm_comment(&s, "5", "mpiwatch: x y", msg, sizeof(msg)); break;
	case CANCEL: rv = mw_slurm_cancel(&s, "5", msg, sizeof(msg)); break;
	case REQUEUE: rv = mw_slurm_requeue(&s, "5", NULL, 0, msg, sizeof(msg)); break;
	case REQUEUE_NODES: rv = mw_slurm_requeue(&s, "5", dead, 2, msg, sizeof(msg)); break;
	}
	ck_assert_msg(rv == act_cases[_i].want_rv, "%s: rv %d: %s", act_cases[_i].what, rv, msg);
	ck_assert_str_eq(msg, act_cases[_i].want_msg);
	ck_assert_str_eq(get("log"), act_cases[_i].want_log);
}
END_TEST

/* The same changes through mw_uvslurm_plan on a loop (the collector's
 * path): the same commands in the same order, the same answers. */
static char uv_msg[2600];

static void uv_plan_done(void *arg, long rc, const char *msg)
{
	(void)arg;
	uv_rc = rc;
	snprintf(uv_msg, sizeof(uv_msg), "%s", msg);
}

START_TEST(test_uvactions)
{
	struct mw_slurm s = {scontrol, 5};
	const char *const dead[] = {"n8", "n7"};
	struct mw_slurm_plan p;
	char err[256];
	uv_loop_t loop;
	int k;

	switch (act_cases[_i].call) {
	case COMMENT: k = mw_slurm_plan_init(&p, MW_PLAN_COMMENT, "5", "mpiwatch: x y", NULL, 0); break;
	case CANCEL: k = mw_slurm_plan_init(&p, MW_PLAN_CANCEL, "5", NULL, NULL, 0); break;
	case REQUEUE: k = mw_slurm_plan_init(&p, MW_PLAN_REQUEUE, "5", NULL, NULL, 0); break;
	case REQUEUE_NODES: k = mw_slurm_plan_init(&p, MW_PLAN_REQUEUE, "5", NULL, dead, 2); break;
	default: ck_abort_msg("%s: not a plan", act_cases[_i].what); return;
	}
	ck_assert_int_eq(k, 0);
	act_setup(_i);
	ck_assert_int_eq(uv_loop_init(&loop), 0);
	uv_rc = -99;
	ck_assert_ptr_nonnull(mw_uvslurm_plan(&loop, &s, &p, uv_plan_done, NULL, err, sizeof(err)));
	ck_assert_int_eq(uv_rc, -99); /* told on the loop, never from the start */
	uv_run(&loop, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
	mw_slurm_plan_free(&p);
	ck_assert_msg(uv_rc == act_cases[_i].want_rv, "%s: rc %ld: %s", act_cases[_i].what, uv_rc, uv_msg);
	ck_assert_str_eq(uv_msg, act_cases[_i].want_msg);
	ck_assert_str_eq(get("log"), act_cases[_i].want_log);
}
END_TEST

/* mw_uvslurm_node: one node of sinfo's answer, or "unknown". */
START_TEST(test_uvnode)
{
	struct mw_slurm s = {scontrol, 5};
	struct mw_slurm_node n;
	char err[256];
	uv_loop_t loop;

	put("out.sinfo", NODES);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(uv_loop_init(&loop), 0);
		uv_rc = -99;
		memset(&n, 0, sizeof(n));
		ck_assert_ptr_nonnull(mw_uvslurm_node(&loop, &s, i ? "n9" : "n2", &n, uv_plan_done, NULL, err,
						      sizeof(err)));
		uv_run(&loop, UV_RUN_DEFAULT);
		ck_assert_int_eq(uv_loop_close(&loop), 0);
		if (i == 0) {
			ck_assert_int_eq(uv_rc, 0);
			ck_assert_str_eq(n.addr, "10.0.0.2");
		} else {
			ck_assert_int_eq(uv_rc, -1);
			ck_assert_str_eq(uv_msg, "node n9 is unknown to Slurm");
		}
	}
}
END_TEST

START_TEST(test_token_and_timeout)
{
	/* 5 s for the fake's answers (under valgrind on a loaded machine a
	 * shell start took more than 0.5 s), 0.5 s against its 5 s sleep. */
	struct mw_slurm s = {scontrol, 5};
	char tok[64] = "", err[256] = "";
	struct mw_slurm_job j;

	put("out.scontrol", "SLURM_JWT=eyJ.abc.def\n");
	ck_assert_int_eq(mw_slurm_token(&s, tok, sizeof(tok)), 0);
	ck_assert_str_eq(tok, "eyJ.abc.def");
	put("out.scontrol", "no token\n");
	ck_assert_int_eq(mw_slurm_token(&s, tok, sizeof(tok)), -1);
	put("sleep", "");
	s.timeout_s = 0.5;
	ck_assert_int_eq(mw_slurm_job(&s, "5", &j, err, sizeof(err)), -1);
	ck_assert_int_eq(errno, ETIMEDOUT);
	ck_assert_msg(strstr(err, "cannot run ") && strstr(err, "/squeue: "), "%s", err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("slurm");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_prog);
	tcase_add_test(tc, test_job);
	tcase_add_test(tc, test_job_active);
	tcase_add_test(tc, test_uvjob_active);
	tcase_add_test(tc, test_nodes);
	tcase_add_loop_test(tc, test_actions, 0, sizeof(act_cases) / sizeof(act_cases[0]));
	/* from the comment on: drain and resume are not plans */
	tcase_add_loop_test(tc, test_uvactions, 4, sizeof(act_cases) / sizeof(act_cases[0]));
	tcase_add_test(tc, test_uvnode);
	tcase_add_test(tc, test_token_and_timeout);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
