/* heartbeat.c - encode and decode agent <-> collector frames (heartbeat.h). */
#include "heartbeat.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

static const char *const state_names[MW_HB_NSTATES] = {
	"?", "in_mpi", "computing", "exited", "vanished", "resumed", "finalized", "slow",
};
static const char *const err_names[MW_HB_E_NCODES] = {
	"ok", "incomplete", "bad magic", "unsupported version", "unknown type", "bad flags",
	"payload too long", "payload is not a JSON object", "bad field",
};

const char *mw_hb_state_name(int state)
{
	return (state > 0 && state < MW_HB_NSTATES) ? state_names[state] : "?";
}

const char *mw_hb_err_name(int err)
{
	return (err >= 0 && err < MW_HB_E_NCODES) ? err_names[err] : "?";
}

int mw_hb_state_parse(const char *s)
{
	for (int i = 1; s && i < MW_HB_NSTATES; i++)
		if (strcmp(s, state_names[i]) == 0)
			return i;
	return -1;
}

int mw_hb_valid_job(const char *s)
{
	size_t n = 0;
	if (!s || !*s)
		return 0;
	for (; s[n]; n++)
		if (!((s[n] >= '0' && s[n] <= '9') || s[n] == '_' || s[n] == '+') || n >= 31)
			return 0;
	return 1;
}

static int is_alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

int mw_hb_valid_name(const char *s)
{
	size_t n = 0;
	if (!s || !is_alnum(s[0]))
		return 0;
	for (; s[n]; n++)
		if (!(is_alnum(s[n]) || s[n] == '.' || s[n] == '_' || s[n] == '-') || n >= MW_HB_STR_MAX)
			return 0;
	return 1;
}

/* Printable ASCII, at most max chars (empty allowed). */
static int valid_text(const char *s, size_t max)
{
	size_t n = 0;
	if (!s)
		return 0;
	for (; s[n]; n++)
		if ((unsigned char)s[n] < 0x20 || (unsigned char)s[n] > 0x7e || n >= max)
			return 0;
	return 1;
}

static int valid_kind(const char *s)
{
	static const char *const kinds[] = {"", "send", "recv", "sendrecv", "probe", "wait", "test",
					    "collective", "rma_sync", "io", "other", NULL};
	for (int i = 0; kinds[i]; i++)
		if (strcmp(s, kinds[i]) == 0)
			return 1;
	return 0;
}

int mw_hb_valid_ap_name(const char *s)
{
	size_t n = 0;
	if (!s || !is_alnum(s[0]))
		return 0;
	for (; s[n]; n++)
		if (!(is_alnum(s[n]) || s[n] == '.' || s[n] == '_' || s[n] == '-') ||
		    n >= MW_HB_AP_NAME_MAX)
			return 0;
	return 1;
}

static int ap_char_ok(unsigned char c)
{
	return (c >= 0x20 && c <= 0x7e) || c == '\n' || c == '\t';
}

int mw_hb_valid_ap_output(const char *s)
{
	size_t n = 0;
	if (!s)
		return 0;
	for (; s[n]; n++)
		if (!ap_char_ok((unsigned char)s[n]) || n >= MW_HB_AP_OUTPUT_MAX)
			return 0;
	return 1;
}

void mw_hb_ap_sanitize(char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!ap_char_ok((unsigned char)s[i]))
			s[i] = '?';
	s[len] = 0;
}

static int valid_nonce(const char *n)
{
	size_t i;
	for (i = 0; n[i]; i++)
		if (!((n[i] >= '0' && n[i] <= '9') || (n[i] >= 'a' && n[i] <= 'f')))
			return 0;
	return i == MW_HB_NONCE_LEN;
}

