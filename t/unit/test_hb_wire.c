/* Unit tests for shared/heartbeat.c: the wire format, pinned byte for byte.
 *
 * doc/protocol.md (section 3) is the contract between agents, CPs and
 * collectors.  For every message type a representative message is encoded and
 * compared with the frame the codec produced when this test was written
 * (golden bytes, in hex), and those bytes decode back to the same fields.
 * Malformed frames and messages are refused as they were, with the same
 * reason code.  A rewrite of the codec must leave every case here unchanged. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heartbeat.h"
#include "unit.h"

static char *to_hex(const uint8_t *b, size_t n)
{
	char *s = malloc(2 * n + 1);
	if (!s)
		abort();
	for (size_t i = 0; i < n; i++)
		sprintf(s + 2 * i, "%02x", b[i]);
	s[2 * n] = 0;
	return s;
}

static size_t from_hex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = strlen(hex) / 2;
	ck_assert_uint_eq(strlen(hex) % 2, 0);
	ck_assert(n <= cap);
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		ck_assert_int_eq(sscanf(hex + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
	return n;
}

static int32_t dq_ranks[] = {0, 3, MW_HB_MAX_RANK};
static char apreq_nodes[2][MW_HB_STR_MAX + 1] = {"n1", "n-2.x"};
static char apout_output[] = "y\ny\n\tz ~";

/* Representative message number i (every type, some twice); its golden
 * frame is golden[i]. */
static void build(int i, struct mw_hb_msg *m)
{
	memset(m, 0, sizeof *m);
	switch (i) {
	case 0:
		m->type = MW_HB_VERIFY;
		strcpy(m->u.verify.nonce, "0123456789abcdef0123456789abcdef");
		break;
	case 1:
		m->type = MW_HB_CHALLENGE;
		strcpy(m->u.challenge.nonce, "fedcba9876543210fedcba9876543210");
		strcpy(m->u.challenge.job, "4242_3+1");
		strcpy(m->u.challenge.cred, "MUNGE:AwQDAAB=:x/y");
		break;
	case 2:
		m->type = MW_HB_HELLO;
		strcpy(m->u.hello.job, "4242");
		strcpy(m->u.hello.node, "n-2.x");
		m->u.hello.pid = 4711;
		m->u.hello.ranks = 2;
		strcpy(m->u.hello.cred, "hmac:0a1b");
		break;
	case 3:
		m->type = MW_HB_WELCOME;
		m->u.welcome.ok = 1;
		break;
	case 4:
		m->type = MW_HB_WELCOME;
		m->u.welcome.ok = 0;
		strcpy(m->u.welcome.error, "serves job 12, not 13: \"q\" \\ /");
		break;
	case 5:
		m->type = MW_HB_RANK;
		m->u.rank.rank = 3;
		m->u.rank.size = 6;
		m->u.rank.pid = 812;
		strcpy(m->u.rank.host, "198.18.3.4");
		break;
	case 6: {
		struct mw_hb_beat *b = &m->u.beat;
		m->type = MW_HB_HEARTBEAT;
		b->rank = 1;
		b->size = 6;
		b->pid = 812;
		b->state = MW_HB_S_SLOW;
		strcpy(b->call, "MPI_Recv");
		strcpy(b->kind, "recv");
		strcpy(b->comm, "world");
		b->peer_world = -2;
		b->root_world = -1;
		b->tag = 7;
		b->a = 5;
		b->b = 1ULL << 40;
		b->completions = 4;
		b->calls = 9;
		b->idle_s = 2.5;
		b->exit_code = -1;
		b->exit_signal = 0;
		strcpy(b->moving, "recv_buffer,io");
		b->seq = 17;
		break;
	}
	case 7: {
		struct mw_hb_beat *b = &m->u.beat;
		m->type = MW_HB_HEARTBEAT;
		b->rank = MW_HB_MAX_RANK;
		b->size = MW_HB_MAX_RANK + 1;
		b->pid = 0;
		b->state = MW_HB_S_EXITED;
		b->peer_world = -1;
		b->root_world = MW_HB_MAX_RANK;
		b->tag = -1;
		b->a = INT64_MAX;
		b->idle_s = 0.1;
		b->exit_code = 255;
		b->exit_signal = 128;
		break;
	}
	case 8:
		m->type = MW_HB_DUMP;
		m->u.dump.rank = 3;
		m->u.dump.json = "{\"mpiwatch_dump\":1,\"ranks\":[{\"x\":\"a/b\"}],\"t\":1.5}";
		break;
	case 9:
		m->type = MW_HB_BYE;
		strcpy(m->u.bye.reason, "moved into the tree: CP on n3");
		break;
	case 10:
		m->type = MW_HB_DUMPREQ;
		m->u.dumpreq.ranks = dq_ranks;
		m->u.dumpreq.n = 3;
		break;
	case 11:
		m->type = MW_HB_DUMPREQ;
		break;
	case 12:
		m->type = MW_HB_AGG;
		m->u.agg.json = "{\"from\":\"n2\",\"events\":[{\"k\":1}]}";
		break;
	case 13:
		m->type = MW_HB_ROLE;
		m->u.role.cp = 1;
		m->u.role.nup = 2;
		strcpy(m->u.role.up[0].node, "n3");
		strcpy(m->u.role.up[0].host, "198.18.3.3");
		m->u.role.up[0].port = 40123;
		strcpy(m->u.role.up[1].node, "n1");
		strcpy(m->u.role.up[1].host, "n1");
		m->u.role.up[1].port = 65535;
		break;
	case 14:
		m->type = MW_HB_ROLE;
		break;
	case 15:
		m->type = MW_HB_LISTEN;
		m->u.listen.port = 40123;
		break;
	case 16:
		m->type = MW_HB_CHILD;
		strcpy(m->u.child.node, "n7");
		strcpy(m->u.child.parent, "n3");
		m->u.child.up = 1;
		m->u.child.bye = 0;
		break;
	case 17:
		m->type = MW_HB_PROBEREQ;
		m->u.probereq.round = 1;
		m->u.probereq.port = 717;
		m->u.probereq.tries = 3;
		m->u.probereq.budget_s = 3.0;
		m->u.probereq.wait_s = 3.8;
		break;
	case 18:
		m->type = MW_HB_PROBESUM;
		m->u.probesum.json = "{\"round\":1,\"from\":\"n2\",\"results\":[],\"missing\":[\"n6\"]}";
		break;
	case 19:
		m->type = MW_HB_APREQ;
		m->u.apreq.round = INT32_MAX;
		m->u.apreq.nodes = apreq_nodes;
		m->u.apreq.n = 2;
		break;
	case 20:
		m->type = MW_HB_APREQ;
		m->u.apreq.round = 1;
		break;
	case 21:
		m->type = MW_HB_APOUT;
		m->u.apout.round = 1;
		strcpy(m->u.apout.node, "n2");
		strcpy(m->u.apout.name, "flood");
		m->u.apout.status = -1;
		m->u.apout.signal = 9;
		m->u.apout.timed_out = 0;
		m->u.apout.truncated = 1;
		m->u.apout.bytes = 4096;
		m->u.apout.elapsed_s = 0.32;
		m->u.apout.output = apout_output;
		break;
	default:
		ck_abort_msg("no message %d", i);
	}
}

