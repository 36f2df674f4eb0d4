/* mwt_plan.c - the tree's shape and the attach plan (seed 003, doc/tree.md). */
#include "mwt_plan.h"
#include "mwt_err.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#define MWT_CP_MAX (1 << 24)

size_t mwt_default_cps(size_t nbe, int fanout)
{
	size_t level, total = 0, f = (size_t)fanout;
	if (fanout < 2 || nbe <= f)
		return 0;
	level = (nbe + f - 1) / f; /* IBEs */
	total = level;
	while (level > f) {
		level = (level + f - 1) / f;
		total += level;
	}
	return total;
}

long mwt_tree_parent(size_t c, int fanout)
{
	if (c < (size_t)fanout)
		return -1;
	return (long)(c / (size_t)fanout) - 1;
}

long mwt_attach(const int *be_host, size_t nbe, const int *ibe_host, size_t nibe, size_t nhost, int *out)
{
	size_t *start = NULL, *list = NULL, *cursor = NULL, *fill = NULL, cap, b, i, j;
	long same = 0, rv = -1;

	if (nbe == 0)
		return 0;
	if (nibe == 0) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < nibe; i++)
		if (ibe_host[i] < 0 || (size_t)ibe_host[i] >= nhost) {
			errno = EINVAL;
			return -1;
		}
	for (b = 0; b < nbe; b++)
		if (be_host[b] < 0 || (size_t)be_host[b] >= nhost) {
			errno = EINVAL;
			return -1;
		}
	cap = (nbe + nibe - 1) / nibe; /* fanout = ceil(#BE / #IBE) */
	start = calloc(nhost + 1, sizeof(*start));
	list = calloc(nibe, sizeof(*list));
	cursor = calloc(nhost, sizeof(*cursor));
	fill = calloc(nibe, sizeof(*fill));
	if (!start || !list || !cursor || !fill) {
		errno = ENOMEM;
		goto fail;
	}
	/* the IBEs of each host, in IBE order: list[start[h] .. start[h+1]) */
	for (i = 0; i < nibe; i++)
		start[ibe_host[i] + 1]++;
	for (i = 0; i < nhost; i++)
		start[i + 1] += start[i];
	for (i = 0; i < nibe; i++)
		list[cursor[ibe_host[i]]++ + start[ibe_host[i]]] = i;
	memset(cursor, 0, nhost * sizeof(*cursor));
	/* same host first, round-robin among the host's IBEs with room */
	for (b = 0; b < nbe; b++) {
		size_t h = (size_t)be_host[b], cnt = start[h + 1] - start[h], t;
		out[b] = -1;
		for (t = 0; t < cnt; t++) {
			size_t k = (cursor[h] + t) % cnt, ibe = list[start[h] + k];
			if (fill[ibe] < cap) {
				out[b] = (int)ibe;
				fill[ibe]++;
				cursor[h] = (k + 1) % cnt;
				same++;
				break;
			}
		}
	}
	/* the rest fill the IBEs with room, in order */
	for (b = 0, j = 0; b < nbe; b++) {
		if (out[b] >= 0)
			continue;
		while (j < nibe && fill[j] >= cap)
			j++;
		if (j == nibe) { /* cannot happen: nibe * cap >= nbe */
			errno = EINVAL;
			goto fail;
		}
		out[b] = (int)j;
		fill[j]++;
	}
	rv = same;
fail:
	free(start);
	free(list);
	free(cursor);
	free(fill);
	return rv;
}


void mwt_plan_free(struct mwt_plan *p)
{
	free(p->as);
	free(p->rank);
	free(p->eval);
	free(p->cp_host);
	free(p->cp_parent);
	free(p->cp_depth);
	free(p->cp_nbe);
	free(p->be_host);
	free(p->be_local);
	free(p->be_cp);
	memset(p, 0, sizeof(*p));
}

int mwt_plan_build(const struct mwt_host *hosts, size_t nhost, const struct mwt_plan_opts *o,
		   struct mwt_plan *p, char *err, size_t errlen)
{
	int *os = NULL, *ibe_host = NULL, *ibe_cp = NULL, *be_ibe = NULL;
	size_t i, c, b, nbe = 0;
	long same;

