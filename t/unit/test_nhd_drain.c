/* Unit tests for nodehealthd's drain decision (nhd_drain.c, shared/slurm.c),
 * against a fake scontrol that serves canned records and logs updates. */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jsonschema.h"
#include "log.h"
#include "nhd_drain.h"
#include "probe.h"
#include "slurm.h"
#include "unit.h"

static char dir[256];
static int silent_fd = -1; /* a UDP socket that never answers: "dead" nodes */
static uint16_t silent_port;

static void write_file(const char *name, const char *text)
{
	mw_unit_put(dir, name, text);
}

static void setup(void)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof(sa);
	snprintf(dir, sizeof(dir), "/tmp/test_nhd_drain.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	/* Fake squeue/sinfo serve the JSON in files job/nodes; scontrol logs updates. */
	write_file("squeue", "#!/bin/sh\n"
			     "d=$(dirname \"$0\")\n"
			     "if [ -f \"$d/job\" ]; then cat \"$d/job\"; else echo 'slurm_load_jobs error: "
			     "Invalid job id specified'; exit 1; fi\n");
	write_file("sinfo", "#!/bin/sh\ncat \"$(dirname \"$0\")/nodes\"\n");
	write_file("scontrol", "#!/bin/sh\n"
			       "d=$(dirname \"$0\")\n"
			       "case \"$1\" in\n"
			       "update) printf '%s|' \"$@\" >>\"$d/updates\"; echo >>\"$d/updates\";\n"
			       "  if [ -f \"$d/update_fail\" ]; then echo 'slurm_update error: Access/permission denied'; "
			       "exit 1; fi;;\n"
			       "esac\n");
	for (const char *const *f = (const char *const[]){"scontrol", "squeue", "sinfo", NULL}; *f; f++) {
		char p[512];
		snprintf(p, sizeof(p), "%s/%s", dir, *f);
		chmod(p, 0755);
	}
	silent_fd = socket(AF_INET, SOCK_DGRAM, 0);
	ck_assert_int_eq(bind(silent_fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	getsockname(silent_fd, (struct sockaddr *)&sa, &sl);
	silent_port = ntohs(sa.sin_port);
}

static void teardown(void)
{
	char cmd[600];
	close(silent_fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

/* sinfo --json's shape (Slurm 22.05): the fields nodehealthd reads. */
#define NODE(name, addr, state, flags, reason) \
	"{\"name\": \"" name "\", \"address\": \"" addr "\", \"state\": \"" state "\", " \
	"\"state_flags\": [" flags "], \"reason\": \"" reason "\"}"
#define NODES(...) "{\"meta\": {}, \"errors\": [], \"nodes\": [" __VA_ARGS__ "]}"

/* n4 is down: the partition guard of a 3-node job on n[1-3] (one other
 * node, n3) finds no up node of the cluster to add, and is skipped. */
static const char *NODES4 = NODES(NODE("n1", "127.0.0.1", "mixed", "", "") ","
				  NODE("n2", "127.0.0.1", "mixed", "", "") ","
				  NODE("n3", "127.0.0.1", "mixed", "", "") ","
				  NODE("n4", "127.0.0.1", "down", "\"NOT_RESPONDING\"", ""));

/* squeue --json -j 5; end is seconds since the epoch ("%END%": now - 10 s).
 * The job name tries to pass for Slurm's own fields: it must not. */
#define JOB(state, nodes, end)                                                                      \
	"{\"meta\": {}, \"errors\": [], \"jobs\": [{\"job_id\": 5, "                                     \
	"\"name\": \"x NodeList=n[1-9] UserId=root(0) JobState=RUNNING\", \"user_id\": 2901, "           \
	"\"user_name\": \"mwuser1\", \"job_state\": \"" state "\", \"end_time\": " end ", "                \
	"\"nodes\": \"" nodes "\", \"het_job_id\": 0}]}"

static const struct {
	const char *what;
	const char *job;   /* NULL: unknown job; "%END%" in it becomes now - 10 s */
	const char *nodes; /* NULL: NODES4 */
	unsigned uid;
	const char *target;
	int storm_max_drained, update_fail, drain_off;
	int want_rv;
	const char *want_msg;    /* substring of msg */
	const char *want_update; /* the scontrol update line, or NULL for none */
	int closed_port;         /* probe a port nobody listens on: the node is up without a daemon */
} cases[] = {
	{"owner, running job, dead node", JOB("RUNNING", "n[1-3]", "0"), NULL, 2901, "n2", 8, 0, 0, 0,
	 "drained", "update|NodeName=n2|State=DRAIN|Reason=mpiwatch: job 5: node silent|", 0},
	{"root may ask", JOB("RUNNING", "n[1-3]", "0"), NULL, 0, "n3", 8, 0, 0, 0, "drained",
	 "update|NodeName=n3|State=DRAIN|Reason=mpiwatch: job 5: node silent|", 0},
	{"another user", JOB("RUNNING", "n[1-3]", "0"), NULL, 2902, "n2", 8, 0, 0, -1,
	 "uid 2902 does not own job 5", NULL, 0},
	{"node outside the job", JOB("RUNNING", "n[1-3]", "0"), NULL, 2901, "n4", 8, 0, 0, -1,
	 "not part of job 5", NULL, 0},
	{"this node", JOB("RUNNING", "n[1-3]", "0"), NULL, 2901, "n1", 8, 0, 0, -1, "this node", NULL, 0},
	{"pending job", JOB("PENDING", "", "0"), NULL, 2901, "n2", 8, 0, 0, -1,
	 "neither running nor just ended", NULL, 0},
	{"just failed", JOB("FAILED", "n[1-3]", "%END%"), NULL, 2901, "n2", 8, 0, 0, 0, "drained",
	 "update|NodeName=n2|State=DRAIN|Reason=mpiwatch: job 5: node silent|", 0},
	{"ended long ago", JOB("NODE_FAIL", "n[1-3]", "1577836800"), NULL, 2901, "n2", 8, 0, 0, -1,
	 "job_grace", NULL, 0},
	{"unknown job", NULL, NULL, 2901, "n2", 8, 0, 0, -1, "Invalid job id", NULL, 0},
	{"reason set by someone else", JOB("RUNNING", "n[1-3]", "0"),
	 NODES(NODE("n2", "127.0.0.1", "mixed", "\"DRAIN\"", "admin: bad DIMM")),
	 2901, "n2", 8, 0, 0, -1, "not overwriting: admin: bad DIMM", NULL, 0},
	{"already drained by us", JOB("RUNNING", "n[1-3]", "0"),
	 NODES(NODE("n2", "127.0.0.1", "mixed", "\"DRAIN\"", "mpiwatch: job 4: x")),
	 2901, "n2", 8, 0, 0, 0, "already drained by mpiwatch", NULL, 0},
	{"unknown to slurm", JOB("RUNNING", "n[1-3]", "0"), NODES(NODE("n1", "127.0.0.1", "mixed", "", "")),
	 2901, "n2", 8, 0, 0, -1, "unknown to Slurm", NULL, 0},
	{"storm: cluster limit", JOB("RUNNING", "n[1-3]", "0"),
	 NODES(NODE("n2", "127.0.0.1", "mixed", "", "") "," NODE("n7", "127.0.0.1", "idle", "\"DRAIN\"", "mpiwatch: job 1: x") ","
	       NODE("n8", "127.0.0.1", "down", "\"DRAIN\"", "mpiwatch: job 2: y")),
	 2901, "n2", 2, 0, 0, -1, "storm guard: 2 node(s) are already drained", NULL, 0},
	{"storm: fraction", JOB("RUNNING", "n[1-3]", "0"),
	 NODES(NODE("n2", "127.0.0.1", "mixed", "", "") "," NODE("n7", "127.0.0.1", "idle", "\"DRAIN\"", "mpiwatch: job 1: x") ","
	       NODE("n8", "", "down", "", "") "," NODE("n9", "", "down", "", "")),
	 2901, "n2", 8, 0, 0, -1, "storm_max_fraction", NULL, 0},
	{"partition: the other nodes are silent too", JOB("RUNNING", "n[1-5]", "0"), NULL, 2901, "n2", 8, 0, 0,
	 -1, "partition guard: 3 of the job's 3 other nodes", NULL, 0},
	{"partition: a 2-node job, the cluster's up nodes silent too", JOB("RUNNING", "n[1-2]", "0"),
	 NODES(NODE("n1", "127.0.0.1", "mixed", "", "") "," NODE("n2", "127.0.0.1", "mixed", "", "") ","
	       NODE("n3", "127.0.0.1", "idle", "", "") "," NODE("n4", "127.0.0.1", "idle", "", "") ","
	       NODE("n5", "127.0.0.1", "idle", "\"DRAIN\"", "admin: x")),
	 2901, "n2", 8, 0, 0, -1, "partition guard: 2 of the job's and cluster's 2 other nodes", NULL, 0},
	{"scontrol update fails", JOB("RUNNING", "n[1-3]", "0"), NULL, 2901, "n2", 8, 1, 0, -1,
	 "Access/permission denied", "update|NodeName=n2|State=DRAIN|Reason=mpiwatch: job 5: node silent|", 0},
	{"drains disabled", JOB("RUNNING", "n[1-3]", "0"), NULL, 2901, "n2", 8, 0, 1, -1, "disabled", NULL, 0},
	{"up without a daemon", JOB("RUNNING", "n[1-3]", "0"), NULL, 2901, "n2", 8, 0, 0, -1,
	 "Slurm does not say it is down", NULL, 1},
	{"no daemon, and Slurm says down", JOB("RUNNING", "n[1-3]", "0"),
	 NODES(NODE("n2", "127.0.0.1", "down", "\"NOT_RESPONDING\"", "")), 2901, "n2", 8, 0, 0, 0, "drained",
	 "update|NodeName=n2|State=DRAIN|Reason=mpiwatch: job 5: node silent|", 1},
};

START_TEST(test_handle)
{
	struct nhd_conf c;
	struct nhd_storm storm = {.n = 0};
	struct nhd_drain_ctx ctx = {.conf = &c, .self = "n1", .storm = &storm};
	struct mw_drainreq req = {.op = MW_DRAINREQ_DRAIN, .evidence = "{\"summary\":\"node silent\"}"};
	char msg[1024] = "", *verdict = NULL, path[512], *updates;
	int rv;

	ck_assert_int_eq(nhd_conf_defaults(&c), 0);
	snprintf(path, sizeof(path), "%s/scontrol", dir);
	free(c.scontrol);
	c.scontrol = strdup(path);
	c.port = silent_port;
	if (cases[_i].closed_port) {
		int fd = socket(AF_INET, SOCK_DGRAM, 0);
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		socklen_t al = sizeof(a);
		ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
		getsockname(fd, (struct sockaddr *)&a, &al);
		c.port = ntohs(a.sin_port);
		close(fd); /* free again: the kernel refuses it */
	}
	c.reprobe_tries = 2;
	c.reprobe_timeout = 0.2;
	c.storm_max_drained = cases[_i].storm_max_drained;
	c.drain = !cases[_i].drain_off;
	snprintf(req.job, sizeof(req.job), "5");
	snprintf(req.node, sizeof(req.node), "%s", cases[_i].target);
	snprintf(req.summary, sizeof(req.summary), "node silent");
	if (cases[_i].job) {
		char job[1024], end[64], *p;
		snprintf(end, sizeof(end), "%lld", (long long)time(NULL) - 10);
		snprintf(job, sizeof(job), "%s", cases[_i].job);
		if ((p = strstr(job, "%END%")) != NULL) {
			char rest[1024];
			snprintf(rest, sizeof(rest), "%s", p + 5);
			snprintf(p, sizeof(job) - (size_t)(p - job), "%s%s", end, rest);
		}
		write_file("job", job);
	} else {
		write_file("job", NULL);
	}
	write_file("nodes", cases[_i].nodes ? cases[_i].nodes : NODES4);
	write_file("update_fail", cases[_i].update_fail ? "1" : NULL);
	write_file("updates", NULL);

	rv = nhd_drain_handle(&ctx, cases[_i].uid, &req, msg, sizeof(msg), &verdict);
	ck_assert_msg(rv == cases[_i].want_rv, "%s: rv %d: %s", cases[_i].what, rv, msg);
	ck_assert_msg(strstr(msg, cases[_i].want_msg), "%s: msg '%s' lacks '%s'", cases[_i].what, msg,
		      cases[_i].want_msg);
	updates = (char *)mw_unit_get(dir, "updates");
	if (cases[_i].want_update) {
		ck_assert_ptr_nonnull(updates);
		ck_assert_msg(strstr(updates, cases[_i].want_update), "%s: updates '%s'", cases[_i].what, updates);
	} else {
		ck_assert_msg(!updates, "%s: unexpected update '%s'", cases[_i].what, updates ? updates : "");
	}
	if (rv == 0 && cases[_i].want_update) {
		ck_assert_ptr_nonnull(verdict);
		ck_assert_ptr_nonnull(strstr(verdict, "\"node\":\"n"));
		ck_assert_ptr_nonnull(strstr(verdict, "\"job\":\"5\""));
		ck_assert_ptr_nonnull(strstr(verdict, "\"evidence\":{\"summary\":\"node silent\"}"));
		{
			char err[256] = "";
			struct json_object *sch = mw_json_read_file("doc/schemas/drain-verdict.schema.json", err, sizeof(err));
			struct json_object *v = json_tokener_parse(verdict);
			ck_assert_msg(sch && v, "%s", err);
			ck_assert_msg(mw_jsonschema_validate(sch, v, err, sizeof(err)) == 0, "verdict: %s: %s", err, verdict);
			json_object_put(v);
			json_object_put(sch);
		}
		ck_assert_uint_eq(storm.n, 1);
	} else {
		ck_assert_ptr_null(verdict);
		ck_assert_uint_eq(storm.n, 0);
	}
	free(verdict);
	mw_conf_free(nhd_conf_keys, &c);
}
END_TEST

/* The re-probe's nodes (issue 34): nodehealthd daemons on 127.0.0.2..5,
 * all on one port, served by a thread while the drain procedure runs on
 * its own loop.  A node answers every probe delay_ms late (0: at once), or
 * never (answer 0); each counts the probes it got. */
#define RP_NODES 4
struct rp_want {
	int answer, delay_ms;
};
static struct rp_want rp_want[RP_NODES];
struct rp_node {
	int fd;
	int answer;
	int delay_ms;
	int probes;
	int due_n;                 /* replies waiting for their time */
	double due[16];
	uint8_t rep[16][MW_PROBE_MIN_SIZE];
	int replen[16];
	struct sockaddr_in to[16];
};
static struct rp_node rp[RP_NODES];
static uint16_t rp_port;
static volatile int rp_stop;

static void *rp_main(void *arg)
{
	(void)arg;
	while (!rp_stop) {
		struct pollfd pfd[RP_NODES];
		double now = mw_now(), next = now + 0.05;
		for (int i = 0; i < RP_NODES; i++) {
			pfd[i] = (struct pollfd){.fd = rp[i].fd, .events = POLLIN};
			for (int k = 0; k < rp[i].due_n; k++) {
				if (rp[i].due[k] <= now) { /* its time: send, drop it */
					sendto(rp[i].fd, rp[i].rep[k], (size_t)rp[i].replen[k], 0,
					       (struct sockaddr *)&rp[i].to[k], sizeof(rp[i].to[k]));
					rp[i].due_n--;
					rp[i].due[k] = rp[i].due[rp[i].due_n];
					memcpy(rp[i].rep[k], rp[i].rep[rp[i].due_n], MW_PROBE_MIN_SIZE);
					rp[i].replen[k] = rp[i].replen[rp[i].due_n];
					rp[i].to[k] = rp[i].to[rp[i].due_n];
					k--;
				} else if (rp[i].due[k] < next) {
					next = rp[i].due[k];
				}
			}
		}
		if (poll(pfd, RP_NODES, (int)((next - now) * 1e3) + 1) <= 0)
			continue;
		for (int i = 0; i < RP_NODES; i++) {
			uint8_t buf[2048], nonce[MW_PROBE_NONCE_LEN];
			struct sockaddr_in from;
			socklen_t fl = sizeof(from);
			ssize_t n;
			struct rp_node *x = &rp[i];
			if (!(pfd[i].revents & POLLIN))
				continue;
			n = recvfrom(x->fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
			if (n <= 0 || mw_probe_decode_probe(buf, (size_t)n, nonce) != MW_PROBE_OK)
				continue;
			x->probes++;
			if (!x->answer || x->due_n >= 16)
				continue;
			x->replen[x->due_n] = mw_probe_encode_reply(x->rep[x->due_n], MW_PROBE_MIN_SIZE, (size_t)n, nonce,
								    MW_PROBE_ALIVE, 0, 1, "nx", "ok");
			x->to[x->due_n] = from;
			x->due[x->due_n++] = mw_now() + x->delay_ms / 1e3;
		}
	}
	return NULL;
}

/* Daemons on 127.0.0.2..5 (n2..n5 of RP_SINFO), one free port, as
 * rp_want[] says (answer -1: none at all); the thread serving them runs
 * until rp_end.  The first node of rp_want is never without a daemon (its
 * socket picks the port). */
static pthread_t rp_start(void)
{
	pthread_t t;
	rp_port = 0;
	rp_stop = 0;
	for (int i = 0; i < RP_NODES; i++) {
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(rp_port)};
		socklen_t al = sizeof(a);
		char ip[32];
		snprintf(ip, sizeof(ip), "127.0.0.%d", i + 2);
		inet_pton(AF_INET, ip, &a.sin_addr);
		rp[i] = (struct rp_node){.fd = -1, .answer = rp_want[i].answer, .delay_ms = rp_want[i].delay_ms};
		if (rp_want[i].answer < 0)
			continue; /* no daemon: the kernel refuses the port */
		rp[i].fd = socket(AF_INET, SOCK_DGRAM, 0);
		ck_assert_int_ge(rp[i].fd, 0);
		ck_assert_int_eq(bind(rp[i].fd, (struct sockaddr *)&a, sizeof(a)), 0);
		getsockname(rp[i].fd, (struct sockaddr *)&a, &al);
		rp_port = ntohs(a.sin_port);
	}
	ck_assert_int_eq(pthread_create(&t, NULL, rp_main, NULL), 0);
	return t;
}

static void rp_end(pthread_t t)
{
	rp_stop = 1;
	pthread_join(t, NULL);
	for (int i = 0; i < RP_NODES; i++)
		if (rp[i].fd >= 0)
			close(rp[i].fd);
}

static const char *RP_SINFO = NODES(NODE("n1", "127.0.0.1", "mixed", "", "") ","
				    NODE("n2", "127.0.0.2", "mixed", "", "") ","
				    NODE("n3", "127.0.0.3", "mixed", "", "") ","
				    NODE("n4", "127.0.0.4", "mixed", "", "") ","
				    NODE("n5", "127.0.0.5", "idle", "", ""));

/* As root, ask n1's procedure (3 tries in budget_s) to drain n2 for job 5
 * on n[1-4], its nodes as rp_want[] says, Slurm's as sinfo says (NULL:
 * RP_SINFO); return nhd_drain_handle's rv
 * (msg, *verdict filled; rp[].probes counted). */
static int rp_drain(double budget_s, const char *sinfo, char *msg, size_t msglen, char **verdict)
{
	struct nhd_conf c;
	struct nhd_storm storm = {.n = 0};
	struct nhd_drain_ctx ctx = {.conf = &c, .self = "n1", .storm = &storm};
	struct mw_drainreq req = {.op = MW_DRAINREQ_DRAIN, .evidence = "{\"summary\":\"node silent\"}"};
	char path[512];
	pthread_t t;
	int rv;

	ck_assert_int_eq(nhd_conf_defaults(&c), 0);
	snprintf(path, sizeof(path), "%s/scontrol", dir);
	free(c.scontrol);
	c.scontrol = strdup(path);
	c.reprobe_tries = 3;
	c.reprobe_timeout = budget_s;
	snprintf(req.job, sizeof(req.job), "5");
	snprintf(req.node, sizeof(req.node), "n2");
	snprintf(req.summary, sizeof(req.summary), "node silent");
	write_file("job", JOB("RUNNING", "n[1-4]", "0"));
	write_file("nodes", sinfo ? sinfo : RP_SINFO);
	write_file("updates", NULL);
	t = rp_start();
	c.port = rp_port;
	rv = nhd_drain_handle(&ctx, 0, &req, msg, msglen, verdict);
	rp_end(t);
	mw_conf_free(nhd_conf_keys, &c);
	return rv;
}

/* rp_drain's outcome when n2 answered: refused as alive, nothing drained. */
static void rp_refused_alive(int rv, const char *msg, const char *verdict)
{
	ck_assert_msg(rv == -1, "rv %d: %s", rv, msg);
	ck_assert_msg(strstr(msg, "node n2 answered our probe"), "%s", msg);
	ck_assert_ptr_null(mw_unit_get(dir, "updates"));
	ck_assert_ptr_null(verdict);
}

/* A dead target among live nodes (issue 34): the re-probe's tries are
 * spaced from the other nodes' round trip, measured in the same round, not
 * spread over the whole budget (30 s here, more than the case's time
 * limit): n2 gets every one of its tries (a reply-less result is trusted
 * only after all of them), is drained, and the verdict's re-probe says its
 * tries took less than the budget. */
START_TEST(test_reprobe_dead_among_live)
{
	char msg[1024] = "", *verdict = NULL, *updates;
	const char *in;
	int rv;
	rp_want[0] = (struct rp_want){0, 0}; /* n2: silent */
	rp_want[1] = rp_want[2] = rp_want[3] = (struct rp_want){1, 0};
	rv = rp_drain(30.0, NULL, msg, sizeof(msg), &verdict);
	ck_assert_msg(rv == 0, "rv %d: %s", rv, msg);
	ck_assert_int_eq(rp[0].probes, 3);
	updates = (char *)mw_unit_get(dir, "updates");
	ck_assert_ptr_nonnull(updates);
	ck_assert_ptr_nonnull(strstr(updates, "update|NodeName=n2|State=DRAIN|"));
	ck_assert_ptr_nonnull(verdict);
	in = strstr(verdict, "\"reprobe\":\"no reply to 3 probes in ");
	ck_assert_msg(in, "verdict: %s", verdict);
	ck_assert_msg(strtod(in + strlen("\"reprobe\":\"no reply to 3 probes in "), NULL) < 30.0, "verdict: %s", verdict);
	free(verdict);
}
END_TEST

/* A reply ends the re-probe at once: n2 answers its first try; n3, a node
 * of the job that is silent, gets fewer probes than its tries (the round
 * did not wait for it); nothing is drained. */
START_TEST(test_reprobe_answer_ends_it)
{
	char msg[1024] = "", *verdict = NULL;
	rp_want[0] = (struct rp_want){1, 0};
	rp_want[1] = (struct rp_want){0, 0}; /* n3: silent */
	rp_want[2] = rp_want[3] = (struct rp_want){1, 0};
	rp_refused_alive(rp_drain(30.0, NULL, msg, sizeof(msg), &verdict), msg, verdict);
	ck_assert_int_eq(rp[0].probes, 1);
	ck_assert_int_lt(rp[1].probes, 3);
}
END_TEST

/* A live but loaded node (its daemon answers 400 ms late, every try) among
 * nodes that answer at once, at the default budget: the others' sub-ms
 * round trip must not judge it: it answered, it is not drained. */
START_TEST(test_reprobe_loaded_target_not_drained)
{
	char msg[1024] = "", *verdict = NULL;
	rp_want[0] = (struct rp_want){1, 400};
	rp_want[1] = rp_want[2] = rp_want[3] = (struct rp_want){1, 0};
	rp_refused_alive(rp_drain(3.0, NULL, msg, sizeof(msg), &verdict), msg, verdict);
}
END_TEST

/* No daemon on n2 (its kernel refuses the port) and Slurm says it is down:
 * that answer must not end the round; the other nodes' answers (50 ms
 * later) still count for the partition guard: drained. */
START_TEST(test_reprobe_nodaemon_down_drained)
{
	static const char *sinfo = NODES(NODE("n1", "127.0.0.1", "mixed", "", "") ","
					 NODE("n2", "127.0.0.3", "down", "\"NOT_RESPONDING\"", "") ","
					 NODE("n3", "127.0.0.2", "mixed", "", "") ","
					 NODE("n4", "127.0.0.4", "mixed", "", "") ","
					 NODE("n5", "127.0.0.5", "idle", "", ""));
	char msg[1024] = "", *verdict = NULL;
	int rv;
	rp_want[0] = (struct rp_want){1, 50};  /* 127.0.0.2: n3, 50 ms late */
	rp_want[1] = (struct rp_want){-1, 0};  /* 127.0.0.3: n2, no daemon */
	rp_want[2] = rp_want[3] = (struct rp_want){1, 50};
	rv = rp_drain(3.0, sinfo, msg, sizeof(msg), &verdict);
	ck_assert_msg(rv == 0, "rv %d: %s", rv, msg);
	ck_assert_ptr_nonnull(strstr(mw_unit_get(dir, "updates"), "update|NodeName=n2|State=DRAIN|"));
	free(verdict);
}
END_TEST

START_TEST(test_local_storm_window)
{
	struct nhd_conf c;
	struct nhd_storm storm = {.n = 0};
	char why[256];
	ck_assert_int_eq(nhd_conf_defaults(&c), 0);
	c.storm_max_per_window = 2;
	c.storm_window = 100;
	nhd_storm_add(&storm, 1000);
	nhd_storm_add(&storm, 1050);
	ck_assert_uint_eq(nhd_storm_recent(&storm, 1060, c.storm_window), 2);
	ck_assert_int_eq(nhd_storm_allow(&c, 2, 0, 100, why, sizeof(why)), 0);
	ck_assert_ptr_nonnull(strstr(why, "storm_max_per_window"));
	ck_assert_uint_eq(nhd_storm_recent(&storm, 1120, c.storm_window), 1);
	ck_assert_int_eq(nhd_storm_allow(&c, 1, 0, 100, why, sizeof(why)), 1);
	mw_conf_free(nhd_conf_keys, &c);
}
END_TEST

static const struct {
	long max_drained;
	double fraction;
	size_t drained, total;
	int want;
} storm_cases[] = {
	{8, 0.1, 0, 4, 1},   /* the fraction allows at least one */
	{8, 0.1, 1, 4, 0},
	{8, 0.5, 1, 4, 1},
	{8, 0.5, 2, 4, 0},
	{2, 1.0, 1, 100, 1},
	{2, 1.0, 2, 100, 0},
	{0, 1.0, 0, 100, 0}, /* storm_max_drained = 0: never drain */
	{8, 0.1, 9, 100, 0},
	{100, 0.1, 9, 100, 1},
	{100, 0.1, 10, 100, 0},
};

START_TEST(test_storm_allow)
{
	struct nhd_conf c;
	char why[256];
	ck_assert_int_eq(nhd_conf_defaults(&c), 0);
	c.storm_max_drained = storm_cases[_i].max_drained;
	c.storm_max_fraction = storm_cases[_i].fraction;
	ck_assert_int_eq(nhd_storm_allow(&c, 0, storm_cases[_i].drained, storm_cases[_i].total, why, sizeof(why)),
			 storm_cases[_i].want);
	mw_conf_free(nhd_conf_keys, &c);
}
END_TEST

START_TEST(test_parse_records)
{
	struct mw_slurm_job j;
	struct mw_slurm_node *nodes;
	/* A het job: components 9+0 and 9+1 are joined; a hostile job name is
	 * only a name. */
	const char *het = "{\"jobs\": [{\"job_id\": 9, \"het_job_id\": 9, \"name\": \"a NodeList=victim UserId=root(0)\", "
			  "\"user_id\": 1000, \"user_name\": \"alice\", \"job_state\": \"RUNNING\", "
			  "\"end_time\": 1800000000, \"nodes\": \"a[1-2]\"},"
			  "{\"job_id\": 10, \"het_job_id\": 9, \"user_id\": 1000, \"job_state\": \"RUNNING\", "
			  "\"nodes\": \"b3\"}, {\"job_id\": 11, \"user_id\": 0, \"nodes\": \"victim\"}]}";
	ck_assert_int_eq(mw_slurm_job_parse(het, "9", &j), 0);
	ck_assert_int_eq(j.uid, 1000);
	ck_assert_str_eq(j.user, "alice");
	ck_assert_str_eq(j.state, "RUNNING");
	ck_assert_str_eq(j.nodelist, "a[1-2],b3");
	ck_assert_int_eq(j.end_time, 1800000000);
	ck_assert_int_eq(nhd_nodelist_has(j.nodelist, "b3"), 1);
	ck_assert_int_eq(nhd_nodelist_has(j.nodelist, "a3"), 0);
	ck_assert_int_eq(nhd_nodelist_has(j.nodelist, "victim"), 0);
	mw_slurm_job_free(&j);
	ck_assert_int_eq(mw_slurm_job_parse(het, "12", &j), -1); /* not in the answer */
	ck_assert_int_eq(mw_slurm_job_parse("slurm_load_jobs error: Invalid job id\n", "9", &j), -1);
	ck_assert_int_eq(mw_slurm_job_parse("", "9", &j), -1);
	ck_assert_int_eq(mw_slurm_job_parse("{\"jobs\": 3}", "9", &j), -1);
	ck_assert_int_eq(mw_slurm_job_parse(het, "9x", &j), -1);
	ck_assert_int_eq(mw_slurm_nodes_parse(NODES4, &nodes), 4);
	ck_assert_str_eq(nodes[0].addr, "127.0.0.1");
	ck_assert_str_eq(nodes[0].reason, "");
	ck_assert_str_eq(nodes[3].state, "DOWN+NOT_RESPONDING");
	free(nodes);
	ck_assert_int_eq(mw_slurm_nodes_parse(NODES(NODE("x", "", "down", "\"DRAIN\", \"NOT_RESPONDING\"", "r")),
						&nodes), 1);
	ck_assert_str_eq(nodes[0].addr, "x"); /* the address defaults to the name */
	ck_assert_str_eq(nodes[0].state, "DOWN+DRAIN+NOT_RESPONDING");
	ck_assert_str_eq(nodes[0].reason, "r");
	free(nodes);
	ck_assert_int_eq(mw_slurm_nodes_parse("{\"nodes\": []}", &nodes), 0);
	free(nodes);
	ck_assert_int_eq(mw_slurm_nodes_parse("No nodes in the system\n", &nodes), -1);
	ck_assert_int_eq(nhd_reason_ours("mpiwatch: job 1"), 1);
	ck_assert_int_eq(nhd_reason_ours("NHC: mpiwatch: job 1"), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nhd_drain");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_handle, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, test_local_storm_window);
	tcase_add_loop_test(tc, test_storm_allow, 0, sizeof(storm_cases) / sizeof(storm_cases[0]));
	tcase_add_test(tc, test_parse_records);
	suite_add_tcase(s, tc);
	/* the re-probe: 20 s, less than the 30 s budget of its cases */
	tc = tcase_create("reprobe");
	tcase_set_timeout(tc, 20);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_reprobe_dead_among_live);
	tcase_add_test(tc, test_reprobe_answer_ends_it);
	tcase_add_test(tc, test_reprobe_loaded_target_not_drained);
	tcase_add_test(tc, test_reprobe_nodaemon_down_drained);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
