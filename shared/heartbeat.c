/* heartbeat.c - encode and decode agent <-> collector frames (heartbeat.h):
 * the header, and each type's payload by walking its layout (hb_layout.c). */
#include "heartbeat.h"
#include "mw_json.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

static const char *const state_names[MW_HB_NSTATES] = {
	"?", "in_mpi", "computing", "exited", "vanished", "resumed", "finalized", "slow",
	"in_init",
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

/* 1 to max of [A-Za-z0-9._-], starting alphanumeric. */
static int valid_word(const char *s, size_t max)
{
	size_t n = 0;
	if (!s || !is_alnum(s[0]))
		return 0;
	for (; s[n]; n++)
		if (!(is_alnum(s[n]) || s[n] == '.' || s[n] == '_' || s[n] == '-') || n >= max)
			return 0;
	return 1;
}

int mw_hb_valid_name(const char *s)
{
	return valid_word(s, MW_HB_STR_MAX);
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

int mw_hb_valid_ap_name(const char *s)
{
	return valid_word(s, MW_HB_AP_NAME_MAX);
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

void mw_hb_challenge_make(struct mw_hb_msg *m, const char *nonce, const char *job, const char *cred)
{
	memset(m, 0, sizeof *m);
	m->type = MW_HB_CHALLENGE;
	snprintf(m->u.challenge.nonce, sizeof m->u.challenge.nonce, "%s", nonce);
	snprintf(m->u.challenge.job, sizeof m->u.challenge.job, "%s", job);
	snprintf(m->u.challenge.cred, sizeof m->u.challenge.cred, "%s", cred);
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
	case MW_HB_K_BOOL: /* an optional one is left out when false */
		return *(const int *)(const void *)p != 0;
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
	if (f->kind == MW_HB_K_U64)
		return *AT(const uint64_t, p, 0) == 0;
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
		return f->flags & MW_HB_F_WRAP63 || (f->flags & MW_HB_F_OPT && v == 0) ||
		       (v >= (uint64_t)f->min && v <= (uint64_t)f->max);
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
	return message_ok(mw_hb_layout(MW_HB_HEARTBEAT), b);
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
		if (mw_json_int_of(v, f->min, f->max, &x))
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
		s = mw_json_str_of(v);
		if (!s || !str_ok(f, s))
			return -1;
		memcpy(p, s, strlen(s) + 1);
		return 0;
	case MW_HB_K_TEXT:
		s = mw_json_str_of(v);
		if (!s || !f->valid(s))
			return -1;
		*AT(char *, p, 0) = strdup(s);
		return *AT(char *, p, 0) ? 0 : -1;
	case MW_HB_K_STATE:
		s = mw_json_str_of(v);
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
