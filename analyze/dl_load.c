/* dl_load.c - the loader: read and validate the rank dumps of one
 * directory (or of in-memory files), in parallel, into the analysis's model.
 *
 * Every file is checked before anything in it is used: a file that does not
 * parse, is truncated, is not an mpiwatch dump, has fields of the wrong type
 * (dl_extract.c), or belongs to another job or world size is recorded in
 * "invalid_files" with the reason and skipped.  The extracted model keeps no
 * json-c objects, so 100,000 dumps fit in little memory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <pthread.h>
#include <unistd.h>

#include "dl_extract.h"
#include "dl_int.h"
#include "dl_json.h"
#include "jsonschema.h"

#define DL_MAX_FILE (64L << 20)
#define DL_SCHEMA_MAX 20000

static int add_invalid(struct dl_ctx *c, const char *file, const char *err)
{
	struct json_object *o = json_object_new_object();
	if (!o)
		return -1;
	json_object_object_add(o, "file", json_object_new_string(file));
	json_object_object_add(o, "error", json_object_new_string(err));
	return json_object_array_add(c->invalid, o);
}

/* Parse rank-<N>.json; return N, -1 if the name is not of that shape at all,
 * -2 if it is rank-*.json with a bad number. */
static long name_rank(const char *n)
{
	size_t len = strlen(n);
	if (strncmp(n, "rank-", 5) || len < 10 || strcmp(n + len - 5, ".json"))
		return -1;
	long v = 0;
	const char *p = n + 5;
	if (p == n + len - 5)
		return -2;
	for (; p < n + len - 5; p++) {
		if (*p < '0' || *p > '9' || v > DL_MAX_RANK)
			return -2;
		v = v * 10 + (*p - '0');
	}
	if (n[5] == '0' && len > 11)
		return -2; /* leading zero */
	return v < DL_MAX_RANK ? v : -2;
}

struct ent {
	long rank;
	char *name;
	int idx; /* in-memory input: index of the buffer */
};

static int ent_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Make the buffer *buf (of *cap bytes) hold at least want bytes.  Return
 * 0, or -1 (ENOMEM). */
static int reserve(char **buf, size_t *cap, size_t want)
{
	if (want <= *cap)
		return 0;
	char *nb = realloc(*buf, want);
	if (!nb)
		return -1;
	*buf = nb;
	*cap = want;
	return 0;
}

static int read_file(int dfd, const char *name, char **buf, size_t *cap, size_t *len, char *err,
		     size_t errlen)
{
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "not a regular file");
		close(fd);
		return -1;
	}
	if (st.st_size > DL_MAX_FILE) {
		snprintf(err, errlen, "file too large (%lld bytes)", (long long)st.st_size);
		close(fd);
		return -1;
	}
	if (reserve(buf, cap, (size_t)st.st_size + 1) < 0) {
		close(fd);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, *buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "read error: %s", strerror(errno));
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	(*buf)[got] = '\0';
	*len = got;
	return 0;
}

static struct json_object *parse_json(const char *buf, size_t len, char *err, size_t errlen)
{
	if (len == 0) {
		snprintf(err, errlen, "empty file");
		return NULL;
	}
	if (strlen(buf) != len) {
		snprintf(err, errlen, "contains a NUL byte at offset %zu (binary or corrupt file)",
			 strlen(buf));
		return NULL;
	}
	struct json_tokener *tok = json_tokener_new_ex(64);
	if (!tok) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	struct json_object *o = json_tokener_parse_ex(tok, buf, (int)len);
	enum json_tokener_error je = json_tokener_get_error(tok);
	size_t off = json_tokener_get_parse_end(tok);
	if (!o && je == json_tokener_continue) {
		snprintf(err, errlen, "truncated JSON (input ends inside a value after %zu bytes)", len);
	} else if (!o && je != json_tokener_success) {
		snprintf(err, errlen, "invalid JSON at byte %zu: %s", off, json_tokener_error_desc(je));
	} else if (o) {
		/* only whitespace may follow */
		for (size_t i = off; i < len; i++) {
			if (buf[i] != ' ' && buf[i] != '\n' && buf[i] != '\t' && buf[i] != '\r') {
				snprintf(err, errlen, "invalid JSON: trailing data at byte %zu", i);
				json_object_put(o);
				o = NULL;
				break;
			}
		}
	} else {
		snprintf(err, errlen, "invalid JSON (top level is null)");
	}
	json_tokener_free(tok);
	return o;
}

