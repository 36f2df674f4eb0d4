/* Unit tests for shared/heartbeat.c: the agent <-> collector frame codec. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "heartbeat.h"
#include "hmac.h"

/* A frame with a raw payload and header fields. */
static size_t frame(uint8_t *buf, size_t cap, uint32_t magic, int version, int type, int flags,
		    const char *payload, long declared_len)
{
	size_t n = strlen(payload);
	uint32_t len = declared_len >= 0 ? (uint32_t)declared_len : (uint32_t)n;
	ck_assert(MW_HB_HDR_LEN + n <= cap);
	buf[0] = (uint8_t)(magic >> 24);
	buf[1] = (uint8_t)(magic >> 16);
	buf[2] = (uint8_t)(magic >> 8);
	buf[3] = (uint8_t)magic;
	buf[4] = (uint8_t)version;
	buf[5] = (uint8_t)type;
	buf[6] = (uint8_t)(flags >> 8);
	buf[7] = (uint8_t)flags;
	buf[8] = (uint8_t)(len >> 24);
	buf[9] = (uint8_t)(len >> 16);
	buf[10] = (uint8_t)(len >> 8);
	buf[11] = (uint8_t)len;
	memcpy(buf + MW_HB_HDR_LEN, payload, n);
	return MW_HB_HDR_LEN + n;
}

#define BEAT "\"rank\":1,\"size\":4,\"pid\":99,\"state\":\"in_mpi\",\"call\":\"MPI_Recv\"," \
	     "\"kind\":\"recv\",\"comm\":\"world\",\"peer_world\":0,\"root_world\":-1,\"tag\":7,"  \
	     "\"a\":5,\"b\":4,\"completions\":4,\"calls\":9,\"idle_s\":2.5,\"exit_code\":-1,"     \
	     "\"exit_signal\":0"

