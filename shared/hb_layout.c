/* hb_layout.c - the layout of every heartbeat message (heartbeat.h): each
 * field's key, JSON and C type, place and limits, written once.  The codec
 * (heartbeat.c) walks it to encode, decode and check; hb_doc.c writes
 * doc/protocol.md's tables from it. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "heartbeat.h"

static int valid_kind(const char *s)
{
	static const char *const kinds[] = {"", "send", "recv", "sendrecv", "probe", "wait", "test",
					    "collective", "rma_sync", "io", "other", NULL};
	for (int i = 0; kinds[i]; i++)
		if (strcmp(s, kinds[i]) == 0)
			return 1;
	return 0;
}

static int valid_nonce(const char *n)
{
	size_t i;
	for (i = 0; n[i]; i++)
		if (!((n[i] >= '0' && n[i] <= '9') || (n[i] >= 'a' && n[i] <= 'f')))
			return 0;
	return i == MW_HB_NONCE_LEN;
}

/* "" or comma-separated motion names (mw_motion_names). */
static int valid_moving(const char *s)
{
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || *p == '_' || *p == ','))
			return 0;
	return strlen(s) < 32;
}

/* "" or "OBJECT+0xOFFSET" (mw_slot_site). */
static int valid_site(const char *s)
{
	char obj[MW_SLOT_SITE_MAX + 1];
	unsigned long long off;
	return !*s || (s[0] == '/' && mw_slot_site_parse(s, obj, sizeof obj, &off) == 0);
}