int mw_hb_auth_payload(const char *job, const char *node, const char *endpoint, const char *nonce,
		       char *buf, size_t len)
{
	int n = snprintf(buf, len, "mpiwatch-hello 2 job=%s node=%s at=%s nonce=%s", job, node, endpoint,
			 nonce);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int mw_hb_proof_payload(const char *job, const char *endpoint, const char *agent_nonce,
			const char *nonce, char *buf, size_t len)
{
	int n = snprintf(buf, len, "mpiwatch-collector 1 job=%s at=%s nonce=%s challenge=%s", job,
			 endpoint, agent_nonce, nonce);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* "" or comma-separated motion names (mw_motion_names). */
static int valid_moving(const char *s)
{
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || *p == '_' || *p == ','))
			return 0;
	return strlen(s) < 32;
}

/* --------------------------------------------------- the message layouts */

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
#define INT(key, k, f, lo, hi, ...) {.name = key, .kind = k, .offset = U(f), .min = lo, .max = hi, __VA_ARGS__}
#define STR(key, f, ...) {.name = key, .kind = MW_HB_K_STR, .offset = U(f), .size = SZ(f), __VA_ARGS__}
#define BOOL(key, f, ...) {.name = key, .kind = MW_HB_K_BOOL, .offset = U(f), __VA_ARGS__}
#define NUM(key, f, lo, hi, ...) {.name = key, .kind = MW_HB_K_NUM, .offset = U(f), .dmin = lo, .dmax = hi, __VA_ARGS__}
#define PTR(key, k, f, ...) {.name = key, .kind = k, .offset = U(f), __VA_ARGS__}
#define END {.name = NULL}

#define NAME .valid = mw_hb_valid_name, .min = 1, .syntax = "a name: `[A-Za-z0-9._-]`, starting alphanumeric"
#define JOB .valid = mw_hb_valid_job, .min = 1, .syntax = "a job id: digits, `_` and `+`"
#define NONCE .valid = valid_nonce, .min = MW_HB_NONCE_LEN, .syntax = "lowercase hex digits"