static const struct {
	const char *name;
	uint32_t magic;
	int version, type, flags;
	const char *payload;
	long declared; /* -1: the payload's length */
	enum mw_hb_err expect;
} dec_cases[] = {
	{"hello ok", MW_HB_MAGIC, 1, MW_HB_HELLO, 0, "{\"job\":\"42\",\"node\":\"n1\",\"pid\":5,\"ranks\":2,\"cred\":\"MUNGE:AwQ=:\"}", -1, MW_HB_OK},
	{"hello without cred", MW_HB_MAGIC, 1, MW_HB_HELLO, 0, "{\"job\":\"42\",\"node\":\"n1\",\"pid\":5,\"ranks\":2}", -1, MW_HB_E_FIELD},
	{"hello cred number", MW_HB_MAGIC, 1, MW_HB_HELLO, 0, "{\"job\":\"42\",\"node\":\"n1\",\"pid\":5,\"ranks\":2,\"cred\":7}", -1, MW_HB_E_FIELD},
	{"challenge ok", MW_HB_MAGIC, 1, MW_HB_CHALLENGE, 0, "{\"nonce\":\"0123456789abcdef0123456789abcdef\",\"job\":\"42\",\"cred\":\"hmac:00\"}", -1, MW_HB_OK},
	{"challenge without proof", MW_HB_MAGIC, 1, MW_HB_CHALLENGE, 0, "{\"nonce\":\"0123456789abcdef0123456789abcdef\",\"job\":\"42\"}", -1, MW_HB_E_FIELD},
	{"challenge empty proof", MW_HB_MAGIC, 1, MW_HB_CHALLENGE, 0, "{\"nonce\":\"0123456789abcdef0123456789abcdef\",\"job\":\"42\",\"cred\":\"\"}", -1, MW_HB_E_FIELD},
	{"challenge without job", MW_HB_MAGIC, 1, MW_HB_CHALLENGE, 0, "{\"nonce\":\"0123456789abcdef0123456789abcdef\",\"cred\":\"x\"}", -1, MW_HB_E_FIELD},
	{"challenge bad job", MW_HB_MAGIC, 1, MW_HB_CHALLENGE, 0, "{\"nonce\":\"0123456789abcdef0123456789abcdef\",\"job\":\"4 2\",\"cred\":\"x\"}", -1, MW_HB_E_FIELD},
	{"verify ok", MW_HB_MAGIC, 1, MW_HB_VERIFY, 0, "{\"nonce\":\"0123456789abcdef0123456789abcdef\"}", -1, MW_HB_OK},
	{"verify short", MW_HB_MAGIC, 1, MW_HB_VERIFY, 0, "{\"nonce\":\"0123\"}", -1, MW_HB_E_FIELD},
	{"verify missing", MW_HB_MAGIC, 1, MW_HB_VERIFY, 0, "{}", -1, MW_HB_E_FIELD},
	{"challenge short", MW_HB_MAGIC, 1, MW_HB_CHALLENGE, 0, "{\"nonce\":\"0123456789abcdef\"}", -1, MW_HB_E_FIELD},
	{"challenge upper", MW_HB_MAGIC, 1, MW_HB_CHALLENGE, 0, "{\"nonce\":\"0123456789ABCDEF0123456789abcdef\"}", -1, MW_HB_E_FIELD},
	{"hello array job", MW_HB_MAGIC, 1, MW_HB_HELLO, 0, "{\"job\":\"4_2+1\",\"node\":\"n-1.x\",\"pid\":5,\"ranks\":0,\"cred\":\"\"}", -1, MW_HB_OK},
	{"hello bad job", MW_HB_MAGIC, 1, MW_HB_HELLO, 0, "{\"job\":\"4a\",\"node\":\"n1\",\"pid\":5,\"ranks\":2}", -1, MW_HB_E_FIELD},
	{"hello bad node", MW_HB_MAGIC, 1, MW_HB_HELLO, 0, "{\"job\":\"4\",\"node\":\"-n1\",\"pid\":5,\"ranks\":2}", -1, MW_HB_E_FIELD},
	{"hello node slash", MW_HB_MAGIC, 1, MW_HB_HELLO, 0, "{\"job\":\"4\",\"node\":\"n/1\",\"pid\":5,\"ranks\":2}", -1, MW_HB_E_FIELD},
	{"hello missing pid", MW_HB_MAGIC, 1, MW_HB_HELLO, 0, "{\"job\":\"4\",\"node\":\"n1\",\"ranks\":2}", -1, MW_HB_E_FIELD},
	{"hello pid string", MW_HB_MAGIC, 1, MW_HB_HELLO, 0, "{\"job\":\"4\",\"node\":\"n1\",\"pid\":\"5\",\"ranks\":2}", -1, MW_HB_E_FIELD},
	{"welcome ok", MW_HB_MAGIC, 1, MW_HB_WELCOME, 0, "{\"ok\":true}", -1, MW_HB_OK},
	{"welcome refused", MW_HB_MAGIC, 1, MW_HB_WELCOME, 0, "{\"ok\":false,\"error\":\"wrong job\"}", -1, MW_HB_OK},
	{"welcome refused no error", MW_HB_MAGIC, 1, MW_HB_WELCOME, 0, "{\"ok\":false}", -1, MW_HB_E_FIELD},
	{"welcome ok int", MW_HB_MAGIC, 1, MW_HB_WELCOME, 0, "{\"ok\":1}", -1, MW_HB_E_FIELD},
	{"rank ok", MW_HB_MAGIC, 1, MW_HB_RANK, 0, "{\"rank\":3,\"size\":4,\"pid\":7,\"host\":\"n2\"}", -1, MW_HB_OK},
	{"rank >= size", MW_HB_MAGIC, 1, MW_HB_RANK, 0, "{\"rank\":4,\"size\":4,\"pid\":7,\"host\":\"n2\"}", -1, MW_HB_E_FIELD},
	{"rank negative", MW_HB_MAGIC, 1, MW_HB_RANK, 0, "{\"rank\":-1,\"size\":4,\"pid\":7,\"host\":\"n2\"}", -1, MW_HB_E_FIELD},
	{"rank huge", MW_HB_MAGIC, 1, MW_HB_RANK, 0, "{\"rank\":99999999999,\"size\":4,\"pid\":7,\"host\":\"n2\"}", -1, MW_HB_E_FIELD},
	{"beat ok", MW_HB_MAGIC, 1, MW_HB_HEARTBEAT, 0, "{" BEAT "}", -1, MW_HB_OK},
	{"beat extra field ignored", MW_HB_MAGIC, 1, MW_HB_HEARTBEAT, 0, "{" BEAT ",\"future\":[1,2]}", -1, MW_HB_OK},
	{"beat slow, moving", MW_HB_MAGIC, 1, MW_HB_HEARTBEAT, 0, "{" BEAT ",\"moving\":\"recv_buffer,io\"}", -1, MW_HB_OK},
	{"beat moving not a name", MW_HB_MAGIC, 1, MW_HB_HEARTBEAT, 0, "{" BEAT ",\"moving\":\"Bytes 5\"}", -1, MW_HB_E_FIELD},
	{"beat with its call site", MW_HB_MAGIC, 1, MW_HB_HEARTBEAT, 0, "{" BEAT ",\"site\":\"/home/u/prog+0x1a2b\"}", -1, MW_HB_OK},
	{"beat site not absolute", MW_HB_MAGIC, 1, MW_HB_HEARTBEAT, 0, "{" BEAT ",\"site\":\"prog+0x1a2b\"}", -1, MW_HB_E_FIELD},
	{"beat site without offset", MW_HB_MAGIC, 1, MW_HB_HEARTBEAT, 0, "{" BEAT ",\"site\":\"/home/u/prog\"}", -1, MW_HB_E_FIELD},
	{"beat site offset not hex", MW_HB_MAGIC, 1, MW_HB_HEARTBEAT, 0, "{" BEAT ",\"site\":\"/home/u/prog+0xzz\"}", -1, MW_HB_E_FIELD},
	{"beat moving not a string", MW_HB_MAGIC, 1, MW_HB_HEARTBEAT, 0, "{" BEAT ",\"moving\":3}", -1, MW_HB_E_FIELD},
	{"beat moving too long", MW_HB_MAGIC, 1, MW_HB_HEARTBEAT, 0, "{" BEAT ",\"moving\":\"recv_buffer,io,mpi_t,recv_buffer,io\"}", -1, MW_HB_E_FIELD},
	{"beat bad state", MW_HB_MAGIC, 1, MW_HB_HEARTBEAT, 0, "{\"rank\":1,\"size\":4,\"pid\":99,\"state\":\"sleepy\",\"call\":\"\",\"kind\":\"\",\"comm\":\"\",\"peer_world\":0,\"root_world\":-1,\"tag\":7,\"a\":5,\"b\":4,\"completions\":4,\"calls\":9,\"idle_s\":2.5,\"exit_code\":-1,\"exit_signal\":0}", -1, MW_HB_E_FIELD},
	{"beat bad kind", MW_HB_MAGIC, 1, MW_HB_HEARTBEAT, 0, "{\"rank\":1,\"size\":4,\"pid\":99,\"state\":\"in_mpi\",\"call\":\"\",\"kind\":\"magic\",\"comm\":\"\",\"peer_world\":0,\"root_world\":-1,\"tag\":7,\"a\":5,\"b\":4,\"completions\":4,\"calls\":9,\"idle_s\":2.5,\"exit_code\":-1,\"exit_signal\":0}", -1, MW_HB_E_FIELD},
	{"beat peer -3", MW_HB_MAGIC, 1, MW_HB_HEARTBEAT, 0, "{\"rank\":1,\"size\":4,\"pid\":99,\"state\":\"in_mpi\",\"call\":\"\",\"kind\":\"\",\"comm\":\"\",\"peer_world\":-3,\"root_world\":-1,\"tag\":7,\"a\":5,\"b\":4,\"completions\":4,\"calls\":9,\"idle_s\":2.5,\"exit_code\":-1,\"exit_signal\":0}", -1, MW_HB_E_FIELD},
	{"beat negative idle", MW_HB_MAGIC, 1, MW_HB_HEARTBEAT, 0, "{\"rank\":1,\"size\":4,\"pid\":99,\"state\":\"in_mpi\",\"call\":\"\",\"kind\":\"\",\"comm\":\"\",\"peer_world\":0,\"root_world\":-1,\"tag\":7,\"a\":5,\"b\":4,\"completions\":4,\"calls\":9,\"idle_s\":-2.5,\"exit_code\":-1,\"exit_signal\":0}", -1, MW_HB_E_FIELD},
	{"beat exit 256", MW_HB_MAGIC, 1, MW_HB_HEARTBEAT, 0, "{\"rank\":1,\"size\":4,\"pid\":99,\"state\":\"exited\",\"call\":\"\",\"kind\":\"\",\"comm\":\"\",\"peer_world\":0,\"root_world\":-1,\"tag\":7,\"a\":5,\"b\":4,\"completions\":4,\"calls\":9,\"idle_s\":2.5,\"exit_code\":256,\"exit_signal\":0}", -1, MW_HB_E_FIELD},
	{"beat control char", MW_HB_MAGIC, 1, MW_HB_HEARTBEAT, 0, "{\"rank\":1,\"size\":4,\"pid\":99,\"state\":\"in_mpi\",\"call\":\"MPI\\u0001\",\"kind\":\"\",\"comm\":\"\",\"peer_world\":0,\"root_world\":-1,\"tag\":7,\"a\":5,\"b\":4,\"completions\":4,\"calls\":9,\"idle_s\":2.5,\"exit_code\":-1,\"exit_signal\":0}", -1, MW_HB_E_FIELD},
	{"beat NUL escape", MW_HB_MAGIC, 1, MW_HB_HEARTBEAT, 0, "{\"rank\":1,\"size\":4,\"pid\":99,\"state\":\"in_mpi\",\"call\":\"MPI\\u0000x\",\"kind\":\"\",\"comm\":\"\",\"peer_world\":0,\"root_world\":-1,\"tag\":7,\"a\":5,\"b\":4,\"completions\":4,\"calls\":9,\"idle_s\":2.5,\"exit_code\":-1,\"exit_signal\":0}", -1, MW_HB_E_FIELD},
	{"beat long call", MW_HB_MAGIC, 1, MW_HB_HEARTBEAT, 0, "{\"rank\":1,\"size\":4,\"pid\":99,\"state\":\"in_mpi\",\"call\":\"MPI_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\",\"kind\":\"\",\"comm\":\"\",\"peer_world\":0,\"root_world\":-1,\"tag\":7,\"a\":5,\"b\":4,\"completions\":4,\"calls\":9,\"idle_s\":2.5,\"exit_code\":-1,\"exit_signal\":0}", -1, MW_HB_E_FIELD},
	{"dump ok", MW_HB_MAGIC, 1, MW_HB_DUMP, 0, "{\"rank\":2,\"dump\":{\"mpiwatch_dump\":1}}", -1, MW_HB_OK},
	{"dump not object", MW_HB_MAGIC, 1, MW_HB_DUMP, 0, "{\"rank\":2,\"dump\":[1]}", -1, MW_HB_E_FIELD},
	{"bye ok", MW_HB_MAGIC, 1, MW_HB_BYE, 0, "{\"reason\":\"done\"}", -1, MW_HB_OK},
	{"dumpreq ok", MW_HB_MAGIC, 1, MW_HB_DUMPREQ, 0, "{\"ranks\":[0,5,7]}", -1, MW_HB_OK},
	{"dumpreq bad rank", MW_HB_MAGIC, 1, MW_HB_DUMPREQ, 0, "{\"ranks\":[0,-5]}", -1, MW_HB_E_FIELD},
	{"dumpreq string", MW_HB_MAGIC, 1, MW_HB_DUMPREQ, 0, "{\"ranks\":[\"0\"]}", -1, MW_HB_E_FIELD},
	{"probereq ok", MW_HB_MAGIC, 1, MW_HB_PROBEREQ, 0, "{\"round\":2,\"port\":7171,\"tries\":3,\"budget_s\":3,\"wait_s\":3.8}", -1, MW_HB_OK},
	{"probereq budget > wait", MW_HB_MAGIC, 1, MW_HB_PROBEREQ, 0, "{\"round\":2,\"port\":7171,\"tries\":3,\"budget_s\":4,\"wait_s\":3.8}", -1, MW_HB_E_FIELD},
	{"probereq port 0", MW_HB_MAGIC, 1, MW_HB_PROBEREQ, 0, "{\"round\":2,\"port\":0,\"tries\":3,\"budget_s\":3,\"wait_s\":3.8}", -1, MW_HB_E_FIELD},
	{"probereq tries 21", MW_HB_MAGIC, 1, MW_HB_PROBEREQ, 0, "{\"round\":2,\"port\":7171,\"tries\":21,\"budget_s\":3,\"wait_s\":3.8}", -1, MW_HB_E_FIELD},
	{"probereq wait 601", MW_HB_MAGIC, 1, MW_HB_PROBEREQ, 0, "{\"round\":2,\"port\":7171,\"tries\":3,\"budget_s\":3,\"wait_s\":601}", -1, MW_HB_E_FIELD},
	{"probereq no round", MW_HB_MAGIC, 1, MW_HB_PROBEREQ, 0, "{\"port\":7171,\"tries\":3,\"budget_s\":3,\"wait_s\":3.8}", -1, MW_HB_E_FIELD},
	{"probesum carried as JSON", MW_HB_MAGIC, 1, MW_HB_PROBESUM, 0, "{\"round\":1,\"from\":\"n2\",\"results\":[],\"missing\":[]}", -1, MW_HB_OK},
	{"probesum not an object", MW_HB_MAGIC, 1, MW_HB_PROBESUM, 0, "[]", -1, MW_HB_E_JSON},
	{"bad magic", 0x4D574843u, 1, MW_HB_BYE, 0, "{\"reason\":\"x\"}", -1, MW_HB_E_MAGIC},
	{"bad version", MW_HB_MAGIC, 2, MW_HB_BYE, 0, "{\"reason\":\"x\"}", -1, MW_HB_E_VERSION},
	{"type 0", MW_HB_MAGIC, 1, 0, 0, "{\"reason\":\"x\"}", -1, MW_HB_E_TYPE},
	{"type 99", MW_HB_MAGIC, 1, 99, 0, "{\"reason\":\"x\"}", -1, MW_HB_E_TYPE},
	{"flags", MW_HB_MAGIC, 1, MW_HB_BYE, 1, "{\"reason\":\"x\"}", -1, MW_HB_E_FLAGS},
	{"too long", MW_HB_MAGIC, 1, MW_HB_BYE, 0, "{}", (long)MW_HB_MAX_PAYLOAD + 1, MW_HB_E_LONG},
	{"short payload", MW_HB_MAGIC, 1, MW_HB_BYE, 0, "{\"reason\":\"x\"}", 40, MW_HB_E_AGAIN},
	{"trailing bytes", MW_HB_MAGIC, 1, MW_HB_BYE, 0, "{\"reason\":\"x\"}", 5, MW_HB_E_LONG},
	{"empty payload", MW_HB_MAGIC, 1, MW_HB_BYE, 0, "", -1, MW_HB_E_JSON},
	{"not json", MW_HB_MAGIC, 1, MW_HB_BYE, 0, "reason=x", -1, MW_HB_E_JSON},
	{"json array", MW_HB_MAGIC, 1, MW_HB_BYE, 0, "[1,2]", -1, MW_HB_E_JSON},
	{"two objects", MW_HB_MAGIC, 1, MW_HB_BYE, 0, "{\"reason\":\"x\"}{}", -1, MW_HB_E_JSON},
	{"truncated json", MW_HB_MAGIC, 1, MW_HB_BYE, 0, "{\"reason\":\"x\"", -1, MW_HB_E_JSON},
	{"single quotes", MW_HB_MAGIC, 1, MW_HB_BYE, 0, "{'reason':'x'}", -1, MW_HB_E_JSON},
};

