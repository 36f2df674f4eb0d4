/* dump.c - the JSON state dump of one rank (doc/dump-format.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "fsutil.h"

static struct json_object *jstr_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static struct json_object *jtag(int32_t tag)
{
	return tag == MW_TAG_NONE ? NULL : json_object_new_int(tag);
}

static int comm_id(uint64_t handle, const struct mwm_comm **out)
{
	const struct mwm_comm *c = handle ? mwm_comms_find(&mwm.comms, handle) : NULL;
	if (out)
		*out = c;
	return c ? c->id : -1;
}

static struct json_object *frame_json(const struct mwm_frame *f)
{
	struct json_object *o = json_object_new_object();
	char buf[32];
	snprintf(buf, sizeof(buf), "0x%lx", (unsigned long)f->addr);
	json_object_object_add(o, "addr", json_object_new_string(buf));
	if (f->object[0]) {
		json_object_object_add(o, "object", json_object_new_string(f->object));
		if (f->build_id[0])
			json_object_object_add(o, "build_id", json_object_new_string(f->build_id));
		snprintf(buf, sizeof(buf), "0x%lx", (unsigned long)f->offset);
		json_object_object_add(o, "offset", json_object_new_string(buf));
	}
	if (f->symbol[0])
		json_object_object_add(o, "symbol", json_object_new_string(f->symbol));
	return o;
}

static void add_msg(struct json_object *o, uint64_t comm, int32_t peer, int32_t count, uint64_t dt,
		    int peer_key_send)
{
	const struct mwm_comm *c;
	int id = comm_id(comm, &c), size = -1;
	int p = mwm_norm_rank(peer);
	const char *dn = mwm_dtype_name(dt, &size);
	(void)peer_key_send;
	json_object_object_add(o, "comm", json_object_new_int(id));
	json_object_object_add(o, "peer", json_object_new_int(p));
	json_object_object_add(o, "peer_world", json_object_new_int(mwm_comm_to_world(c, p)));
	json_object_object_add(o, "count", json_object_new_int(count));
	json_object_object_add(o, "datatype", jstr_or_null(dn));
	json_object_object_add(o, "bytes", size >= 0 && count >= 0
						   ? json_object_new_int64((int64_t)count * size)
						   : NULL);
}

static struct json_object *req_json(const struct mwm_req *r)
{
	struct json_object *o = json_object_new_object();
	const char *mode = mw_slot_mode_name(r->mode);
	json_object_object_add(o, "req", json_object_new_int64(r->id));
	json_object_object_add(o, "op", json_object_new_string(r->op < mwm_nops ? mwm_ops[r->op].name : "?"));
	add_msg(o, r->comm, r->peer, r->count, r->datatype, 0);
	json_object_object_add(o, "tag", jtag(r->tag));
	json_object_object_add(o, "mode", jstr_or_null(mode));
	json_object_object_add(o, "persistent", json_object_new_boolean(r->persistent));
	json_object_object_add(o, "active", json_object_new_boolean(r->active));
	/* A nonblocking collective: what was given at the start call, so that it
	 * is matched like the blocking one (root, reduction op). */
	if (r->root != MWM_NOARG) {
		const struct mwm_comm *c;
		int root = mwm_norm_rank(r->root);
		comm_id(r->comm, &c);
		json_object_object_add(o, "root", json_object_new_int(root));
		json_object_object_add(o, "root_world", json_object_new_int(mwm_comm_to_world(c, root)));
	}
	if (r->rop)
		json_object_object_add(o, "reduce_op", jstr_or_null(mwm_rop_name(r->rop)));
	if (r->seq)
		json_object_object_add(o, "seq", json_object_new_int64(r->seq));
	/* Where the request was posted: the line to change when a wait on it
	 * never ends.  Requests posted in a loop share a site: look it up once. */
	if (r->site) {
		static struct mwm_frame last;
		if (last.addr != r->site) {
			memset(&last, 0, sizeof(last));
			last.addr = r->site;
			mwm_frame_symbolize(&last);
		}
		json_object_object_add(o, "site", frame_json(&last));
	}
	return o;
}

