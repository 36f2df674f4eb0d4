/* nodehealthd's JSON against doc/schemas/: the status object and its reply,
 * and the request that mw_drain_request() sends (caught by a fake daemon,
 * which also checks how the client reads each kind of reply). */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "drainreq.h"
#include "jsonschema.h"
#include "log.h"
#include "nhd.h"

static struct json_object *schema(const char *name)
{
	char path[256], err[256];
	struct json_object *s;
	snprintf(path, sizeof(path), "doc/schemas/%s", name);
	s = mw_json_read_file(path, err, sizeof(err));
	ck_assert_msg(s != NULL, "%s: %s", path, err);
	return s;
}

static void assert_valid(const char *schema_name, const char *text)
{
	struct json_object *s = schema(schema_name), *o = json_tokener_parse(text);
	char err[256] = "";
	ck_assert_msg(o != NULL, "not JSON: %s", text);
	ck_assert_msg(mw_jsonschema_validate(s, o, err, sizeof(err)) == 0, "%s: %s\n%s", schema_name, err, text);
	json_object_put(o);
	json_object_put(s);
}

START_TEST(test_status)
{
	static struct nhd d;
	struct nhd_conf *c = calloc(1, sizeof(*c));
	char *st, *rep;

	ck_assert_int_eq(nhd_conf_defaults(c), 0);
	c->refs = 1;
	c->path = strdup("/etc/mpiwatch/nodehealthd.conf");
	pthread_mutex_init(&d.conf_mu, NULL);
	pthread_mutex_init(&d.health_mu, NULL);
	d.conf = c;
	snprintf(d.self, sizeof(d.self), "n1");
	d.started = mw_now();
	snprintf(d.unix_path, sizeof(d.unix_path), "/run/mpiwatch/nodehealthd.sock");
	mw_strlist_add(&c->daemon, "no-such-daemon");
	nhd_checks_run(c, &d.check_state, &d.health);
	d.cnt.malformed[MW_PROBE_E_SHORT] = 3;
	d.cnt.rx = 10;
	st = nhd_status_json(&d);
	ck_assert_ptr_nonnull(st);
	assert_valid("nodehealthd-status.schema.json", st);
	ck_assert_ptr_nonnull(strstr(st, "\"state\":\"degraded\""));
	ck_assert_ptr_nonnull(strstr(st, "\"malformed\":3"));
	ck_assert_int_ge(asprintf(&rep, "{\"ok\":true,\"status\":%s}", st), 0);
	assert_valid("drainreq-reply.schema.json", rep);
	free(rep);
	free(st);
	/* With a calibration: a faked untrustworthy timer, then one skipped. */
	d.calib.ran = 1;
	d.calib.obs.backward_steps = 2;
	d.calib.obs.found = 1;
	d.calib.obs.noise = -1;
	d.calib.r0_ns = 9000;
	d.calib.degraded = nhd_calib_judge(&d.calib.obs, c, &d.calib.rate_diff, d.calib.detail,
					   sizeof(d.calib.detail));
	snprintf(d.calib.skipped, sizeof(d.calib.skipped), "skipped: 1 job steps run on this node");
	nhd_calib_to_health(&d.calib, &d.health);
	st = nhd_status_json(&d);
	assert_valid("nodehealthd-status.schema.json", st);
	ck_assert_ptr_nonnull(strstr(st, "\"check\":\"calibration\",\"ok\":false"));
	ck_assert_ptr_nonnull(strstr(st, "\"state\":\"degraded\",\"detail\":\"timer untrustworthy: 2 backward steps\""));
	ck_assert_ptr_nonnull(strstr(st, "\"noise\":null"));
	free(st);
	nhd_conf_put(&d, c);
}
END_TEST

/* ---- a fake daemon: accepts one connection, keeps the request, replies ---- */
struct fake {
	char path[108];
	int lfd;
	const char *reply;
	char req[8192];
};

static void *fake_main(void *arg)
{
	struct fake *f = arg;
	int fd = accept(f->lfd, NULL, NULL);
	size_t got = 0;
	ssize_t r;
	if (fd < 0)
		return NULL;
	while (got < sizeof(f->req) - 1 && (r = read(fd, f->req + got, sizeof(f->req) - 1 - got)) > 0) {
		got += (size_t)r;
		if (memchr(f->req, '\n', got))
			break;
	}
	f->req[got] = 0;
	if (write(fd, f->reply, strlen(f->reply)) < 0)
		perror("write");
	close(fd);
	return NULL;
}

