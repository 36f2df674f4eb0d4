/* test_monitor_dump.c - the dump writer (checked against
 * doc/schemas/dump.schema.json), the slot reader API, and the watcher end
 * to end on a simulated blocked call (no MPI: the glue is faked). */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dump.h"
#include "jsonschema.h"
#include "monitor_fakeglue.h"
#include "mwm.h"
#include "ops.h"
#include "runtime.h"

#define H_WORLD 0x1000
#define H_SELF 0x2000
#define H_SPLIT 0x3000
#define DT_INT 0x11

static struct json_object *schema;

static void setup_names(void)
{
	memset(&mwm.comms, 0, sizeof(mwm.comms));
	mwm.proc_null = -2; /* Open MPI's values */
	mwm.any_source = -1;
	mwm.mpi_root = -4;
	mwm.comm_world = H_WORLD;
	mwm.req_null = 0;
	mwm.ndtypes = 1;
	mwm.dtypes[0].handle = DT_INT;
	mwm.dtypes[0].name = "MPI_INT";
	mwm.dtypes[0].size = 4;
	mwm.nrops = 1;
	mwm.rops[0].handle = 0x77;
	mwm.rops[0].name = "MPI_SUM";
	ck_assert_int_eq(mwm_comms_init(&mwm.comms, H_WORLD, H_SELF, 1, 4), 0);
	int rev[] = {3, 1}; /* split: comm rank 0 = world 3, comm rank 1 = world 1 (us) */
	ck_assert_ptr_nonnull(mwm_comms_add(&mwm.comms, H_SPLIT, H_WORLD, "split", rev, 2, 1, 0, NULL, 0));
}

static void check_valid(struct json_object *o)
{
	char err[512] = "";
	int r = mw_jsonschema_validate(schema, o, err, sizeof(err));
	ck_assert_msg(r == 0, "dump not valid: %s\n%s", err, json_object_to_json_string(o));
}

static struct json_object *get(struct json_object *o, const char *path)
{
	char buf[256], *save = NULL;
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *t = strtok_r(buf, "/", &save); t && o; t = strtok_r(NULL, "/", &save)) {
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, (size_t)atoi(t));
		else if (!json_object_object_get_ex(o, t, &o))
			return NULL;
	}
	return o;
}

/* Table: a blocked call as the slot holds it, and what the dump must say. */
static const struct {
	const char *name;
	int op;
	uint64_t comm;
	int peer, tag, root;
	int expect_comm, expect_peer, expect_peer_world, expect_root_world;
	const char *expect_kind;
} calls[] = {
	{"recv world", MWM_OP_Recv, H_WORLD, 2, 7, MWM_NOARG, 0, 2, 2, -1, "recv"},
	{"recv split", MWM_OP_Recv, H_SPLIT, 0, 5, MWM_NOARG, 2, 0, 3, -1, "recv"},
	{"recv any", MWM_OP_Recv, H_WORLD, -1, -1, MWM_NOARG, 0, -2, -2, -1, "recv"},
	{"send null", MWM_OP_Send, H_WORLD, -2, 3, MWM_NOARG, 0, -1, -1, -1, "send"},
	{"bcast split", MWM_OP_Bcast, H_SPLIT, MWM_NOARG, MW_TAG_NONE, 0, 2, -1, -1, 3, "collective"},
	{"unknown comm", MWM_OP_Recv, 0x9999, 1, 1, MWM_NOARG, -1, 1, -1, -1, "recv"},
};