START_TEST(test_decode_table)
{
	uint8_t buf[4096];
	struct mw_hb_msg m;
	size_t n = frame(buf, sizeof buf, dec_cases[_i].magic, dec_cases[_i].version, dec_cases[_i].type,
			 dec_cases[_i].flags, dec_cases[_i].payload, dec_cases[_i].declared);
	enum mw_hb_err e = mw_hb_decode(buf, n, &m);
	ck_assert_msg(e == dec_cases[_i].expect, "%s: got %s, want %s", dec_cases[_i].name,
		      mw_hb_err_name(e), mw_hb_err_name(dec_cases[_i].expect));
	if (e == MW_HB_OK)
		ck_assert_int_eq(m.type, dec_cases[_i].type);
	mw_hb_msg_free(&m);
}
END_TEST

START_TEST(test_beat_fields)
{
	uint8_t buf[4096];
	struct mw_hb_msg m;
	size_t n = frame(buf, sizeof buf, MW_HB_MAGIC, 1, MW_HB_HEARTBEAT, 0, "{" BEAT "}", -1);
	ck_assert_int_eq(mw_hb_decode(buf, n, &m), MW_HB_OK);
	ck_assert_int_eq(m.u.beat.rank, 1);
	ck_assert_int_eq(m.u.beat.size, 4);
	ck_assert_int_eq(m.u.beat.state, MW_HB_S_IN_MPI);
	ck_assert_str_eq(m.u.beat.call, "MPI_Recv");
	ck_assert_str_eq(m.u.beat.kind, "recv");
	ck_assert_str_eq(m.u.beat.comm, "world");
	ck_assert_int_eq(m.u.beat.peer_world, 0);
	ck_assert_int_eq(m.u.beat.tag, 7);
	ck_assert_uint_eq(m.u.beat.a, 5);
	ck_assert_uint_eq(m.u.beat.b, 4);
	ck_assert(m.u.beat.idle_s > 2.4 && m.u.beat.idle_s < 2.6);
	mw_hb_msg_free(&m);
}
END_TEST

