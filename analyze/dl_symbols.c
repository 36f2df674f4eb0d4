/* dl_symbols.c - symbolise call sites and stacks in-process with elfutils'
 * libdw (libdwfl: separate debug info by .gnu_debuglink or build-id).
 *
 * The monitor writes return addresses as object + offset and leaves file:line
 * to the analysis (doc/monitor.md).  Frames are deduplicated first (100,000
 * ranks share a few dozen distinct frames), then each readable object is
 * opened once for all its offsets.  A return address points after the
 * call instruction, so offset - 1 is looked up, which gives the line of the
 * call.  Nothing here is fatal: frames that cannot be resolved stay as they
 * are. */
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dl_int.h"

#define BATCH 400

struct fref {
	struct dl_frame *f;
};

static int fref_cmp(const void *a, const void *b)
{
	const struct dl_frame *x = ((const struct fref *)a)->f, *y = ((const struct fref *)b)->f;
	if (x->object != y->object)
		return x->object < y->object ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return 0;
}

static void add_ref(struct fref **v, size_t *n, size_t *cap, struct dl_frame *f)
{
	if (f->file || !f->object || !f->offset)
		return;
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 1024;
		struct fref *nv = realloc(*v, ncap * sizeof *nv);
		if (!nv)
			return;
		*v = nv;
		*cap = ncap;
	}
	(*v)[(*n)++].f = f;
}

/* One object opened with libdwfl (elfutils), its separate debug info found
 * the standard way (.gnu_debuglink, build-id under /usr/lib/debug). */
struct dwobj {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr base; /* where libdwfl placed the object */
	int has_lines;  /* it has DWARF line information */
};

static const Dwfl_Callbacks dw_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static int dwobj_open(struct dwobj *d, const char *obj)
{
	memset(d, 0, sizeof *d);
	d->dwfl = dwfl_begin(&dw_callbacks);
	if (!d->dwfl)
		return -1;
	d->mod = dwfl_report_offline(d->dwfl, obj, obj, -1);
	dwfl_report_end(d->dwfl, NULL, NULL);
	if (!d->mod) {
		dwfl_end(d->dwfl);
		d->dwfl = NULL;
		return -1;
	}
	dwfl_module_info(d->mod, NULL, &d->base, NULL, NULL, NULL, NULL, NULL);
	Dwarf_Addr bias;
	d->has_lines = dwfl_module_getdwarf(d->mod, &bias) != NULL;
	return 0;
}

int dl_sym_lookup(const char *obj, unsigned long long offset, int exact, char *fn, size_t fnlen,
		  char *file, size_t filelen, int *line)
{
	struct dwobj d;
	int rv = 0;
	fn[0] = file[0] = 0;
	*line = 0;
	if (dwobj_open(&d, obj) < 0)
		return -1;
	/* A return address points after the call: offset - 1 is in the call. */
	GElf_Addr a = d.base + (exact || !offset ? offset : offset - 1);
	const char *name = dwfl_module_addrname(d.mod, a);
	if (name)
		snprintf(fn, fnlen, "%s", name);
	Dwfl_Line *l = d.has_lines ? dwfl_module_getsrc(d.mod, a) : NULL;
	int ln = 0;
	const char *src = l ? dwfl_lineinfo(l, NULL, &ln, NULL, NULL, NULL) : NULL;
	if (src && ln > 0) {
		const char *base = strrchr(src, '/');
		snprintf(file, filelen, "%s", base ? base + 1 : src);
		*line = ln;
		rv = 1;
	}
	dwfl_end(d.dwfl);
	return rv;
}

/* Resolve one batch of distinct offsets of one object (libdw, in-process);
 * apply to all frames with the same (object, offset) in refs. */
static int resolve(struct dl_ctx *c, struct fref *refs, size_t *starts, int nd)
{
	const char *obj = refs[starts[0]].f->object;
	struct dwobj d;
	int done = 0;
	if (dwobj_open(&d, obj) < 0)
		return 0;
	for (int i = 0; i < nd; i++) {
		unsigned long long off = strtoull(refs[starts[i]].f->offset, NULL, 0);
		GElf_Addr a = d.base + (off ? off - 1 : 0);
		const char *name = dwfl_module_addrname(d.mod, a), *sym = NULL, *file = NULL;
		Dwfl_Line *l = d.has_lines ? dwfl_module_getsrc(d.mod, a) : NULL;
		int ln = 0;
		const char *src = l ? dwfl_lineinfo(l, NULL, &ln, NULL, NULL, NULL) : NULL;
		if (name)
			sym = dl_intern(c->pool, name);
		if (src && ln > 0) {
			const char *base = strrchr(src, '/');
			file = dl_intern(c->pool, base ? base + 1 : src);
		}
		for (size_t j = starts[i]; j < starts[i + 1]; j++) {
			struct dl_frame *f = refs[j].f;
			if (!f->symbol && sym)
				f->symbol = sym;
			if (file && ln > 0) {
				f->file = file;
				f->line = ln;
				done++;
			}
		}
	}
	dwfl_end(d.dwfl);
	return done;
}

