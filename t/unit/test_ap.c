/* Unit tests of the auxiliary processes (issue 13, APs): the APREQ/APOUT
 * frames and their bounds (shared/heartbeat.c), the bounded command runner
 * (shared/runcmd.c), the site's AP file (shared/apconf.c), the agent's round
 * (agent/agap.c, run in-process) and the collector's rounds and report
 * (collector/colap.c), and the collector's tree side of them: who may speak
 * for a node, where an APREQ goes (collector/coltree.c), and the fuzzy
 * placement at start-up from the probe replies. */
#include <check.h>
#include <math.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "../../agent/agap.h"
#include "../../collector/colap.h"
#include "apconf.h"
#include "colstate.h"
#include "coltree.h"
#include "jobconf.h"
#include "jsonschema.h"
#include "heartbeat.h"
#include "runcmd.h"
#include "unit.h"

/* ------------------------------------------------------------ frames */

static size_t raw_frame(uint8_t *buf, size_t cap, int type, const char *payload)
{
	size_t n = strlen(payload);
	ck_assert(MW_HB_HDR_LEN + n <= cap);
	buf[0] = 'M', buf[1] = 'W', buf[2] = 'H', buf[3] = 'B';
	buf[4] = MW_HB_VERSION;
	buf[5] = (uint8_t)type;
	buf[6] = buf[7] = 0;
	buf[8] = (uint8_t)(n >> 24), buf[9] = (uint8_t)(n >> 16), buf[10] = (uint8_t)(n >> 8),
	buf[11] = (uint8_t)n;
	memcpy(buf + MW_HB_HDR_LEN, payload, n);
	return MW_HB_HDR_LEN + n;
}

#define OUT_OK "\"round\":1,\"node\":\"n1\",\"name\":\"links\",\"status\":0,\"signal\":0," \
	       "\"timed_out\":false,\"truncated\":false,\"bytes\":3,\"elapsed_s\":0.5,\"error\":\"\""

static const struct {
	const char *name;
	int type;
	const char *payload;
	enum mw_hb_err expect;
} dec_cases[] = {
	{"apreq all", MW_HB_APREQ, "{\"round\":1,\"nodes\":[]}", MW_HB_OK},
	{"apreq nodes", MW_HB_APREQ, "{\"round\":7,\"nodes\":[\"n1\",\"n-2.x\"]}", MW_HB_OK},
	{"apreq round 0", MW_HB_APREQ, "{\"round\":0,\"nodes\":[]}", MW_HB_E_FIELD},
	{"apreq round too big", MW_HB_APREQ, "{\"round\":2147483648,\"nodes\":[]}", MW_HB_E_FIELD},
	{"apreq no nodes", MW_HB_APREQ, "{\"round\":1}", MW_HB_E_FIELD},
	{"apreq bad node", MW_HB_APREQ, "{\"round\":1,\"nodes\":[\"../etc\"]}", MW_HB_E_FIELD},
	{"apreq node number", MW_HB_APREQ, "{\"round\":1,\"nodes\":[3]}", MW_HB_E_FIELD},
	{"apreq command smuggled", MW_HB_APREQ, "{\"round\":1,\"nodes\":[],\"cmd\":\"/bin/rm\"}", MW_HB_OK},
	{"apout ok", MW_HB_APOUT, "{" OUT_OK ",\"output\":\"a\\tb\\nc\"}", MW_HB_OK},
	{"apout control char", MW_HB_APOUT, "{" OUT_OK ",\"output\":\"a\\u001b[31m\"}", MW_HB_E_FIELD},
	{"apout NUL", MW_HB_APOUT, "{" OUT_OK ",\"output\":\"a\\u0000b\"}", MW_HB_E_FIELD},
	{"apout 8-bit", MW_HB_APOUT, "{" OUT_OK ",\"output\":\"caf\\u00e9\"}", MW_HB_E_FIELD},
	{"apout no output", MW_HB_APOUT, "{" OUT_OK "}", MW_HB_E_FIELD},
	{"apout bad name", MW_HB_APOUT,
	 "{\"round\":1,\"node\":\"n1\",\"name\":\"a b\",\"status\":0,\"signal\":0,\"timed_out\":false,"
	 "\"truncated\":false,\"bytes\":3,\"elapsed_s\":0.5,\"error\":\"\",\"output\":\"\"}",
	 MW_HB_E_FIELD},
	{"apout status 256", MW_HB_APOUT,
	 "{\"round\":1,\"node\":\"n1\",\"name\":\"x\",\"status\":256,\"signal\":0,\"timed_out\":false,"
	 "\"truncated\":false,\"bytes\":3,\"elapsed_s\":0.5,\"error\":\"\",\"output\":\"\"}",
	 MW_HB_E_FIELD},
	{"apout timed_out number", MW_HB_APOUT,
	 "{\"round\":1,\"node\":\"n1\",\"name\":\"x\",\"status\":-1,\"signal\":9,\"timed_out\":1,"
	 "\"truncated\":false,\"bytes\":3,\"elapsed_s\":0.5,\"error\":\"\",\"output\":\"\"}",
	 MW_HB_E_FIELD},
	{"apout elapsed negative", MW_HB_APOUT,
	 "{\"round\":1,\"node\":\"n1\",\"name\":\"x\",\"status\":-1,\"signal\":9,\"timed_out\":true,"
	 "\"truncated\":false,\"bytes\":3,\"elapsed_s\":-1,\"error\":\"\",\"output\":\"\"}",
	 MW_HB_E_FIELD},
};