/* Encode -> decode gives the same message, for every type. */
START_TEST(test_roundtrip)
{
	struct mw_hb_msg in[7], out;
	int32_t rq[] = {1, 2, 3};
	uint8_t *buf;
	size_t len;

	memset(in, 0, sizeof in);
	in[0].type = MW_HB_HELLO;
	strcpy(in[0].u.hello.job, "123");
	strcpy(in[0].u.hello.node, "n7");
	in[0].u.hello.pid = 1234;
	in[0].u.hello.ranks = 3;
	in[1].type = MW_HB_WELCOME;
	in[1].u.welcome.ok = 0;
	strcpy(in[1].u.welcome.error, "wrong job");
	in[2].type = MW_HB_RANK;
	in[2].u.rank.rank = 5;
	in[2].u.rank.size = 6;
	in[2].u.rank.pid = 77;
	strcpy(in[2].u.rank.host, "n2");
	in[3].type = MW_HB_HEARTBEAT;
	in[3].u.beat.rank = 0;
	in[3].u.beat.size = 2;
	in[3].u.beat.state = MW_HB_S_EXITED;
	in[3].u.beat.peer_world = -2;
	in[3].u.beat.root_world = -1;
	in[3].u.beat.tag = -1;
	in[3].u.beat.exit_code = -1;
	in[3].u.beat.exit_signal = 11;
	in[3].u.beat.a = 1ULL << 40;
	strcpy(in[3].u.beat.call, "MPI_Waitall");
	strcpy(in[3].u.beat.kind, "wait");
	in[4].type = MW_HB_DUMP;
	in[4].u.dump.rank = 9;
	in[4].u.dump.json = "{\"mpiwatch_dump\":1,\"x\":[1,2]}";
	in[5].type = MW_HB_BYE;
	strcpy(in[5].u.bye.reason, "sigterm");
	in[6].type = MW_HB_DUMPREQ;
	in[6].u.dumpreq.ranks = rq;
	in[6].u.dumpreq.n = 3;

	for (int i = 0; i < 7; i++) {
		ck_assert_int_eq(mw_hb_encode(&in[i], &buf, &len), 0);
		ck_assert_int_eq(mw_hb_decode(buf, len, &out), MW_HB_OK);
		ck_assert_int_eq(out.type, in[i].type);
		switch (in[i].type) {
		case MW_HB_HELLO:
			ck_assert_str_eq(out.u.hello.job, "123");
			ck_assert_str_eq(out.u.hello.node, "n7");
			ck_assert_int_eq(out.u.hello.ranks, 3);
			break;
		case MW_HB_WELCOME:
			ck_assert_int_eq(out.u.welcome.ok, 0);
			ck_assert_str_eq(out.u.welcome.error, "wrong job");
			break;
		case MW_HB_RANK:
			ck_assert_int_eq(out.u.rank.rank, 5);
			ck_assert_str_eq(out.u.rank.host, "n2");
			break;
		case MW_HB_HEARTBEAT:
			ck_assert_int_eq(out.u.beat.state, MW_HB_S_EXITED);
			ck_assert_int_eq(out.u.beat.exit_signal, 11);
			ck_assert_int_eq(out.u.beat.peer_world, -2);
			ck_assert_uint_eq(out.u.beat.a, 1ULL << 40);
			ck_assert_str_eq(out.u.beat.call, "MPI_Waitall");
			break;
		case MW_HB_DUMP:
			ck_assert_int_eq(out.u.dump.rank, 9);
			ck_assert_str_eq(out.u.dump.json, "{\"mpiwatch_dump\":1,\"x\":[1,2]}");
			break;
		case MW_HB_BYE:
			ck_assert_str_eq(out.u.bye.reason, "sigterm");
			break;
		case MW_HB_DUMPREQ:
			ck_assert_uint_eq(out.u.dumpreq.n, 3);
			ck_assert_int_eq(out.u.dumpreq.ranks[2], 3);
			break;
		default:
			break;
		}
		mw_hb_msg_free(&out);
		free(buf);
	}
}
END_TEST