/* The frames today's codec produced for build(0..21). */
static const char *const golden[] = {
	/* 0 verify: {"nonce":"0123456789abcdef0123456789abcdef"} */
	"4d574842010f00000000002c7b226e6f6e6365223a223031323334353637383961626364656630313233343536373839"
	  "616263646566227d",
	/* 1 challenge: {"nonce":"fedcba9876543210fedcba9876543210","job":"4242_3+1","cred":"MUNGE:AwQDAAB=:x/y"} */
	"4d57484201080000000000597b226e6f6e6365223a226665646362613938373635343332313066656463626139383736"
	  "353433323130222c226a6f62223a22343234325f332b31222c2263726564223a224d554e47453a417751444141423d3a"
	  "782f79227d",
	/* 2 hello: {"job":"4242","node":"n-2.x","pid":4711,"ranks":2,"cred":"hmac:0a1b"} */
	"4d57484201010000000000457b226a6f62223a2234323432222c226e6f6465223a226e2d322e78222c22706964223a34"
	  "3731312c2272616e6b73223a322c2263726564223a22686d61633a30613162227d",
	/* 3 welcome: {"ok":true} */
	"4d574842010200000000000b7b226f6b223a747275657d",
	/* 4 welcome: {"ok":false,"error":"serves job 12, not 13: \"q\" \\ /"} */
	"4d57484201020000000000387b226f6b223a66616c73652c226572726f72223a22736572766573206a6f622031322c20"
	  "6e6f742031333a205c22715c22205c5c202f227d",
	/* 5 rank: {"rank":3,"size":6,"pid":812,"host":"198.18.3.4"} */
	"4d57484201030000000000317b2272616e6b223a332c2273697a65223a362c22706964223a3831322c22686f7374223a"
	  "223139382e31382e332e34227d",
	/* 6 heartbeat: {"rank":1,"size":6,"pid":812,"state":"slow","call":"MPI_Recv","kind":"recv","comm":"world","peer_world":-2,"root_world":-1,"tag":7,"a":5,"b":1099511627776,"completions":4,"calls":9,"idle_s":2.5,"exit_code":-1,"exit_signal":0,"moving":"recv_buffer,io","seq":17} */
	"4d57484201040000000001047b2272616e6b223a312c2273697a65223a362c22706964223a3831322c22737461746522"
	  "3a22736c6f77222c2263616c6c223a224d50495f52656376222c226b696e64223a2272656376222c22636f6d6d223a22"
	  "776f726c64222c22706565725f776f726c64223a2d322c22726f6f745f776f726c64223a2d312c22746167223a372c22"
	  "61223a352c2262223a313039393531313632373737362c22636f6d706c6574696f6e73223a342c2263616c6c73223a39"
	  "2c2269646c655f73223a322e352c22657869745f636f6465223a2d312c22657869745f7369676e616c223a302c226d6f"
	  "76696e67223a22726563765f6275666665722c696f222c22736571223a31377d",
	/* 7 heartbeat: {"rank":16777215,"size":16777216,"pid":0,"state":"exited","call":"","kind":"","comm":"","peer_world":-1,"root_world":16777215,"tag":-1,"a":9223372036854775807,"b":0,"completions":0,"calls":0,"idle_s":0.10000000000000001,"exit_code":255,"exit_signal":128} */
	"4d57484201040000000000fe7b2272616e6b223a31363737373231352c2273697a65223a31363737373231362c227069"
	  "64223a302c227374617465223a22657869746564222c2263616c6c223a22222c226b696e64223a22222c22636f6d6d22"
	  "3a22222c22706565725f776f726c64223a2d312c22726f6f745f776f726c64223a31363737373231352c22746167223a"
	  "2d312c2261223a393232333337323033363835343737353830372c2262223a302c22636f6d706c6574696f6e73223a30"
	  "2c2263616c6c73223a302c2269646c655f73223a302e31303030303030303030303030303030312c22657869745f636f"
	  "6465223a3235352c22657869745f7369676e616c223a3132387d",
	/* 8 dump: {"rank":3,"dump":{"mpiwatch_dump":1,"ranks":[{"x":"a/b"}],"t":1.5}} */
	"4d57484201050000000000437b2272616e6b223a332c2264756d70223a7b226d706977617463685f64756d70223a312c"
	  "2272616e6b73223a5b7b2278223a22612f62227d5d2c2274223a312e357d7d",
	/* 9 bye: {"reason":"moved into the tree: CP on n3"} */
	"4d574842010600000000002a7b22726561736f6e223a226d6f76656420696e746f2074686520747265653a204350206f"
	  "6e206e33227d",
	/* 10 dumpreq: {"ranks":[0,3,16777215]} */
	"4d57484201070000000000187b2272616e6b73223a5b302c332c31363737373231355d7d",
	/* 11 dumpreq: {"ranks":[]} */
	"4d574842010700000000000c7b2272616e6b73223a5b5d7d",
	/* 12 agg: {"from":"n2","events":[{"k":1}]} */
	"4d57484201090000000000207b2266726f6d223a226e32222c226576656e7473223a5b7b226b223a317d5d7d",
	/* 13 role: {"cp":true,"up":[{"node":"n3","host":"198.18.3.3","port":40123},{"node":"n1","host":"n1","port":65535}]} */
	"4d574842010a0000000000687b226370223a747275652c227570223a5b7b226e6f6465223a226e33222c22686f737422"
	  "3a223139382e31382e332e33222c22706f7274223a34303132337d2c7b226e6f6465223a226e31222c22686f7374223a"
	  "226e31222c22706f7274223a36353533357d5d7d",
	/* 14 role: {"cp":false,"up":[]} */
	"4d574842010a0000000000147b226370223a66616c73652c227570223a5b5d7d",
	/* 15 listen: {"port":40123} */
	"4d574842010b00000000000e7b22706f7274223a34303132337d",
	/* 16 child: {"node":"n7","parent":"n3","up":true,"bye":false} */
	"4d574842010c0000000000317b226e6f6465223a226e37222c22706172656e74223a226e33222c227570223a74727565"
	  "2c22627965223a66616c73657d",
	/* 17 probereq: {"round":1,"port":717,"tries":3,"budget_s":3.0,"wait_s":3.7999999999999998} */
	"4d574842010d00000000004b7b22726f756e64223a312c22706f7274223a3731372c227472696573223a332c22627564"
	  "6765745f73223a332e302c22776169745f73223a332e373939393939393939393939393939387d",
	/* 18 probesum: {"round":1,"from":"n2","results":[],"missing":["n6"]} */
	"4d574842010e0000000000357b22726f756e64223a312c2266726f6d223a226e32222c22726573756c7473223a5b5d2c"
	  "226d697373696e67223a5b226e36225d7d",
	/* 19 apreq: {"nodes":["n1","n-2.x"],"round":2147483647} */
	"4d574842011400000000002b7b226e6f646573223a5b226e31222c226e2d322e78225d2c22726f756e64223a32313437"
	  "3438333634377d",
	/* 20 apreq: {"nodes":[],"round":1} */
	"4d57484201140000000000167b226e6f646573223a5b5d2c22726f756e64223a317d",
	/* 21 apout: {"round":1,"node":"n2","name":"flood","status":-1,"signal":9,"timed_out":false,"truncated":true,"bytes":4096,"elapsed_s":0.32000000000000001,"error":"","output":"y\ny\n\tz ~"} */
	"4d57484201150000000000af7b22726f756e64223a312c226e6f6465223a226e32222c226e616d65223a22666c6f6f64"
	  "222c22737461747573223a2d312c227369676e616c223a392c2274696d65645f6f7574223a66616c73652c227472756e"
	  "6361746564223a747275652c226279746573223a343039362c22656c61707365645f73223a302e333230303030303030"
	  "30303030303030312c226572726f72223a22222c226f7574707574223a22795c6e795c6e5c747a207e227d",
};
#define NMSG ((int)(sizeof golden / sizeof golden[0]))