START_TEST(test_decode)
{
	uint8_t buf[2048];
	struct mw_hb_msg m;
	size_t n = raw_frame(buf, sizeof buf, dec_cases[_i].type, dec_cases[_i].payload);
	enum mw_hb_err e = mw_hb_decode(buf, n, &m);
	ck_assert_msg(e == dec_cases[_i].expect, "%s: got %s", dec_cases[_i].name, mw_hb_err_name(e));
	if (e == MW_HB_OK)
		mw_hb_msg_free(&m);
}
END_TEST

START_TEST(test_roundtrip)
{
	char nodes[2][MW_HB_STR_MAX + 1] = {"n1", "n2"};
	struct mw_hb_msg m = {0}, d;
	uint8_t *buf;
	size_t len;
	char *big;

	m.type = MW_HB_APREQ;
	m.u.apreq.round = 3;
	m.u.apreq.nodes = nodes;
	m.u.apreq.n = 2;
	ck_assert_int_eq(mw_hb_encode(&m, &buf, &len), 0);
	ck_assert_int_eq(mw_hb_decode(buf, len, &d), MW_HB_OK);
	ck_assert_int_eq(d.type, MW_HB_APREQ);
	ck_assert_uint_eq(d.u.apreq.round, 3);
	ck_assert_uint_eq(d.u.apreq.n, 2);
	ck_assert_str_eq(d.u.apreq.nodes[1], "n2");
	ck_assert_str_eq(mw_hb_type_name(MW_HB_APREQ), "apreq");
	ck_assert_str_eq(mw_hb_type_name(16), "?");
	mw_hb_msg_free(&d);
	free(buf);

	/* the largest output allowed goes through; one byte more does not */
	big = malloc(MW_HB_AP_OUTPUT_MAX + 2);
	ck_assert_ptr_nonnull(big);
	memset(big, 'y', MW_HB_AP_OUTPUT_MAX);
	for (size_t i = 1; i < MW_HB_AP_OUTPUT_MAX; i += 2)
		big[i] = '\n';
	big[MW_HB_AP_OUTPUT_MAX] = 0;
	memset(&m, 0, sizeof m);
	m.type = MW_HB_APOUT;
	m.u.apout.round = 1;
	strcpy(m.u.apout.node, "n1");
	strcpy(m.u.apout.name, "flood");
	m.u.apout.status = -1;
	m.u.apout.signal = 9;
	m.u.apout.truncated = 1;
	m.u.apout.bytes = MW_HB_AP_OUTPUT_MAX;
	m.u.apout.elapsed_s = 0.25;
	m.u.apout.output = big;
	ck_assert_int_eq(mw_hb_encode(&m, &buf, &len), 0);
	ck_assert_int_eq(mw_hb_decode(buf, len, &d), MW_HB_OK);
	ck_assert_int_eq(d.u.apout.truncated, 1);
	ck_assert_int_eq(d.u.apout.signal, 9);
	ck_assert_uint_eq(strlen(d.u.apout.output), MW_HB_AP_OUTPUT_MAX);
	mw_hb_msg_free(&d);
	free(buf);
	big[MW_HB_AP_OUTPUT_MAX] = 'y';
	big[MW_HB_AP_OUTPUT_MAX + 1] = 0;
	errno = 0;
	ck_assert_int_eq(mw_hb_encode(&m, &buf, &len), -1);
	ck_assert_int_eq(errno, EINVAL);
	/* a control character is refused on the way out too */
	m.u.apout.output = "\x1b[2J";
	ck_assert_int_eq(mw_hb_encode(&m, &buf, &len), -1);
	free(big);
}
END_TEST

START_TEST(test_sanitize)
{
	char s[] = "ok\t\n\x1b[31m\x80\xff" "end";
	mw_hb_ap_sanitize(s, sizeof s - 1);
	ck_assert_str_eq(s, "ok\t\n?[31m??end");
	ck_assert(mw_hb_valid_ap_output(s));
	ck_assert(!mw_hb_valid_ap_name("-x"));
	ck_assert(!mw_hb_valid_ap_name("0123456789012345678901234567890123"));
	ck_assert(mw_hb_valid_ap_name("df.tmp_1-x"));
}
END_TEST

/* ------------------------------------------------------------ runcmd */