/* The tree's probe frames: PROBEREQ's fields, PROBESUM's JSON text. */
START_TEST(test_roundtrip_probe)
{
	struct mw_hb_msg m = {0}, out;
	uint8_t *buf;
	size_t len;
	m.type = MW_HB_PROBEREQ;
	m.u.probereq.round = 9;
	m.u.probereq.port = 7171;
	m.u.probereq.tries = 3;
	m.u.probereq.budget_s = 1.5;
	m.u.probereq.wait_s = 2.3;
	ck_assert_int_eq(mw_hb_encode(&m, &buf, &len), 0);
	ck_assert_int_eq(mw_hb_decode(buf, len, &out), MW_HB_OK);
	ck_assert_int_eq(out.type, MW_HB_PROBEREQ);
	ck_assert_uint_eq(out.u.probereq.round, 9);
	ck_assert_uint_eq(out.u.probereq.port, 7171);
	ck_assert_int_eq(out.u.probereq.tries, 3);
	ck_assert(out.u.probereq.budget_s == 1.5 && out.u.probereq.wait_s == 2.3);
	free(buf);
	m.u.probereq.budget_s = 3; /* longer than the wait: refused */
	ck_assert_int_eq(mw_hb_encode(&m, &buf, &len), -1);
	memset(&m, 0, sizeof m);
	m.type = MW_HB_PROBESUM;
	m.u.probesum.json = "{\"round\":1,\"from\":\"n2\",\"results\":[],\"missing\":[\"n3\"]}";
	ck_assert_int_eq(mw_hb_encode(&m, &buf, &len), 0);
	ck_assert_int_eq(mw_hb_decode(buf, len, &out), MW_HB_OK);
	ck_assert_int_eq(out.type, MW_HB_PROBESUM);
	ck_assert_str_eq(out.u.probesum.json, m.u.probesum.json);
	mw_hb_msg_free(&out);
	free(buf);
}
END_TEST