	memset(p, 0, sizeof(*p));
	if (!nhost) {
		mwt_errf(err, errlen, "no host");
		errno = EINVAL;
		return -1;
	}
	if (o->fanout < 2 || o->fanout > MWT_FANOUT_MAX) {
		mwt_errf(err, errlen, "fanout %d outside [2, %d]", o->fanout, MWT_FANOUT_MAX);
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < nhost; i++) {
		if (hosts[i].be < 0 || nbe + (size_t)hosts[i].be > MWT_CP_MAX) {
			mwt_errf(err, errlen, "host %s: BE count %d out of range (at most %d in all)", hosts[i].name,
				hosts[i].be, MWT_CP_MAX);
			errno = EINVAL;
			return -1;
		}
		nbe += (size_t)hosts[i].be;
	}
	p->strategy = o->strategy;
	p->fanout = o->fanout;
	p->nhost = nhost;
	p->hosts = hosts;
	p->nbe = nbe;
	p->ncp = o->ncp < 0 ? mwt_default_cps(nbe, o->fanout) : (size_t)o->ncp;
	if (p->ncp > MWT_CP_MAX) {
		mwt_errf(err, errlen, "%zu CPs: at most %d", p->ncp, MWT_CP_MAX);
		errno = EINVAL;
		return -1;
	}
	p->as = calloc(nhost, sizeof(*p->as));
	os = calloc(nhost, sizeof(*os));
	p->cp_host = calloc(p->ncp + 1, sizeof(int));
	p->cp_parent = calloc(p->ncp + 1, sizeof(int));
	p->cp_depth = calloc(p->ncp + 1, sizeof(int));
	p->cp_nbe = calloc(p->ncp + 1, sizeof(int));
	ibe_host = calloc(p->ncp + 1, sizeof(int));
	ibe_cp = calloc(p->ncp + 1, sizeof(int));
	p->be_host = calloc(nbe + 1, sizeof(int));
	p->be_local = calloc(nbe + 1, sizeof(int));
	p->be_cp = calloc(nbe + 1, sizeof(int));
	be_ibe = calloc(nbe + 1, sizeof(int));
	if (!p->as || !os || !p->cp_host || !p->cp_parent || !p->cp_depth || !p->cp_nbe || !ibe_host ||
	    !ibe_cp || !p->be_host || !p->be_local || !p->be_cp || !be_ibe)
		goto nomem;
	for (i = 0; i < nhost; i++)
		os[i] = hosts[i].be;

	/* placement */
	if (o->strategy == MWT_FUZZY) {
		struct mwt_factors *f = calloc(nhost, sizeof(*f));
		p->rank = calloc(nhost, sizeof(*p->rank));
		p->eval = calloc(nhost, sizeof(*p->eval));
		if (!f || !p->rank || !p->eval) {
			free(f);
			goto nomem;
		}
		for (i = 0; i < nhost; i++)
			f[i] = hosts[i].f;
		if (mwt_fuzzy_rank(f, nhost, o->weights, p->eval, p->rank) < 0) {
			int e = errno;
			free(f);
			mwt_errf(err, errlen, e == EINVAL ? "bad weights (none negative, not all 0)" : "out of memory");
			errno = e;
			goto fail;
		}
		free(f);
		for (c = 0; c < p->ncp; c++) {
			p->cp_host[c] = (int)p->rank[c % nhost];
			p->as[p->cp_host[c]]++;
		}
	} else {
		if (mwt_place_average(os, nhost, (int)p->ncp, NULL, p->as, &p->avg) < 0) {
			mwt_errf(err, errlen, "%s", errno == ENOMEM ? "out of memory" : "too many processes");
			goto fail;
		}
		for (i = 0, c = 0; i < nhost; i++) {
			int k;
			for (k = 0; k < p->as[i]; k++)
				p->cp_host[c++] = (int)i;
		}
	}

	/* shape: a k-ary tree under the front end; IBEs are the CPs without CP children */
	for (c = 0; c < p->ncp; c++) {
		long par = mwt_tree_parent(c, o->fanout);
		p->cp_parent[c] = (int)par;
		p->cp_depth[c] = par < 0 ? 1 : p->cp_depth[par] + 1;
		if (p->cp_depth[c] > p->depth)
			p->depth = p->cp_depth[c];
		if ((c + 1) * (size_t)o->fanout >= p->ncp) {
			ibe_host[p->nibe] = p->cp_host[c];
			ibe_cp[p->nibe++] = (int)c;
		}
	}

	/* the BEs, host by host, and where they attach */
	for (i = 0, b = 0; i < nhost; i++) {
		int k;
		for (k = 0; k < hosts[i].be; k++, b++) {
			p->be_host[b] = (int)i;
			p->be_local[b] = k;
		}
	}
	if (p->nibe == 0) { /* the flat star */
		for (b = 0; b < nbe; b++)
			p->be_cp[b] = -1;
		p->attach_fanout = (int)nbe;
	} else {
		same = mwt_attach(p->be_host, nbe, ibe_host, p->nibe, nhost, be_ibe);
		if (same < 0)
			goto nomem;
		p->be_same_host = (size_t)same;
		p->attach_fanout = (int)((nbe + p->nibe - 1) / p->nibe);
		for (b = 0; b < nbe; b++) {
			p->be_cp[b] = ibe_cp[be_ibe[b]];
			p->cp_nbe[p->be_cp[b]]++;
		}
	}
	free(os);
	free(ibe_host);
	free(ibe_cp);
	free(be_ibe);
	return 0;
nomem:
	mwt_errf(err, errlen, "out of memory");
	errno = ENOMEM;
fail:
	free(os);
	free(ibe_host);
	free(ibe_cp);
	free(be_ibe);
	{
		int e = errno;
		mwt_plan_free(p);
		errno = e;
	}
	return -1;
}