START_TEST(test_build)
{
	static struct mw_slot s;
	struct mwm_callx x;
	struct mwm_req pend[2], recent[1], bsend[1];
	struct mwm_frame fr[2];
	struct mwm_dumpin in;
	struct json_object *o;
	setup_names();
	memset(&s, 0, sizeof(s));
	memset(&x, 0, sizeof(x));
	memset(pend, 0, sizeof(pend));
	memset(recent, 0, sizeof(recent));
	memset(fr, 0, sizeof(fr));
	s.world_rank = 1;
	s.world_size = 4;
	s.pid = 1234;
	snprintf(s.host, sizeof(s.host), "n2");
	snprintf(s.job_id, sizeof(s.job_id), "42");
	snprintf(s.mpi, sizeof(s.mpi), "openmpi 4.1.4");
	s.timeout_s = 2;
	s.state = MW_STATE_IN_MPI;
	s.a = 5;
	s.b = 4;
	s.calls = 9;
	s.completions = 4;
	memcpy(s.call.name, mwm_ops[calls[_i].op].name, 32);
	s.call.op_id = (uint32_t)calls[_i].op;
	s.call.kind = mwm_ops[calls[_i].op].kind;
	s.call.blocking = 1;
	s.call.comm = calls[_i].comm;
	s.call.peer = calls[_i].peer;
	s.call.tag = calls[_i].tag;
	s.call.root = calls[_i].root;
	s.call.send_peer = MWM_NOARG;
	s.call.count = 1;
	s.call.datatype = DT_INT;
	s.call.site = 0x401234;
	s.call.enter_ns = 1000000000ull;
	pend[0].handle = 0xabc;
	pend[0].id = 3;
	pend[0].table = MWM_TABLE_RECV;
	pend[0].op = MWM_OP_Irecv;
	pend[0].comm = H_SPLIT;
	pend[0].peer = 1;
	pend[0].tag = 4;
	pend[0].count = 2;
	pend[0].datatype = DT_INT;
	pend[0].active = 1;
	pend[1] = pend[0];
	pend[1].handle = 0xabd;
	pend[1].id = 4;
	pend[1].table = MWM_TABLE_SEND;
	pend[1].op = MWM_OP_Send_init;
	pend[1].persistent = 1;
	pend[1].mode = MW_MODE_SYNC;
	recent[0] = pend[1];
	recent[0].id = -1;
	recent[0].op = MWM_OP_Send;
	bsend[0] = recent[0];
	bsend[0].op = MWM_OP_Bsend;
	bsend[0].mode = MW_MODE_BUFFERED;
	bsend[0].persistent = 0;
	bsend[0].site = 0x401200;
	fr[0].addr = 0x401234;
	fr[1].addr = 0x7f0000005678;
	snprintf(fr[1].object, sizeof(fr[1].object), "/lib/libc.so.6");
	fr[1].offset = 0x5678;
	snprintf(fr[1].symbol, sizeof(fr[1].symbol), "__libc_start_main");
	memset(&in, 0, sizeof(in));
	in.reason = "stuck";
	in.slot = &s;
	in.x = &x;
	in.pending = pend;
	in.npending = 2;
	in.recent = recent;
	in.nrecent = 1;
	in.bsends = bsend;
	in.nbsends = 1;
	in.bsends_total = 3;
	in.frames = fr;
	in.nframes = 2;
	in.unexp_source = "mpi_t";
	in.unexp_count = 1;
	in.now_unix = 1795000002.0;
	in.now_ns = 3000000000ull;
	o = mwm_dump_build(&in);
	ck_assert_ptr_nonnull(o);
	check_valid(o);
	ck_assert_str_eq(json_object_get_string(get(o, "call/name")), mwm_ops[calls[_i].op].name);
	ck_assert_str_eq(json_object_get_string(get(o, "call/kind")), calls[_i].expect_kind);
	ck_assert_int_eq(json_object_get_int(get(o, "call/comm")), calls[_i].expect_comm);
	ck_assert_int_eq(json_object_get_int(get(o, "call/peer")), calls[_i].expect_peer);
	ck_assert_int_eq(json_object_get_int(get(o, "call/peer_world")), calls[_i].expect_peer_world);
	ck_assert_int_eq(json_object_get_int(get(o, "call/root_world")), calls[_i].expect_root_world);
	if (calls[_i].tag == MW_TAG_NONE)
		ck_assert(json_object_is_type(get(o, "call/tag"), json_type_null));
	else
		ck_assert_int_eq(json_object_get_int(get(o, "call/tag")), calls[_i].tag);
	ck_assert_int_eq(json_object_get_int(get(o, "call/bytes")), 4);
	ck_assert_str_eq(json_object_get_string(get(o, "call/datatype")), "MPI_INT");
	ck_assert(json_object_get_double(get(o, "time/in_call_s")) == 2.0);
	ck_assert_int_eq(json_object_get_int(get(o, "pending_recvs/0/peer_world")), 1);
	ck_assert_int_eq(json_object_get_int(get(o, "pending_sends/0/req")), 4);
	ck_assert_str_eq(json_object_get_string(get(o, "pending_sends/0/mode")), "sync");
	ck_assert_int_eq(json_object_get_boolean(get(o, "pending_sends/0/persistent")), 1);
	ck_assert_str_eq(json_object_get_string(get(o, "recent_sends/0/op")), "MPI_Send");
	ck_assert_str_eq(json_object_get_string(get(o, "buffered_sends/0/op")), "MPI_Bsend");
	ck_assert_str_eq(json_object_get_string(get(o, "buffered_sends/0/mode")), "buffered");
	ck_assert_str_eq(json_object_get_string(get(o, "buffered_sends/0/site/addr")), "0x401200");
	ck_assert_int_eq(json_object_get_int(get(o, "buffered_sends/0/peer_world")), 1);
	ck_assert_int_eq(json_object_get_int(get(o, "buffered_sends_total")), 3);
	ck_assert_str_eq(json_object_get_string(get(o, "comms/2/gid")), mwm_comms_find(&mwm.comms, H_SPLIT)->gid);
	ck_assert_int_eq(json_object_get_int(get(o, "comms/2/world_ranks/0")), 3);
	ck_assert_str_eq(json_object_get_string(get(o, "stack/1/symbol")), "__libc_start_main");
	json_object_put(o);
	/* not in MPI: call is null, still valid */
	s.state = MW_STATE_COMPUTING;
	in.reason = "request";
	in.nframes = 0;
	o = mwm_dump_build(&in);
	check_valid(o);
	ck_assert(json_object_is_type(get(o, "call"), json_type_null));
	json_object_put(o);
	mwm_comms_destroy(&mwm.comms);
}
END_TEST