/* Messages that would not decode are refused by the encoder. */
START_TEST(test_encode_invalid)
{
	struct mw_hb_msg m;
	uint8_t *buf = NULL;
	size_t len;

	memset(&m, 0, sizeof m);
	m.type = MW_HB_HELLO;
	strcpy(m.u.hello.job, "12x");
	strcpy(m.u.hello.node, "n1");
	ck_assert_int_eq(mw_hb_encode(&m, &buf, &len), -1);
	ck_assert_int_eq(errno, EINVAL);

	memset(&m, 0, sizeof m);
	m.type = MW_HB_HEARTBEAT;
	m.u.beat.rank = 3;
	m.u.beat.size = 3; /* rank must be < size */
	m.u.beat.state = MW_HB_S_IN_MPI;
	ck_assert_int_eq(mw_hb_encode(&m, &buf, &len), -1);

	memset(&m, 0, sizeof m);
	m.type = MW_HB_DUMP;
	m.u.dump.json = "not json";
	ck_assert_int_eq(mw_hb_encode(&m, &buf, &len), -1);

	memset(&m, 0, sizeof m);
	m.type = 42;
	ck_assert_int_eq(mw_hb_encode(&m, &buf, &len), -1);
}
END_TEST

/* A stream delivered byte by byte: AGAIN until the frame is complete; a
 * garbage stream is refused on its first bytes. */
START_TEST(test_stream)
{
	uint8_t buf[256];
	size_t n = frame(buf, sizeof buf, MW_HB_MAGIC, 1, MW_HB_BYE, 0, "{\"reason\":\"x\"}", -1), fl = 0;
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(mw_hb_frame_check(buf, i, &fl), MW_HB_E_AGAIN);
	ck_assert_int_eq(mw_hb_frame_check(buf, n, &fl), MW_HB_OK);
	ck_assert_uint_eq(fl, n);
	ck_assert_int_eq(mw_hb_frame_check((const uint8_t *)"GET / HTTP/1.0", 1, &fl), MW_HB_E_MAGIC);
	ck_assert_int_eq(mw_hb_frame_check((const uint8_t *)"MWX", 3, &fl), MW_HB_E_MAGIC);
}
END_TEST