static const char *strategy_name(enum mwt_strategy s)
{
	return s == MWT_FUZZY ? "fuzzy" : "average";
}

/* The process number of CP c on its host in the MRNet file: the front end
 * is hosts[0]:0, then the CPs of each host in CP order. */
static int *mrnet_ids(const struct mwt_plan *p)
{
	int *next = calloc(p->nhost, sizeof(int)), *id = calloc(p->ncp + 1, sizeof(int));
	size_t c;
	if (!next || !id) {
		free(next);
		free(id);
		return NULL;
	}
	next[0] = 1;
	for (c = 0; c < p->ncp; c++)
		id[c] = next[p->cp_host[c]]++;
	free(next);
	return id;
}

int mwt_plan_write_text(const struct mwt_plan *p, FILE *out)
{
	size_t i, c, b;
	fprintf(out, "strategy %s: %zu hosts, %zu BEs, %zu CPs (%zu IBEs), fanout %d, depth %d, attach fanout %d\n",
		strategy_name(p->strategy), p->nhost, p->nbe, p->ncp, p->nibe, p->fanout, p->depth,
		p->attach_fanout);
	fprintf(out, "front end: %s\n", p->hosts[0].name);
	if (p->strategy == MWT_AVERAGE)
		fprintf(out, "average: %d RS round%s, %zu host%s kept to their BEs\n", p->avg.rounds,
			p->avg.rounds == 1 ? "" : "s", p->avg.nrs, p->avg.nrs == 1 ? "" : "s");
	fprintf(out, "\nplacement:\n");
	for (i = 0; i < p->nhost; i++) {
		size_t h = p->rank ? p->rank[i] : i;
		fprintf(out, "  %-20s %d BE%s, %d CP%s", p->hosts[h].name, p->hosts[h].be, p->hosts[h].be == 1 ? "" : "s",
			p->as[h], p->as[h] == 1 ? "" : "s");
		if (p->eval)
			fprintf(out, "  rank %zu  B = (good %.4f, fair %.4f, poor %.4f) %s", i + 1,
				p->eval[h].b[MWT_J_GOOD], p->eval[h].b[MWT_J_FAIR], p->eval[h].b[MWT_J_POOR],
				mwt_judgement_name(p->eval[h].judgement));
		fputc('\n', out);
	}
	fprintf(out, "\ntree:\n");
	for (c = 0; c < p->ncp; c++) {
		fprintf(out, "  cp%zu@%s parent ", c, p->hosts[p->cp_host[c]].name);
		if (p->cp_parent[c] < 0)
			fprintf(out, "fe@%s", p->hosts[0].name);
		else
			fprintf(out, "cp%d@%s", p->cp_parent[c], p->hosts[p->cp_host[p->cp_parent[c]]].name);
		fprintf(out, " depth %d", p->cp_depth[c]);
		if ((c + 1) * (size_t)p->fanout >= p->ncp)
			fprintf(out, " IBE %d BE%s", p->cp_nbe[c], p->cp_nbe[c] == 1 ? "" : "s");
		fputc('\n', out);
	}
	if (!p->ncp)
		fprintf(out, "  (no CP: every BE attaches to the front end, the flat star)\n");
	fprintf(out, "\nattach (%zu of %zu on their own host):\n", p->be_same_host, p->nbe);
	for (b = 0; b < p->nbe; b++) {
		fprintf(out, "  %s:be%d -> ", p->hosts[p->be_host[b]].name, p->be_local[b]);
		if (p->be_cp[b] < 0)
			fprintf(out, "fe@%s\n", p->hosts[0].name);
		else
			fprintf(out, "cp%d@%s\n", p->be_cp[b], p->hosts[p->cp_host[p->be_cp[b]]].name);
	}
	return ferror(out) ? -1 : 0;
}

static void jadd(json_object *o, const char *k, json_object *v)
{
	json_object_object_add(o, k, v);
}