START_TEST(test_save_atomic)
{
	char dir[] = "/tmp/mwtest_dumpXXXXXX", path[1200], tmpname[1300];
	struct json_object *o = json_object_new_object(), *back;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	json_object_object_add(o, "x", json_object_new_int(1));
	snprintf(tmpname, sizeof(tmpname), "%s/sub/dir", dir);
	ck_assert_int_eq(mwm_dump_save(o, tmpname, 7, path, sizeof(path)), 0);
	back = json_object_from_file(path);
	ck_assert_ptr_nonnull(back);
	ck_assert_int_eq(json_object_get_int(get(back, "x")), 1);
	ck_assert_ptr_nonnull(strstr(path, "rank-7.json"));
	json_object_put(back);
	json_object_put(o);
	/* an unwritable directory: error, nothing left behind */
	ck_assert_int_eq(mwm_dump_save(o = json_object_new_object(), "/proc/no/such", 1, path, sizeof(path)), -1);
	json_object_put(o);
	char cmd[1400];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

static int count_cb(const char *path, int rank, void *arg)
{
	(void)path;
	((int *)arg)[rank < 8 ? rank : 7]++;
	return 0;
}

START_TEST(test_slot_api)
{
	char dir[] = "/tmp/mwtest_slotXXXXXX", path[1100], buf[256];
	struct mw_slot *w, *r;
	struct mw_slot_snap sn;
	int seen[8] = {0};
	ck_assert_ptr_nonnull(mkdtemp(dir));
	w = mw_slot_create(dir, 3, path, sizeof(path));
	ck_assert_ptr_nonnull(w);
	/* not published yet */
	r = mw_slot_map(path, 0);
	ck_assert_ptr_null(r);
	ck_assert_int_eq(errno, EAGAIN);
	w->world_rank = 3;
	w->world_size = 4;
	w->pid = getpid();
	snprintf(w->host, sizeof(w->host), "n1");
	mw_slot_publish(w);
	w->seq = 2;
	w->a = 10;
	w->b = 9;
	w->state = MW_STATE_IN_MPI;
	snprintf(w->call.name, sizeof(w->call.name), "MPI_Barrier");
	r = mw_slot_map(path, 1);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(mw_slot_snapshot(r, &sn), 0);
	ck_assert_int_eq(sn.s.world_rank, 3);
	ck_assert_int_eq((int)sn.s.a, 10);
	ck_assert_str_eq(sn.s.call.name, "MPI_Barrier");
	ck_assert_str_eq(mw_slot_state_name(sn.s.state), "in_mpi");
	/* a writer that never finishes: the snapshot reports it */
	w->seq = 3;
	ck_assert_int_eq(mw_slot_snapshot(r, &sn), -1);
	ck_assert_int_eq(sn.live_ok, 0);
	w->seq = 4;
	ck_assert_int_eq(mw_slot_request_dump(r), 0);
	ck_assert_int_eq((int)w->dump_request, 1);
	ck_assert_int_eq(mw_slot_set_exit(r, 3 << 8), 0); /* exit(3) */
	ck_assert_int_eq(w->exit_status, 3);
	ck_assert_int_eq((int)w->exit_flags, (int)MW_SLOT_EXIT_VALID);
	/* a later SIGKILL (the launcher's teardown) does not hide the exit(3) */
	ck_assert_int_eq(mw_slot_set_exit(r, 9), 0);
	ck_assert_int_eq(w->exit_status, 3);
	ck_assert_int_eq((int)w->exit_flags, (int)MW_SLOT_EXIT_VALID);
	/* a death by signal is recorded as such on a fresh slot */
	w->exit_flags = 0;
	ck_assert_int_eq(mw_slot_set_exit(r, 9), 0);
	ck_assert_int_eq(w->exit_status, 9);
	ck_assert_int_eq((int)w->exit_flags, (int)(MW_SLOT_EXIT_VALID | MW_SLOT_EXIT_SIGNALED));
	ck_assert_int_eq(mw_slot_set_exit(r, 0x7f), -1); /* stopped: not an exit */
	ck_assert_int_eq(mw_slot_scan_dir(dir, count_cb, seen), 0);
	ck_assert_int_eq(seen[3], 1);
	/* a foreign file in the directory is skipped; a bad slot is refused */
	snprintf(buf, sizeof(buf), "%s/rank-x", dir);
	fclose(fopen(buf, "w"));
	snprintf(buf, sizeof(buf), "%s/rank-5", dir);
	FILE *f = fopen(buf, "w");
	fputs("garbage", f);
	fclose(f);
	ck_assert_ptr_null(mw_slot_map(buf, 0));
	ck_assert_int_eq(errno, EPROTO);
	mw_slot_unmap(r);
	mw_slot_unmap(w);
	ck_assert_int_eq(mw_slot_default_dir(buf, sizeof(buf), NULL, 1000, "77", 5, "n3"), 0);
	ck_assert_str_eq(buf, "/dev/shm/mpiwatch.1000.77.n3");
	ck_assert_int_eq(mw_slot_default_dir(buf, sizeof(buf), "", 1000, NULL, 5, "n3"), 0);
	ck_assert_str_eq(buf, "/dev/shm/mpiwatch.1000.nojob-5.n3");
	ck_assert_int_eq(mw_slot_default_dir(buf, 10, NULL, 1000, NULL, 5, "n3"), -1);
	/* The plugin's one value for every node: "%h" is this node's name. */
	ck_assert_int_eq(mw_slot_default_dir(buf, sizeof(buf), "/dev/shm/mpiwatch.1000.77.%h", 1000, "77", 5, "n3"),
			 0);
	ck_assert_str_eq(buf, "/dev/shm/mpiwatch.1000.77.n3");
	ck_assert_int_eq(mw_path_host(buf, sizeof(buf), "/a/%h/b.%h%", "n12"), 0);
	ck_assert_str_eq(buf, "/a/n12/b.n12%");
	ck_assert_int_eq(mw_path_host(buf, 7, "/a/%h", "n12"), 0);
	ck_assert_str_eq(buf, "/a/n12");
	ck_assert_int_eq(mw_path_host(buf, 6, "/a/%h", "n12"), -1);
	ck_assert_int_eq(errno, ENAMETOOLONG);
	char node[256];
	mw_node_name(node, sizeof(node));
	ck_assert(node[0] != 0 && strchr(node, '.') == NULL);
	snprintf(buf, sizeof(buf), "rm -rf %s", dir);
	ck_assert_int_eq(system(buf), 0);
}
END_TEST

static int file_exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

/* The whole watcher in a child process: a simulated blocked MPI_Recv must
 * produce a valid dump after the timeout; a request flag produces another. */
START_TEST(test_watcher_end_to_end)
{
	char dir[] = "/tmp/mwtest_e2eXXXXXX", dumps[300], run[300], path[400];
	pid_t pid;
	int st;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(dumps, sizeof(dumps), "%s/dumps", dir);
	snprintf(run, sizeof(run), "%s/run", dir);
	snprintf(path, sizeof(path), "%s/rank-1.json", dumps);
	pid = fork();
	if (pid == 0) {
		struct mw_slot_call *c;
		char conf[400];
		FILE *f;
		snprintf(conf, sizeof(conf), "%s/settings", dir);
		f = fopen(conf, "w");
		if (!f)
			_exit(6);
		fprintf(f, "timeout = 1\nslot_dir = %s\ndump_dir = %s\n", run, dumps);
		fclose(f);
		setenv("MPIWATCH_SETTINGS", conf, 1);
		setup_names();
		set_fake_unexpected(1);
		snprintf(mwm.mpi, sizeof(mwm.mpi), "fake 1.0");
		mwm_early_init();
		if (mwm_start(1, 4, 0) != 0)
			_exit(2);
		/* an Irecv, then a blocking Recv that never returns */
		c = mwm_begin(MWM_OP_Irecv, 0, __builtin_return_address(0), __builtin_frame_address(0));
		c->comm = H_SPLIT;
		c->peer = 0;
		c->tag = 11;
		c->count = 1;
		c->datatype = DT_INT;
		mwm_commit();
		mwm_req_new(0x5151, MWM_TABLE_RECV, 0);
		mwm_finish(0);
		c = mwm_begin(MWM_OP_Recv, 0, __builtin_return_address(0), __builtin_frame_address(0));
		c->comm = H_WORLD;
		c->peer = 2;
		c->tag = 7;
		c->count = 1;
		c->datatype = DT_INT;
		mwm_commit();
		for (int i = 0; i < 200 && !file_exists(path); i++)
			usleep(50000);
		if (!file_exists(path))
			_exit(3);
		/* the agent asks for a dump: the watcher writes one with reason "request" */
		for (int i = 0; i < 200 && mwm.slot->dumps < 1; i++)
			usleep(50000);
		{
			char rp[400];
			struct mw_slot *as;
			snprintf(rp, sizeof(rp), "%s/rank-1", run);
			as = mw_slot_map(rp, 1);
			if (!as)
				_exit(4);
			mw_slot_request_dump(as);
			mw_slot_unmap(as);
		}
		for (int i = 0; i < 200 && mwm.slot->dumps < 2; i++)
			usleep(50000);
		if (mwm.slot->dumps < 2)
			_exit(5);
		exit(0); /* on_exit: the slot says "exited" */
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
	struct json_object *o = json_object_from_file(path);
	ck_assert_ptr_nonnull(o);
	check_valid(o);
	ck_assert_str_eq(json_object_get_string(get(o, "reason")), "request"); /* the later dump */
	ck_assert_str_eq(json_object_get_string(get(o, "call/name")), "MPI_Recv");
	ck_assert_int_eq(json_object_get_int(get(o, "call/peer_world")), 2);
	ck_assert_int_eq(json_object_get_int(get(o, "call/tag")), 7);
	ck_assert_int_eq(json_object_get_int(get(o, "pending_recvs/0/peer_world")), 3);
	ck_assert_int_eq(json_object_get_int(get(o, "unexpected/count")), 1);
	ck_assert_str_eq(json_object_get_string(get(o, "unexpected/source")), "mpi_t");
	ck_assert_int_ge(json_object_array_length(get(o, "stack")), 1);
	ck_assert_int_eq(json_object_get_int(get(o, "counters/a")), 1);
	ck_assert_int_eq(json_object_get_int(get(o, "counters/b")), 0);
	json_object_put(o);
	/* the slot survived (the settings' slot_dir) and names the dump */
	snprintf(path, sizeof(path), "%s/rank-1", run);
	struct mw_slot *s = mw_slot_map(path, 0);
	struct mw_slot_snap sn;
	ck_assert_ptr_nonnull(s);
	mw_slot_snapshot(s, &sn);
	ck_assert_int_eq(sn.s.dumps, 2);
	ck_assert_int_eq((int)sn.s.dump_request, 0);
	ck_assert_ptr_nonnull(strstr(sn.s.dump_path, "rank-1.json"));
	ck_assert_int_eq(sn.s.peer_world, 2);
	ck_assert_int_eq(sn.s.comm_id, 0);
	ck_assert_str_eq(sn.s.comm_gid, "world");
	ck_assert_str_eq(mw_slot_state_name(sn.s.state), "exited");
	mw_slot_unmap(s);
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int main(void)
{
	char err[256];
	Suite *s = suite_create("monitor_dump");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int nf;
	schema = mw_json_read_file("doc/schemas/dump.schema.json", err, sizeof(err));
	if (!schema) {
		fprintf(stderr, "cannot read the schema: %s\n", err);
		return 1;
	}
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_build, 0, sizeof(calls) / sizeof(calls[0]));
	tcase_add_test(tc, test_save_atomic);
	tcase_add_test(tc, test_slot_api);
	tcase_add_test(tc, test_watcher_end_to_end);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	json_object_put(schema);
	return nf ? 1 : 0;
}