/* Decoded d carries exactly the fields of the message it was made from, e. */
static void same_fields(const struct mw_hb_msg *d, const struct mw_hb_msg *e)
{
	ck_assert_int_eq(d->type, e->type);
	switch (e->type) {
	case MW_HB_DUMP:
		ck_assert_int_eq(d->u.dump.rank, e->u.dump.rank);
		ck_assert_str_eq(d->u.dump.json, e->u.dump.json);
		break;
	case MW_HB_AGG:
		ck_assert_str_eq(d->u.agg.json, e->u.agg.json);
		break;
	case MW_HB_PROBESUM:
		ck_assert_str_eq(d->u.probesum.json, e->u.probesum.json);
		break;
	case MW_HB_DUMPREQ:
		ck_assert_uint_eq(d->u.dumpreq.n, e->u.dumpreq.n);
		for (size_t i = 0; i < e->u.dumpreq.n; i++)
			ck_assert_int_eq(d->u.dumpreq.ranks[i], e->u.dumpreq.ranks[i]);
		break;
	case MW_HB_APREQ:
		ck_assert_uint_eq(d->u.apreq.round, e->u.apreq.round);
		ck_assert_uint_eq(d->u.apreq.n, e->u.apreq.n);
		for (size_t i = 0; i < e->u.apreq.n; i++)
			ck_assert_str_eq(d->u.apreq.nodes[i], e->u.apreq.nodes[i]);
		break;
	case MW_HB_APOUT: {
		struct mw_hb_apout x = d->u.apout, y = e->u.apout;
		ck_assert_str_eq(x.output, y.output);
		x.output = y.output = NULL;
		ck_assert(memcmp(&x, &y, sizeof x) == 0);
		break;
	}
	default:
		/* No pointers: every byte (the messages were zeroed first, and
		 * strings are copied with their NUL only). */
		ck_assert_msg(memcmp(&d->u, &e->u, sizeof d->u) == 0, "%s: decoded fields differ",
			      mw_hb_type_name(e->type));
	}
}