static int load_entries(struct dl_ctx *c, struct ent *ents, size_t nents, int dfd,
			char *const *mbufs, const size_t *mlens);

static int load_init(struct dl_ctx *c)
{
	int rc = dl_comms_init(c);
	c->invalid = json_object_new_array();
	return rc == 0 && c->invalid ? 0 : -1;
}

int dl_load_dir(struct dl_ctx *c, const char *dir)
{
	int rv = -1;
	DIR *dp = NULL;
	struct ent *ents = NULL;
	size_t nents = 0, capents = 0;

	if (load_init(c) < 0)
		goto fail;
	dp = opendir(dir);
	if (!dp)
		goto fail;
	struct dirent *de;
	while ((de = readdir(dp))) {
		long rk = name_rank(de->d_name);
		if (rk == -1)
			continue; /* not a dump name: temp files, other tools' files */
		if (nents == capents) {
			size_t ncap = capents ? capents * 2 : 256;
			struct ent *ne = realloc(ents, ncap * sizeof *ne);
			if (!ne)
				goto fail;
			ents = ne;
			capents = ncap;
		}
		ents[nents].rank = rk;
		ents[nents].idx = (int)nents;
		ents[nents].name = strdup(de->d_name);
		if (!ents[nents].name)
			goto fail;
		nents++;
	}
	rv = load_entries(c, ents, nents, dirfd(dp), NULL, NULL);
fail:
	if (dp)
		closedir(dp);
	for (size_t i = 0; i < nents; i++)
		free(ents[i].name);
	free(ents);
	return rv;
}

int dl_load_buffers(struct dl_ctx *c, int n, const char *const *names, char *const *bufs,
		    const size_t *lens)
{
	int rv = -1;
	struct ent *ents = calloc((size_t)n + 1, sizeof *ents);
	int k = 0;
	if (!ents || load_init(c) < 0)
		goto fail;
	for (int i = 0; i < n; i++) {
		long rk = name_rank(names[i]);
		if (rk == -1)
			continue;
		ents[k].rank = rk;
		ents[k].idx = i;
		if (!(ents[k].name = strdup(names[i])))
			goto fail;
		k++;
	}
	rv = load_entries(c, ents, (size_t)k, -1, bufs, lens);
fail:
	if (ents)
		for (int i = 0; i < k; i++)
			free(ents[i].name);
	free(ents);
	return rv;
}

/* ---- parallel reading ----
 * Reading, parsing and extracting 100,000 dumps is most of the work, so
 * worker threads do it, each into a private pool and communicator table
 * (struct dl_ctx "sub"); the results are then merged in rank order: strings
 * re-interned into the global pool (through a pointer cache), communicator
 * indices remapped. */
struct inv {
	size_t idx;
	char *file, *err;
};

struct xlate { /* sub-pool pointer -> global pointer */
	const char **from, **to;
	size_t cap, n;
};

struct worker {
	struct dl_ctx sub;
	struct ent *ents;
	size_t nents;
	int t, nthreads;
	int dfd;
	char *const *mbufs;
	const size_t *mlens;
	struct dl_rank **all;
	struct dl_hdr *hdrs;
	struct inv *inv;
	size_t ninv, capinv;
	int fatal; /* errno of a fatal error, or 0 */
	int progress;
	size_t *done; /* shared counter, for the progress line */
	pthread_t tid;
	struct xlate xl;
	int *cmap; /* sub comm index -> global */
	int schema_mode; /* 0 none, 1 compiled-in dump schema, 2 opt.schema_path */
	int schema_broken;
};

