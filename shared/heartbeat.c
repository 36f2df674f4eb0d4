/* heartbeat.c - encode and decode agent <-> collector frames (heartbeat.h). */
#include "heartbeat.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

static const char *const type_names[MW_HB_NTYPES] = {
	"?", "hello", "welcome", "rank", "heartbeat", "dump", "bye", "dumpreq", "challenge", "agg",
	[MW_HB_ROLE] = "role",
	[MW_HB_LISTEN] = "listen",
	[MW_HB_CHILD] = "child",
	[MW_HB_PROBEREQ] = "probereq",
	[MW_HB_PROBESUM] = "probesum",
	[MW_HB_VERIFY] = "verify",
	[MW_HB_APREQ] = "apreq",
	[MW_HB_APOUT] = "apout",
};
static const char *const state_names[MW_HB_NSTATES] = {
	"?", "in_mpi", "computing", "exited", "vanished", "resumed", "finalized", "slow",
};
static const char *const err_names[MW_HB_E_NCODES] = {
	"ok", "incomplete", "bad magic", "unsupported version", "unknown type", "bad flags",
	"payload too long", "payload is not a JSON object", "bad field",
};

const char *mw_hb_type_name(int type)
{
	return (type > 0 && type < MW_HB_NTYPES && type_names[type]) ? type_names[type] : "?";
}

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

static int probereq_valid(const struct mw_hb_probereq *r)
{
	return r->round >= 1 && r->round <= INT32_MAX && r->port >= 1 && r->tries >= 1 &&
	       r->tries <= MW_HB_PROBE_TRIES_MAX && isfinite(r->wait_s) && r->wait_s > 0 &&
	       r->wait_s <= MW_HB_PROBE_WAIT_MAX && isfinite(r->budget_s) && r->budget_s > 0 &&
	       r->budget_s <= r->wait_s;
}

static int apout_valid(const struct mw_hb_apout *a)
{
	return a->round >= 1 && a->round <= INT32_MAX && mw_hb_valid_name(a->node) &&
	       mw_hb_valid_ap_name(a->name) && a->status >= -1 && a->status <= 255 &&
	       a->signal >= 0 && a->signal <= 128 && a->bytes <= INT64_MAX &&
	       isfinite(a->elapsed_s) && a->elapsed_s >= 0 && a->elapsed_s < 1e9 &&
	       valid_text(a->error, sizeof a->error - 1) && mw_hb_valid_ap_output(a->output);
}

/* ---------------------------------------------------------------- encode */

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

int mw_hb_beat_valid(const struct mw_hb_beat *b)
{
	return b->rank >= 0 && b->rank <= MW_HB_MAX_RANK && b->size > b->rank &&
	       b->size <= MW_HB_MAX_RANK + 1 && b->pid >= 0 && b->state > 0 &&
	       b->state < MW_HB_NSTATES && valid_text(b->call, MW_HB_STR_MAX) &&
	       valid_kind(b->kind) && valid_text(b->comm, MW_HB_STR_MAX) && b->peer_world >= -2 &&
	       b->peer_world <= MW_HB_MAX_RANK && b->root_world >= -1 &&
	       b->root_world <= MW_HB_MAX_RANK && b->tag >= -1 && isfinite(b->idle_s) &&
	       b->idle_s >= 0 && b->idle_s < 1e9 && b->exit_code >= -1 && b->exit_code <= 255 &&
	       b->exit_signal >= 0 && b->exit_signal <= 128 && valid_moving(b->moving);
}

