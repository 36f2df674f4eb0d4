/* mwt_aggjson.c - a CP's aggregate to and from its JSON, the AGG frame's
 * payload (mwt_agg.h, doc/protocol.md "Tree aggregates"): the encoder and
 * the checked decoder (fuzz/fuzz_tree_agg.c). */
#include "mwt_aggstate.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "mwt_err.h"

/* The ranks of class c's events (malloc'd, *n of them; duplicates kept). */
static int *class_rank_list(const struct cls *c, size_t *n)
{
	int *r = malloc((c->ncov ? c->ncov : 1) * sizeof(int));
	size_t i;
	if (!r) {
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < c->ncov; i++)
		r[i] = c->cov[i].rank;
	*n = c->ncov;
	return r;
}

size_t mwt_agg_class_ranks(const struct mwt_agg *a, size_t i, char *buf, size_t len)
{
	size_t n, need;
	int *r;
	if (len)
		buf[0] = 0;
	if (i >= a->nc || !(r = class_rank_list(&a->c[i], &n)))
		return 0;
	need = mw_ranges_format(r, n, buf, len);
	free(r);
	return need;
}

/* v[0..n) in its own order as runs "5-7,2,9-10" (ascending runs of +1): a
 * malloc'd string, or NULL (ENOMEM). */
static char *runs_str(const int *v, size_t n)
{
	size_t cap = 16 * (n ? n : 1) + 1, used = 0, i = 0, j;
	char *s = malloc(cap);
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	s[0] = 0;
	while (i < n) {
		for (j = i; j + 1 < n && v[j + 1] == v[j] + 1; j++)
			;
		if (j > i)
			used += (size_t)snprintf(s + used, cap - used, "%s%d-%d", used ? "," : "", v[i], v[j]);
		else
			used += (size_t)snprintf(s + used, cap - used, "%s%d", used ? "," : "", v[i]);
		i = j + 1;
	}
	return s;
}