static struct json_object *ints_json(const int *v, int n)
{
	struct json_object *a = json_object_new_array();
	for (int i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_int(v[i]));
	return a;
}

static struct json_object *comms_json(void)
{
	struct json_object *a = json_object_new_array();
	for (int i = 0; i < mwm.comms.n; i++) {
		const struct mwm_comm *c = __atomic_load_n(&mwm.comms.tab[i], __ATOMIC_ACQUIRE);
		struct json_object *o;
		if (!c)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "id", json_object_new_int(c->id));
		json_object_object_add(o, "gid", json_object_new_string(c->gid));
		json_object_object_add(o, "name", c->id == 0   ? json_object_new_string("MPI_COMM_WORLD")
						  : c->id == 1 ? json_object_new_string("MPI_COMM_SELF")
							       : NULL);
		json_object_object_add(o, "size", json_object_new_int(c->size));
		json_object_object_add(o, "rank", json_object_new_int(c->rank));
		/* MPI_COMM_WORLD's group is the identity: listing it would cost
		 * O(size) per dump, O(size^2) per job. */
		json_object_object_add(o, "world_ranks",
				       strcmp(c->gid, "world") ? ints_json(c->world_ranks, c->size) : NULL);
		json_object_object_add(o, "parent", c->parent_id >= 0 ? json_object_new_int(c->parent_id) : NULL);
		json_object_object_add(o, "how", json_object_new_string(c->how));
		json_object_object_add(o, "inter", json_object_new_boolean(c->inter));
		json_object_object_add(o, "nbc_started",
				       json_object_new_int64(__atomic_load_n(&c->nbc_started, __ATOMIC_RELAXED)));
		if (c->inter)
			json_object_object_add(o, "local_world_ranks",
					       ints_json(c->local_world_ranks, c->local_size));
		json_object_array_add(a, o);
	}
	return a;
}

static int req_id_of(const struct mwm_dumpin *in, uint64_t h, int64_t *id)
{
	for (int i = 0; i < in->npending; i++)
		if (in->pending[i].handle == h) {
			*id = in->pending[i].id;
			return 1;
		}
	return 0;
}