/* mw_slot_site(): an address in the main program as PROGRAM+0xOFFSET from
 * its load base, nothing outside it; mw_slot_site_parse() reads it back. */
START_TEST(test_slot_site)
{
	struct mw_slot sl;
	char buf[MW_SLOT_SITE_MAX + 1], obj[MW_SLOT_SITE_MAX + 1];
	unsigned long long off = 0;
	memset(&sl, 0, sizeof sl);
	ck_assert_int_eq(mw_slot_site(&sl, 0x401234, buf, sizeof buf), 0); /* empty block */
	ck_assert_str_eq(buf, "");
	sl.exe_base = 0x400000;
	sl.exe_lo = 0x400000;
	sl.exe_hi = 0x402000;
	snprintf(sl.exe, sizeof sl.exe, "/home/u/a+b/prog");
	ck_assert_int_eq(mw_slot_site(&sl, 0x401234, buf, sizeof buf), 1);
	ck_assert_str_eq(buf, "/home/u/a+b/prog+0x1234");
	ck_assert_int_eq(mw_slot_site_parse(buf, obj, sizeof obj, &off), 0);
	ck_assert_str_eq(obj, "/home/u/a+b/prog");
	ck_assert_uint_eq(off, 0x1234);
	ck_assert_int_eq(mw_slot_site(&sl, 0x402000, buf, sizeof buf), 1); /* one past: a return address */
	ck_assert_int_eq(mw_slot_site(&sl, 0x7f0000001000ull, buf, sizeof buf), 0); /* a library */
	ck_assert_str_eq(buf, "");
	sl.exe[3] = '\n';
	ck_assert_int_eq(mw_slot_site(&sl, 0x401234, buf, sizeof buf), 0); /* not printable */
	ck_assert_int_eq(mw_slot_site_parse("prog", obj, sizeof obj, &off), -1);
	ck_assert_int_eq(mw_slot_site_parse("/p+0x", obj, sizeof obj, &off), -1);
	ck_assert_int_eq(mw_slot_site_parse("/p+0x12g", obj, sizeof obj, &off), -1);
}
END_TEST

/* mw_slot_world_peer(): the peer of a call on MPI_COMM_WORLD is a world
 * rank; on another communicator, or a rank the world has not, not known. */
static const struct {
	const char *name;
	uint64_t world, comm;
	int32_t peer;
	int expect;
} world_peer_cases[] = {
	{"recv from 0 on world", 0x1000, 0x1000, 0, 0},
	{"send to 2 on world", 0x1000, 0x1000, 2, 2},
	{"another comm", 0x1000, 0x3000, 0, -1},
	{"no world recorded", 0, 0, 0, -1},
	{"any source", 0x1000, 0x1000, -1, -1},
	{"proc null (mpich)", 0x1000, 0x1000, -1, -1},
	{"proc null (open mpi)", 0x1000, 0x1000, -2, -1},
	{"no peer", 0x1000, 0x1000, INT32_MIN, -1},
	{"past the world", 0x1000, 0x1000, 3, -1},
};

START_TEST(test_slot_world_peer)
{
	struct mw_slot sl;
	memset(&sl, 0, sizeof sl);
	sl.world_size = 3;
	sl.comm_world = world_peer_cases[_i].world;
	sl.call.comm = world_peer_cases[_i].comm;
	sl.call.peer = world_peer_cases[_i].peer;
	ck_assert_msg(mw_slot_world_peer(&sl) == world_peer_cases[_i].expect, "%s", world_peer_cases[_i].name);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_str_eq(mw_hb_type_name(MW_HB_HEARTBEAT), "heartbeat");
	ck_assert_str_eq(mw_hb_type_name(0), "?");
	ck_assert_str_eq(mw_hb_state_name(MW_HB_S_COMPUTING), "computing");
	ck_assert_int_eq(mw_hb_state_parse("vanished"), MW_HB_S_VANISHED);
	ck_assert_int_eq(mw_hb_state_parse("nope"), -1);
	ck_assert_int_eq(mw_hb_state_parse("slow"), MW_HB_S_SLOW);
	ck_assert_str_eq(mw_hb_err_name(99), "?");
	ck_assert(mw_hb_valid_job("1234_5+0"));
	ck_assert(!mw_hb_valid_job(""));
	ck_assert(!mw_hb_valid_job("12345678901234567890123456789012"));
	ck_assert(mw_hb_valid_name("node-01.ib"));
	ck_assert(!mw_hb_valid_name(".n"));
	ck_assert(!mw_hb_valid_name("n 1"));
}
END_TEST