START_TEST(test_run_bounds)
{
	struct mw_runcmd_opts o = {.timeout_s = 5, .max_output = 1000, .stop_at_max = 1, .own_group = 1, .nice = 5};
	struct mw_runcmd_result r;
	char *echo[] = {"/bin/sh", "-c", "echo hello; echo err >&2; exit 3", NULL};
	char *hang[] = {"/bin/sh", "-c", "echo before; exec sleep 30", NULL};
	char *flood[] = {"/usr/bin/yes", "flood", NULL};
	char *in[] = {"/bin/cat", NULL};
	char *nice[] = {"/bin/sh", "-c", "cut -d' ' -f19 /proc/$$/stat", NULL};
	char *missing[] = {"/nonexistent/ip", "-s", "link", NULL};

	ck_assert_int_eq(mw_run_command_ex(echo, NULL, &o, &r), 0);
	ck_assert_int_eq(r.status, 3);
	ck_assert_str_eq(r.output, "hello\nerr\n");
	ck_assert(!r.timed_out && !r.truncated && !r.signal && !r.exec_errno);
	free(r.output);

	o.timeout_s = 0.4;
	ck_assert_int_eq(mw_run_command_ex(hang, NULL, &o, &r), 0);
	ck_assert_int_eq(r.timed_out, 1);
	ck_assert_int_eq(r.signal, SIGKILL);
	ck_assert_int_eq(r.status, -1);
	ck_assert_str_eq(r.output, "before\n"); /* what came before the bound is kept */
	free(r.output);

	o.timeout_s = 10;
	ck_assert_int_eq(mw_run_command_ex(flood, NULL, &o, &r), 0);
	ck_assert_int_eq(r.truncated, 1);
	ck_assert_int_eq(r.timed_out, 0);
	ck_assert_int_eq(r.signal, SIGKILL); /* killed at the size bound */
	ck_assert_uint_eq(r.len, 1000);
	ck_assert_uint_eq(strlen(r.output), 1000);
	ck_assert(strncmp(r.output, "flood\nflood\n", 12) == 0);
	free(r.output);

	/* stdin is /dev/null: cat ends at once */
	ck_assert_int_eq(mw_run_command_ex(in, NULL, &o, &r), 0);
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_eq(r.len, 0);
	free(r.output);

	{
		int self = getpriority(PRIO_PROCESS, 0);
		ck_assert_int_eq(mw_run_command_ex(nice, NULL, &o, &r), 0);
		ck_assert_int_eq(atoi(r.output), (self + 5 > 19 ? 19 : self + 5));
		free(r.output);
	}

	ck_assert_int_eq(mw_run_command_ex(missing, NULL, &o, &r), 0);
	ck_assert_int_eq(r.status, 127);
	ck_assert_int_eq(r.exec_errno, ENOENT);
	free(r.output);
}
END_TEST