/* Is the file at obj still the build that ran (build-id bid, hex)?  1 yes
 * (or nothing to compare with), 0 no, -1 it cannot be opened. */
static int same_build(const char *obj, const char *bid)
{
	struct dwobj d;
	const unsigned char *id;
	GElf_Addr va;
	int rv = 1;
	if (dwobj_open(&d, obj) < 0)
		return -1;
	int n = dwfl_module_build_id(d.mod, &id, &va);
	if (bid && n > 0) {
		char hex[2 * 64 + 1];
		for (int i = 0; i < n && i < 64; i++)
			snprintf(hex + 2 * i, 3, "%02x", id[i]);
		rv = n <= 64 && !strcmp(hex, bid);
	} else if (bid) {
		rv = 0; /* the run's build had an id, this file has none */
	}
	dwfl_end(d.dwfl);
	return rv;
}

/* Say why frames[i, end) of one object have no source line. */
static void no_source(struct dl_ctx *c, struct fref *refs, size_t i, size_t end, const char *fmt,
		      const char *obj)
{
	char why[4200];
	snprintf(why, sizeof why, fmt, obj);
	const char *w = dl_intern(c->pool, why);
	for (size_t j = i; j < end; j++)
		refs[j].f->nosrc = w;
}

int dl_symbolize(struct dl_ctx *c)
{
	struct fref *refs = NULL;
	size_t n = 0, cap = 0;
	int done = 0;
	for (int r = 0; r < c->size; r++) {
		struct dl_rank *p = c->ranks[r];
		if (!p)
			continue;
		if (p->has_call)
			add_ref(&refs, &n, &cap, &p->call.site);
		/* where the requests a wait is on were posted (dl_report: the line to change) */
		for (int i = 0; i < p->npsend; i++)
			add_ref(&refs, &n, &cap, &p->psend[i].site);
		for (int i = 0; i < p->nprecv; i++)
			add_ref(&refs, &n, &cap, &p->precv[i].site);
		/* what a rank in MPI_Finalize or MPI_Buffer_detach waits for */
		for (int i = 0; i < p->nbsend; i++)
			add_ref(&refs, &n, &cap, &p->bsend[i].site);
		for (int i = 0; i < p->nstack; i++)
			add_ref(&refs, &n, &cap, &p->stack[i]);
	}
	if (!n)
		return 0;
	qsort(refs, n, sizeof *refs, fref_cmp);
	size_t *starts = malloc((BATCH + 2) * sizeof *starts);
	if (!starts) {
		free(refs);
		return 0;
	}
	size_t i = 0;
	while (i < n) {
		const char *obj = refs[i].f->object;
		size_t end = i;
		while (end < n && refs[end].f->object == obj)
			end++;
		/* System libraries have no line information worth opening
		 * (the monitor gives their symbols already). */
		if (!strncmp(obj, "/lib/", 5) || !strncmp(obj, "/lib64/", 7) || !strncmp(obj, "/usr/lib/", 9) ||
		    !strncmp(obj, "/usr/lib64/", 11)) {
			i = end;
			continue;
		}
		/* The dump names the object by its absolute path and build-id
		 * (older dumps: as started, e.g. ./prog, which only the run's
		 * own folder resolves).  Another build at that path would give
		 * lines of other code: none is better. */
		int same = access(obj, R_OK) != 0 ? -1 : same_build(obj, refs[i].f->build_id);
		if (same <= 0) {
			no_source(c, refs, i, end, same < 0 ? "%s is not readable here" : "%s has changed since the run",
				  obj);
			i = end;
			continue;
		}
		/* distinct offsets in batches */
		size_t j = i;
		while (j < end) {
			int nd = 0;
			while (j < end && nd < BATCH) {
				starts[nd++] = j;
				const char *off = refs[j].f->offset;
				while (j < end && refs[j].f->offset == off)
					j++;
			}
			starts[nd] = j;
			done += resolve(c, refs, starts, nd);
		}
		i = end;
	}
	free(starts);
	free(refs);
	return done;
}