static void w_invalid(struct worker *w, size_t i, const char *err)
{
	if (w->ninv == w->capinv) {
		size_t ncap = w->capinv ? w->capinv * 2 : 16;
		struct inv *n = realloc(w->inv, ncap * sizeof *n);
		if (!n) {
			w->fatal = ENOMEM;
			return;
		}
		w->inv = n;
		w->capinv = ncap;
	}
	w->inv[w->ninv].idx = i;
	w->inv[w->ninv].file = strdup(w->ents[i].name);
	w->inv[w->ninv].err = strdup(err);
	if (!w->inv[w->ninv].file || !w->inv[w->ninv].err) {
		free(w->inv[w->ninv].file);
		free(w->inv[w->ninv].err);
		w->fatal = ENOMEM;
		return;
	}
	w->ninv++;
}

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	struct dl_ctx *c = &w->sub;
	char *buf = NULL;
	size_t cap = 0;
	struct dlj_arena arena = {0};
	struct json_object *schema = NULL;
	size_t step = w->nents / 20 ? w->nents / 20 : 1, last_bucket = (size_t)-1;

	char *copy = NULL;
	size_t copycap = 0;
	if (w->schema_mode == 2) {
		char err[512];
		schema = mw_json_read_file(c->opt.schema_path, err, sizeof err);
		if (!schema) {
			w->fatal = errno ? errno : EINVAL;
			return NULL;
		}
	} else if (w->schema_mode == 1) {
		schema = json_tokener_parse(dl_dump_schema_text);
	}
	for (size_t i = (size_t)w->t; i < w->nents && !w->fatal; i += (size_t)w->nthreads) {
		char err[600];
		size_t len;
		size_t d = __atomic_add_fetch(w->done, 1, __ATOMIC_RELAXED);
		if (w->progress && w->t == 0 && (d / step != last_bucket || i + (size_t)w->nthreads >= w->nents)) {
			last_bucket = d / step;
			c->opt.on_progress(c->opt.cb_arg, d, w->nents, 0);
		}
		if (w->ents[i].rank < 0) {
			w_invalid(w, i, "file name is not rank-<N>.json with N a world rank");
			continue;
		}
		if (w->mbufs) {
			len = w->mlens[w->ents[i].idx];
			if (reserve(&buf, &cap, len + 1) < 0) {
				w->fatal = ENOMEM;
				break;
			}
			if (len)
				memcpy(buf, w->mbufs[w->ents[i].idx], len);
			buf[len] = '\0';
		} else if (read_file(w->dfd, w->ents[i].name, &buf, &cap, &len, err, sizeof err) < 0) {
			w_invalid(w, i, err);
			continue;
		}
		if (memchr(buf, '\0', len)) {
			snprintf(err, sizeof err, "contains a NUL byte at offset %zu (binary or corrupt file)",
				 (size_t)((char *)memchr(buf, '\0', len) - buf));
			w_invalid(w, i, err);
			continue;
		}
		if (len == 0) {
			w_invalid(w, i, "empty file");
			continue;
		}
		if (schema) { /* dlj_parse decodes in place: keep the text for the schema */
			if (reserve(&copy, &copycap, len + 1) < 0) {
				w->fatal = ENOMEM;
				break;
			}
			memcpy(copy, buf, len + 1);
		}
		const struct dlj *dj = dlj_parse(&arena, buf, len, err, sizeof err);
		if (!dj) {
			if (!strcmp(err, "out of memory")) {
				w->fatal = ENOMEM;
				break;
			}
			w_invalid(w, i, err);
			continue;
		}
		struct dl_ex e = {.c = c, .A = &arena};
		struct dl_rank *r = dl_extract_rank(&e, dj, w->ents[i].rank, &w->hdrs[i]);
		if (!r) {
			if (!strcmp(e.err, "out of memory")) {
				w->fatal = ENOMEM;
				break;
			}
			w_invalid(w, i, e.err);
			continue;
		}
		if (schema) {
			/* Then the schema (json-c: slower), for what the built-in
			 * checks do not look at. */
			struct json_object *jd = parse_json(copy, len, err, sizeof err);
			int sv = jd ? mw_jsonschema_validate(schema, jd, err, sizeof err) : 1;
			if (jd)
				json_object_put(jd);
			if (sv < 0) {
				/* an unusable schema: fall back to the built-in checks */
				json_object_put(schema);
				schema = NULL;
				w->schema_broken = 1;
			} else if (sv > 0) {
				char msg[700];
				snprintf(msg, sizeof msg, "not valid against the dump schema: %s", err);
				w_invalid(w, i, msg);
				dl_rank_free(r);
				continue;
			}
		}
		r->file = dl_intern(c->pool, w->ents[i].name);
		w->all[i] = r;
	}
	free(copy);
	free(buf);
	dlj_arena_free(&arena);
	if (schema)
		json_object_put(schema);
	return NULL;
}