/* Whether pid is gone (or a zombie waiting for init). */
static int gone(int pid)
{
	char path[64], buf[256], *p;
	FILE *f;
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 1;
	p = fgets(buf, sizeof buf, f);
	fclose(f);
	p = p ? strrchr(buf, ')') : NULL;
	return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

START_TEST(test_run_group_killed)
{
	struct mw_runcmd_opts o = {.timeout_s = 0.5, .max_output = 1000, .stop_at_max = 1, .own_group = 1};
	struct mw_runcmd_result r;
	char *bg[] = {"/bin/sh", "-c", "sleep 60 & echo $!; wait", NULL};
	int pid;

	ck_assert_int_eq(mw_run_command_ex(bg, NULL, &o, &r), 0);
	ck_assert_int_eq(r.timed_out, 1);
	pid = atoi(r.output);
	ck_assert_int_gt(pid, 1);
	for (int i = 0; i < 50 && !gone(pid); i++)
		usleep(20000);
	ck_assert_msg(gone(pid), "the command's own child %d outlived the bound", pid);
	free(r.output);
}
END_TEST

/* ------------------------------------------------------------ the AP file */

static const char good_conf[] =
	"# the site's checks\n"
	"command = links /usr/sbin/ip -s link\n"
	"command = tmp   /bin/df -h /tmp\n"
	"shell_command = sockets ss -s | head -3\n"
	"nodes = suspicious\n"
	"timeout = 2.5\n"
	"max_output = 4096\n";

START_TEST(test_conf_good)
{
	struct mw_apconf c;
	struct mw_conf_errors errs = {0};
	ck_assert_int_eq(mw_apconf_init(&c), 0);
	ck_assert_int_eq(c.nodes, MW_AP_ALL);
	ck_assert(c.timeout == 10);
	ck_assert_int_eq(c.max_output, 16384);
	ck_assert_int_eq(mw_apconf_parse_buffer(&c, "ap.conf", good_conf, strlen(good_conf), &errs), 0);
	ck_assert_uint_eq(c.ncmd, 3);
	ck_assert_str_eq(c.cmd[0].name, "links");
	ck_assert_str_eq(c.cmd[0].argv[0], "/usr/sbin/ip");
	ck_assert_str_eq(c.cmd[0].argv[2], "link");
	ck_assert_ptr_null(c.cmd[0].argv[3]);
	ck_assert_str_eq(c.cmd[1].argv[2], "/tmp");
	ck_assert_int_eq(c.cmd[2].shell, 1);
	ck_assert_str_eq(c.cmd[2].argv[0], "/bin/sh");
	ck_assert_str_eq(c.cmd[2].argv[1], "-c");
	ck_assert_str_eq(c.cmd[2].argv[2], "ss -s | head -3");
	ck_assert_int_eq(c.nodes, MW_AP_SUSPICIOUS);
	ck_assert(c.timeout == 2.5);
	ck_assert_int_eq(c.max_output, 4096);
	mw_apconf_free(&c);
}
END_TEST

static const struct {
	const char *text;
	const char *err; /* the first error, as a substring */
} bad_confs[] = {
	{"command = links ip -s link\n", "ap.conf:1: command = 'links ip -s link': expected NAME /absolute/path"},
	{"\ncommand = -x /bin/true\n", "ap.conf:2: command"},
	{"command = x\n", "ap.conf:1: command"},
	{"shell_command = x\n", "ap.conf:1: shell_command"},
	{"commands = x /bin/true\n", "ap.conf:1: unknown key 'commands'"},
	{"timeout = 0\n", "ap.conf:1: timeout"},
	{"timeout = 301\n", "ap.conf:1: timeout"},
	{"max_output = 2000000\n", "ap.conf:1: max_output"},
	{"nodes = some\n", "ap.conf:1: nodes"},
	{"command = a /bin/true\nshell_command = a true\n", "ap.conf: command name 'a' given twice"},
	{"command = a /bin/true\x1b\n", "ap.conf:1: command"},
};

START_TEST(test_conf_bad)
{
	struct mw_apconf c;
	struct mw_conf_errors errs = {0};
	ck_assert_int_eq(mw_apconf_init(&c), 0);
	ck_assert_int_gt(mw_apconf_parse_buffer(&c, "ap.conf", bad_confs[_i].text, strlen(bad_confs[_i].text), &errs), 0);
	ck_assert_uint_ge(errs.n, 1);
	ck_assert_msg(strstr(errs.msg[0], bad_confs[_i].err), "case %d: %s", _i, errs.msg[0]);
	mw_conf_errors_free(&errs);
	mw_apconf_free(&c);
}
END_TEST

START_TEST(test_conf_too_many)
{
	char text[4096] = "";
	struct mw_apconf c;
	struct mw_conf_errors errs = {0};
	for (int i = 0; i <= MW_AP_MAX_COMMANDS; i++)
		snprintf(text + strlen(text), sizeof text - strlen(text), "command = c%d /bin/true\n", i);
	ck_assert_int_eq(mw_apconf_init(&c), 0);
	ck_assert_int_gt(mw_apconf_parse_buffer(&c, "ap.conf", text, strlen(text), &errs), 0);
	ck_assert_ptr_nonnull(strstr(errs.msg[0], "at most 16"));
	mw_conf_errors_free(&errs);
	mw_apconf_free(&c);
}
END_TEST

START_TEST(test_conf_owner)
{
	char dir[] = "/tmp/mw-apconf-XXXXXX", path[64];
	struct mw_apconf c;
	struct mw_conf_errors errs = {0};

	ck_assert_ptr_nonnull(mkdtemp(dir));
	mw_unit_put(dir, "ap.conf", good_conf);
	snprintf(path, sizeof path, "%s/ap.conf", dir);
	chmod(path, 0644);
	ck_assert_int_eq(mw_apconf_init(&c), 0);
	ck_assert_int_eq(mw_apconf_load(&c, path, (long)getuid(), &errs), 0);
	ck_assert_uint_eq(c.ncmd, 3);
	mw_apconf_free(&c);
	/* writable by others: refused whole */
	chmod(path, 0666);
	mw_apconf_init(&c);
	ck_assert_int_eq(mw_apconf_load(&c, path, (long)getuid(), &errs), 1);
	ck_assert_ptr_nonnull(strstr(errs.msg[0], "writable by its owner only"));
	ck_assert_uint_eq(c.ncmd, 0);
	mw_apconf_free(&c);
	mw_conf_errors_free(&errs);
	/* owned by someone else than the one required */
	chmod(path, 0644);
	mw_apconf_init(&c);
	ck_assert_int_eq(mw_apconf_load(&c, path, (long)getuid() + 1, &errs), 1);
	ck_assert_ptr_nonnull(strstr(errs.msg[0], "must be owned by"));
	mw_apconf_free(&c);
	mw_conf_errors_free(&errs);
	mw_unit_put(dir, "ap.conf", NULL);
	rmdir(dir);
}
END_TEST

/* ------------------------------------------------------------ agent round */

/* An AP file in a temporary folder; return its path (static). */
static const char *conf_file(const char *text)
{
	static char dir[64], path[96];
	snprintf(dir, sizeof dir, "/tmp/mw-ap-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	mw_unit_put(dir, "ap.conf", text);
	snprintf(path, sizeof path, "%s/ap.conf", dir);
	chmod(path, 0644);
	return path;
}

static void conf_file_remove(const char *path)
{
	char dir[96];
	unlink(path);
	snprintf(dir, sizeof dir, "%s", path);
	*strrchr(dir, '/') = 0;
	rmdir(dir);
}

static const char round_conf[] =
	"command = normal /bin/echo links ok\n"
	"command = hang /bin/sleep 30\n"
	"command = flood /usr/bin/yes yyyyyyyyyyyyyyyyyyyyyyy\n"
	"command = missing /nonexistent/bin/check\n"
	"shell_command = escape printf 'a\\033[2Jb\\n'\n"
	/* 2 s: a command that cannot be exec'd must end with 127 within the
	 * bound even under valgrind on a loaded machine (0.5 s was not: it was
	 * killed at the bound, status -1, in a full make test) */
	"timeout = 2\n"
	"max_output = 2048\n";

START_TEST(test_agent_round)
{
	const char *path = conf_file(round_conf);
	struct ag_ap *ap = ag_ap_create(NULL, path, (long)getuid(), "n7");
	int p[2];
	uint8_t *buf = malloc(1 << 20);
	size_t len = 0, off = 0;
	ssize_t n;
	struct mw_hb_msg m[5];
	int k = 0;

	ck_assert_ptr_nonnull(ap);
	ck_assert_uint_eq(ag_ap_ncommands(ap), 5);
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(ag_ap_run_round(ap, 4, p[1]), 0);
	close(p[1]);
	while ((n = read(p[0], buf + len, (1 << 20) - len)) > 0)
		len += (size_t)n;
	close(p[0]);
	while (off < len && k < 5) {
		size_t flen;
		ck_assert_int_eq(mw_hb_frame_check(buf + off, len - off, &flen), MW_HB_OK);
		ck_assert_int_eq(mw_hb_decode(buf + off, flen, &m[k]), MW_HB_OK);
		ck_assert_int_eq(m[k].type, MW_HB_APOUT);
		ck_assert_uint_eq(m[k].u.apout.round, 4);
		ck_assert_str_eq(m[k].u.apout.node, "n7");
		off += flen;
		k++;
	}
	ck_assert_int_eq(k, 5);
	ck_assert_uint_eq(off, len);
	ck_assert_str_eq(m[0].u.apout.name, "normal");
	ck_assert_str_eq(m[0].u.apout.output, "links ok\n");
	ck_assert_int_eq(m[0].u.apout.status, 0);
	ck_assert_str_eq(m[1].u.apout.name, "hang");
	ck_assert_int_eq(m[1].u.apout.timed_out, 1);
	ck_assert_int_eq(m[1].u.apout.signal, SIGKILL);
	ck_assert_str_eq(m[2].u.apout.name, "flood");
	ck_assert_int_eq(m[2].u.apout.truncated, 1);
	ck_assert_uint_eq(strlen(m[2].u.apout.output), 2048);
	ck_assert_str_eq(m[3].u.apout.name, "missing");
	ck_assert_int_eq(m[3].u.apout.status, 127);
	ck_assert_ptr_nonnull(strstr(m[3].u.apout.error, "cannot run /nonexistent/bin/check: No such file"));
	ck_assert_str_eq(m[4].u.apout.output, "a?[2Jb\n"); /* no terminal escape gets through */
	for (int i = 0; i < k; i++)
		mw_hb_msg_free(&m[i]);
	free(buf);
	ag_ap_destroy(ap);
	conf_file_remove(path);
}
END_TEST

static int sent;
static int send_count(const struct mw_hb_msg *m, void *arg)
{
	(void)arg;
	ck_assert_int_eq(m->type, MW_HB_APOUT);
	sent++;
	return 0;
}

START_TEST(test_agent_request)
{
	const char *path = conf_file("command = one /bin/echo one\ncommand = two /bin/echo two\n");
	uv_loop_t loop;
	struct ag_ap *ap;
	char other[1][MW_HB_STR_MAX + 1] = {"n2"};
	struct mw_hb_apreq req = {.round = 1};

	ck_assert_int_eq(uv_loop_init(&loop), 0);
	ap = ag_ap_create(&loop, path, (long)getuid(), "n1");
	/* meant for another node: nothing runs */
	req.nodes = other;
	req.n = 1;
	ck_assert_int_eq(ag_ap_request(ap, &req), 0);
	ck_assert_int_eq(ag_ap_running(ap), 0);
	req.n = 0;
	ck_assert_int_eq(ag_ap_request(ap, &req), 1);
	ck_assert_int_eq(ag_ap_running(ap), 1);
	/* a second request while it runs, and right after it: refused */
	req.round = 2;
	ck_assert_int_eq(ag_ap_request(ap, &req), 0);
	while (ag_ap_running(ap)) /* the round runs on the loop */
		uv_run(&loop, UV_RUN_ONCE);
	ck_assert_int_eq(ag_ap_running(ap), 0);
	sent = 0;
	ck_assert_int_eq(ag_ap_flush(ap, send_count, NULL), 2);
	ck_assert_int_eq(sent, 2);
	ck_assert_int_eq(ag_ap_request(ap, &req), 0); /* within AG_AP_MIN_INTERVAL */
	ag_ap_destroy(ap);
	conf_file_remove(path);

	/* no file, or an unusable one: no command, the agent runs on */
	ap = ag_ap_create(&loop, "/nonexistent/ap.conf", 0, "n1");
	ck_assert_ptr_nonnull(ap);
	ck_assert_uint_eq(ag_ap_ncommands(ap), 0);
	ck_assert_int_eq(ag_ap_request(ap, &req), 0);
	ag_ap_destroy(ap);
	uv_run(&loop, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

/* The agent stops while a round's command runs (a hang): the command is
 * killed (its process group), and the agent's loop ends (nothing is left
 * behind on it). */
START_TEST(test_agent_stop_mid_round)
{
	const char *path = conf_file("command = hang /bin/sleep 30\ntimeout = 60\n");
	uv_loop_t loop;
	struct ag_ap *ap;
	struct mw_hb_apreq req = {.round = 1};

	ck_assert_int_eq(uv_loop_init(&loop), 0);
	ap = ag_ap_create(&loop, path, (long)getuid(), "n1");
	ck_assert_int_eq(ag_ap_request(ap, &req), 1);
	uv_run(&loop, UV_RUN_NOWAIT); /* it runs */
	ag_ap_destroy(ap);
	uv_run(&loop, UV_RUN_DEFAULT); /* returns: the sleep was killed, ap freed */
	ck_assert_int_eq(uv_loop_close(&loop), 0);
	conf_file_remove(path);
}
END_TEST

/* ------------------------------------------------------------ collector */

static struct mw_hb_apout out_of(const char *node, const char *name, const char *output)
{
	struct mw_hb_apout o = {.round = 1, .status = 0};
	snprintf(o.node, sizeof o.node, "%s", node);
	snprintf(o.name, sizeof o.name, "%s", name);
	o.output = (char *)output;
	o.bytes = strlen(output);
	return o;
}

START_TEST(test_collector_rounds)
{
	const char *path = conf_file("command = links /bin/true\ncommand = hang /bin/true\n"
				     "timeout = 2\nmax_output = 300\n");
	struct col_ap *ap = col_ap_create(path, (long)getuid());
	struct mw_hb_apout o;
	json_object *rep = json_object_new_object(), *aux, *rounds, *res, *v;
	char *text = NULL, many[600] = "";
	size_t tlen = 0;
	FILE *f;

	ck_assert_uint_eq(col_ap_ncommands(ap), 2);
	ck_assert_uint_eq(col_ap_round_begin(ap, "threshold crossed", 100.0), 1);
	ck_assert_uint_eq(col_ap_round_begin(ap, "again", 110.0), 0); /* too soon */
	ck_assert_int_eq(col_ap_round_node(ap, 1, "n1", 1), 0);
	ck_assert_int_eq(col_ap_round_node(ap, 1, "n2", 1), 0);
	ck_assert_int_eq(col_ap_round_node(ap, 1, "n3", 0), 0); /* agent not connected */

	for (int i = 0; i < 100; i++)
		strcat(many, "line\n");
	o = out_of("n1", "links", many);
	ck_assert_int_eq(col_ap_output(ap, "n1", &o, 0), 0);
	ck_assert_int_eq(col_ap_output(ap, "n1", &o, 0), -1);   /* twice */
	o = out_of("n2", "links", "x\n");
	ck_assert_int_eq(col_ap_output(ap, "n1", &o, 0), -1);   /* n1's agent speaking for n2 */
	o = out_of("n1", "rm", "x\n");
	ck_assert_int_eq(col_ap_output(ap, "n1", &o, 0), -1);   /* never asked for */
	o = out_of("n1", "links", "x");
	o.round = 2;
	ck_assert_int_eq(col_ap_output(ap, "n1", &o, 0), -1);   /* no such round */
	o = out_of("n1", "hang", "partial\n");
	o.timed_out = 1;
	o.signal = 9;
	o.status = -1;
	ck_assert_int_eq(col_ap_output(ap, "n1", &o, 1), 0);    /* after the verdict */
	o = out_of("n2", "links", "fine\n");
	ck_assert_int_eq(col_ap_output(ap, "n2", &o, 1), 0);
	col_ap_finish(ap); /* n2's hang never came */

	col_ap_report_json(ap, rep);
	ck_assert(json_object_object_get_ex(rep, "auxiliary", &aux));
	ck_assert(json_object_object_get_ex(aux, "rounds", &rounds));
	ck_assert_uint_eq(json_object_array_length(rounds), 1);
	res = json_object_object_get(json_object_array_get_idx(rounds, 0), "results");
	ck_assert_uint_eq(json_object_array_length(res), 6);
	v = json_object_array_get_idx(res, 0);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(v, "state")), "done");
	/* cut at the site's max_output by the collector too */
	ck_assert_uint_eq(strlen(json_object_get_string(json_object_object_get(v, "output"))), 300);
	ck_assert(json_object_get_boolean(json_object_object_get(v, "truncated")));
	v = json_object_array_get_idx(res, 1);
	ck_assert(json_object_get_boolean(json_object_object_get(v, "timed_out")));
	ck_assert(json_object_get_boolean(json_object_object_get(v, "late")));
	ck_assert_ptr_nonnull(strstr(json_object_get_string(json_object_object_get(v, "summary")),
				     "killed at the time bound (2 s)"));
	v = json_object_array_get_idx(res, 3);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(v, "state")), "missing");
	v = json_object_array_get_idx(res, 4);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(v, "state")), "not_sent");
	json_object_put(rep);

	f = open_memstream(&text, &tlen);
	col_ap_report_text(ap, f);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text, "auxiliary processes, round 1 (threshold crossed"));
	ck_assert_ptr_nonnull(strstr(text, "  node n1:\n    links: exit 0"));
	ck_assert_ptr_nonnull(strstr(text, "      | line\n"));
	ck_assert_ptr_nonnull(strstr(text, "      (40 more lines in report.json)\n")); /* 60 kept, 20 shown */
	ck_assert_ptr_nonnull(strstr(text, "hang: killed at the time bound (2 s)"));
	ck_assert_ptr_nonnull(strstr(text, "hang: missing: no output came"));
	ck_assert_ptr_nonnull(strstr(text, "node n3:\n    links: not run: the agent of this node was not connected"));
	free(text);

	{
		/* the whole report, with its "auxiliary", against the schema */
		struct col_state st;
		char err[512];
		json_object *sch = mw_json_read_file("doc/schemas/report.schema.json", err, sizeof err), *whole;
		ck_assert_msg(sch != NULL, "schema: %s", err);
		col_state_init(&st, "77");
		col_state_node(&st, "n1");
		st.ap = ap;
		whole = col_report_json(&st);
		ck_assert(json_object_object_get_ex(whole, "auxiliary", NULL));
		ck_assert_msg(mw_jsonschema_validate(sch, whole, err, sizeof err) == 0, "%s", err);
		json_object_put(whole);
		json_object_put(sch);
		st.ap = NULL;
		col_state_free(&st);
	}

	/* rounds are bounded */
	for (int i = 2; i <= COL_AP_MAX_ROUNDS; i++)
		ck_assert_uint_eq(col_ap_round_begin(ap, "again", 100.0 + 100 * i), (uint32_t)i);
	ck_assert_uint_eq(col_ap_round_begin(ap, "again", 10000.0), 0);
	col_ap_destroy(ap);
	conf_file_remove(path);

	/* no file: off, and nothing in the report */
	ap = col_ap_create("", 0);
	ck_assert_uint_eq(col_ap_round_begin(ap, "x", 1.0), 0);
	rep = json_object_new_object();
	col_ap_report_json(ap, rep);
	ck_assert(!json_object_object_get_ex(rep, "auxiliary", NULL));
	json_object_put(rep);
	col_ap_destroy(ap);
}
END_TEST