START_TEST(test_encode_golden)
{
	struct mw_hb_msg m;
	uint8_t *buf = NULL;
	size_t len;
	char *hex;

	build(_i, &m);
	ck_assert_msg(mw_hb_encode(&m, &buf, &len) == 0, "message %d (%s) encodes", _i,
		      mw_hb_type_name(m.type));
	hex = to_hex(buf, len);
	ck_assert_msg(strcmp(hex, golden[_i]) == 0, "message %d (%s):\n got  %s\n want %s", _i,
		      mw_hb_type_name(m.type), hex, golden[_i]);
	free(hex);
	free(buf);
}
END_TEST

START_TEST(test_decode_golden)
{
	struct mw_hb_msg want, got;
	uint8_t buf[1024];
	size_t n = from_hex(golden[_i], buf, sizeof buf), fl = 0;

	build(_i, &want);
	ck_assert_int_eq(mw_hb_frame_check(buf, n, &fl), MW_HB_OK);
	ck_assert_uint_eq(fl, n);
	ck_assert_int_eq(mw_hb_decode(buf, n, &got), MW_HB_OK);
	same_fields(&got, &want);
	mw_hb_msg_free(&got);
}
END_TEST

/* A heartbeat's counters are sent as non-negative 63-bit integers: the
 * encoder clears the top bit (it does not refuse the message). */
START_TEST(test_counter_top_bit)
{
	struct mw_hb_msg m;
	uint8_t *buf = NULL;
	size_t len;
	char *hex;

	build(7, &m);
	m.u.beat.a = UINT64_MAX;
	ck_assert_int_eq(mw_hb_encode(&m, &buf, &len), 0);
	hex = to_hex(buf, len);
	ck_assert_str_eq(hex, golden[7]);
	free(hex);
	free(buf);
}
END_TEST

/* Header errors, on golden frame 9 (BYE) with one thing changed. */
static const struct {
	const char *name;
	int at;        /* byte to set (-1 none) */
	int value;
	long keep;     /* bytes to keep (-1 all) */
	long extra;    /* bytes to add at the end */
	enum mw_hb_err want;
} hdr_cases[] = {
	{"bad magic", 3, 'C', -1, 0, MW_HB_E_MAGIC},
	{"version 0", 4, 0, -1, 0, MW_HB_E_VERSION},
	{"version 2", 4, 2, -1, 0, MW_HB_E_VERSION},
	{"type 0", 5, 0, -1, 0, MW_HB_E_TYPE},
	/* 16-19 are free numbers below the last type: the header passes, the
	 * payload has no layout */
	{"type 16", 5, 16, -1, 0, MW_HB_E_FIELD},
	{"type 19", 5, 19, -1, 0, MW_HB_E_FIELD},
	{"type 22", 5, 22, -1, 0, MW_HB_E_TYPE},
	{"type 255", 5, 255, -1, 0, MW_HB_E_TYPE},
	{"flags", 7, 1, -1, 0, MW_HB_E_FLAGS},
	{"declared length over the limit", 9, 0x40, -1, 0, MW_HB_E_LONG},
	{"truncated payload", -1, 0, 12 + 41, 0, MW_HB_E_AGAIN},
	{"truncated header", -1, 0, 11, 0, MW_HB_E_AGAIN},
	{"header only", -1, 0, 12, 0, MW_HB_E_AGAIN},
	{"a byte after the frame", -1, 0, -1, 1, MW_HB_E_LONG},
};

START_TEST(test_bad_header)
{
	uint8_t buf[1024];
	struct mw_hb_msg m;
	size_t n = from_hex(golden[9], buf, sizeof buf);
	ck_assert_int_eq(buf[5], MW_HB_BYE);
	ck_assert_uint_eq(n, 12 + 42);
	if (hdr_cases[_i].at >= 0)
		buf[hdr_cases[_i].at] = (uint8_t)hdr_cases[_i].value;
	if (hdr_cases[_i].keep >= 0)
		n = (size_t)hdr_cases[_i].keep;
	if (hdr_cases[_i].extra)
		buf[n++] = ' ';
	enum mw_hb_err e = mw_hb_decode(buf, n, &m);
	ck_assert_msg(e == hdr_cases[_i].want, "%s: got %s, want %s", hdr_cases[_i].name,
		      mw_hb_err_name(e), mw_hb_err_name(hdr_cases[_i].want));
	ck_assert_int_eq(m.type, 0);
	mw_hb_msg_free(&m);
}
END_TEST

/* Payloads, each for one type: at a limit (accepted) or one past it, or with
 * a field missing or of the wrong JSON type (refused). */
#define BEAT0 "\"rank\":1,\"size\":6,\"pid\":812,\"state\":\"in_mpi\",\"call\":\"\",\"kind\":\"\"," \
	      "\"comm\":\"\",\"peer_world\":0,\"root_world\":-1,\"tag\":7,\"a\":5,\"b\":4,"     \
	      "\"completions\":4,\"calls\":9,\"idle_s\":2.5,\"exit_code\":-1,\"exit_signal\":0"