static struct json_object *call_json(const struct mwm_dumpin *in, int *fortran_site)
{
	const struct mw_slot_call *c = &in->slot->call;
	const struct mwm_comm *cm;
	struct json_object *o = json_object_new_object(), *reqs;
	int id = comm_id(c->comm, &cm), size = -1;
	int peer = mwm_norm_rank(c->peer), root = mwm_norm_rank(c->root);
	const char *dn = mwm_dtype_name(c->datatype, &size);
	int lang = (int)c->lang;
	*fortran_site = 0;
	/* MPICH's Fortran bindings call the C function: the site is in libmpifort */
	if (lang == 0 && in->nframes > 1 && mwm_fortran_glue(in->frames[0].object)) {
		lang = 1;
		*fortran_site = 1;
	}
	json_object_object_add(o, "name", json_object_new_string(c->name));
	json_object_object_add(o, "kind", json_object_new_string(mw_slot_kind_name(c->kind)));
	json_object_object_add(o, "lang", json_object_new_string(lang ? "fortran" : "c"));
	json_object_object_add(o, "comm", json_object_new_int(id));
	json_object_object_add(o, "peer", json_object_new_int(peer));
	json_object_object_add(o, "peer_world", json_object_new_int(mwm_comm_to_world(cm, peer)));
	if (c->kind == MW_KIND_SENDRECV) {
		int sp = mwm_norm_rank(c->send_peer);
		json_object_object_add(o, "send_peer", json_object_new_int(sp));
		json_object_object_add(o, "send_peer_world", json_object_new_int(mwm_comm_to_world(cm, sp)));
		json_object_object_add(o, "send_tag", jtag(c->send_tag));
	}
	json_object_object_add(o, "tag", jtag(c->tag));
	json_object_object_add(o, "root", json_object_new_int(root));
	json_object_object_add(o, "root_world", json_object_new_int(mwm_comm_to_world(cm, root)));
	json_object_object_add(o, "op", jstr_or_null(c->op ? mwm_rop_name(c->op) : NULL));
	json_object_object_add(o, "count", json_object_new_int(c->count));
	json_object_object_add(o, "datatype", jstr_or_null(dn));
	json_object_object_add(o, "bytes", size >= 0 && c->count >= 0
						   ? json_object_new_int64((int64_t)c->count * size)
						   : NULL);
	json_object_object_add(o, "mode", jstr_or_null(mw_slot_mode_name(c->mode)));
	reqs = json_object_new_array();
	for (int i = 0; in->x && i < in->x->nreqs && i < c->nreqs; i++) {
		int64_t rid;
		if (req_id_of(in, in->x->reqs[i], &rid))
			json_object_array_add(reqs, json_object_new_int64(rid));
	}
	json_object_object_add(o, "requests", reqs);
	json_object_object_add(o, "nrequests", json_object_new_int(c->nreqs));
	json_object_object_add(o, "any", json_object_new_boolean(strcmp(c->name, "MPI_Waitany") == 0 ||
								 strcmp(c->name, "MPI_Waitsome") == 0 ||
								 strcmp(c->name, "MPI_Testany") == 0 ||
								 strcmp(c->name, "MPI_Testsome") == 0));
	if (in->nframes > 0)
		json_object_object_add(o, "site", frame_json(&in->frames[*fortran_site]));
	else {
		struct mwm_frame f;
		memset(&f, 0, sizeof(f));
		f.addr = (uintptr_t)c->site;
		json_object_object_add(o, "site", frame_json(&f));
	}
	return o;
}