/* ranges of ints as a malloc'd string ("" when none), or NULL (ENOMEM) */
static char *ranges_str(const int *v, size_t n)
{
	size_t need = mw_ranges_format(v, n, NULL, 0);
	char *s = malloc(need + 1);
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	mw_ranges_format(v, n, s, need + 1);
	if (n && !s[0]) { /* mw_ranges_format could not allocate */
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

static int cover_cmp(const void *x, const void *y)
{
	const struct cover *a = x, *b = y;
	if (a->origin != b->origin)
		return a->origin < b->origin ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* The cover of class c: {"origin":{"seq":"1-4","rank":"0-3"}, ...}, the
 * ranks in the order of the numbers.  NULL on ENOMEM. */
static json_object *cover_json(const struct mwt_agg *a, const struct cls *c)
{
	json_object *o = json_object_new_object();
	struct cover *s = malloc((c->ncov ? c->ncov : 1) * sizeof(*s));
	int *seqs = malloc((c->ncov ? c->ncov : 1) * sizeof(int));
	int *ranks = malloc((c->ncov ? c->ncov : 1) * sizeof(int));
	size_t i = 0, j, n;
	if (!o || !s || !seqs || !ranks)
		goto fail;
	memcpy(s, c->cov, c->ncov * sizeof(*s));
	qsort(s, c->ncov, sizeof(*s), cover_cmp);
	while (i < c->ncov) {
		char *sq, *rk;
		json_object *e = json_object_new_object();
		for (j = i, n = 0; j < c->ncov && s[j].origin == s[i].origin; j++, n++) {
			seqs[n] = (int)s[j].seq;
			ranks[n] = s[j].rank;
		}
		sq = runs_str(seqs, n);
		rk = runs_str(ranks, n);
		if (!e || !sq || !rk) {
			json_object_put(e);
			free(sq);
			free(rk);
			goto fail;
		}
		json_object_object_add(e, "seq", json_object_new_string(sq));
		json_object_object_add(e, "rank", json_object_new_string(rk));
		json_object_object_add(o, a->oname[s[i].origin], e);
		free(sq);
		free(rk);
		i = j;
	}
	free(s);
	free(seqs);
	free(ranks);
	return o;
fail:
	json_object_put(o);
	free(s);
	free(seqs);
	free(ranks);
	errno = ENOMEM;
	return NULL;
}

char *mwt_agg_to_json(const struct mwt_agg *a)
{
	json_object *o = json_object_new_object(), *cl = json_object_new_array();
	char *out = NULL;
	size_t k;
	if (!o || !cl) {
		json_object_put(o);
		json_object_put(cl);
		errno = ENOMEM;
		return NULL;
	}
	json_object_object_add(o, "v", json_object_new_int(1));
	json_object_object_add(o, "from", json_object_new_string(a->from));
	json_object_object_add(o, "events", json_object_new_int64((int64_t)a->events));
	json_object_object_add(o, "first", json_object_new_double(a->first));
	json_object_object_add(o, "last", json_object_new_double(a->last));
	json_object_object_add(o, "classes", cl);
	for (k = 0; k < a->nc; k++) {
		struct cls *c = &a->c[k];
		json_object *x = json_object_new_object(), *cov;
		size_t nr;
		int *rl = class_rank_list(c, &nr);
		char *r = rl ? ranges_str(rl, nr) : NULL;
		free(rl);
		cov = cover_json(a, c);
		if (!x || !r || !cov) {
			json_object_put(x);
			json_object_put(cov);
			free(r);
			goto fail;
		}
		json_object_object_add(x, "state", json_object_new_string(mw_hb_state_name((int)c->pub.state)));
		json_object_object_add(x, "call", json_object_new_string(c->pub.call));
		json_object_object_add(x, "peer", json_object_new_int(c->pub.peer));
		json_object_object_add(x, "kind", json_object_new_string(c->pub.kind));
		json_object_object_add(x, "comm", json_object_new_string(c->pub.comm));
		json_object_object_add(x, "root", json_object_new_int(c->pub.root));
		json_object_object_add(x, "tag", json_object_new_int(c->pub.tag));
		json_object_object_add(x, "exit", json_object_new_int(c->pub.exit_code));
		json_object_object_add(x, "signal", json_object_new_int(c->pub.exit_signal));
		json_object_object_add(x, "size", json_object_new_int(c->pub.size));
		json_object_object_add(x, "moving", json_object_new_string(c->pub.moving));
		json_object_object_add(x, "idle", json_object_new_double(c->pub.idle));
		json_object_object_add(x, "count", json_object_new_int64((int64_t)c->pub.count));
		json_object_object_add(x, "first", json_object_new_double(c->pub.first));
		json_object_object_add(x, "last", json_object_new_double(c->pub.last));
		json_object_object_add(x, "ranks", json_object_new_string(r));
		json_object_object_add(x, "cover", cov);
		free(r);
		json_object_array_add(cl, x);
	}
	out = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	if (!out)
		errno = ENOMEM;
fail:
	json_object_put(o);
	return out;
}

int mwt_agg_encode(const struct mwt_agg *a, uint8_t **buf, size_t *len)
{
	struct mw_hb_msg m;
	int rv;
	memset(&m, 0, sizeof(m));
	m.type = MW_HB_AGG;
	m.u.agg.json = mwt_agg_to_json(a);
	if (!m.u.agg.json)
		return -1;
	rv = mw_hb_encode(&m, buf, len);
	free(m.u.agg.json);
	return rv;
}

/* ------------------------------------------------------------ decoding */


static int only_keys(json_object *o, const char *const *keys)
{
	json_object_object_foreach(o, k, v)
	{
		size_t i;
		(void)v;
		for (i = 0; keys[i] && strcmp(keys[i], k); i++)
			;
		if (!keys[i])
			return -1;
	}
	return 0;
}

struct mwt_agg *mwt_agg_from_json(const char *json, size_t len, char *err, size_t errlen)
{
	static const char *const top_keys[] = {"v", "from", "events", "first", "last", "classes", NULL};
	static const char *const cls_keys[] = {"state", "call", "peer", "kind", "comm", "root", "tag", "exit",
					       "signal", "size", "moving", "idle", "count", "first", "last",
					       "ranks", "cover", NULL};
	json_tokener *tok = NULL;
	json_object *o = NULL, *cl;
	struct mwt_agg *a = NULL;
	struct cover *all = NULL;
	const char *from;
	int64_t v, events, sum = 0;
	double first, last;
	size_t k, n, nall = 0;
	int *tmp = NULL;
	const char *why = "not one JSON object";

	if (!len || memchr(json, 0, len) || len > MW_HB_MAX_PAYLOAD)
		goto bad;
	tok = json_tokener_new_ex(32);
	if (!tok) {
		why = "out of memory";
		goto bad;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, json, (int)len);
	if (!o || json_tokener_get_error(tok) != json_tokener_success || json_tokener_get_parse_end(tok) != len ||
	    !json_object_is_type(o, json_type_object))
		goto bad;
	why = "unknown field";
	if (only_keys(o, top_keys))
		goto bad;
	why = "v: expected 1";
	if (mw_json_int(o, "v", 1, 1, &v))
		goto bad;
	why = "from: expected a node name";
	if (!(from = mw_json_str(o, "from", MW_HB_STR_MAX)) || !mw_hb_valid_name(from))
		goto bad;
	why = "events, first, last: expected numbers";
	if (mw_json_int(o, "events", 0, MWT_AGG_MAX_EVENTS, &events) ||
	    mw_json_num(o, "first", 0, MW_JSON_NUM_MAX, &first) ||
	    mw_json_num(o, "last", 0, MW_JSON_NUM_MAX, &last) || first > last)
		goto bad;
	why = "classes: expected an array";
	if (!json_object_object_get_ex(o, "classes", &cl) || !json_object_is_type(cl, json_type_array))
		goto bad;
	n = json_object_array_length(cl);
	why = "too many classes";
	if (n > MAX_CLASSES || (events == 0) != (n == 0))
		goto bad;
	a = mwt_agg_create(from);
	all = malloc((size_t)(events ? events : 1) * sizeof(*all));
	if (!a || !all) {
		why = "out of memory";
		goto bad;
	}
	for (k = 0; k < n; k++) {
		json_object *x = json_object_array_get_idx(cl, k), *cov;
		const char *st, *call, *ranks;
		int64_t peer, count, got = 0;
		double cf, clast;
		long ci, i;
		int state;
		struct cls *c;
		struct mwt_class key;
		why = "a class: bad field";
		if (!x || !json_object_is_type(x, json_type_object) || only_keys(x, cls_keys) ||
		    !(st = mw_json_str(x, "state", 16)) || (state = mw_hb_state_parse(st)) < 0 ||
		    !(call = mw_json_str(x, "call", MW_HB_STR_MAX)) ||
		    mw_json_int(x, "peer", -2, MW_HB_MAX_RANK, &peer) || mw_json_int(x, "count", 1, events, &count) ||
		    mw_json_num(x, "first", 0, MW_JSON_NUM_MAX, &cf) ||
		    mw_json_num(x, "last", 0, MW_JSON_NUM_MAX, &clast) || cf > clast || cf < first ||
		    clast > last || !(ranks = mw_json_str(x, "ranks", 1u << 22)) ||
		    !json_object_object_get_ex(x, "cover", &cov) || !json_object_is_type(cov, json_type_object))
			goto bad;
		{
			/* The rest of the key: checked as a heartbeat would be. */
			struct mw_hb_beat b;
			const char *kind, *comm, *moving;
			int64_t root, tag, ex, sig, size;
			double idle;
			why = "a class: bad heartbeat field";
			if (!(kind = mw_json_str(x, "kind", 15)) || !(comm = mw_json_str(x, "comm", MW_HB_STR_MAX)) ||
			    !(moving = mw_json_str(x, "moving", 31)) ||
			    mw_json_int(x, "root", -1, MW_HB_MAX_RANK, &root) ||
			    mw_json_int(x, "tag", -1, INT32_MAX, &tag) || mw_json_int(x, "exit", -1, 255, &ex) ||
			    mw_json_int(x, "signal", 0, 128, &sig) ||
			    mw_json_int(x, "size", 1, MW_HB_MAX_RANK + 1, &size) ||
			    mw_json_num(x, "idle", 0, MW_JSON_NUM_MAX, &idle))
				goto bad;
			memset(&key, 0, sizeof(key));
			key.state = (enum mw_hb_state)state;
			snprintf(key.call, sizeof(key.call), "%s", call);
			key.peer = (int32_t)peer;
			snprintf(key.kind, sizeof(key.kind), "%s", kind);
			snprintf(key.comm, sizeof(key.comm), "%s", comm);
			snprintf(key.moving, sizeof(key.moving), "%s", moving);
			key.root = (int32_t)root;
			key.tag = (int32_t)tag;
			key.exit_code = (int32_t)ex;
			key.exit_signal = (int32_t)sig;
			key.size = (int32_t)size;
			key.idle = idle;
			mwt_class_beat(&key, 0, 1, &b);
			if (!mw_hb_beat_valid(&b))
				goto bad;
		}
		why = "events: more than the classes hold";
		if (sum + count > events)
			goto bad;
		ci = mwt_agg_class_get(a, &key);
		why = "a class twice";
		if (ci < 0 || a->c[ci].pub.count)
			goto bad;
		c = &a->c[ci];
		{
			json_object_object_foreach(cov, on, sv)
			{
				static const char *const cov_keys[] = {"seq", "rank", NULL};
				const char *sq, *rk;
				long ns, nk, oi;
				int *rks = NULL;
				why = "a class: bad cover";
				if (!mw_hb_valid_name(on) || !json_object_is_type(sv, json_type_object) ||
				    only_keys(sv, cov_keys) || !(sq = mw_json_str(sv, "seq", 1u << 22)) ||
				    !(rk = mw_json_str(sv, "rank", 1u << 22)))
					goto bad;
				ns = mw_ranges_parse(sq, (size_t)(count - got), &tmp);
				if (ns < 1 || got + ns > count)
					goto bad;
				nk = mw_ranges_parse(rk, (size_t)ns, &rks);
				if (nk != ns) {
					free(rks);
					goto bad;
				}
				oi = mwt_agg_origin_get(a, on);
				for (i = 0; i < ns; i++) {
					if (oi < 0 || tmp[i] < 1 || rks[i] > MW_HB_MAX_RANK || rks[i] >= key.size ||
					    mwt_agg_cover_add(c, (uint32_t)oi, (uint32_t)tmp[i], rks[i]) < 0) {
						free(rks);
						goto bad;
					}
					all[nall].origin = (uint32_t)oi;
					all[nall++].seq = (uint32_t)tmp[i];
				}
				free(rks);
				got += ns;
				free(tmp);
				tmp = NULL;
			}
		}
		why = "a class: count is not the events it covers";
		if (got != count)
			goto bad;
		why = "a class: ranks are not those of the events it covers";
		{
			char *mine;
			size_t nr;
			int *rl = class_rank_list(c, &nr);
			mine = rl ? ranges_str(rl, nr) : NULL;
			free(rl);
			if (!mine || strcmp(mine, ranks) != 0) {
				free(mine);
				goto bad;
			}
			free(mine);
		}
		c->pub.count = (uint64_t)count;
		c->pub.idle = key.idle;
		c->pub.first = cf;
		c->pub.last = clast;
		sum += count;
	}
	why = "events: not the sum of the classes' counts";
	if (sum != events)
		goto bad;
	why = "an event covered twice";
	qsort(all, nall, sizeof(*all), cover_cmp);
	for (k = 1; k < nall; k++)
		if (all[k].origin == all[k - 1].origin && all[k].seq == all[k - 1].seq)
			goto bad;
	a->events = (uint64_t)events;
	a->first = first;
	a->last = last;
	free(all);
	json_object_put(o);
	json_tokener_free(tok);
	return a;
bad:
	mwt_errf(err, errlen, "aggregate: %s", why);
	free(tmp);
	free(all);
	mwt_agg_destroy(a);
	json_object_put(o);
	if (tok) /* json-c's json_tokener_free does not take NULL */
		json_tokener_free(tok);
	errno = strcmp(why, "out of memory") == 0 ? ENOMEM : EINVAL;
	return NULL;
}