/* mpiwatch-ap.conf(5) lists every key of the file with its range and
 * default as the table has them. */
START_TEST(test_man_page)
{
	FILE *f = fopen("doc/man/mpiwatch-ap.conf.5", "r");
	char *man = NULL;
	size_t len = 0;
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(getdelim(&man, &len, '\0', f), 1);
	fclose(f);
	for (const struct mw_conf_key *k = mw_apconf_keys; k->name; k++) {
		char tag[64], want[128], *e, *next;
		snprintf(tag, sizeof tag, "\n.BR %s \"", k->name);
		e = strstr(man, tag);
		ck_assert_msg(e, "%s: no entry in the man page", k->name);
		next = strstr(e + 1, "\n.TP");
		if (!next)
			next = e + strlen(e);
		if (k->type == MW_CONF_INT || k->type == MW_CONF_DOUBLE) {
			snprintf(want, sizeof want, "%.10g to %.10g", k->min, k->max);
			ck_assert_msg(strstr(e, want) && strstr(e, want) < next, "%s: range '%s' missing",
				      k->name, want);
		}
		if (k->def && *k->def) {
			snprintf(want, sizeof want, "default %s", k->def);
			ck_assert_msg(strstr(e, want) && strstr(e, want) < next, "%s: '%s' missing", k->name,
				      want);
		}
	}
	free(man);
}
END_TEST