struct json_object *mwm_dump_build(const struct mwm_dumpin *in)
{
	const struct mw_slot *s = in->slot;
	struct json_object *o = json_object_new_object(), *t, *a, *ps, *pr, *u;
	int fortran_site = 0, in_call;
	double in_call_s = 0;
	if (!o) {
		errno = ENOMEM;
		return NULL;
	}
	json_object_object_add(o, "mpiwatch_dump", json_object_new_int(1));
	t = json_object_new_object();
	json_object_object_add(t, "id", json_object_new_string(s->job_id));
	json_object_object_add(t, "step", json_object_new_string(s->step_id));
	json_object_object_add(o, "job", t);
	json_object_object_add(o, "rank", json_object_new_int(s->world_rank));
	json_object_object_add(o, "size", json_object_new_int(s->world_size));
	json_object_object_add(o, "host", json_object_new_string(s->host));
	json_object_object_add(o, "pid", json_object_new_int(s->pid));
	json_object_object_add(o, "mpi", json_object_new_string(s->mpi));
	json_object_object_add(o, "state", json_object_new_string(mw_slot_state_name(s->state)));
	json_object_object_add(o, "reason", json_object_new_string(in->reason));
	in_call = s->state == MW_STATE_IN_MPI || !strcmp(in->reason, "polling");
	if (in_call && in->now_ns > s->call.enter_ns)
		in_call_s = (double)(in->now_ns - s->call.enter_ns) / 1e9;
	t = json_object_new_object();
	json_object_object_add(t, "dump_unix", json_object_new_double(in->now_unix));
	json_object_object_add(t, "enter_unix", in_call ? json_object_new_double(in->now_unix - in_call_s) : NULL);
	json_object_object_add(t, "in_call_s", json_object_new_double(in_call_s));
	json_object_object_add(t, "timeout_s", json_object_new_double(s->timeout_s));
	json_object_object_add(t, "since_progress_s",
			       json_object_new_double(in->now_ns > s->last_progress_ns
							      ? (double)(in->now_ns - s->last_progress_ns) / 1e9
							      : 0.0));
	json_object_object_add(o, "time", t);
	t = json_object_new_object();
	json_object_object_add(t, "a", json_object_new_int64((int64_t)s->a));
	json_object_object_add(t, "b", json_object_new_int64((int64_t)s->b));
	json_object_object_add(t, "completions", json_object_new_int64((int64_t)s->completions));
	json_object_object_add(t, "calls", json_object_new_int64((int64_t)s->calls));
	json_object_object_add(t, "tests", json_object_new_int64((int64_t)s->tests));
	json_object_object_add(o, "counters", t);
	json_object_object_add(o, "call", in_call ? call_json(in, &fortran_site) : NULL);
	a = json_object_new_array();
	for (int i = fortran_site; i < in->nframes; i++)
		json_object_array_add(a, frame_json(&in->frames[i]));
	json_object_object_add(o, "stack", a);
	json_object_object_add(o, "stack_method",
			       json_object_new_string(in->stack_method ? in->stack_method
								       : in->nframes > 1 ? "scan" : "site"));
	ps = json_object_new_array();
	pr = json_object_new_array();
	for (int i = 0; i < in->npending; i++)
		json_object_array_add(in->pending[i].table == MWM_TABLE_SEND ? ps : pr, req_json(&in->pending[i]));
	json_object_object_add(o, "pending_sends", ps);
	json_object_object_add(o, "pending_recvs", pr);
	a = json_object_new_array();
	for (int i = 0; i < in->nrecent; i++)
		json_object_array_add(a, req_json(&in->recent[i]));
	json_object_object_add(o, "recent_sends", a);
	/* MPI_Buffer_detach and MPI_Finalize wait for these to be received */
	a = json_object_new_array();
	for (int i = 0; i < in->nbsends; i++)
		json_object_array_add(a, req_json(&in->bsends[i]));
	json_object_object_add(o, "buffered_sends", a);
	json_object_object_add(o, "buffered_sends_total", json_object_new_int64((int64_t)in->bsends_total));
	u = json_object_new_object();
	json_object_object_add(u, "source", json_object_new_string(in->unexp_source ? in->unexp_source : "none"));
	json_object_object_add(u, "count", in->unexp_count >= 0 ? json_object_new_int64(in->unexp_count) : NULL);
	json_object_object_add(u, "messages", json_object_new_array());
	if (in->unexp_per_peer) {
		const struct mwm_comm *uc;
		int uid = comm_id(in->unexp_comm, &uc);
		struct json_object *pa = json_object_new_array();
		json_object_object_add(u, "comm", json_object_new_int(uid));
		for (int i = 0; i < in->unexp_npeers; i++) {
			struct json_object *po;
			if (in->unexp_per_peer[i] <= 0)
				continue;
			po = json_object_new_object();
			json_object_object_add(po, "peer", json_object_new_int(i));
			json_object_object_add(po, "peer_world", json_object_new_int(mwm_comm_to_world(uc, i)));
			json_object_object_add(po, "count", json_object_new_int64(in->unexp_per_peer[i]));
			json_object_array_add(pa, po);
		}
		json_object_object_add(u, "per_peer", pa);
	}
	json_object_object_add(o, "unexpected", u);
	json_object_object_add(o, "comms", comms_json());
	json_object_object_add(o, "requests_untracked", json_object_new_int64((int64_t)mwm.reqs.overflow));
	return o;
}

int mwm_dump_save(struct json_object *obj, const char *dir, int rank, char *path, size_t len)
{
	char p[1200];
	const char *text;
	struct mw_atomic_file af;
	int ok;
	if (snprintf(p, sizeof(p), "%s/rank-%d.json", dir, rank) >= (int)sizeof(p)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (mwm_mkdirs(dir) < 0)
		return -1;
	text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text) {
		errno = ENOMEM;
		return -1;
	}
	if (mw_atomic_open(&af, p, 0644) < 0)
		return -1;
	ok = fputs(text, af.f) >= 0 && fputc('\n', af.f) != EOF;
	if (mw_atomic_close(&af, ok) < 0)
		return -1;
	if (path)
		snprintf(path, len, "%s", p);
	return 0;
}