#define NONCE "\"0123456789abcdef0123456789abcdef\""
#define N63 "n12345678901234567890123456789012345678901234567890123456789012"
#define APOUT0 "\"round\":1,\"node\":\"n2\",\"name\":\"flood\",\"status\":0,\"signal\":0,"       \
	       "\"timed_out\":false,\"truncated\":false,\"bytes\":0,\"elapsed_s\":0,\"error\":\"\"," \
	       "\"output\":\"\""
#define PRQ(round, port, tries, budget, wait)                                                   \
	"{\"round\":" #round ",\"port\":" #port ",\"tries\":" #tries ",\"budget_s\":" #budget \
	",\"wait_s\":" #wait "}"

static const struct {
	int type;
	const char *payload;
	enum mw_hb_err want;
} field_cases[] = {
	{MW_HB_VERIFY, "{\"nonce\":" NONCE ",\"x\":1}", MW_HB_OK},
	{MW_HB_VERIFY, "{\"nonce\":\"0123456789abcdef0123456789abcdeF\"}", MW_HB_E_FIELD},
	{MW_HB_VERIFY, "{\"nonce\":\"0123456789abcdef0123456789abcdef0\"}", MW_HB_E_FIELD},
	{MW_HB_CHALLENGE, "{\"nonce\":" NONCE ",\"job\":\"1234567890123456789012345678901\",\"cred\":\"x\"}", MW_HB_OK},
	{MW_HB_CHALLENGE, "{\"nonce\":" NONCE ",\"job\":\"12345678901234567890123456789012\",\"cred\":\"x\"}", MW_HB_E_FIELD},
	{MW_HB_CHALLENGE, "{\"nonce\":" NONCE ",\"job\":\"\",\"cred\":\"x\"}", MW_HB_E_FIELD},
	{MW_HB_CHALLENGE, "{\"nonce\":" NONCE ",\"job\":\"1\",\"cred\":\"\"}", MW_HB_E_FIELD},
	{MW_HB_HELLO, "{\"job\":\"1\",\"node\":\"" N63 "\",\"pid\":2147483647,\"ranks\":16777216,\"cred\":\"\"}", MW_HB_OK},
	{MW_HB_HELLO, "{\"job\":\"1\",\"node\":\"" N63 "x\",\"pid\":1,\"ranks\":1,\"cred\":\"\"}", MW_HB_E_FIELD},
	{MW_HB_HELLO, "{\"job\":\"1\",\"node\":\"n1\",\"pid\":1,\"ranks\":16777217,\"cred\":\"\"}", MW_HB_E_FIELD},
	{MW_HB_HELLO, "{\"job\":\"1\",\"node\":\"n1\",\"pid\":2147483648,\"ranks\":1,\"cred\":\"\"}", MW_HB_E_FIELD},
	{MW_HB_HELLO, "{\"job\":\"1\",\"node\":\"n1\",\"pid\":-1,\"ranks\":1,\"cred\":\"\"}", MW_HB_E_FIELD},
	{MW_HB_HELLO, "{\"job\":\"1\",\"node\":\"n1\",\"pid\":1.0,\"ranks\":1,\"cred\":\"\"}", MW_HB_E_FIELD},
	{MW_HB_HELLO, "{\"job\":\"1\",\"node\":\"n1\",\"pid\":1,\"ranks\":1,\"cred\":\"a\\tb\"}", MW_HB_E_FIELD},
	{MW_HB_WELCOME, "{\"ok\":true,\"error\":5}", MW_HB_OK},
	{MW_HB_WELCOME, "{\"ok\":false,\"error\":\"\"}", MW_HB_OK},
	{MW_HB_WELCOME, "{\"ok\":false,\"error\":5}", MW_HB_E_FIELD},
	{MW_HB_WELCOME, "{\"ok\":\"false\",\"error\":\"x\"}", MW_HB_E_FIELD},
	{MW_HB_RANK, "{\"rank\":16777215,\"size\":16777216,\"pid\":0,\"host\":\"n2\"}", MW_HB_OK},
	{MW_HB_RANK, "{\"rank\":0,\"size\":16777217,\"pid\":0,\"host\":\"n2\"}", MW_HB_E_FIELD},
	{MW_HB_RANK, "{\"rank\":0,\"size\":1,\"pid\":0,\"host\":\"\"}", MW_HB_E_FIELD},
	{MW_HB_RANK, "{\"rank\":0,\"size\":1,\"pid\":0}", MW_HB_E_FIELD},
	{MW_HB_HEARTBEAT, "{" BEAT0 "}", MW_HB_OK},
	{MW_HB_HEARTBEAT, "{" BEAT0 ",\"moving\":\"\",\"seq\":2147483647}", MW_HB_OK},
	{MW_HB_HEARTBEAT, "{" BEAT0 ",\"seq\":0}", MW_HB_E_FIELD},
	{MW_HB_HEARTBEAT, "{" BEAT0 ",\"seq\":2147483648}", MW_HB_E_FIELD},
	{MW_HB_HEARTBEAT, "{" BEAT0 ",\"seq\":\"1\"}", MW_HB_E_FIELD},
	{MW_HB_HEARTBEAT, "{" BEAT0 ",\"moving\":\"recv_buffer,io,recv_buffer,io,a\"}", MW_HB_OK},
	{MW_HB_HEARTBEAT, "{" BEAT0 ",\"moving\":\"recv_buffer,io,recv_buffer,io,ab\"}", MW_HB_E_FIELD},
	{MW_HB_HEARTBEAT, "{\"rank\":1,\"size\":1,\"pid\":812,\"state\":\"in_mpi\",\"call\":\"\",\"kind\":\"\",\"comm\":\"\",\"peer_world\":0,\"root_world\":-1,\"tag\":7,\"a\":5,\"b\":4,\"completions\":4,\"calls\":9,\"idle_s\":2.5,\"exit_code\":-1,\"exit_signal\":0}", MW_HB_E_FIELD},
	{MW_HB_HEARTBEAT, "{\"rank\":1,\"size\":6,\"pid\":812,\"state\":\"in_mpi\",\"call\":\"\",\"kind\":\"\",\"comm\":\"\",\"peer_world\":0,\"root_world\":-1,\"tag\":7,\"a\":-1,\"b\":4,\"completions\":4,\"calls\":9,\"idle_s\":2.5,\"exit_code\":-1,\"exit_signal\":0}", MW_HB_E_FIELD},
	{MW_HB_HEARTBEAT, "{\"rank\":1,\"size\":6,\"pid\":812,\"state\":\"in_mpi\",\"call\":\"\",\"kind\":\"\",\"comm\":\"\",\"peer_world\":0,\"root_world\":-1,\"tag\":7,\"a\":9223372036854775807,\"b\":4,\"completions\":4,\"calls\":9,\"idle_s\":999999999.9,\"exit_code\":-1,\"exit_signal\":0}", MW_HB_OK},
	{MW_HB_HEARTBEAT, "{\"rank\":1,\"size\":6,\"pid\":812,\"state\":\"in_mpi\",\"call\":\"\",\"kind\":\"\",\"comm\":\"\",\"peer_world\":0,\"root_world\":-1,\"tag\":7,\"a\":5,\"b\":4,\"completions\":4,\"calls\":9,\"idle_s\":1e9,\"exit_code\":-1,\"exit_signal\":0}", MW_HB_E_FIELD},
	{MW_HB_HEARTBEAT, "{\"rank\":1,\"size\":6,\"pid\":812,\"state\":\"in_mpi\",\"call\":\"\",\"kind\":\"\",\"comm\":\"\",\"peer_world\":0,\"root_world\":-1,\"tag\":7,\"a\":5,\"b\":4,\"completions\":4,\"calls\":9,\"idle_s\":3,\"exit_code\":-1,\"exit_signal\":129}", MW_HB_E_FIELD},
	{MW_HB_HEARTBEAT, "{\"rank\":1,\"size\":6,\"pid\":812,\"state\":\"in_mpi\",\"call\":\"\",\"kind\":\"\",\"comm\":\"\",\"peer_world\":0,\"root_world\":16777216,\"tag\":7,\"a\":5,\"b\":4,\"completions\":4,\"calls\":9,\"idle_s\":3,\"exit_code\":-1,\"exit_signal\":0}", MW_HB_E_FIELD},
	{MW_HB_HEARTBEAT, "{\"rank\":1,\"size\":6,\"pid\":812,\"state\":\"in_mpi\",\"call\":\"\",\"kind\":\"\",\"comm\":\"\",\"peer_world\":0,\"root_world\":-1,\"tag\":-2,\"a\":5,\"b\":4,\"completions\":4,\"calls\":9,\"idle_s\":3,\"exit_code\":-1,\"exit_signal\":0}", MW_HB_E_FIELD},
	{MW_HB_HEARTBEAT, "{\"rank\":1,\"size\":6,\"pid\":812,\"state\":\"in_mpi\",\"call\":\"\",\"kind\":\"\",\"comm\":\"\",\"peer_world\":0,\"root_world\":-1,\"tag\":7,\"a\":5,\"b\":4,\"completions\":4,\"idle_s\":3,\"exit_code\":-1,\"exit_signal\":0}", MW_HB_E_FIELD},
	{MW_HB_DUMP, "{\"rank\":16777216,\"dump\":{}}", MW_HB_E_FIELD},
	{MW_HB_DUMP, "{\"rank\":0}", MW_HB_E_FIELD},
	{MW_HB_BYE, "{\"reason\":\"\"}", MW_HB_OK},
	{MW_HB_BYE, "{}", MW_HB_E_FIELD},
	{MW_HB_DUMPREQ, "{\"ranks\":[16777216]}", MW_HB_E_FIELD},
	{MW_HB_DUMPREQ, "{\"ranks\":{}}", MW_HB_E_FIELD},
	{MW_HB_AGG, "{}", MW_HB_OK},
	{MW_HB_ROLE, "{\"cp\":false,\"up\":[{\"node\":\"n1\",\"host\":\"n1\",\"port\":0}]}", MW_HB_E_FIELD},
	{MW_HB_ROLE, "{\"cp\":false,\"up\":[{\"node\":\"n1\",\"host\":\"n1\",\"port\":65536}]}", MW_HB_E_FIELD},
	{MW_HB_ROLE, "{\"cp\":false,\"up\":[{\"node\":\"n1\",\"host\":\"-1\",\"port\":1}]}", MW_HB_E_FIELD},
	{MW_HB_ROLE, "{\"cp\":false,\"up\":[\"n1\"]}", MW_HB_E_FIELD},
	{MW_HB_ROLE, "{\"cp\":1,\"up\":[]}", MW_HB_E_FIELD},
	{MW_HB_ROLE, "{\"cp\":true}", MW_HB_E_FIELD},
	{MW_HB_LISTEN, "{\"port\":65535}", MW_HB_OK},
	{MW_HB_LISTEN, "{\"port\":0}", MW_HB_E_FIELD},
	{MW_HB_LISTEN, "{\"port\":65536}", MW_HB_E_FIELD},
	{MW_HB_CHILD, "{\"node\":\"n7\",\"parent\":\"n3\",\"up\":false}", MW_HB_E_FIELD},
	{MW_HB_CHILD, "{\"node\":\"n7\",\"parent\":\"n 3\",\"up\":false,\"bye\":true}", MW_HB_E_FIELD},
	{MW_HB_PROBEREQ, PRQ(2147483647, 65535, 20, 600, 600), MW_HB_OK},
	{MW_HB_PROBEREQ, PRQ(1, 1, 1, 0.001, 0.001), MW_HB_OK},
	{MW_HB_PROBEREQ, PRQ(0, 1, 1, 1, 1), MW_HB_E_FIELD},
	{MW_HB_PROBEREQ, PRQ(2147483648, 1, 1, 1, 1), MW_HB_E_FIELD},
	{MW_HB_PROBEREQ, PRQ(1, 1, 0, 1, 1), MW_HB_E_FIELD},
	{MW_HB_PROBEREQ, PRQ(1, 1, 1, 0, 1), MW_HB_E_FIELD},
	{MW_HB_PROBEREQ, PRQ(1, 1, 1, 600, 600.001), MW_HB_E_FIELD},
	{MW_HB_PROBEREQ, PRQ(1, 1, 1, "1", 1), MW_HB_E_FIELD},
	{MW_HB_PROBESUM, "{}", MW_HB_OK},
	{MW_HB_APREQ, "{\"round\":1,\"nodes\":[\"n1\",\"-x\"]}", MW_HB_E_FIELD},
	{MW_HB_APREQ, "{\"round\":1,\"nodes\":[1]}", MW_HB_E_FIELD},
	{MW_HB_APREQ, "{\"round\":0,\"nodes\":[]}", MW_HB_E_FIELD},
	{MW_HB_APREQ, "{\"round\":1}", MW_HB_E_FIELD},
	{MW_HB_APOUT, "{" APOUT0 "}", MW_HB_OK},
	{MW_HB_APOUT, "{\"round\":1,\"node\":\"n2\",\"name\":\"n123456789012345678901234567890\",\"status\":255,\"signal\":128,\"timed_out\":true,\"truncated\":false,\"bytes\":9223372036854775807,\"elapsed_s\":1,\"error\":\"x\",\"output\":\"\"}", MW_HB_OK},
	{MW_HB_APOUT, "{\"round\":1,\"node\":\"n2\",\"name\":\"n1234567890123456789012345678901\",\"status\":0,\"signal\":0,\"timed_out\":true,\"truncated\":false,\"bytes\":0,\"elapsed_s\":1,\"error\":\"\",\"output\":\"\"}", MW_HB_E_FIELD},
	{MW_HB_APOUT, "{\"round\":1,\"node\":\"n2\",\"name\":\"f\",\"status\":256,\"signal\":0,\"timed_out\":true,\"truncated\":false,\"bytes\":0,\"elapsed_s\":1,\"error\":\"\",\"output\":\"\"}", MW_HB_E_FIELD},
	{MW_HB_APOUT, "{\"round\":1,\"node\":\"n2\",\"name\":\"f\",\"status\":-2,\"signal\":0,\"timed_out\":true,\"truncated\":false,\"bytes\":0,\"elapsed_s\":1,\"error\":\"\",\"output\":\"\"}", MW_HB_E_FIELD},
	{MW_HB_APOUT, "{\"round\":1,\"node\":\"n2\",\"name\":\"f\",\"status\":0,\"signal\":0,\"timed_out\":true,\"truncated\":false,\"bytes\":-1,\"elapsed_s\":1,\"error\":\"\",\"output\":\"\"}", MW_HB_E_FIELD},
	{MW_HB_APOUT, "{\"round\":1,\"node\":\"n2\",\"name\":\"f\",\"status\":0,\"signal\":0,\"timed_out\":true,\"truncated\":false,\"bytes\":0,\"elapsed_s\":-0.5,\"error\":\"\",\"output\":\"\"}", MW_HB_E_FIELD},
	{MW_HB_APOUT, "{\"round\":1,\"node\":\"n2\",\"name\":\"f\",\"status\":0,\"signal\":0,\"timed_out\":true,\"truncated\":false,\"bytes\":0,\"elapsed_s\":1,\"error\":\"a\\nb\",\"output\":\"\"}", MW_HB_E_FIELD},
	{MW_HB_APOUT, "{\"round\":1,\"node\":\"n2\",\"name\":\"f\",\"status\":0,\"signal\":0,\"timed_out\":true,\"truncated\":false,\"bytes\":0,\"elapsed_s\":1,\"error\":\"\",\"output\":\"\\u001b[m\"}", MW_HB_E_FIELD},
	{MW_HB_APOUT, "{\"round\":1,\"node\":\"n2\",\"name\":\"f\",\"status\":0,\"signal\":0,\"timed_out\":true,\"truncated\":0,\"bytes\":0,\"elapsed_s\":1,\"error\":\"\",\"output\":\"\"}", MW_HB_E_FIELD},
	{MW_HB_APOUT, "{\"round\":1,\"node\":\"n2\",\"name\":\"f\",\"status\":0,\"signal\":0,\"timed_out\":true,\"truncated\":false,\"bytes\":0,\"elapsed_s\":1,\"error\":\"\"}", MW_HB_E_FIELD},
};