/* The handshake's messages and proofs (doc/protocol.md "Handshake"). */
START_TEST(test_handshake)
{
	/* RFC 4231 test case 2: key "Jefe" */
	static const char want[] = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
	uint8_t mac[MW_SHA256_LEN];
	char hex[2 * MW_SHA256_LEN + 1], pl[400], pl2[400], cred[MW_HB_CRED_MAX + 1], err[200];
	struct mw_hb_msg m = {0}, d;
	uint8_t *buf;
	size_t len;
	mw_hmac_sha256("Jefe", 4, "what do ya want for nothing?", 28, mac);
	for (int i = 0; i < MW_SHA256_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", mac[i]);
	ck_assert_str_eq(hex, want);
	/* RFC 4231 test case 6: a key longer than the block (131 x 0xaa) is hashed first */
	{
		uint8_t key[131];
		static const char want6[] =
			"60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54";
		memset(key, 0xaa, sizeof key);
		mw_hmac_sha256(key, sizeof key, "Test Using Larger Than Block-Size Key - Hash Key First",
			       54, mac);
		for (int i = 0; i < MW_SHA256_LEN; i++)
			snprintf(hex + 2 * i, 3, "%02x", mac[i]);
		ck_assert_str_eq(hex, want6);
	}

	/* both payloads name the job, the endpoint and the nonces */
	ck_assert_int_eq(mw_hb_proof_payload("42", "10.0.0.1:7300", "aa", "bb", pl, sizeof pl), 0);
	ck_assert_str_eq(pl, "mpiwatch-collector 1 job=42 at=10.0.0.1:7300 nonce=aa challenge=bb");
	ck_assert_int_eq(mw_hb_auth_payload("42", "n1", "10.0.0.1:7300", "bb", pl2, sizeof pl2), 0);
	ck_assert_str_eq(pl2, "mpiwatch-hello 2 job=42 node=n1 at=10.0.0.1:7300 nonce=bb");
	ck_assert_int_eq(mw_hb_proof_payload("42", "10.0.0.1:7300", "aa", "bb", pl, 20), -1);

	/* a token proof never holds the token, and holds only for its payload */
	ck_assert_int_eq(mw_auth_token_sign("0123456789abcdef0123456789abcdef", pl, cred, sizeof cred), 0);
	ck_assert_ptr_null(strstr(cred, "0123456789abcdef"));
	ck_assert_int_eq(mw_auth_token_check(cred, "0123456789abcdef0123456789abcdef", pl, err, sizeof err), 0);
	ck_assert_int_ne(mw_auth_token_check(cred, "0123456789abcdef0123456789abcdef", pl2, err, sizeof err), 0);
	ck_assert_int_ne(mw_auth_token_check(cred, "fedcba9876543210fedcba9876543210", pl, err, sizeof err), 0);
	ck_assert_int_ne(mw_auth_token_check("token:0123456789abcdef0123456789abcdef",
					     "0123456789abcdef0123456789abcdef", pl, err, sizeof err), 0);

	/* VERIFY and CHALLENGE round trips; a challenge without a proof does not encode */
	m.type = MW_HB_VERIFY;
	snprintf(m.u.verify.nonce, sizeof m.u.verify.nonce, "0123456789abcdef0123456789abcdef");
	ck_assert_int_eq(mw_hb_encode(&m, &buf, &len), 0);
	ck_assert_int_eq(mw_hb_decode(buf, len, &d), MW_HB_OK);
	ck_assert_int_eq(d.type, MW_HB_VERIFY);
	ck_assert_str_eq(d.u.verify.nonce, m.u.verify.nonce);
	free(buf);
	memset(&m, 0, sizeof m);
	m.type = MW_HB_CHALLENGE;
	snprintf(m.u.challenge.nonce, sizeof m.u.challenge.nonce, "0123456789abcdef0123456789abcdef");
	snprintf(m.u.challenge.job, sizeof m.u.challenge.job, "42");
	ck_assert_int_eq(mw_hb_encode(&m, &buf, &len), -1);
	snprintf(m.u.challenge.cred, sizeof m.u.challenge.cred, "%s", cred);
	ck_assert_int_eq(mw_hb_encode(&m, &buf, &len), 0);
	ck_assert_int_eq(mw_hb_decode(buf, len, &d), MW_HB_OK);
	ck_assert_str_eq(d.u.challenge.job, "42");
	ck_assert_str_eq(d.u.challenge.cred, cred);
	free(buf);
	ck_assert_str_eq(mw_hb_type_name(MW_HB_VERIFY), "verify");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("heartbeat");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_decode_table, 0, sizeof(dec_cases) / sizeof(dec_cases[0]));
	tcase_add_test(tc, test_beat_fields);
	tcase_add_test(tc, test_slot_site);
	tcase_add_loop_test(tc, test_slot_world_peer, 0, sizeof(world_peer_cases) / sizeof(world_peer_cases[0]));
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_roundtrip_probe);
	tcase_add_test(tc, test_encode_invalid);
	tcase_add_test(tc, test_stream);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_handshake);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
