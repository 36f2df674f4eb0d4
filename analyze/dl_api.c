/* dl_api.c - dl_analyze_dir() and the result accessors. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_int.h"
#include "log.h"

struct dl_result {
	struct dl_ctx c;
};

void dl_options_init(struct dl_options *o)
{
	memset(o, 0, sizeof *o);
	o->top = 3;
	o->eager_limit = 4096;
	o->skew = 0.5;
}

static void free_findings(struct dl_ctx *c)
{
	for (int i = 0; i < c->nfindings; i++) {
		struct dl_finding *f = &c->findings[i];
		free(f->ranks);
		free(f->terminal);
		free(f->waiting);
		free(f->missing);
		free(f->path);
		if (f->diag)
			json_object_put(f->diag);
	}
	free(c->findings);
}

void dl_result_free(struct dl_result *r)
{
	if (!r)
		return;
	struct dl_ctx *c = &r->c;
	free_findings(c);
	dl_ctx_free_model(c);
	free(c->v);
	free(c->cl);
	free(c->tgt);
	free(c->anyc);
	free(c->rank_vnode);
	free(c->comm_vhead);
	free(c->vnext);
	free(c->nstate);
	free(c->released);
	free(c->unsat);
	free(c->why);
	free(c->node_first_clause);
	free(c->node_nclauses);
	free(c->offers);
	free(c->offer_start);
	free(c->deadlocked);
	free(c->desc_abs);
	free(c->desc_rel);
	if (c->report)
		json_object_put(c->report);
	if (c->notes)
		json_object_put(c->notes);
	dl_pool_destroy(c->pool);
	free(r);
}

static int analyze(const char *dir, int n, const char *const *names, char *const *bufs,
		   const size_t *lens, const struct dl_options *opt, struct dl_result **out)
{
	int e;
	struct dl_result *r = calloc(1, sizeof *r);
	if (!r)
		return -1;
	struct dl_ctx *c = &r->c;
	if (opt)
		c->opt = *opt;
	else
		dl_options_init(&c->opt);
	if (c->opt.top < 0)
		c->opt.top = 0;
	if (c->opt.eager_limit < 0)
		c->opt.eager_limit = 0;
	c->pool = dl_pool_create();
	c->notes = json_object_new_array();
	if (!c->pool || !c->notes) {
		errno = ENOMEM;
		goto fail;
	}
	double t0 = mw_now(), t1, t2, t3, t4;
	if ((dir ? dl_load_dir(c, dir) : dl_load_buffers(c, n, names, bufs, lens)) < 0)
		goto fail;
	t1 = mw_now();
	if (!c->opt.no_symbols)
		dl_symbolize(c);
	t2 = mw_now();
	if (dl_build_graph(c) < 0 || dl_solve(c) < 0)
		goto fail;
	t3 = mw_now();
	if (dl_diagnose(c) < 0 || dl_build_report(c) < 0)
		goto fail;
	t4 = mw_now();
	if (c->opt.on_phases) {
		const double phase_s[4] = {t1 - t0, t2 - t1, t3 - t2, t4 - t3};
		c->opt.on_phases(c->opt.cb_arg, phase_s);
	}
	*out = r;
	return 0;
fail:
	e = errno ? errno : ENOMEM;
	dl_result_free(r);
	errno = e;
	return -1;
}

int dl_analyze_dir(const char *dir, const struct dl_options *opt, struct dl_result **out)
{
	return analyze(dir, 0, NULL, NULL, NULL, opt, out);
}

int dl_analyze_buffers(int n, const char *const *names, char *const *bufs, const size_t *lens,
		       const struct dl_options *opt, struct dl_result **out)
{
	return analyze(NULL, n, names, bufs, lens, opt, out);
}

int dl_result_found(const struct dl_result *r)
{
	return r && r->c.nconfirmed > 0;
}

int dl_result_incomplete(const struct dl_result *r)
{
	return r && r->c.nunreadable > 0;
}

const char *dl_result_kind(const struct dl_result *r)
{
	return dl_result_found(r) ? r->c.findings[0].kind : "none";
}

int dl_result_dumps(const struct dl_result *r)
{
	return r ? r->c.ndumps : 0;
}

struct json_object *dl_result_json(const struct dl_result *r)
{
	return r ? r->c.report : NULL;
}

int dl_write_text(FILE *f, const struct dl_result *r)
{
	return dl_text(f, &r->c);
}

int dl_write_json(FILE *f, const struct dl_result *r)
{
	const char *s = json_object_to_json_string_ext(r->c.report,
						       JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!s) {
		errno = ENOMEM;
		return -1;
	}
	fputs(s, f);
	fputc('\n', f);
	return ferror(f) ? -1 : 0;
}

int dl_write_dot(FILE *f, const struct dl_result *r)
{
	return dl_dot(f, &r->c);
}