static const char *xl(struct dl_ctx *c, struct xlate *x, const char *p, int *oom)
{
	if (!p)
		return NULL;
	if ((x->n + 1) * 2 > x->cap) {
		size_t ncap = x->cap ? x->cap * 2 : 1024;
		const char **nf = calloc(ncap, sizeof *nf), **nt = calloc(ncap, sizeof *nt);
		if (!nf || !nt) {
			free(nf);
			free(nt);
			*oom = 1;
			return NULL;
		}
		for (size_t i = 0; i < x->cap; i++) {
			if (!x->from[i])
				continue;
			size_t j = dl_ptr_hash(x->from[i]) & (ncap - 1);
			while (nf[j])
				j = (j + 1) & (ncap - 1);
			nf[j] = x->from[i];
			nt[j] = x->to[i];
		}
		free(x->from);
		free(x->to);
		x->from = nf;
		x->to = nt;
		x->cap = ncap;
	}
	size_t j = dl_ptr_hash(p) & (x->cap - 1);
	while (x->from[j]) {
		if (x->from[j] == p)
			return x->to[j];
		j = (j + 1) & (x->cap - 1);
	}
	const char *g = dl_intern(c->pool, p);
	if (!g) {
		*oom = 1;
		return NULL;
	}
	x->from[j] = p;
	x->to[j] = g;
	x->n++;
	return g;
}

#define XL(field) ((field) = xl(c, &w->xl, (field), &oom))

static void merge_frame(struct dl_ctx *c, struct worker *w, struct dl_frame *f, int *poom)
{
	int oom = 0;
	XL(f->addr);
	XL(f->symbol);
	XL(f->file);
	XL(f->object);
	XL(f->offset);
	XL(f->build_id);
	*poom |= oom;
}

static void merge_msgs(struct dl_ctx *c, struct worker *w, struct dl_msg *m, int n, int *poom)
{
	int oom = 0;
	for (int i = 0; i < n; i++) {
		XL(m[i].op);
		XL(m[i].datatype);
		if (m[i].site.addr)
			merge_frame(c, w, &m[i].site, &oom);
		if (m[i].comm >= 0)
			m[i].comm = w->cmap[m[i].comm];
	}
	*poom |= oom;
}

/* Move worker w's communicators into the global table; fill w->cmap. */
static int merge_comms(struct dl_ctx *c, struct worker *w)
{
	struct dl_ctx *s = &w->sub;
	int oom = 0;
	w->cmap = malloc(((size_t)s->ncomm + 1) * sizeof *w->cmap);
	if (!w->cmap)
		return -1;
	for (int i = 0; i < s->ncomm; i++) {
		struct dl_comm *m = &s->comms[i];
		const char *gid = xl(c, &w->xl, m->gid, &oom);
		if (oom)
			return -1;
		int gi = dl_comm_find(c, gid);
		if (gi < 0) {
			gi = dl_comm_new(c);
			if (gi < 0)
				return -1;
			c->comms[gi] = *m;
			c->comms[gi].gid = gid;
			XL(c->comms[gi].name);
			XL(c->comms[gi].how);
			m->group = NULL; /* moved */
			if (oom || dl_comm_put(c, gid, gi) < 0)
				return -1;
		} else if (!c->comms[gi].known && m->known) {
			free(c->comms[gi].group);
			c->comms[gi].group = m->group;
			c->comms[gi].size = m->size;
			c->comms[gi].known = 1;
			c->comms[gi].identity = m->identity;
			m->group = NULL;
		}
		w->cmap[i] = gi;
	}
	return 0;
}