int mwt_plan_write_json(const struct mwt_plan *p, FILE *out)
{
	json_object *root = json_object_new_object(), *hosts, *cps, *attach;
	size_t i, c, b;
	int j, rv;
	if (!root) {
		errno = ENOMEM;
		return -1;
	}
	jadd(root, "version", json_object_new_int(1));
	jadd(root, "strategy", json_object_new_string(strategy_name(p->strategy)));
	jadd(root, "fanout", json_object_new_int(p->fanout));
	jadd(root, "attach_fanout", json_object_new_int(p->attach_fanout));
	jadd(root, "depth", json_object_new_int(p->depth));
	jadd(root, "nbe", json_object_new_int64((int64_t)p->nbe));
	jadd(root, "ncp", json_object_new_int64((int64_t)p->ncp));
	jadd(root, "nibe", json_object_new_int64((int64_t)p->nibe));
	jadd(root, "same_host", json_object_new_int64((int64_t)p->be_same_host));
	jadd(root, "front_end", json_object_new_string(p->hosts[0].name));
	if (p->strategy == MWT_AVERAGE) {
		json_object *a = json_object_new_object();
		jadd(a, "rounds", json_object_new_int(p->avg.rounds));
		jadd(a, "rs", json_object_new_int64((int64_t)p->avg.nrs));
		jadd(root, "average", a);
	}
	hosts = json_object_new_array();
	for (i = 0; i < p->nhost; i++) {
		json_object *h = json_object_new_object();
		jadd(h, "name", json_object_new_string(p->hosts[i].name));
		jadd(h, "be", json_object_new_int(p->hosts[i].be));
		jadd(h, "cp", json_object_new_int(p->as[i]));
		if (p->eval) {
			json_object *bv = json_object_new_object(), *xv = json_object_new_object();
			size_t k;
			for (k = 0; k < p->nhost && p->rank[k] != i; k++)
				;
			jadd(h, "rank", json_object_new_int64((int64_t)k + 1));
			for (j = 0; j < MWT_NJ; j++)
				jadd(bv, mwt_judgement_name(j), json_object_new_double(p->eval[i].b[j]));
			for (j = 0; j < MWT_NF; j++)
				jadd(xv, mwt_factor_name(j), json_object_new_double(p->eval[i].x[j]));
			jadd(h, "b", bv);
			jadd(h, "goodness", xv);
			jadd(h, "judgement", json_object_new_string(mwt_judgement_name(p->eval[i].judgement)));
		}
		json_object_array_add(hosts, h);
	}
	jadd(root, "hosts", hosts);
	cps = json_object_new_array();
	for (c = 0; c < p->ncp; c++) {
		json_object *o = json_object_new_object();
		int ibe = (c + 1) * (size_t)p->fanout >= p->ncp;
		jadd(o, "id", json_object_new_int64((int64_t)c));
		jadd(o, "host", json_object_new_string(p->hosts[p->cp_host[c]].name));
		jadd(o, "parent", json_object_new_int(p->cp_parent[c]));
		jadd(o, "depth", json_object_new_int(p->cp_depth[c]));
		jadd(o, "ibe", json_object_new_boolean(ibe));
		jadd(o, "be", json_object_new_int(p->cp_nbe[c]));
		json_object_array_add(cps, o);
	}
	jadd(root, "cps", cps);
	attach = json_object_new_array();
	for (b = 0; b < p->nbe; b++) {
		json_object *o = json_object_new_object();
		jadd(o, "host", json_object_new_string(p->hosts[p->be_host[b]].name));
		jadd(o, "be", json_object_new_int(p->be_local[b]));
		jadd(o, "cp", json_object_new_int(p->be_cp[b]));
		json_object_array_add(attach, o);
	}
	jadd(root, "attach", attach);
	rv = fprintf(out, "%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN)) < 0 ? -1 : 0;
	json_object_put(root);
	return rv < 0 || ferror(out) ? -1 : 0;
}

int mwt_plan_write_mrnet(const struct mwt_plan *p, FILE *out)
{
	int *id;
	size_t c, k;
	if (!p->ncp) {
		fprintf(out, "%s:0 ;\n", p->hosts[0].name);
		return ferror(out) ? -1 : 0;
	}
	id = mrnet_ids(p);
	if (!id) {
		errno = ENOMEM;
		return -1;
	}
	/* the front end's children are CPs 0 .. fanout-1 */
	fprintf(out, "%s:0 =>", p->hosts[0].name);
	for (c = 0; c < p->ncp && c < (size_t)p->fanout; c++)
		fprintf(out, " %s:%d", p->hosts[p->cp_host[c]].name, id[c]);
	fprintf(out, " ;\n");
	for (c = 0; c < p->ncp; c++) {
		size_t first = (c + 1) * (size_t)p->fanout;
		if (first >= p->ncp)
			break; /* the rest are IBEs: no CP child */
		fprintf(out, "%s:%d =>", p->hosts[p->cp_host[c]].name, id[c]);
		for (k = first; k < p->ncp && k < first + (size_t)p->fanout; k++)
			fprintf(out, " %s:%d", p->hosts[p->cp_host[k]].name, id[k]);
		fprintf(out, " ;\n");
	}
	free(id);
	return ferror(out) ? -1 : 0;
}