START_TEST(test_field_limits)
{
	uint8_t buf[2048];
	struct mw_hb_msg m;
	size_t n = strlen(field_cases[_i].payload);
	enum mw_hb_err e;

	ck_assert(MW_HB_HDR_LEN + n <= sizeof buf);
	memcpy(buf, "MWHB", 4);
	buf[4] = MW_HB_VERSION;
	buf[5] = (uint8_t)field_cases[_i].type;
	buf[6] = buf[7] = buf[8] = buf[9] = 0;
	buf[10] = (uint8_t)(n >> 8);
	buf[11] = (uint8_t)n;
	memcpy(buf + MW_HB_HDR_LEN, field_cases[_i].payload, n);
	e = mw_hb_decode(buf, MW_HB_HDR_LEN + n, &m);
	ck_assert_msg(e == field_cases[_i].want, "%s %s: got %s, want %s",
		      mw_hb_type_name(field_cases[_i].type), field_cases[_i].payload, mw_hb_err_name(e),
		      mw_hb_err_name(field_cases[_i].want));
	if (e == MW_HB_OK) {
		/* what decodes encodes again, to a frame that decodes */
		uint8_t *out = NULL;
		size_t len;
		struct mw_hb_msg again;
		ck_assert_int_eq(m.type, field_cases[_i].type);
		ck_assert_int_eq(mw_hb_encode(&m, &out, &len), 0);
		ck_assert_int_eq(mw_hb_decode(out, len, &again), MW_HB_OK);
		mw_hb_msg_free(&again);
		free(out);
	}
	mw_hb_msg_free(&m);
}
END_TEST