static json_object *encode_payload(const struct mw_hb_msg *m)
{
	json_object *o = json_object_new_object();
	if (!o)
		return NULL;
	switch (m->type) {
	case MW_HB_HELLO: {
		const struct mw_hb_hello *h = &m->u.hello;
		if (!mw_hb_valid_job(h->job) || !mw_hb_valid_name(h->node) || h->pid < 0 || h->ranks < 0)
			goto bad;
		json_object_object_add(o, "job", json_object_new_string(h->job));
		json_object_object_add(o, "node", json_object_new_string(h->node));
		json_object_object_add(o, "pid", json_object_new_int(h->pid));
		json_object_object_add(o, "ranks", json_object_new_int(h->ranks));
		if (!valid_text(h->cred, MW_HB_CRED_MAX))
			goto bad;
		json_object_object_add(o, "cred", json_object_new_string(h->cred));
		break;
	}
	case MW_HB_CHALLENGE:
		if (!valid_nonce(m->u.challenge.nonce) || !mw_hb_valid_job(m->u.challenge.job) ||
		    !m->u.challenge.cred[0] || !valid_text(m->u.challenge.cred, MW_HB_CRED_MAX))
			goto bad;
		json_object_object_add(o, "nonce", json_object_new_string(m->u.challenge.nonce));
		json_object_object_add(o, "job", json_object_new_string(m->u.challenge.job));
		json_object_object_add(o, "cred", json_object_new_string(m->u.challenge.cred));
		break;
	case MW_HB_VERIFY:
		if (!valid_nonce(m->u.verify.nonce))
			goto bad;
		json_object_object_add(o, "nonce", json_object_new_string(m->u.verify.nonce));
		break;
	case MW_HB_WELCOME:
		if (!valid_text(m->u.welcome.error, sizeof m->u.welcome.error - 1))
			goto bad;
		json_object_object_add(o, "ok", json_object_new_boolean(m->u.welcome.ok != 0));
		if (!m->u.welcome.ok)
			json_object_object_add(o, "error", json_object_new_string(m->u.welcome.error));
		break;
	case MW_HB_RANK: {
		const struct mw_hb_rank *r = &m->u.rank;
		if (r->rank < 0 || r->rank > MW_HB_MAX_RANK || r->size <= r->rank ||
		    r->size > MW_HB_MAX_RANK + 1 || r->pid < 0 || !mw_hb_valid_name(r->host))
			goto bad;
		json_object_object_add(o, "rank", json_object_new_int(r->rank));
		json_object_object_add(o, "size", json_object_new_int(r->size));
		json_object_object_add(o, "pid", json_object_new_int(r->pid));
		json_object_object_add(o, "host", json_object_new_string(r->host));
		break;
	}
	case MW_HB_HEARTBEAT: {
		const struct mw_hb_beat *b = &m->u.beat;
		if (!mw_hb_beat_valid(b))
			goto bad;
		json_object_object_add(o, "rank", json_object_new_int(b->rank));
		json_object_object_add(o, "size", json_object_new_int(b->size));
		json_object_object_add(o, "pid", json_object_new_int(b->pid));
		json_object_object_add(o, "state", json_object_new_string(mw_hb_state_name(b->state)));
		json_object_object_add(o, "call", json_object_new_string(b->call));
		json_object_object_add(o, "kind", json_object_new_string(b->kind));
		json_object_object_add(o, "comm", json_object_new_string(b->comm));
		json_object_object_add(o, "peer_world", json_object_new_int(b->peer_world));
		json_object_object_add(o, "root_world", json_object_new_int(b->root_world));
		json_object_object_add(o, "tag", json_object_new_int(b->tag));
		json_object_object_add(o, "a", json_object_new_int64((int64_t)(b->a & INT64_MAX)));
		json_object_object_add(o, "b", json_object_new_int64((int64_t)(b->b & INT64_MAX)));
		json_object_object_add(o, "completions",
				       json_object_new_int64((int64_t)(b->completions & INT64_MAX)));
		json_object_object_add(o, "calls", json_object_new_int64((int64_t)(b->calls & INT64_MAX)));
		json_object_object_add(o, "idle_s", json_object_new_double(b->idle_s));
		json_object_object_add(o, "exit_code", json_object_new_int(b->exit_code));
		json_object_object_add(o, "exit_signal", json_object_new_int(b->exit_signal));
		if (b->moving[0])
			json_object_object_add(o, "moving", json_object_new_string(b->moving));
		if (b->seq > INT32_MAX)
			goto bad;
		if (b->seq)
			json_object_object_add(o, "seq", json_object_new_int64(b->seq));
		break;
	}
	case MW_HB_DUMP: {
		json_object *d;
		if (m->u.dump.rank < 0 || m->u.dump.rank > MW_HB_MAX_RANK || !m->u.dump.json)
			goto bad;
		d = json_tokener_parse(m->u.dump.json);
		if (!d || !json_object_is_type(d, json_type_object)) {
			json_object_put(d);
			goto bad;
		}
		json_object_object_add(o, "rank", json_object_new_int(m->u.dump.rank));
		json_object_object_add(o, "dump", d);
		break;
	}
	case MW_HB_BYE:
		if (!valid_text(m->u.bye.reason, sizeof m->u.bye.reason - 1))
			goto bad;
		json_object_object_add(o, "reason", json_object_new_string(m->u.bye.reason));
		break;
	case MW_HB_DUMPREQ: {
		json_object *a = json_object_new_array();
		json_object_object_add(o, "ranks", a);
		if (m->u.dumpreq.n > 65536)
			goto bad;
		for (size_t i = 0; i < m->u.dumpreq.n; i++) {
			if (m->u.dumpreq.ranks[i] < 0 || m->u.dumpreq.ranks[i] > MW_HB_MAX_RANK)
				goto bad;
			json_object_array_add(a, json_object_new_int(m->u.dumpreq.ranks[i]));
		}
		break;
	}
	case MW_HB_APREQ: {
		json_object *a = json_object_new_array();
		json_object_object_add(o, "nodes", a);
		if (m->u.apreq.round < 1 || m->u.apreq.round > INT32_MAX ||
		    m->u.apreq.n > MW_HB_AP_NODES_MAX || (m->u.apreq.n && !m->u.apreq.nodes))
			goto bad;
		json_object_object_add(o, "round", json_object_new_int64(m->u.apreq.round));
		for (size_t i = 0; i < m->u.apreq.n; i++) {
			if (!mw_hb_valid_name(m->u.apreq.nodes[i]))
				goto bad;
			json_object_array_add(a, json_object_new_string(m->u.apreq.nodes[i]));
		}
		break;
	}
	case MW_HB_APOUT: {
		const struct mw_hb_apout *p = &m->u.apout;
		if (!apout_valid(p))
			goto bad;
		json_object_object_add(o, "round", json_object_new_int64(p->round));
		json_object_object_add(o, "node", json_object_new_string(p->node));
		json_object_object_add(o, "name", json_object_new_string(p->name));
		json_object_object_add(o, "status", json_object_new_int(p->status));
		json_object_object_add(o, "signal", json_object_new_int(p->signal));
		json_object_object_add(o, "timed_out", json_object_new_boolean(p->timed_out != 0));
		json_object_object_add(o, "truncated", json_object_new_boolean(p->truncated != 0));
		json_object_object_add(o, "bytes", json_object_new_int64((int64_t)p->bytes));
		json_object_object_add(o, "elapsed_s", json_object_new_double(p->elapsed_s));
		json_object_object_add(o, "error", json_object_new_string(p->error));
		json_object_object_add(o, "output", json_object_new_string(p->output));
		break;
	}
	case MW_HB_PROBEREQ: {
		const struct mw_hb_probereq *r = &m->u.probereq;
		if (!probereq_valid(r))
			goto bad;
		json_object_object_add(o, "round", json_object_new_int64(r->round));
		json_object_object_add(o, "port", json_object_new_int(r->port));
		json_object_object_add(o, "tries", json_object_new_int(r->tries));
		json_object_object_add(o, "budget_s", json_object_new_double(r->budget_s));
		json_object_object_add(o, "wait_s", json_object_new_double(r->wait_s));
		break;
	}
	case MW_HB_AGG:
	case MW_HB_PROBESUM: {
		json_object *a;
		const char *txt = m->type == MW_HB_AGG ? m->u.agg.json : m->u.probesum.json;
		if (!txt)
			goto bad;
		a = json_tokener_parse(txt);
		if (!a || !json_object_is_type(a, json_type_object)) {
			json_object_put(a);
			goto bad;
		}
		json_object_put(o);
		return a;
	}
	case MW_HB_ROLE: {
		json_object *a = json_object_new_array();
		json_object_object_add(o, "cp", json_object_new_boolean(m->u.role.cp != 0));
		json_object_object_add(o, "up", a);
		if (m->u.role.nup > MW_HB_UP_MAX)
			goto bad;
		for (size_t i = 0; i < m->u.role.nup; i++) {
			const struct mw_hb_up *u = &m->u.role.up[i];
			json_object *e;
			if (!mw_hb_valid_name(u->node) || !mw_hb_valid_name(u->host) || !u->port)
				goto bad;
			e = json_object_new_object();
			json_object_object_add(e, "node", json_object_new_string(u->node));
			json_object_object_add(e, "host", json_object_new_string(u->host));
			json_object_object_add(e, "port", json_object_new_int(u->port));
			json_object_array_add(a, e);
		}
		break;
	}
	case MW_HB_LISTEN:
		if (!m->u.listen.port)
			goto bad;
		json_object_object_add(o, "port", json_object_new_int(m->u.listen.port));
		break;
	case MW_HB_CHILD:
		if (!mw_hb_valid_name(m->u.child.node) || !mw_hb_valid_name(m->u.child.parent))
			goto bad;
		json_object_object_add(o, "node", json_object_new_string(m->u.child.node));
		json_object_object_add(o, "parent", json_object_new_string(m->u.child.parent));
		json_object_object_add(o, "up", json_object_new_boolean(m->u.child.up != 0));
		json_object_object_add(o, "bye", json_object_new_boolean(m->u.child.bye != 0));
		break;
	default:
		goto bad;
	}
	return o;
bad:
	json_object_put(o);
	errno = EINVAL;
	return NULL;
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

static int get_int(json_object *o, const char *key, int64_t min, int64_t max, int64_t *out)
{
	json_object *v;
	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return -1;
	errno = 0;
	int64_t x = json_object_get_int64(v);
	if (errno || x < min || x > max)
		return -1;
	*out = x;
	return 0;
}

static int get_i32(json_object *o, const char *key, int64_t min, int64_t max, int32_t *out)
{
	int64_t x;
	if (get_int(o, key, min, max, &x))
		return -1;
	*out = (int32_t)x;
	return 0;
}

static int get_u64(json_object *o, const char *key, uint64_t *out)
{
	int64_t x;
	if (get_int(o, key, 0, INT64_MAX, &x))
		return -1;
	*out = (uint64_t)x;
	return 0;
}

/* A number field (an integer or a double), finite. */
static int get_double(json_object *o, const char *key, double *out)
{
	json_object *v;
	if (!json_object_object_get_ex(o, key, &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return -1;
	*out = json_object_get_double(v);
	return isfinite(*out) ? 0 : -1;
}

/* Copy a string field (printable ASCII, < size chars) into dst. */
static int get_str(json_object *o, const char *key, char *dst, size_t size)
{
	json_object *v;
	const char *s;
	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return -1;
	s = json_object_get_string(v);
	if ((size_t)json_object_get_string_len(v) != strlen(s) || !valid_text(s, size - 1))
		return -1;
	memcpy(dst, s, strlen(s) + 1);
	return 0;
}

static int decode_payload(json_object *o, struct mw_hb_msg *m)
{
	switch (m->type) {
	case MW_HB_HELLO: {
		struct mw_hb_hello *h = &m->u.hello;
		if (get_str(o, "job", h->job, sizeof h->job) || !mw_hb_valid_job(h->job) ||
		    get_str(o, "node", h->node, sizeof h->node) || !mw_hb_valid_name(h->node) ||
		    get_i32(o, "pid", 0, INT32_MAX, &h->pid) ||
		    get_i32(o, "ranks", 0, MW_HB_MAX_RANK + 1, &h->ranks) ||
		    get_str(o, "cred", h->cred, sizeof h->cred))
			return -1;
		return 0;
	}
	case MW_HB_CHALLENGE:
		if (get_str(o, "nonce", m->u.challenge.nonce, sizeof m->u.challenge.nonce) ||
		    !valid_nonce(m->u.challenge.nonce) ||
		    get_str(o, "job", m->u.challenge.job, sizeof m->u.challenge.job) ||
		    !mw_hb_valid_job(m->u.challenge.job) ||
		    get_str(o, "cred", m->u.challenge.cred, sizeof m->u.challenge.cred) ||
		    !m->u.challenge.cred[0])
			return -1;
		return 0;
	case MW_HB_VERIFY:
		if (get_str(o, "nonce", m->u.verify.nonce, sizeof m->u.verify.nonce) ||
		    !valid_nonce(m->u.verify.nonce))
			return -1;
		return 0;
	case MW_HB_WELCOME: {
		json_object *v;
		if (!json_object_object_get_ex(o, "ok", &v) || !json_object_is_type(v, json_type_boolean))
			return -1;
		m->u.welcome.ok = json_object_get_boolean(v);
		m->u.welcome.error[0] = 0;
		if (!m->u.welcome.ok && get_str(o, "error", m->u.welcome.error, sizeof m->u.welcome.error))
			return -1;
		return 0;
	}
	case MW_HB_RANK: {
		struct mw_hb_rank *r = &m->u.rank;
		if (get_i32(o, "rank", 0, MW_HB_MAX_RANK, &r->rank) ||
		    get_i32(o, "size", r->rank + 1, MW_HB_MAX_RANK + 1, &r->size) ||
		    get_i32(o, "pid", 0, INT32_MAX, &r->pid) || get_str(o, "host", r->host, sizeof r->host) ||
		    !mw_hb_valid_name(r->host))
			return -1;
		return 0;
	}
	case MW_HB_HEARTBEAT: {
		struct mw_hb_beat *b = &m->u.beat;
		char st[16];
		json_object *v;
		int s;
		if (get_i32(o, "rank", 0, MW_HB_MAX_RANK, &b->rank) ||
		    get_i32(o, "size", b->rank + 1, MW_HB_MAX_RANK + 1, &b->size) ||
		    get_i32(o, "pid", 0, INT32_MAX, &b->pid) || get_str(o, "state", st, sizeof st) ||
		    (s = mw_hb_state_parse(st)) < 0 || get_str(o, "call", b->call, sizeof b->call) ||
		    get_str(o, "kind", b->kind, sizeof b->kind) || !valid_kind(b->kind) ||
		    get_str(o, "comm", b->comm, sizeof b->comm) ||
		    get_i32(o, "peer_world", -2, MW_HB_MAX_RANK, &b->peer_world) ||
		    get_i32(o, "root_world", -1, MW_HB_MAX_RANK, &b->root_world) ||
		    get_i32(o, "tag", -1, INT32_MAX, &b->tag) || get_u64(o, "a", &b->a) ||
		    get_u64(o, "b", &b->b) || get_u64(o, "completions", &b->completions) ||
		    get_u64(o, "calls", &b->calls) || get_i32(o, "exit_code", -1, 255, &b->exit_code) ||
		    get_i32(o, "exit_signal", 0, 128, &b->exit_signal))
			return -1;
		b->state = (enum mw_hb_state)s;
		if (!json_object_object_get_ex(o, "idle_s", &v) ||
		    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
			return -1;
		b->idle_s = json_object_get_double(v);
		if (!isfinite(b->idle_s) || b->idle_s < 0 || b->idle_s >= 1e9)
			return -1;
		if (json_object_object_get_ex(o, "moving", &v) &&
		    (get_str(o, "moving", b->moving, sizeof b->moving) || !valid_moving(b->moving)))
			return -1;
		if (json_object_object_get_ex(o, "seq", &v)) {
			int64_t seq;
			if (get_int(o, "seq", 1, INT32_MAX, &seq))
				return -1;
			b->seq = (uint32_t)seq;
		}
		return 0;
	}
	case MW_HB_DUMP: {
		json_object *d;
		const char *txt;
		if (get_i32(o, "rank", 0, MW_HB_MAX_RANK, &m->u.dump.rank) ||
		    !json_object_object_get_ex(o, "dump", &d) || !json_object_is_type(d, json_type_object))
			return -1;
		txt = json_object_to_json_string_ext(d, JSON_C_TO_STRING_PLAIN |
								JSON_C_TO_STRING_NOSLASHESCAPE);
		m->u.dump.json = strdup(txt);
		return m->u.dump.json ? 0 : -1;
	}
	case MW_HB_BYE:
		return get_str(o, "reason", m->u.bye.reason, sizeof m->u.bye.reason);
	case MW_HB_DUMPREQ: {
		json_object *a;
		size_t n;
		if (!json_object_object_get_ex(o, "ranks", &a) || !json_object_is_type(a, json_type_array))
			return -1;
		n = json_object_array_length(a);
		if (n > 65536)
			return -1;
		m->u.dumpreq.ranks = calloc(n ? n : 1, sizeof(int32_t));
		if (!m->u.dumpreq.ranks)
			return -1;
		m->u.dumpreq.n = n;
		for (size_t i = 0; i < n; i++) {
			json_object *v = json_object_array_get_idx(a, i);
			int64_t x;
			if (!json_object_is_type(v, json_type_int))
				return -1;
			x = json_object_get_int64(v);
			if (x < 0 || x > MW_HB_MAX_RANK)
				return -1;
			m->u.dumpreq.ranks[i] = (int32_t)x;
		}
		return 0;
	}
	case MW_HB_APREQ: {
		json_object *a;
		int64_t round;
		size_t n;
		if (get_int(o, "round", 1, INT32_MAX, &round) ||
		    !json_object_object_get_ex(o, "nodes", &a) || !json_object_is_type(a, json_type_array))
			return -1;
		m->u.apreq.round = (uint32_t)round;
		n = json_object_array_length(a);
		if (n > MW_HB_AP_NODES_MAX)
			return -1;
		if (n) {
			m->u.apreq.nodes = calloc(n, sizeof *m->u.apreq.nodes);
			if (!m->u.apreq.nodes)
				return -1;
		}
		m->u.apreq.n = n;
		for (size_t i = 0; i < n; i++) {
			json_object *v = json_object_array_get_idx(a, i);
			const char *t;
			if (!json_object_is_type(v, json_type_string))
				return -1;
			t = json_object_get_string(v);
			if ((size_t)json_object_get_string_len(v) != strlen(t) || !mw_hb_valid_name(t))
				return -1;
			memcpy(m->u.apreq.nodes[i], t, strlen(t) + 1);
		}
		return 0;
	}
	case MW_HB_APOUT: {
		struct mw_hb_apout *p = &m->u.apout;
		json_object *v;
		int64_t round;
		const char *t;
		if (get_int(o, "round", 1, INT32_MAX, &round) ||
		    get_str(o, "node", p->node, sizeof p->node) || !mw_hb_valid_name(p->node) ||
		    get_str(o, "name", p->name, sizeof p->name) || !mw_hb_valid_ap_name(p->name) ||
		    get_i32(o, "status", -1, 255, &p->status) || get_i32(o, "signal", 0, 128, &p->signal) ||
		    get_u64(o, "bytes", &p->bytes) || get_str(o, "error", p->error, sizeof p->error))
			return -1;
		p->round = (uint32_t)round;
		if (!json_object_object_get_ex(o, "timed_out", &v) || !json_object_is_type(v, json_type_boolean))
			return -1;
		p->timed_out = json_object_get_boolean(v);
		if (!json_object_object_get_ex(o, "truncated", &v) || !json_object_is_type(v, json_type_boolean))
			return -1;
		p->truncated = json_object_get_boolean(v);
		if (!json_object_object_get_ex(o, "elapsed_s", &v) ||
		    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
			return -1;
		p->elapsed_s = json_object_get_double(v);
		if (!isfinite(p->elapsed_s) || p->elapsed_s < 0 || p->elapsed_s >= 1e9)
			return -1;
		if (!json_object_object_get_ex(o, "output", &v) || !json_object_is_type(v, json_type_string))
			return -1;
		t = json_object_get_string(v);
		if ((size_t)json_object_get_string_len(v) != strlen(t) || !mw_hb_valid_ap_output(t))
			return -1;
		p->output = strdup(t);
		return p->output ? 0 : -1;
	}
	case MW_HB_AGG:
		/* the aggregate's fields are tree/mwt_agg.c's to check */
		m->u.agg.json = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
									  JSON_C_TO_STRING_NOSLASHESCAPE));
		return m->u.agg.json ? 0 : -1;
	case MW_HB_PROBESUM:
		/* the summary's fields are tree/mwt_probe.c's to check */
		m->u.probesum.json = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
										JSON_C_TO_STRING_NOSLASHESCAPE));
		return m->u.probesum.json ? 0 : -1;
	case MW_HB_PROBEREQ: {
		struct mw_hb_probereq *r = &m->u.probereq;
		int64_t round;
		int32_t port;
		if (get_int(o, "round", 1, INT32_MAX, &round) || get_i32(o, "port", 1, 65535, &port) ||
		    get_i32(o, "tries", 1, MW_HB_PROBE_TRIES_MAX, &r->tries) ||
		    get_double(o, "budget_s", &r->budget_s) || get_double(o, "wait_s", &r->wait_s))
			return -1;
		r->round = (uint32_t)round;
		r->port = (uint16_t)port;
		return probereq_valid(r) ? 0 : -1;
	}
	case MW_HB_ROLE: {
		json_object *a, *v;
		size_t n;
		if (!json_object_object_get_ex(o, "cp", &v) || !json_object_is_type(v, json_type_boolean) ||
		    !json_object_object_get_ex(o, "up", &a) || !json_object_is_type(a, json_type_array))
			return -1;
		m->u.role.cp = json_object_get_boolean(v);
		n = json_object_array_length(a);
		if (n > MW_HB_UP_MAX)
			return -1;
		for (size_t i = 0; i < n; i++) {
			json_object *e = json_object_array_get_idx(a, i);
			struct mw_hb_up *u = &m->u.role.up[i];
			int32_t port;
			if (!json_object_is_type(e, json_type_object) ||
			    get_str(e, "node", u->node, sizeof u->node) || !mw_hb_valid_name(u->node) ||
			    get_str(e, "host", u->host, sizeof u->host) || !mw_hb_valid_name(u->host) ||
			    get_i32(e, "port", 1, 65535, &port))
				return -1;
			u->port = (uint16_t)port;
		}
		m->u.role.nup = n;
		return 0;
	}
	case MW_HB_LISTEN: {
		int32_t port;
		if (get_i32(o, "port", 1, 65535, &port))
			return -1;
		m->u.listen.port = (uint16_t)port;
		return 0;
	}
	case MW_HB_CHILD: {
		json_object *u, *b;
		if (get_str(o, "node", m->u.child.node, sizeof m->u.child.node) ||
		    !mw_hb_valid_name(m->u.child.node) ||
		    get_str(o, "parent", m->u.child.parent, sizeof m->u.child.parent) ||
		    !mw_hb_valid_name(m->u.child.parent) || !json_object_object_get_ex(o, "up", &u) ||
		    !json_object_is_type(u, json_type_boolean) || !json_object_object_get_ex(o, "bye", &b) ||
		    !json_object_is_type(b, json_type_boolean))
			return -1;
		m->u.child.up = json_object_get_boolean(u);
		m->u.child.bye = json_object_get_boolean(b);
		return 0;
	}
	default:
		return -1;
	}
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
	if (!m)
		return;
	if (m->type == MW_HB_DUMP)
		free(m->u.dump.json);
	else if (m->type == MW_HB_DUMPREQ)
		free(m->u.dumpreq.ranks);
	else if (m->type == MW_HB_AGG)
		free(m->u.agg.json);
	else if (m->type == MW_HB_PROBESUM)
		free(m->u.probesum.json);
	else if (m->type == MW_HB_APREQ)
		free(m->u.apreq.nodes);
	else if (m->type == MW_HB_APOUT)
		free(m->u.apout.output);
	memset(m, 0, sizeof *m);
}