static const struct mw_hb_field verify_f[] = {
	STR("nonce", verify.nonce, NONCE, .doc = "the agent's fresh random nonce"),
	END,
};
static const struct mw_hb_field challenge_f[] = {
	STR("nonce", challenge.nonce, NONCE, .doc = "the collector's (or CP's) fresh random nonce"),
	STR("job", challenge.job, JOB, .doc = "its job"),
	STR("cred", challenge.cred, .min = 1, .doc = "its proof over mw_hb_proof_payload(): `MUNGE:...` or `hmac:...`"),
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
	INT("root_world", MW_HB_K_I32, beat.root_world, -1, MW_HB_MAX_RANK, .doc = "the root's world rank; -1 none"),
	INT("tag", MW_HB_K_I32, beat.tag, -1, INT32_MAX, .doc = "the tag; -1 any or none"),
	INT("a", MW_HB_K_U64, beat.a, 0, INT64_MAX, .flags = MW_HB_F_WRAP63, .doc = "counter A (seed 002)"),
	INT("b", MW_HB_K_U64, beat.b, 0, INT64_MAX, .flags = MW_HB_F_WRAP63, .doc = "counter B (seed 002)"),
	INT("completions", MW_HB_K_U64, beat.completions, 0, INT64_MAX, .flags = MW_HB_F_WRAP63,
	    .doc = "requests completed"),
	INT("calls", MW_HB_K_U64, beat.calls, 0, INT64_MAX, .flags = MW_HB_F_WRAP63, .doc = "MPI calls made"),
	NUM("idle_s", beat.idle_s, 0, 1e9, .flags = MW_HB_F_LT_MAX, .doc = "seconds without progress when sent"),
	INT("exit_code", MW_HB_K_I32, beat.exit_code, -1, 255, .doc = "exit status; -1 unknown or not exited"),
	INT("exit_signal", MW_HB_K_I32, beat.exit_signal, 0, 128, .doc = "the signal that ended it; 0 none"),
	STR("moving", beat.moving, .flags = MW_HB_F_OPT, .valid = valid_moving,
	    .syntax = "`recv_buffer`, `io`, comma-separated", .doc = "slow: what moved"),
	INT("seq", MW_HB_K_U32, beat.seq, 1, INT32_MAX, .flags = MW_HB_F_OPT,
	    .doc = "tree overlay: the origin's sequence number (a receiver drops a duplicate)"),
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
	{.name = "port", .kind = MW_HB_K_U16, .offset = offsetof(struct mw_hb_up, port), .min = 1, .max = 65535,
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
	    .elem = node_elem, .count_offset = U(apreq.n), .doc = "the nodes meant (`[]`: every node that receives it)"),
	INT("round", MW_HB_K_U32, apreq.round, 1, INT32_MAX, .doc = "the suspicious event, echoed in its APOUTs"),
	END,
};
static const struct mw_hb_field apout_f[] = {
	INT("round", MW_HB_K_U32, apout.round, 1, INT32_MAX, .doc = "the APREQ's"),
	STR("node", apout.node, NAME, .doc = "where it ran"),
	STR("name", apout.name, .valid = mw_hb_valid_ap_name, .min = 1,
	    .syntax = "`[A-Za-z0-9._-]`, starting alphanumeric", .doc = "the site's name of the command"),
	INT("status", MW_HB_K_I32, apout.status, -1, 255, .doc = "exit status; -1 did not exit normally"),
	INT("signal", MW_HB_K_I32, apout.signal, 0, 128, .doc = "the signal that ended it (9 when killed at a bound)"),
	BOOL("timed_out", apout.timed_out, .doc = "killed at the time bound"),
	BOOL("truncated", apout.truncated, .doc = "output cut at the size bound (and killed)"),
	INT("bytes", MW_HB_K_U64, apout.bytes, 0, INT64_MAX, .doc = "output bytes read"),
	NUM("elapsed_s", apout.elapsed_s, 0, 1e9, .flags = MW_HB_F_LT_MAX, .doc = "run time"),
	STR("error", apout.error, .doc = "why it could not run (`\"\"`: it ran)"),
	PTR("output", MW_HB_K_TEXT, apout.output, .valid = mw_hb_valid_ap_output,
	    .syntax = "printable ASCII, `\\n` and `\\t`; at most 1 MiB (`MW_HB_AP_OUTPUT_MAX`)", .doc = "stdout and stderr as they came"),
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

const char *mw_hb_type_name(int type)
{
	const struct mw_hb_layout *l = mw_hb_layout(type);
	return l ? l->name : "?";
}

/* ------------------------------------------------------ walking a layout */

#define AT(T, base, off) ((T *)(void *)((char *)(base) + (off)))

static int64_t int_value(const struct mw_hb_field *f, const char *p)
{
	switch (f->kind) {
	case MW_HB_K_I32:
		return *(const int32_t *)(const void *)p;
	case MW_HB_K_U16:
		return *(const uint16_t *)(const void *)p;
	case MW_HB_K_U32:
		return *(const uint32_t *)(const void *)p;
	default:
		return 0;
	}
}

static int num_ok(const struct mw_hb_field *f, double v)
{
	return isfinite(v) && (f->flags & MW_HB_F_GT_MIN ? v > f->dmin : v >= f->dmin) &&
	       (f->flags & MW_HB_F_LT_MAX ? v < f->dmax : v <= f->dmax);
}

static int str_ok(const struct mw_hb_field *f, const char *s)
{
	return valid_text(s, f->size - 1) && strlen(s) >= (size_t)f->min && (!f->valid || f->valid(s));
}

static const struct mw_hb_field *find_field(const struct mw_hb_field *fs, const char *name)
{
	for (; fs->name; fs++)
		if (strcmp(fs->name, name) == 0)
			return fs;
	return NULL;
}

/* The elements of a list, and how many. */
static char *list_elems(const struct mw_hb_field *f, const void *base, size_t *n)
{
	*n = *AT(const size_t, base, f->count_offset);
	return f->flags & MW_HB_F_INLINE ? AT(char, base, f->offset) : *AT(char *, base, f->offset);
}

/* 1 if the encoder leaves f out of the object at base. */
static int left_out(const struct mw_hb_field *fs, const struct mw_hb_field *f, const void *base)
{
	const char *p = AT(const char, base, f->offset);
	if (f->unless)
		return *AT(const int, base, find_field(fs, f->unless)->offset) != 0;
	if (!(f->flags & MW_HB_F_OPT))
		return 0;
	return f->kind == MW_HB_K_STR ? !*p : int_value(f, p) == 0;
}

static int fields_ok(const struct mw_hb_field *fs, const void *base);

/* 1 if the value of f at base is one the decoder accepts. */
static int field_ok(const struct mw_hb_field *f, const void *base)
{
	const char *p = AT(const char, base, f->offset);
	size_t n;
	const char *e;

	switch (f->kind) {
	case MW_HB_K_I32:
	case MW_HB_K_U16:
	case MW_HB_K_U32: {
		int64_t v = int_value(f, p);
		return (f->flags & MW_HB_F_OPT && v == 0) || (v >= f->min && v <= f->max);
	}
	case MW_HB_K_U64: {
		uint64_t v = *AT(const uint64_t, p, 0);
		return f->flags & MW_HB_F_WRAP63 || (v >= (uint64_t)f->min && v <= (uint64_t)f->max);
	}
	case MW_HB_K_BOOL:
		return 1;
	case MW_HB_K_NUM:
		return num_ok(f, *AT(const double, p, 0));
	case MW_HB_K_STR:
		return str_ok(f, p);
	case MW_HB_K_TEXT:
		return *AT(char *const, p, 0) && f->valid(*AT(char *const, p, 0));
	case MW_HB_K_STATE: {
		enum mw_hb_state s = *AT(const enum mw_hb_state, p, 0);
		return s > 0 && s < MW_HB_NSTATES;
	}
	case MW_HB_K_OBJ:
	case MW_HB_K_WHOLE:
		return *AT(char *const, p, 0) != NULL;
	case MW_HB_K_LIST:
	case MW_HB_K_OBJLIST:
		e = list_elems(f, base, &n);
		if (n > (uint64_t)f->max || (n && !e))
			return 0;
		for (size_t i = 0; i < n; i++)
			if (!(f->kind == MW_HB_K_LIST ? field_ok(f->elem, e + i * f->size)
						      : fields_ok(f->elem, e + i * f->size)))
				return 0;
		return 1;
	}
	return 0;
}

static int fields_ok(const struct mw_hb_field *fs, const void *base)
{
	for (; fs->name; fs++)
		if (!field_ok(fs, base))
			return 0;
	return 1;
}

static int message_ok(const struct mw_hb_layout *l, const void *base)
{
	return fields_ok(l->fields, base) && (!l->check || l->check(base));
}

int mw_hb_beat_valid(const struct mw_hb_beat *b)
{
	return message_ok(&layouts[MW_HB_HEARTBEAT], b);
}

/* ---------------------------------------------------------------- encode */

static json_object *encode_object(const struct mw_hb_field *fs, const void *base);

/* The JSON value of f at base (NULL: an OBJ's text is not an object). */
static json_object *encode_value(const struct mw_hb_field *f, const void *base)
{
	const char *p = AT(const char, base, f->offset);
	json_object *v;
	size_t n;
	const char *e;

	switch (f->kind) {
	case MW_HB_K_I32:
	case MW_HB_K_U16:
		return json_object_new_int((int32_t)int_value(f, p));
	case MW_HB_K_U32:
		return json_object_new_int64(int_value(f, p));
	case MW_HB_K_U64: {
		uint64_t x = *AT(const uint64_t, p, 0);
		return json_object_new_int64((int64_t)(f->flags & MW_HB_F_WRAP63 ? x & INT64_MAX : x));
	}
	case MW_HB_K_BOOL:
		return json_object_new_boolean(*AT(const int, p, 0) != 0);
	case MW_HB_K_NUM:
		return json_object_new_double(*AT(const double, p, 0));
	case MW_HB_K_STR:
		return json_object_new_string(p);
	case MW_HB_K_TEXT:
		return json_object_new_string(*AT(char *const, p, 0));
	case MW_HB_K_STATE:
		return json_object_new_string(mw_hb_state_name(*AT(const enum mw_hb_state, p, 0)));
	case MW_HB_K_OBJ:
	case MW_HB_K_WHOLE:
		v = json_tokener_parse(*AT(char *const, p, 0));
		if (v && !json_object_is_type(v, json_type_object)) {
			json_object_put(v);
			v = NULL;
		}
		return v;
	case MW_HB_K_LIST:
	case MW_HB_K_OBJLIST:
		e = list_elems(f, base, &n);
		v = json_object_new_array();
		for (size_t i = 0; v && i < n; i++) {
			json_object *x = f->kind == MW_HB_K_LIST ? encode_value(f->elem, e + i * f->size)
								 : encode_object(f->elem, e + i * f->size);
			if (!x) {
				json_object_put(v);
				return NULL;
			}
			json_object_array_add(v, x);
		}
		return v;
	}
	return NULL;
}

static json_object *encode_object(const struct mw_hb_field *fs, const void *base)
{
	json_object *o = json_object_new_object();
	for (const struct mw_hb_field *f = fs; o && f->name; f++) {
		json_object *v;
		if (left_out(fs, f, base))
			continue;
		v = encode_value(f, base);
		if (!v) {
			json_object_put(o);
			return NULL;
		}
		json_object_object_add(o, f->name, v);
	}
	return o;
}

static json_object *encode_payload(const struct mw_hb_msg *m)
{
	const struct mw_hb_layout *l = mw_hb_layout(m->type);
	json_object *o = NULL;

	if (l && message_ok(l, &m->u))
		o = l->fields[0].kind == MW_HB_K_WHOLE ? encode_value(l->fields, &m->u)
						       : encode_object(l->fields, &m->u);
	if (!o)
		errno = EINVAL;
	return o;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

int mw_hb_encode(const struct mw_hb_msg *m, uint8_t **buf, size_t *len)
{
	json_object *o = encode_payload(m);
	const char *txt;
	size_t tlen;
	uint8_t *b;

	if (!o)
		return -1;
	txt = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	tlen = strlen(txt);
	if (tlen > MW_HB_MAX_PAYLOAD) {
		json_object_put(o);
		errno = E2BIG;
		return -1;
	}
	b = malloc(MW_HB_HDR_LEN + tlen);
	if (!b) {
		json_object_put(o);
		errno = ENOMEM;
		return -1;
	}
	put_be32(b, MW_HB_MAGIC);
	b[4] = MW_HB_VERSION;
	b[5] = (uint8_t)m->type;
	b[6] = b[7] = 0;
	put_be32(b + 8, (uint32_t)tlen);
	memcpy(b + MW_HB_HDR_LEN, txt, tlen);
	json_object_put(o);
	*buf = b;
	*len = MW_HB_HDR_LEN + tlen;
	return 0;
}

/* ---------------------------------------------------------------- decode */

enum mw_hb_err mw_hb_frame_check(const uint8_t *buf, size_t len, size_t *frame_len)
{
	uint32_t plen;

	/* Check what is there as early as possible: a stream of garbage is
	 * rejected on its first bytes, not after 12. */
	if (len >= 4 && get_be32(buf) != MW_HB_MAGIC)
		return MW_HB_E_MAGIC;
	for (size_t i = 0; i < len && i < 4; i++)
		if (buf[i] != (uint8_t)(MW_HB_MAGIC >> (24 - 8 * i)))
			return MW_HB_E_MAGIC;
	if (len >= 5 && buf[4] != MW_HB_VERSION)
		return MW_HB_E_VERSION;
	if (len >= 6 && (buf[5] == 0 || buf[5] >= MW_HB_NTYPES))
		return MW_HB_E_TYPE;
	if (len >= 8 && (buf[6] || buf[7]))
		return MW_HB_E_FLAGS;
	if (len < MW_HB_HDR_LEN)
		return MW_HB_E_AGAIN;
	plen = get_be32(buf + 8);
	if (plen > MW_HB_MAX_PAYLOAD)
		return MW_HB_E_LONG;
	if (len < MW_HB_HDR_LEN + (size_t)plen)
		return MW_HB_E_AGAIN;
	*frame_len = MW_HB_HDR_LEN + plen;
	return MW_HB_OK;
}

/* An integer value in [min, max]. */
static int int_of(json_object *v, int64_t min, int64_t max, int64_t *out)
{
	int64_t x;
	if (!json_object_is_type(v, json_type_int))
		return -1;
	errno = 0;
	x = json_object_get_int64(v);
	if (errno || x < min || x > max)
		return -1;
	*out = x;
	return 0;
}

/* A string value without a NUL inside, or NULL. */
static const char *str_of(json_object *v)
{
	const char *s;
	if (!json_object_is_type(v, json_type_string))
		return NULL;
	s = json_object_get_string(v);
	return (size_t)json_object_get_string_len(v) == strlen(s) ? s : NULL;
}

/* Compact JSON text of v (malloc'd), or NULL. */
static char *json_text(json_object *v)
{
	return strdup(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
							     JSON_C_TO_STRING_NOSLASHESCAPE));
}

static int decode_object(const struct mw_hb_field *fs, json_object *o, void *base);

/* Store the JSON value v as f at base.  Return 0, or -1 if it breaks f's
 * rules (or memory is short). */
static int decode_value(const struct mw_hb_field *f, json_object *v, void *base)
{
	char *p = AT(char, base, f->offset), *e;
	const char *s;
	int64_t x;
	size_t n;

	switch (f->kind) {
	case MW_HB_K_I32:
	case MW_HB_K_U16:
	case MW_HB_K_U32:
	case MW_HB_K_U64:
		if (int_of(v, f->min, f->max, &x))
			return -1;
		if (f->kind == MW_HB_K_I32)
			*AT(int32_t, p, 0) = (int32_t)x;
		else if (f->kind == MW_HB_K_U16)
			*AT(uint16_t, p, 0) = (uint16_t)x;
		else if (f->kind == MW_HB_K_U32)
			*AT(uint32_t, p, 0) = (uint32_t)x;
		else
			*AT(uint64_t, p, 0) = (uint64_t)x;
		return 0;
	case MW_HB_K_BOOL:
		if (!json_object_is_type(v, json_type_boolean))
			return -1;
		*AT(int, p, 0) = json_object_get_boolean(v);
		return 0;
	case MW_HB_K_NUM:
		if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
			return -1;
		*AT(double, p, 0) = json_object_get_double(v);
		return num_ok(f, *AT(double, p, 0)) ? 0 : -1;
	case MW_HB_K_STR:
		s = str_of(v);
		if (!s || !str_ok(f, s))
			return -1;
		memcpy(p, s, strlen(s) + 1);
		return 0;
	case MW_HB_K_TEXT:
		s = str_of(v);
		if (!s || !f->valid(s))
			return -1;
		*AT(char *, p, 0) = strdup(s);
		return *AT(char *, p, 0) ? 0 : -1;
	case MW_HB_K_STATE:
		s = str_of(v);
		if (!s || (x = mw_hb_state_parse(s)) < 0)
			return -1;
		*AT(enum mw_hb_state, p, 0) = (enum mw_hb_state)x;
		return 0;
	case MW_HB_K_OBJ:
	case MW_HB_K_WHOLE:
		if (!json_object_is_type(v, json_type_object))
			return -1;
		*AT(char *, p, 0) = json_text(v);
		return *AT(char *, p, 0) ? 0 : -1;
	case MW_HB_K_LIST:
	case MW_HB_K_OBJLIST:
		if (!json_object_is_type(v, json_type_array))
			return -1;
		n = json_object_array_length(v);
		if (n > (uint64_t)f->max)
			return -1;
		if (f->flags & MW_HB_F_INLINE)
			e = p;
		else if (n && !(e = *AT(char *, p, 0) = calloc(n, f->size)))
			return -1;
		*AT(size_t, base, f->count_offset) = n;
		for (size_t i = 0; i < n; i++) {
			json_object *y = json_object_array_get_idx(v, i);
			if (f->kind == MW_HB_K_LIST ? decode_value(f->elem, y, e + i * f->size)
						    : !json_object_is_type(y, json_type_object) ||
							      decode_object(f->elem, y, e + i * f->size))
				return -1;
		}
		return 0;
	}
	return -1;
}

static int decode_object(const struct mw_hb_field *fs, json_object *o, void *base)
{
	for (const struct mw_hb_field *f = fs; f->name; f++) {
		json_object *v;
		if (f->unless && *AT(int, base, find_field(fs, f->unless)->offset))
			continue; /* (decoded before: the table names it first) */
		if (!json_object_object_get_ex(o, f->name, &v)) {
			if (f->flags & MW_HB_F_OPT)
				continue;
			return -1;
		}
		if (decode_value(f, v, base))
			return -1;
	}
	return 0;
}

static int decode_payload(json_object *o, struct mw_hb_msg *m)
{
	const struct mw_hb_layout *l = mw_hb_layout(m->type);
	if (!l)
		return -1;
	if (l->fields[0].kind == MW_HB_K_WHOLE ? decode_value(l->fields, o, &m->u)
					       : decode_object(l->fields, o, &m->u))
		return -1;
	return !l->check || l->check(&m->u) ? 0 : -1;
}

enum mw_hb_err mw_hb_decode(const uint8_t *buf, size_t len, struct mw_hb_msg *m)
{
	size_t flen = 0;
	enum mw_hb_err e;
	json_tokener *tok;
	json_object *o;
	const char *p;
	size_t plen;

	memset(m, 0, sizeof *m);
	e = mw_hb_frame_check(buf, len, &flen);
	if (e != MW_HB_OK)
		return e;
	if (flen != len)
		return MW_HB_E_LONG; /* trailing bytes: not exactly one frame */
	p = (const char *)buf + MW_HB_HDR_LEN;
	plen = len - MW_HB_HDR_LEN;
	if (plen == 0 || memchr(p, 0, plen))
		return MW_HB_E_JSON;
	tok = json_tokener_new_ex(32);
	if (!tok)
		return MW_HB_E_JSON;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, p, (int)plen);
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != plen || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		json_tokener_free(tok);
		return MW_HB_E_JSON;
	}
	json_tokener_free(tok);
	m->type = (enum mw_hb_type)buf[5];
	if (decode_payload(o, m)) {
		json_object_put(o);
		mw_hb_msg_free(m);
		return MW_HB_E_FIELD;
	}
	json_object_put(o);
	return MW_HB_OK;
}

void mw_hb_msg_free(struct mw_hb_msg *m)
{
	const struct mw_hb_layout *l = m ? mw_hb_layout(m->type) : NULL;
	for (const struct mw_hb_field *f = l ? l->fields : NULL; f && f->name; f++)
		if (f->kind == MW_HB_K_TEXT || f->kind == MW_HB_K_OBJ || f->kind == MW_HB_K_WHOLE ||
		    ((f->kind == MW_HB_K_LIST || f->kind == MW_HB_K_OBJLIST) && !(f->flags & MW_HB_F_INLINE)))
			free(*AT(char *, &m->u, f->offset));
	if (m)
		memset(m, 0, sizeof *m);
}