/* ------------------------------------------------- the tree (coltree.c) */

/* A job's state on nodes n1..n4. */
static void four_nodes(struct col_state *st)
{
	col_state_init(st, "77");
	for (int i = 1; i <= 4; i++) {
		char n[8];
		snprintf(n, sizeof n, "n%d", i);
		col_state_node(st, n);
	}
}

/* Who may speak for a node in a tree job: its own link, or the link of a
 * CP on the chain that serves it now (CHILD frames); an APREQ for a node
 * goes over the link of the top of that chain. */
START_TEST(test_tree_speaks_for)
{
	struct col_state st;
	struct col_tree *t;
	struct mw_hb_child ch = {0};
	four_nodes(&st);
	/* 4 nodes, threshold 2, fanout 2: CPs on n1, n2; n3 under n1, n4 under n2. */
	t = col_tree_plan(&st, 2, 2, 0, NULL, NULL);
	ck_assert_ptr_nonnull(t);
	ck_assert(col_tree_is_cp(t, 0) && col_tree_is_cp(t, 1) && !col_tree_is_cp(t, 2));
	ck_assert_int_eq(col_tree_speaks_for(t, &st, 2, 2), 1); /* its own link */
	ck_assert_int_eq(col_tree_speaks_for(t, &st, 0, 2), 0); /* not attached yet */
	ck_assert_int_eq(col_tree_top(t, &st, 2), 2);
	snprintf(ch.node, sizeof ch.node, "n3");
	snprintf(ch.parent, sizeof ch.parent, "n1");
	ch.up = 1;
	ck_assert_int_eq(col_tree_child(t, &st, &ch), -1);
	ck_assert_int_eq(col_tree_speaks_for(t, &st, 0, 2), 1); /* n1's link for n3 */
	ck_assert_int_eq(col_tree_speaks_for(t, &st, 1, 2), 0); /* n2's link is not on n3's chain */
	ck_assert_int_eq(col_tree_speaks_for(t, &st, 0, 3), 0); /* n4 is not below n1 */
	ck_assert_int_eq(col_tree_speaks_for(t, &st, 0, -1), 0); /* an unknown node */
	ck_assert_int_eq(col_tree_top(t, &st, 2), 0);
	/* n3 re-attaches to n2 (n1 lost): n2 speaks for it now, n1 no more. */
	snprintf(ch.parent, sizeof ch.parent, "n2");
	col_tree_child(t, &st, &ch);
	ck_assert_int_eq(col_tree_speaks_for(t, &st, 1, 2), 1);
	ck_assert_int_eq(col_tree_speaks_for(t, &st, 0, 2), 0);
	ck_assert_int_eq(col_tree_top(t, &st, 2), 1);
	/* The star: only its own link. */
	ck_assert_int_eq(col_tree_speaks_for(NULL, &st, 0, 2), 0);
	ck_assert_int_eq(col_tree_speaks_for(NULL, &st, 2, 2), 1);
	ck_assert_int_eq(col_tree_top(NULL, &st, 2), 2);
	col_tree_free(t);
	col_state_free(&st);
}
END_TEST