static int merge_rank(struct dl_ctx *c, struct worker *w, struct dl_rank *r, struct dl_hdr *h)
{
	int oom = 0;
	XL(r->file);
	XL(r->host);
	XL(r->reason);
	XL(h->job);
	if (r->has_call) {
		XL(r->call.name);
		XL(r->call.op);
		XL(r->call.datatype);
		if (r->call.comm >= 0)
			r->call.comm = w->cmap[r->call.comm];
		merge_frame(c, w, &r->call.site, &oom);
	}
	for (int i = 0; i < r->nstack; i++)
		merge_frame(c, w, &r->stack[i], &oom);
	merge_msgs(c, w, r->psend, r->npsend, &oom);
	merge_msgs(c, w, r->precv, r->nprecv, &oom);
	merge_msgs(c, w, r->recent, r->nrecent, &oom);
	merge_msgs(c, w, r->bsend, r->nbsend, &oom);
	merge_msgs(c, w, r->unexp, r->nunexp, &oom);
	for (int i = 0; i < r->ncomms; i++)
		r->comms[i] = w->cmap[r->comms[i]];
	return oom ? -1 : 0;
}

static int inv_cmp(const void *a, const void *b)
{
	const struct inv *x = a, *y = b;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* How many threads read nents files: --threads (at most 64), else up to 4
 * from 2,000 files on. */
static int reader_threads(const struct dl_ctx *c, size_t nents)
{
	int nthreads = 1;
	if (c->opt.threads > 0) {
		nthreads = c->opt.threads > 64 ? 64 : c->opt.threads;
	} else if (nents >= 2000) {
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		nthreads = ncpu > 4 ? 4 : ncpu > 1 ? (int)ncpu : 1;
	}
	return nthreads;
}

/* Validation against the dump schema: the compiled-in one up to
 * DL_SCHEMA_MAX files (it triples the reading cost), a given file
 * always, "none" never.  The built-in checks always run.  Return the
 * workers' schema_mode. */
static int schema_mode_for(struct dl_ctx *c, size_t nents)
{
	int schema_mode = 0;
	if (c->opt.schema_path && !strcmp(c->opt.schema_path, "none"))
		schema_mode = 0;
	else if (c->opt.schema_path)
		schema_mode = 2;
	else if (nents <= DL_SCHEMA_MAX)
		schema_mode = 1;
	else if (c->notes)
		json_object_array_add(c->notes, json_object_new_string(
			"more than 20000 dumps: validated by the built-in checks only, not also against "
			"doc/schemas/dump.schema.json (use --schema to force it)"));
	return schema_mode;
}

/* Run the nthreads workers w (set up), the first in this thread; a worker
 * whose thread cannot start runs here too. */
static void run_workers(struct worker *w, int nthreads)
{
	for (int t = 1; t < nthreads; t++) {
		if (pthread_create(&w[t].tid, NULL, worker_run, &w[t]) != 0)
			w[t].nthreads = -1; /* not started: its share is done below */
	}
	worker_run(&w[0]);
	for (int t = 1; t < nthreads; t++)
		if (w[t].nthreads > 0)
			pthread_join(w[t].tid, NULL);
	for (int t = 1; t < nthreads; t++) {
		if (w[t].nthreads < 0) { /* run its share here */
			w[t].nthreads = nthreads;
			worker_run(&w[t]);
		}
	}
}

/* Merge what the workers read into c: communicators, then the ranks all[]
 * in file order, then the invalid files (in file order).  Return 0, or -1
 * (ENOMEM). */
static int merge_workers(struct dl_ctx *c, struct worker *w, int nthreads, struct dl_rank **all,
			 struct dl_hdr *hdrs, size_t nents)
{
	for (int t = 0; t < nthreads; t++)
		if (merge_comms(c, &w[t]) < 0)
			return -1;
	for (size_t i = 0; i < nents; i++)
		if (all[i] && merge_rank(c, &w[i % (size_t)nthreads], all[i], &hdrs[i]) < 0)
			return -1;
	size_t ninv = 0;
	for (int t = 0; t < nthreads; t++)
		ninv += w[t].ninv;
	struct inv *inv = calloc(ninv + 1, sizeof *inv);
	if (!inv)
		return -1;
	ninv = 0;
	for (int t = 0; t < nthreads; t++) {
		if (w[t].ninv)
			memcpy(inv + ninv, w[t].inv, w[t].ninv * sizeof *inv);
		ninv += w[t].ninv;
		w[t].ninv = 0;
	}
	qsort(inv, ninv, sizeof *inv, inv_cmp);
	for (size_t i = 0; i < ninv; i++) {
		add_invalid(c, inv[i].file, inv[i].err);
		free(inv[i].file);
		free(inv[i].err);
	}
	free(inv);
	return 0;
}

/* The world size: --expect-size, else the most common size among the
 * dumps; then the job id likewise.  Dumps that disagree are foreign: they
 * go to c->invalid (and all[i] is freed and set to NULL).  Then the ranks
 * go into c->ranks.  Return 0, or -1 (ENOMEM). */
static int settle_world(struct dl_ctx *c, struct dl_rank **all, const struct dl_hdr *hdrs,
			size_t nents)
{
	long size = c->opt.expect_size;
	const char *job = NULL;
	{
		long best = 0, bestn = 0;
		const char *bj = NULL;
		long bjn = 0;
		/* Boyer-Moore majority vote, then a check count. */
		for (size_t i = 0; i < nents; i++) {
			if (!all[i])
				continue;
			if (bestn == 0) {
				best = hdrs[i].size;
				bestn = 1;
			} else {
				bestn += hdrs[i].size == best ? 1 : -1;
			}
			if (bjn == 0) {
				bj = hdrs[i].job;
				bjn = 1;
			} else {
				bjn += hdrs[i].job == bj ? 1 : -1;
			}
		}
		if (!size)
			size = best;
		job = bj;
	}
	c->job_id = job;
	for (size_t i = 0; i < nents; i++) {
		if (!all[i])
			continue;
		char err[300];
		err[0] = '\0';
		if (hdrs[i].size != size)
			snprintf(err, sizeof err, "/size: %ld differs from the job's world size %ld "
				 "(a dump of another job?)", hdrs[i].size, size);
		else if (hdrs[i].job != job)
			snprintf(err, sizeof err, "/job/id: \"%s\" differs from the job \"%s\" of the other dumps",
				 hdrs[i].job ? hdrs[i].job : "", job ? job : "");
		if (err[0]) {
			add_invalid(c, all[i]->file, err);
			dl_rank_free(all[i]);
			all[i] = NULL;
		}
	}
	if (size <= 0)
		size = 0;
	c->size = (int)size;
	c->ranks = calloc((size_t)size + 1, sizeof *c->ranks);
	if (!c->ranks)
		return -1;
	for (size_t i = 0; i < nents; i++) {
		if (!all[i])
			continue;
		if (all[i]->rank >= size) {
			char err[120];
			snprintf(err, sizeof err, "/rank: %d is not below the world size %ld", all[i]->rank, size);
			add_invalid(c, all[i]->file, err);
			dl_rank_free(all[i]);
			continue;
		}
		c->ranks[all[i]->rank] = all[i];
		c->ndumps++;
	}
	/* The world comm's size follows the job's. */
	for (int i = 0; i < c->ncomm; i++)
		if (c->comms[i].identity)
			c->comms[i].size = c->size;
	return 0;
}

/* Mark the world ranks whose rank-<N>.json is there but could not be read
 * (the first nread entries of c->invalid: not JSON, cut short, not a dump, a
 * wrong field; not the dumps of another job, which say nothing of this
 * one's rank), so the analysis can say it is incomplete rather than take
 * them for ranks that wrote nothing.  Return 0, or -1 (ENOMEM). */
static int mark_unreadable(struct dl_ctx *c, size_t nread)
{
	size_t n = c->invalid ? json_object_array_length(c->invalid) : 0;
	if (n > nread)
		n = nread;
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(c->invalid, i), *f, *e;
		if (!json_object_object_get_ex(o, "file", &f) || !json_object_object_get_ex(o, "error", &e))
			continue;
		long r = name_rank(json_object_get_string(f));
		if (r < 0 || r >= c->size || c->ranks[r])
			continue;
		if (!c->unreadable) {
			c->unreadable = calloc((size_t)c->size + 1, sizeof *c->unreadable);
			if (!c->unreadable)
				return -1;
		}
		if (c->unreadable[r])
			continue;
		char msg[800];
		snprintf(msg, sizeof msg, "%s: %s", json_object_get_string(f), json_object_get_string(e));
		c->unreadable[r] = dl_intern(c->pool, msg);
		if (!c->unreadable[r])
			return -1;
		c->nunreadable++;
	}
	return 0;
}