/* "" or a predefined datatype's name ("MPI_INT"). */
static int valid_dtype(const char *s)
{
	if (!*s)
		return 1;
	if (strncmp(s, "MPI_", 4) || !s[4])
		return 0;
	for (const char *p = s + 4; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return 0;
	return 1;
}

/* Rules across fields. */
static int rank_in_size(const void *msg)
{
	const struct mw_hb_rank *r = msg;
	return r->size > r->rank;
}

static int beat_rank_in_size(const void *msg)
{
	const struct mw_hb_beat *b = msg;
	return b->size > b->rank;
}

static int budget_in_wait(const void *msg)
{
	const struct mw_hb_probereq *r = msg;
	return r->budget_s <= r->wait_s;
}

/* A field of a message: its key, its place in the union of struct mw_hb_msg
 * (the same as in the type's own struct). */
#define U(f) (offsetof(struct mw_hb_msg, u.f) - offsetof(struct mw_hb_msg, u))
#define SZ(f) sizeof(((struct mw_hb_msg *)0)->u.f)
#define INT(key, k, f, lo, hi, ...) \
	{.name = key, .kind = k, .offset = U(f), .min = lo, .max = hi, __VA_ARGS__}
#define STR(key, f, ...) {.name = key, .kind = MW_HB_K_STR, .offset = U(f), .size = SZ(f), __VA_ARGS__}
#define BOOL(key, f, ...) {.name = key, .kind = MW_HB_K_BOOL, .offset = U(f), __VA_ARGS__}
#define NUM(key, f, lo, hi, ...) \
	{.name = key, .kind = MW_HB_K_NUM, .offset = U(f), .dmin = lo, .dmax = hi, __VA_ARGS__}
#define PTR(key, k, f, ...) {.name = key, .kind = k, .offset = U(f), __VA_ARGS__}
#define END {.name = NULL}

#define NAME \
	.valid = mw_hb_valid_name, .min = 1, .syntax = "a name: `[A-Za-z0-9._-]`, starting alphanumeric"
#define JOB .valid = mw_hb_valid_job, .min = 1, .syntax = "a job id: digits, `_` and `+`"
#define NONCE .valid = valid_nonce, .min = MW_HB_NONCE_LEN, .syntax = "lowercase hex digits"

static const struct mw_hb_field verify_f[] = {
	STR("nonce", verify.nonce, NONCE, .doc = "the agent's fresh random nonce"),
	END,
};
static const struct mw_hb_field challenge_f[] = {
	STR("nonce", challenge.nonce, NONCE, .doc = "the collector's (or CP's) fresh random nonce"),
	STR("job", challenge.job, JOB, .doc = "its job"),
	STR("cred", challenge.cred, .min = 1,
	    .doc = "its proof over mw_hb_proof_payload(): `MUNGE:...` or `hmac:...`"),
	END,
};
static const struct mw_hb_field hello_f[] = {
	STR("job", hello.job, JOB, .doc = "the agent's job"),
	STR("node", hello.node, NAME, .doc = "the agent's node"),
	INT("pid", MW_HB_K_I32, hello.pid, 0, INT32_MAX, .doc = "the agent's pid"),
	INT("ranks", MW_HB_K_I32, hello.ranks, 0, MW_HB_MAX_RANK + 1, .doc = "local ranks known so far"),
	STR("cred", hello.cred, .doc = "its proof over mw_hb_auth_payload() (`\"\"`: none)"),
	END,
};
static const struct mw_hb_field welcome_f[] = {
	BOOL("ok", welcome.ok, .doc = "welcome (true) or refused"),
	STR("error", welcome.error, .unless = "ok", .doc = "why it was refused"),
	END,
};
static const struct mw_hb_field rank_f[] = {
	INT("rank", MW_HB_K_I32, rank.rank, 0, MW_HB_MAX_RANK, .doc = "the rank in MPI_COMM_WORLD"),
	INT("size", MW_HB_K_I32, rank.size, 1, MW_HB_MAX_RANK + 1, .doc = "the size of MPI_COMM_WORLD"),
	INT("pid", MW_HB_K_I32, rank.pid, 0, INT32_MAX, .doc = "the rank's pid"),
	STR("host", rank.host, NAME, .doc = "its host"),
	END,
};
static const struct mw_hb_field beat_f[] = {
	INT("rank", MW_HB_K_I32, beat.rank, 0, MW_HB_MAX_RANK, .doc = "the rank in MPI_COMM_WORLD"),
	INT("size", MW_HB_K_I32, beat.size, 1, MW_HB_MAX_RANK + 1, .doc = "the size of MPI_COMM_WORLD"),
	INT("pid", MW_HB_K_I32, beat.pid, 0, INT32_MAX, .doc = "the rank's pid"),
	{.name = "state", .kind = MW_HB_K_STATE, .offset = U(beat.state), .doc = "what the rank does (below)"},
	STR("call", beat.call, .doc = "the MPI call it is in (`MPI_Recv`), `\"\"` when not in MPI"),
	STR("kind", beat.kind, .valid = valid_kind,
	    .syntax = "a call kind of doc/dump-format.md, or `\"\"`", .doc = "the call's kind"),
	STR("comm", beat.comm, .doc = "the communicator's gid (`world`...), or `\"\"`"),
	INT("peer_world", MW_HB_K_I32, beat.peer_world, -2, MW_HB_MAX_RANK,
	    .doc = "the peer's world rank; -1 none, -2 MPI_ANY_SOURCE"),
	INT("root_world", MW_HB_K_I32, beat.root_world, -1, MW_HB_MAX_RANK,
	    .doc = "the root's world rank; -1 none"),
	INT("tag", MW_HB_K_I32, beat.tag, -1, INT32_MAX, .doc = "the tag; -1 any or none"),
	INT("a", MW_HB_K_U64, beat.a, 0, INT64_MAX, .flags = MW_HB_F_WRAP63, .doc = "counter A (seed 002)"),
	INT("b", MW_HB_K_U64, beat.b, 0, INT64_MAX, .flags = MW_HB_F_WRAP63, .doc = "counter B (seed 002)"),
	INT("completions", MW_HB_K_U64, beat.completions, 0, INT64_MAX, .flags = MW_HB_F_WRAP63,
	    .doc = "requests completed"),
	INT("calls", MW_HB_K_U64, beat.calls, 0, INT64_MAX, .flags = MW_HB_F_WRAP63, .doc = "MPI calls made"),
	NUM("idle_s", beat.idle_s, 0, 1e9, .flags = MW_HB_F_LT_MAX,
	    .doc = "seconds without progress when sent"),
	INT("exit_code", MW_HB_K_I32, beat.exit_code, -1, 255, .doc = "exit status; -1 unknown or not exited"),
	INT("exit_signal", MW_HB_K_I32, beat.exit_signal, 0, 128, .doc = "the signal that ended it; 0 none"),
	STR("moving", beat.moving, .flags = MW_HB_F_OPT, .valid = valid_moving,
	    .syntax = "`recv_buffer`, `io`, comma-separated", .doc = "slow: what moved"),
	INT("seq", MW_HB_K_U32, beat.seq, 1, INT32_MAX, .flags = MW_HB_F_OPT,
	    .doc = "tree overlay: the origin's sequence number (a receiver drops a duplicate)"),
	STR("site", beat.site, .flags = MW_HB_F_OPT, .valid = valid_site,
	    .syntax = "`/PROGRAM+0xOFFSET`", .doc = "in MPI: the call's site in the program, its "
	    "absolute path and the offset from its load base (the source line is resolved offline)"),
	INT("count", MW_HB_K_I32, beat.count, 1, INT32_MAX, .flags = MW_HB_F_OPT,
	    .doc = "in MPI: the call's element count (absent: none, or 0)"),
	STR("datatype", beat.datatype, .flags = MW_HB_F_OPT, .valid = valid_dtype,
	    .syntax = "`MPI_[A-Z0-9_]+`", .doc = "its predefined datatype (absent: none or derived)"),
	INT("bytes", MW_HB_K_U64, beat.bytes, 1, INT64_MAX, .flags = MW_HB_F_OPT,
	    .doc = "`count` times the datatype's size (absent: unknown)"),
	BOOL("preinit", beat.preinit, .flags = MW_HB_F_OPT,
	     .doc = "exited or vanished: it ended before its first MPI call, `MPI_Init` (its slot is made "
	     "when the library is loaded)"),
	END,
};
static const struct mw_hb_field dump_f[] = {
	INT("rank", MW_HB_K_I32, dump.rank, 0, MW_HB_MAX_RANK, .doc = "the rank"),
	PTR("dump", MW_HB_K_OBJ, dump.json, .doc = "its dump file (doc/dump-format.md)"),
	END,
};
static const struct mw_hb_field bye_f[] = {
	STR("reason", bye.reason, .doc = "why the agent leaves"),
	END,
};
static const struct mw_hb_field rank_elem[] = {
	{.name = "", .kind = MW_HB_K_I32, .min = 0, .max = MW_HB_MAX_RANK},
	END,
};
static const struct mw_hb_field dumpreq_f[] = {
	PTR("ranks", MW_HB_K_LIST, dumpreq.ranks, .size = sizeof(int32_t), .max = 65536, .elem = rank_elem,
	    .count_offset = U(dumpreq.n), .doc = "the ranks asked for a dump"),
	END,
};
static const struct mw_hb_field agg_f[] = {
	PTR("", MW_HB_K_WHOLE, agg.json, .doc = "checked by tree/mwt_agg.c (section 3a)"),
	END,
};
static const struct mw_hb_field probesum_f[] = {
	PTR("", MW_HB_K_WHOLE, probesum.json, .doc = "checked by tree/mwt_probe.c (section 3d)"),
	END,
};
static const struct mw_hb_field up_elem[] = {
	{.name = "node", .kind = MW_HB_K_STR, .offset = offsetof(struct mw_hb_up, node),
	 .size = MW_HB_STR_MAX + 1, NAME, .doc = "the ancestor CP's node"},
	{.name = "host", .kind = MW_HB_K_STR, .offset = offsetof(struct mw_hb_up, host),
	 .size = MW_HB_STR_MAX + 1, NAME, .doc = "where to connect (an address or a name)"},
	{.name = "port", .kind = MW_HB_K_U16, .offset = offsetof(struct mw_hb_up, port), .min = 1,
	 .max = 65535,
	 .doc = "the port it listens on"},
	END,
};
static const struct mw_hb_field role_f[] = {
	BOOL("cp", role.cp, .doc = "listen for children"),
	PTR("up", MW_HB_K_OBJLIST, role.up, .flags = MW_HB_F_INLINE, .size = sizeof(struct mw_hb_up),
	    .max = MW_HB_UP_MAX, .elem = up_elem, .count_offset = U(role.nup),
	    .doc = "the ancestors, nearest first (`[]`: stay on the collector)"),
	END,
};
static const struct mw_hb_field listen_f[] = {
	INT("port", MW_HB_K_U16, listen.port, 1, 65535, .doc = "the port the CP accepts its children on"),
	END,
};
static const struct mw_hb_field child_f[] = {
	STR("node", child.node, NAME, .doc = "the child"),
	STR("parent", child.parent, NAME, .doc = "the CP it attached to or left"),
	BOOL("up", child.up, .doc = "attached (true) or left"),
	BOOL("bye", child.bye, .doc = "left on purpose"),
	END,
};
static const struct mw_hb_field probereq_f[] = {
	INT("round", MW_HB_K_U32, probereq.round, 1, INT32_MAX, .doc = "the probe round"),
	INT("port", MW_HB_K_U16, probereq.port, 1, 65535, .doc = "nodehealthd's UDP port"),
	INT("tries", MW_HB_K_I32, probereq.tries, 1, MW_HB_PROBE_TRIES_MAX, .doc = "probes per node"),
	NUM("budget_s", probereq.budget_s, 0, MW_HB_PROBE_WAIT_MAX, .flags = MW_HB_F_GT_MIN,
	    .doc = "time budget of one node's probes"),
	NUM("wait_s", probereq.wait_s, 0, MW_HB_PROBE_WAIT_MAX, .flags = MW_HB_F_GT_MIN,
	    .doc = "the summary is due this long after the request"),
	END,
};
static const struct mw_hb_field node_elem[] = {
	{.name = "", .kind = MW_HB_K_STR, .size = MW_HB_STR_MAX + 1, NAME},
	END,
};
static const struct mw_hb_field apreq_f[] = {
	PTR("nodes", MW_HB_K_LIST, apreq.nodes, .size = MW_HB_STR_MAX + 1, .max = MW_HB_AP_NODES_MAX,
	    .elem = node_elem, .count_offset = U(apreq.n),
	    .doc = "the nodes meant (`[]`: every node that receives it)"),
	INT("round", MW_HB_K_U32, apreq.round, 1, INT32_MAX,
	    .doc = "the suspicious event, echoed in its APOUTs"),
	END,
};
static const struct mw_hb_field apout_f[] = {
	INT("round", MW_HB_K_U32, apout.round, 1, INT32_MAX, .doc = "the APREQ's"),
	STR("node", apout.node, NAME, .doc = "where it ran"),
	STR("name", apout.name, .valid = mw_hb_valid_ap_name, .min = 1,
	    .syntax = "`[A-Za-z0-9._-]`, starting alphanumeric", .doc = "the site's name of the command"),
	INT("status", MW_HB_K_I32, apout.status, -1, 255, .doc = "exit status; -1 did not exit normally"),
	INT("signal", MW_HB_K_I32, apout.signal, 0, 128,
	    .doc = "the signal that ended it (9 when killed at a bound)"),
	BOOL("timed_out", apout.timed_out, .doc = "killed at the time bound"),
	BOOL("truncated", apout.truncated, .doc = "output cut at the size bound (and killed)"),
	INT("bytes", MW_HB_K_U64, apout.bytes, 0, INT64_MAX, .doc = "output bytes read"),
	NUM("elapsed_s", apout.elapsed_s, 0, 1e9, .flags = MW_HB_F_LT_MAX, .doc = "run time"),
	STR("error", apout.error, .doc = "why it could not run (`\"\"`: it ran)"),
	PTR("output", MW_HB_K_TEXT, apout.output, .valid = mw_hb_valid_ap_output,
	    .syntax = "printable ASCII, `\\n` and `\\t`; at most 1 MiB (`MW_HB_AP_OUTPUT_MAX`)",
	    .doc = "stdout and stderr as they came"),
	END,
};

#define A_C "agent → collector"
#define C_A "collector → agent"
static const struct mw_hb_layout layouts[MW_HB_NTYPES] = {
	[MW_HB_VERIFY] = {"verify", A_C, "the agent's first frame: prove you are the job's collector, "
		"over this nonce", verify_f},
	[MW_HB_CHALLENGE] = {"challenge", C_A, "the answer to VERIFY: the collector's nonce, its job "
		"and its proof", challenge_f},
	[MW_HB_HELLO] = {"hello", A_C, "sent only once the CHALLENGE's proof is checked", hello_f},
	[MW_HB_WELCOME] = {"welcome", C_A, "the answer to HELLO", welcome_f},
	[MW_HB_RANK] = {"rank", A_C, "a local rank appeared (once per rank and connection)", rank_f,
			rank_in_size, "`rank` < `size`"},
	[MW_HB_HEARTBEAT] = {"heartbeat", A_C, "one rank's state: only when the rank made no MPI "
		"progress for the timeout, exited without MPI_Finalize, vanished, or resumed after a beat",
		beat_f, beat_rank_in_size, "`rank` < `size`"},
	[MW_HB_DUMP] = {"dump", A_C, "the rank's dump file", dump_f},
	[MW_HB_BYE] = {"bye", A_C, "the agent leaves on purpose", bye_f},
	[MW_HB_DUMPREQ] = {"dumpreq", C_A, "ask these ranks for a dump (the agent sets the slot's "
		"`dump_request`)", dumpreq_f},
	[MW_HB_AGG] = {"agg", "CP → its parent (tree)", "a CP's aggregate of heartbeats (section 3a); "
		"the collector of the flat star counts it as malformed", agg_f},
	[MW_HB_ROLE] = {"role", "collector → agent (tree)", "the agent's place in the tree (section 3b)",
			role_f},
	[MW_HB_LISTEN] = {"listen", "CP → collector (tree)", "the port a CP accepts its children on "
		"(section 3b)", listen_f},
	[MW_HB_CHILD] = {"child", "CP → parent, forwarded to the collector (tree)", "a child attached "
		"or left (section 3b)", child_f},
	[MW_HB_PROBEREQ] = {"probereq", "parent → CP (tree)", "probe your subtree, one summary within "
		"`wait_s` (section 3d)", probereq_f, budget_in_wait, "`budget_s` <= `wait_s`"},
	[MW_HB_PROBESUM] = {"probesum", "CP → parent (tree)", "the subtree's probe summary (section "
		"3d); the collector of the flat star counts it as malformed", probesum_f},
	[MW_HB_APREQ] = {"apreq", C_A, "run the site's auxiliary processes for suspicious event "
		"`round` (section 3c)", apreq_f},
	[MW_HB_APOUT] = {"apout", A_C, "one auxiliary process's result (section 3c)", apout_f},
};

const struct mw_hb_layout *mw_hb_layout(int type)
{
	return (type > 0 && type < MW_HB_NTYPES && layouts[type].name) ? &layouts[type] : NULL;
}