/* tree_strategy=fuzzy: the start-up probe replies become the factor set;
 * a node that did not answer is poor on every factor and gets no CP. */
START_TEST(test_tree_fuzzy_startup)
{
	struct col_state st;
	struct col_tree *t;
	struct mw_probe_result r[4];
	struct mwt_factors f[4];
	struct mwt_eval ev[4];
	size_t rank[4];
	memset(r, 0, sizeof r);
	/* n1: idle, 4 cores, 8000 MiB; n2: dead; n3: loaded; n4: degraded, old daemon (no factors) */
	r[0] = (struct mw_probe_result){.state = MW_PROBE_ALIVE, .rtt_ms = 0.2, .has_factors = 1, .f = {0.0, 8000, 4}};
	r[1] = (struct mw_probe_result){.state = MW_PROBE_DEAD, .rtt_ms = -1};
	r[2] = (struct mw_probe_result){.state = MW_PROBE_ALIVE, .rtt_ms = 0.4, .has_factors = 1, .f = {3.0, 4000, 4}};
	r[3] = (struct mw_probe_result){.state = MW_PROBE_DEGRADED, .rtt_ms = 0.2};
	for (int i = 0; i < 4; i++)
		col_tree_factors(&r[i], &f[i]);
	ck_assert_int_eq(f[0].health, MWT_HEALTH_OK);
	ck_assert(f[0].load == 0.0 && f[0].mem_free_mb == 8000 && f[0].cores == 4 && f[0].rtt_ms == 0.2);
	ck_assert_int_eq(f[1].health, MWT_HEALTH_DOWN);
	ck_assert_int_eq(f[3].health, MWT_HEALTH_DEGRADED);
	ck_assert(f[3].load < 0 && f[3].mem_free_mb < 0 && f[3].cores == 0); /* unknown: fair */
	ck_assert_int_eq(mwt_fuzzy_rank(f, 4, NULL, ev, rank), 0);
	/* By hand (A = 0.3 0.2 0.1 0.3 0.1): n1 x = 1 1 1 1 1: B = (1, 0, 0), good;
	 * n3 x = 0.25 0.5 1 1 0.5: B = (0.1 + 0.3, 0.15 + 0.2 + 0.1, 0.15) = (0.40, 0.45, 0.15), fair;
	 * n4 x = 0.5 0.5 0.5 0.5 1: B = (0.1, 0.9, 0), fair; n2 down: B = (0, 0, 1), poor. */
	ck_assert_uint_eq(rank[0], 0);
	ck_assert_uint_eq(rank[1], 2);
	ck_assert_uint_eq(rank[2], 3);
	ck_assert_uint_eq(rank[3], 1);
	ck_assert(fabs(ev[1].b[MWT_J_POOR] - 1.0) < 1e-9 && ev[1].judgement == MWT_J_POOR);
	ck_assert(fabs(ev[2].b[MWT_J_GOOD] - 0.40) < 1e-9 && fabs(ev[2].b[MWT_J_FAIR] - 0.45) < 1e-9);
	ck_assert(fabs(ev[3].b[MWT_J_FAIR] - 0.9) < 1e-9);

	four_nodes(&st);
	/* 2 CPs: on the two best, n1 and n3, not on the silent n2 (the
	 * average strategy puts them on n1 and n2). */
	t = col_tree_plan(&st, 2, 2, 2, f, NULL);
	ck_assert_ptr_nonnull(t);
	ck_assert(col_tree_is_cp(t, 0) && col_tree_is_cp(t, 2));
	ck_assert(!col_tree_is_cp(t, 1) && !col_tree_is_cp(t, 3));
	col_tree_free(t);
	/* The site's weights (tree_weights=0,0,0,0,1: the round-trip alone):
	 * n1 and n4 answer in 0.2 ms (x = 1, good), n3 in 0.4 ms (x = 0.5):
	 * the CPs go to n1 and n4. */
	{
		struct mw_jobconf jc;
		char err[200];
		double w[MW_JOBCONF_NWEIGHTS];
		ck_assert_int_eq(mw_jobconf_init(&jc), 0);
		ck_assert_int_eq(mw_jobconf_set(&jc, MW_JC_SITE, "tree_weights", "0,0,0,0,1", err, sizeof err), 0);
		ck_assert_int_eq(mw_jobconf_weights(jc.tree_weights, w, MW_JOBCONF_NWEIGHTS), 0);
		t = col_tree_plan(&st, 2, 2, 2, f, w);
		ck_assert_ptr_nonnull(t);
		ck_assert(col_tree_is_cp(t, 0) && col_tree_is_cp(t, 3));
		ck_assert(!col_tree_is_cp(t, 1) && !col_tree_is_cp(t, 2));
		col_tree_free(t);
		/* All 0, too few, negative: refused with the setting's name. */
		ck_assert_int_ne(mw_jobconf_set(&jc, MW_JC_SITE, "tree_weights", "0,0,0,0,0", err, sizeof err), 0);
		ck_assert_msg(strstr(err, "tree_weights"), "%s", err);
		ck_assert_int_ne(mw_jobconf_set(&jc, MW_JC_SITE, "tree_weights", "1,2,3", err, sizeof err), 0);
		ck_assert_int_ne(mw_jobconf_set(&jc, MW_JC_SITE, "tree_weights", "1,2,3,4,-5", err, sizeof err), 0);
		mw_jobconf_free(&jc);
	}
	t = col_tree_plan(&st, 2, 2, 2, NULL, NULL);
	ck_assert(col_tree_is_cp(t, 0) && col_tree_is_cp(t, 1));
	col_tree_free(t);
	col_state_free(&st);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ap");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_decode, 0, sizeof dec_cases / sizeof dec_cases[0]);
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_sanitize);
	tcase_add_test(tc, test_run_bounds);
	tcase_add_test(tc, test_run_group_killed);
	tcase_add_test(tc, test_conf_good);
	tcase_add_loop_test(tc, test_conf_bad, 0, sizeof bad_confs / sizeof bad_confs[0]);
	tcase_add_test(tc, test_conf_too_many);
	tcase_add_test(tc, test_conf_owner);
	tcase_add_test(tc, test_agent_round);
	tcase_add_test(tc, test_agent_request);
	tcase_add_test(tc, test_agent_stop_mid_round);
	tcase_add_test(tc, test_collector_rounds);
	tcase_add_test(tc, test_man_page);
	tcase_add_test(tc, test_tree_speaks_for);
	tcase_add_test(tc, test_tree_fuzzy_startup);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