static pthread_t fake_start(struct fake *f, const char *reply)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	pthread_t t;
	memset(f, 0, sizeof(*f));
	snprintf(f->path, sizeof(f->path), "/tmp/test_nhd_schemas.%d.sock", (int)getpid());
	unlink(f->path);
	strcpy(sun.sun_path, f->path);
	f->lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_eq(bind(f->lfd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	ck_assert_int_eq(listen(f->lfd, 1), 0);
	f->reply = reply;
	pthread_create(&t, NULL, fake_main, f);
	return t;
}

static void fake_stop(struct fake *f, pthread_t t)
{
	pthread_join(t, NULL);
	close(f->lfd);
	unlink(f->path);
}

static const struct {
	const char *reply;
	int want_rv, want_errno;
	const char *want_msg;
} client_cases[] = {
	{"{\"ok\":true,\"result\":\"drained\",\"message\":\"node n2 drained\"}\n", 0, 0, "node n2 drained"},
	{"{\"ok\":true,\"result\":\"already-drained\",\"message\":\"already\"}\n", 0, 0, "already"},
	{"{\"ok\":false,\"error\":\"node n2 answered our probe\"}\n", -1, EPERM, "node n2 answered our probe"},
	{"garbage\n", -1, EPROTO, "malformed reply"},
	{"{\"ok\":\"yes\"}\n", -1, EPROTO, "malformed reply"},
	{"", -1, EPROTO, "cannot reach"},
};

START_TEST(test_client_request)
{
	struct fake f;
	pthread_t t = fake_start(&f, client_cases[_i].reply);
	char msg[256] = "";
	int rv = mw_drain_request(f.path, "42", "n2", "{\"summary\":\"dead\",\"ranks\":[1,2]}", msg, sizeof(msg));
	int e = errno;
	fake_stop(&f, t);
	ck_assert_int_eq(rv, client_cases[_i].want_rv);
	if (rv < 0)
		ck_assert_int_eq(e, client_cases[_i].want_errno);
	ck_assert_msg(strstr(msg, client_cases[_i].want_msg), "msg '%s'", msg);
	/* What the client sent is a valid request, one line. */
	ck_assert_ptr_nonnull(strchr(f.req, '\n'));
	assert_valid("drainreq.schema.json", f.req);
	ck_assert_ptr_nonnull(strstr(f.req, "\"evidence\":{\"summary\":\"dead\",\"ranks\":[1,2]}"));
	if (client_cases[_i].want_errno != EPROTO && client_cases[_i].reply[0])
		assert_valid("drainreq-reply.schema.json", client_cases[_i].reply);
}
END_TEST

START_TEST(test_client_status)
{
	struct fake f;
	pthread_t t = fake_start(&f, "{\"ok\":true,\"status\":{\"node\":\"n1\",\"state\":\"alive\"}}\n");
	char msg[256], *json = NULL;
	int rv = mw_drain_status(f.path, 0, &json, msg, sizeof(msg));
	fake_stop(&f, t);
	ck_assert_int_eq(rv, 0);
	ck_assert_ptr_nonnull(strstr(json, "\"node\": \"n1\""));
	assert_valid("drainreq.schema.json", f.req);
	free(json);
}
END_TEST

START_TEST(test_verdict_schema)
{
	assert_valid("drain-verdict.schema.json",
		     "{\"node\":\"n2\",\"job\":\"1\",\"uid\":2901,\"user\":\"mwuser1\",\"time\":\"2026-11-22T12:56:58Z\","
		     "\"drained_by\":\"n1\",\"reason\":\"mpiwatch: job 1: dead\",\"reprobe\":\"no reply\","
		     "\"evidence\":{\"summary\":\"dead\"}}");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nhd_schemas");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_status);
	tcase_add_loop_test(tc, test_client_request, 0, sizeof(client_cases) / sizeof(client_cases[0]));
	tcase_add_test(tc, test_client_status);
	tcase_add_test(tc, test_verdict_schema);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