/* Messages the encoder refuses (EINVAL): a golden message with one field
 * out of its bounds. */
static void break_field(int c, struct mw_hb_msg *m)
{
	switch (c) {
	case 0: build(0, m); m->u.verify.nonce[5] = 'A'; break;
	case 1: build(1, m); m->u.challenge.cred[0] = 0; break;
	case 2: build(1, m); strcpy(m->u.challenge.job, "12a"); break;
	case 3: build(2, m); strcpy(m->u.hello.node, "-n1"); break;
	case 4: build(2, m); m->u.hello.pid = -1; break;
	case 5: build(2, m); m->u.hello.cred[1] = '\n'; break;
	case 6: build(4, m); m->u.welcome.error[0] = 27; break;
	case 7: build(3, m); m->u.welcome.error[0] = 27; break; /* checked when ok too */
	case 8: build(5, m); m->u.rank.size = 3; break;
	case 9: build(5, m); m->u.rank.host[0] = 0; break;
	case 10: build(6, m); m->u.beat.state = MW_HB_NSTATES; break;
	case 11: build(6, m); strcpy(m->u.beat.kind, "magic"); break;
	case 12: build(6, m); m->u.beat.seq = (uint32_t)INT32_MAX + 1; break;
	case 13: build(6, m); strcpy(m->u.beat.moving, "Bytes"); break;
	case 14: build(6, m); m->u.beat.idle_s = 1e9; break;
	case 15: build(6, m); m->u.beat.peer_world = -3; break;
	case 16: build(6, m); m->u.beat.tag = -2; break;
	case 17: build(7, m); m->u.beat.exit_signal = 129; break;
	case 18: build(8, m); m->u.dump.json = "[1]"; break;
	case 19: build(8, m); m->u.dump.json = NULL; break;
	case 20: build(8, m); m->u.dump.rank = -1; break;
	case 21: build(9, m); m->u.bye.reason[0] = 127; break;
	case 22: build(10, m); m->u.dumpreq.n = 65537; break;
	case 23: build(12, m); m->u.agg.json = "1"; break;
	case 24: build(13, m); m->u.role.up[1].port = 0; break;
	case 25: build(13, m); m->u.role.nup = MW_HB_UP_MAX + 1; break;
	case 26: build(13, m); strcpy(m->u.role.up[0].host, "a b"); break;
	case 27: build(15, m); m->u.listen.port = 0; break;
	case 28: build(16, m); strcpy(m->u.child.parent, ""); break;
	case 29: build(17, m); m->u.probereq.budget_s = 3.9; break;
	case 30: build(17, m); m->u.probereq.port = 0; break;
	case 31: build(17, m); m->u.probereq.tries = 21; break;
	case 32: build(17, m); m->u.probereq.round = 0; break;
	case 33: build(18, m); m->u.probesum.json = NULL; break;
	case 34: build(19, m); m->u.apreq.round = (uint32_t)INT32_MAX + 1; break;
	case 35: build(20, m); m->u.apreq.n = 1; break; /* nodes NULL */
	case 36: build(21, m); m->u.apout.bytes = (uint64_t)INT64_MAX + 1; break;
	case 37: build(21, m); m->u.apout.status = 256; break;
	case 38: build(21, m); m->u.apout.output = "\033[m"; break;
	case 39: build(21, m); m->u.apout.output = NULL; break;
	case 40: build(21, m); strcpy(m->u.apout.name, "-x"); break;
	case 41: build(21, m); m->u.apout.elapsed_s = -1; break;
	case 42: build(0, m); m->type = 16; break;
	case 43: build(0, m); m->type = 0; break;
	default: ck_abort();
	}
}
#define NBREAK 44

START_TEST(test_encode_refused)
{
	struct mw_hb_msg m;
	uint8_t *buf = NULL;
	size_t len;

	break_field(_i, &m);
	errno = 0;
	ck_assert_msg(mw_hb_encode(&m, &buf, &len) == -1, "case %d (%s) is refused", _i,
		      mw_hb_type_name(m.type));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(buf);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("heartbeat wire format");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_encode_golden, 0, NMSG);
	tcase_add_loop_test(tc, test_decode_golden, 0, NMSG);
	tcase_add_test(tc, test_counter_top_bit);
	tcase_add_loop_test(tc, test_bad_header, 0, sizeof hdr_cases / sizeof hdr_cases[0]);
	tcase_add_loop_test(tc, test_field_limits, 0, sizeof field_cases / sizeof field_cases[0]);
	tcase_add_loop_test(tc, test_encode_refused, 0, NBREAK);
	suite_add_tcase(s, tc);
	return mw_unit_run(s);
}