/* Release the nthreads workers w (what they still hold) and w itself. */
static void workers_free(struct worker *w, int nthreads)
{
	for (int t = 0; t < nthreads; t++) {
		struct worker *x = &w[t];
		for (size_t i = 0; i < x->ninv; i++) {
			free(x->inv[i].file);
			free(x->inv[i].err);
		}
		free(x->inv);
		free(x->cmap);
		free(x->xl.from);
		free(x->xl.to);
		dl_comms_free(&x->sub);
		dl_pool_destroy(x->sub.pool);
	}
	free(w);
}

static int load_entries(struct dl_ctx *c, struct ent *ents, size_t nents, int dfd,
			char *const *mbufs, const size_t *mlens)
{
	int rv = -1;
	struct dl_rank **all = NULL;
	struct dl_hdr *hdrs = NULL;
	struct worker *w = NULL;
	size_t done = 0;
	int nthreads = reader_threads(c, nents);

	if (nents > 1) /* ents is NULL when the folder has no dump (qsort's nonnull) */
		qsort(ents, nents, sizeof *ents, ent_cmp);
	c->nfiles = (int)nents;
	all = calloc(nents + 1, sizeof *all);
	hdrs = calloc(nents + 1, sizeof *hdrs);
	if (!all || !hdrs)
		goto fail;
	w = calloc((size_t)nthreads, sizeof *w);
	if (!w)
		goto fail;
	int progress = c->opt.on_progress && (c->opt.progress > 0 || (c->opt.progress == 0 && nents >= 5000));
	int schema_mode = schema_mode_for(c, nents);
	for (int t = 0; t < nthreads; t++) {
		struct worker *x = &w[t];
		x->schema_mode = schema_mode;
		x->sub.opt = c->opt;
		x->sub.pool = dl_pool_create();
		if (!x->sub.pool || dl_comms_init(&x->sub) < 0)
			goto fail;
		x->ents = ents;
		x->nents = nents;
		x->t = t;
		x->nthreads = nthreads;
		x->dfd = dfd;
		x->mbufs = mbufs;
		x->mlens = mlens;
		x->all = all;
		x->hdrs = hdrs;
		x->progress = progress;
		x->done = &done;
	}
	run_workers(w, nthreads);
	if (progress)
		c->opt.on_progress(c->opt.cb_arg, nents, nents, 1);
	for (int t = 0; t < nthreads; t++) {
		if (w[t].fatal) {
			errno = w[t].fatal;
			goto fail;
		}
	}
	for (int t = 0; t < nthreads; t++) {
		if (w[t].schema_broken && c->notes) {
			json_object_array_add(c->notes, json_object_new_string(
				"the dump schema could not be used (bad $ref or pattern): built-in checks only"));
			break;
		}
	}
	if (merge_workers(c, w, nthreads, all, hdrs, nents) < 0)
		goto fail;
	size_t nread = json_object_array_length(c->invalid);
	if (settle_world(c, all, hdrs, nents) < 0 || mark_unreadable(c, nread) < 0)
		goto fail;
	rv = 0;
fail:
	if (rv < 0 && all) {
		for (size_t i = 0; i < nents; i++)
			dl_rank_free(all[i]);
	}
	if (w)
		workers_free(w, nthreads);
	free(all);
	free(hdrs);
	return rv;
}

void dl_ctx_free_model(struct dl_ctx *c)
{
	if (c->ranks)
		for (int i = 0; i < c->size; i++)
			dl_rank_free(c->ranks[i]);
	free(c->ranks);
	free(c->unreadable);
	c->unreadable = NULL;
	c->nunreadable = 0;
	dl_comms_free(c);
	if (c->invalid)
		json_object_put(c->invalid);
}
