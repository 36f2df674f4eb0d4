/* answer.c - one sentence per finding (answer.h). */
#include "answer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl.h"
#include "hostlist.h"
#include "jobconf.h"
#include "verdict_text.h"

const char *col_cause_meaning(char cause)
{
	switch (cause) {
	case 'A':
		return "a long computation or a slow transfer, not an error";
	case 'B':
		return "the program's own error";
	case 'C':
		return "blocked by a failed or stuck peer";
	case 'D':
		return "hardware: a node failed";
	default:
		return "unknown";
	}
}

static void add(struct col_answer *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(struct col_answer *a, const char *fmt, ...)
{
	va_list ap;
	if (a->n >= COL_ANSWER_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(a->line[a->n++], COL_ANSWER_LEN, fmt, ap);
	va_end(ap);
}

/* "rank 3" or "ranks 0-2" into buf. */
static const char *ranks_text(const int *v, size_t n, char *buf, size_t len)
{
	char rl[200];
	mw_ranges_format(v, n, rl, sizeof rl);
	snprintf(buf, len, "rank%s %s", n > 1 ? "s" : "", rl);
	return buf;
}

/* Field key of the analysis' class of rank r ("where": "MPI_Recv (x.c:12)";
 * "waits_for").  Return 1 if known. */
static int class_field(const struct col_state *s, int r, const char *key, char *buf, size_t len)
{
	json_object *cls, *o, *v;
	if (!s->analysis || !json_object_object_get_ex(s->analysis, "classes", &cls) ||
	    !json_object_is_type(cls, json_type_array))
		return 0;
	for (size_t i = 0; i < json_object_array_length(cls); i++) {
		int *rs = NULL;
		long n;
		int hit = 0;
		o = json_object_array_get_idx(cls, i);
		if (!json_object_object_get_ex(o, "ranks", &v) ||
		    (n = mw_ranges_parse(json_object_get_string(v), COL_MAX_RANKS, &rs)) < 0)
			continue;
		for (long k = 0; k < n && !hit; k++)
			hit = rs[k] == r;
		free(rs);
		if (hit && json_object_object_get_ex(o, key, &v)) {
			snprintf(buf, len, "%s", json_object_get_string(v));
			return 1;
		}
	}
	return 0;
}

/* Where rank r is, from the analysis' classes ("MPI_Recv (x.c:12)").
 * Return 1 if known. */
static int where_of(const struct col_state *s, int r, char *buf, size_t len)
{
	return class_field(s, r, "where", buf, len);
}

/* The analysis' deadlock holds (not explained by a rank that ended). */
static int dl_holds(const struct col_state *s)
{
	return s->dl.found && col_deadlock_ended_rank(s) < 0;
}

static void deadlock_lines(const struct col_state *s, struct col_answer *a)
{
	json_object *fa, *v;
	if (!s->analysis || !json_object_object_get_ex(s->analysis, "findings", &fa) ||
	    !json_object_is_type(fa, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(fa); i++)
		if (json_object_object_get_ex(json_object_array_get_idx(fa, i), "sentence", &v))
			add(a, "%s", json_object_get_string(v));
}

/* The C ranks, appended to the last sentence: "; ranks 0,2 wait for them". */
static void blocked_tail(const struct col_state *s, struct col_answer *a)
{
	const struct col_result *r = &s->res;
	int *v = malloc((s->size ? s->size : 1) * sizeof *v);
	size_t n = 0;
	char buf[220];
	if (!v || !a->n) {
		free(v);
		return;
	}
	for (size_t i = 0; i < r->ncauses; i++)
		if (r->causes[i].cause == 'C')
			for (size_t k = 0; k < r->causes[i].n && n < s->size; k++)
				v[n++] = r->causes[i].ranks[k];
	if (n) {
		char *l = a->line[a->n - 1];
		size_t used = strlen(l);
		snprintf(l + used, COL_ANSWER_LEN - used, "; %s %s blocked on %s (cause C: %s)",
			 ranks_text(v, n, buf, sizeof buf), n > 1 ? "were" : "was",
			 a->n > 1 ? "these" : "it", col_cause_meaning('C'));
	}
	free(v);
}

/* Where rank r died: the innermost frame of its crash stack with a source
 * line (the system's libraries have none), else its innermost frame.
 * Return 1 if known. */
static int crash_where(const struct col_state *s, int r, char *buf, size_t len)
{
	char st[2048];
	const char *p, *first = NULL;
	if (!col_rank_line(s->crash_stacks, r, st, sizeof st))
		return 0;
	for (p = st; *p; p += strcspn(p, "\t") + (p[strcspn(p, "\t")] == '\t')) {
		size_t n = strcspn(p, "\t");
		if (!first)
			first = p;
		if (!memmem(p, n, " (in ", 5)) {
			snprintf(buf, len, "%.*s", (int)n, p);
			return 1;
		}
	}
	if (!first)
		return 0;
	snprintf(buf, len, "%.*s", (int)strcspn(first, "\t"), first);
	return 1;
}

/* The source line of a heartbeat's call site, " (x.c:15)" (read from the
 * program's debug info), into buf; "" if not known.  Return buf. */
static const char *site_text(const char *site, char *buf, size_t len)
{
	char obj[MW_SLOT_SITE_MAX + 1], fn[128], file[256];
	unsigned long long off;
	int line;
	if (len)
		buf[0] = 0;
	if (site && mw_slot_site_parse(site, obj, sizeof obj, &off) == 0 &&
	    dl_sym_lookup(obj, off, 0, fn, sizeof fn, file, sizeof file, &line) == 1)
		snprintf(buf, len, " (%s:%d)", file, line);
	return buf;
}

/* What rank y's send or receive moves: ", a receive of 5 MPI_INT (20
 * bytes)" into buf ("" if its count is not known, or not of such a call).
 * With an MPI error, what the user compares with the other side: rank 0's
 * MPI_ERR_TRUNCATE is a message longer than this.  Return buf. */
static const char *amount_text(const struct col_rank *y, char *buf, size_t len)
{
	const char *what = !strcmp(y->kind, "recv") ? "receive" : !strcmp(y->kind, "send") ? "send" : NULL;
	char by[40] = "";
	if (len)
		buf[0] = 0;
	if (!what || y->count <= 0)
		return buf;
	if (y->bytes)
		snprintf(by, sizeof by, " (%llu byte%s)", y->bytes, y->bytes == 1 ? "" : "s");
	snprintf(buf, len, ", a %s of %d %s%s", what, y->count, y->datatype[0] ? y->datatype : "elements", by);
	return buf;
}

/* A cause whose ranks ended inside an MPI call, some with the MPI library's
 * own error line: "crash: rank 1 ended by the MPI library in MPI_Recv
 * (x.c:15) from rank 0, a receive of 5 MPI_INT (20 bytes), exit status 15:
 * MPI_Recv: MPI_ERR_TRUNCATE: message truncated; rank 2 ended with it" (the
 * call's line from the first rank's call site, the peer, the count and the
 * exit status when known).  Return 1 if said
 * so, 0 if no rank has an error line. */
static int mpi_error_line(const struct col_state *s, const struct col_cause *c, struct col_answer *a)
{
	int *e = malloc(c->n * sizeof *e), *o = malloc(c->n * sizeof *o);
	size_t ne = 0, no = 0;
	char line[512] = "", tmp[512], rk[220], rest[760] = "";
	for (size_t k = 0; e && o && k < c->n; k++) {
		if (col_mpi_error(s, c->ranks[k], tmp, sizeof tmp)) {
			if (!ne)
				snprintf(line, sizeof line, "%s", tmp);
			e[ne++] = c->ranks[k];
		} else {
			o[no++] = c->ranks[k];
		}
	}
	if (ne) {
		char how[96] = "", where[300] = "", peer[120] = "", sig[16];
		const struct col_rank *y = &s->ranks[e[0]];
		site_text(y->site, where, sizeof where);
		if (y->peer_world >= 0 && (!strcmp(y->kind, "recv") || !strcmp(y->kind, "send")))
			snprintf(peer, sizeof peer, " %s rank %d", !strcmp(y->kind, "recv") ? "from" : "to",
				 y->peer_world);
		amount_text(y, peer + strlen(peer), sizeof peer - strlen(peer));
		if (y->exit_signal > 0) /* after the library's abort: its launcher's kill */
			snprintf(how, sizeof how, ", then killed by signal %d (%s) as its step was ended",
				 y->exit_signal, col_signal_name(y->exit_signal, sig, sizeof sig));
		else if (y->exit_code >= 0)
			snprintf(how, sizeof how, ", exit status %d", y->exit_code);
		if (no)
			snprintf(rest, sizeof rest, "; %s ended with %s", ranks_text(o, no, tmp, sizeof tmp),
				 ne > 1 ? "them" : "it");
		add(a, "crash: %s ended by the MPI library in %s%s%s%s: %s%s", ranks_text(e, ne, rk, sizeof rk),
		    y->call, where, peer, how, line, rest);
	}
	free(e);
	free(o);
	return ne > 0;
}

/* Ranks computing outside MPI past the hang limit while others wait for
 * them: "hang: rank 2 has computed outside MPI for 40 s; ranks 0-1,3 wait
 * for it in MPI_Barrier (spin.c:15)".  Return 1 if said so, else 0. */
static int overdue_line(const struct col_state *s, struct col_answer *a, const char *pre)
{
	const struct col_result *r = &s->res;
	int *o = malloc((s->size ? s->size : 1) * sizeof *o), *w = malloc((s->size ? s->size : 1) * sizeof *w);
	size_t no = 0, nw = 0;
	double longest = 0;
	char ork[220], wrk[220], wh[240] = "", ln[300];
	for (size_t i = 0; o && w && i < s->size && i < r->size; i++) {
		if (col_overdue(s->ranks, r, i)) {
			o[no++] = (int)i;
			if (s->ranks[i].computed_s > longest)
				longest = s->ranks[i].computed_s;
		} else if (r->rank_cause[i] == 'C' && s->ranks[i].state == MW_HB_S_IN_MPI) {
			w[nw++] = (int)i;
		}
	}
	if (no) {
		if (nw && !where_of(s, w[0], wh, sizeof wh)) {
			const struct col_rank *y = &s->ranks[w[0]];
			snprintf(wh, sizeof wh, "%s%s", y->call[0] ? y->call : "MPI",
				 site_text(y->site, ln, sizeof ln));
		}
		ranks_text(o, no, ork, sizeof ork);
		if (nw)
			add(a, "%shang: %s %s computed outside MPI for %.0f s; %s wait%s for %s in %s", pre, ork,
			    no > 1 ? "have" : "has", longest, ranks_text(w, nw, wrk, sizeof wrk), nw > 1 ? "" : "s",
			    no > 1 ? "them" : "it", wh);
		else
			add(a, "%shang: %s %s computed outside MPI for %.0f s, past the hang limit", pre, ork,
			    no > 1 ? "have" : "has", longest);
	}
	free(o);
	free(w);
	return no > 0;
}

static void software_lines(const struct col_state *s, struct col_answer *a)
{
	const struct col_result *r = &s->res;
	char rk[220], wh[240], wf[400];
	const char *pre = s->confirmed ? "" : "suspected hang (not confirmed yet): ";

	if (overdue_line(s, a, pre))
		return; /* the rank that never came back to MPI is the line to look at */
	if (dl_holds(s)) {
		deadlock_lines(s, a);
		if (!a->n) { /* no sentence in the analysis: its kind and ranks */
			ranks_text(s->dl.ranks, s->dl.n, rk, sizeof rk);
			add(a, "deadlock: %s wait for each other (%s)", rk,
			    s->dl.what[0] ? s->dl.what : s->dl.kind);
		}
	}
	/* Ranks that ended with a status or signal of their own first: they
	 * are likelier the cause than those that vanished with them.  Ranks
	 * still in MPI_Finalize come after all others: they did their part
	 * (a peer stuck on what they sent or posted is the line to change),
	 * unless every stuck rank is there. */
	for (size_t k = 0; k < 4 * r->ncauses; k++) {
		const struct col_cause *c = &r->causes[k % r->ncauses];
		const struct col_rank *x = &s->ranks[c->ranks[0]];
		int own = x->exit_signal > 0 || x->exit_code >= 0;
		int fin = x->state == MW_HB_S_IN_MPI && strcmp(x->call, "MPI_Finalize") == 0;
		size_t phase = k / r->ncauses;
		if (c->cause != 'B' || c->deadlock || (c->cycle && dl_holds(s)) || (phase % 2 == 0) != own ||
		    (phase >= 2) != fin)
			continue;
		ranks_text(c->ranks, c->n, rk, sizeof rk);
		wh[0] = 0;
		if (where_of(s, c->ranks[0], wh + 4, sizeof wh - 4))
			memcpy(wh, " in ", 4);
		if ((x->state == MW_HB_S_EXITED || x->state == MW_HB_S_VANISHED) && x->call[0] &&
		    mpi_error_line(s, c, a))
			continue;
		if ((x->state == MW_HB_S_EXITED || x->state == MW_HB_S_VANISHED) &&
		    crash_where(s, c->ranks[0], wh, sizeof wh)) {
			const char *w = strstr(c->detail, " without MPI_Finalize");
			add(a, "crash: %s %.*s in %s%s", rk, w ? (int)(w - c->detail) : (int)strlen(c->detail),
			    c->detail, wh, w ? ", without MPI_Finalize" : "");
		}
		else if (x->state == MW_HB_S_EXITED || x->state == MW_HB_S_VANISHED)
			add(a, "crash: %s %s", rk, c->detail);
		else if (c->cycle) {
			char none[1024];
			add(a, "%shang: %s wait for each other in a cycle%s; %s", pre, rk,
			    wh[0] ? wh : "",
			    s->dl_dumps ? col_dl_none(s, 1, none, sizeof none)
					: "no dump was analysed to confirm a deadlock");
		}
		else if (wh[0] && col_others_run(s->ranks, s->size, c->ranks, c->n))
			add(a, "%shang: %s stuck%s while %s peers still run (a message that never matches?)",
			    pre, rk, wh, c->n > 1 ? "their" : "its");
		else if (wh[0] && class_field(s, c->ranks[0], "waits_for", wf, sizeof wf))
			/* in MPI_Finalize (or MPI_Buffer_detach) with buffered sends */
			add(a, "%shang: %s stuck%s: %s", pre, rk, wh, wf);
		else if (wh[0])
			add(a, "%shang: %s stuck%s while no other rank runs: what %s wait%s for never comes", pre, rk,
			    wh, c->n > 1 ? "they" : "it", c->n > 1 ? "" : "s");
		else
			add(a, "%shang: %s %s", pre, rk, c->detail);
	}
	blocked_tail(s, a);
}

static void hardware_line(const struct col_state *s, struct col_answer *a)
{
	const struct col_result *r = &s->res;
	char names[256] = "", lost[220] = "", stranded[220] = "";
	char *v[64];
	struct mw_hostlist hl = {0};
	int *lr = malloc((s->size ? s->size : 1) * sizeof *lr);
	int *sr = malloc((s->size ? s->size : 1) * sizeof *sr);
	size_t nl = 0, ns = 0;

	for (size_t i = 0; i < r->ndead && i < 64; i++)
		v[hl.n++] = (char *)s->nodes[r->dead_nodes[i]].name;
	hl.host = v;
	mw_hostlist_compress(&hl, names, sizeof names);
	for (size_t i = 0; lr && sr && i < r->ncauses; i++) {
		const struct col_cause *c = &r->causes[i];
		if (c->cause != 'D')
			continue;
		for (size_t k = 0; k < c->n; k++) {
			if (!strncmp(c->detail, "lost", 4))
				lr[nl++] = c->ranks[k];
			else
				sr[ns++] = c->ranks[k];
		}
	}
	if (nl)
		ranks_text(lr, nl, lost, sizeof lost);
	if (ns)
		ranks_text(sr, ns, stranded, sizeof stranded);
	if (r->partition) /* many nodes silent at once: the network, likelier */
		add(a, "network partition suspected: %zu of the job's %zu nodes (%s) do not answer the "
		       "collector's node at once; nothing drained", r->ndead, s->nnodes, names);
	else
		add(a, "hardware: node%s %s dead (no answer to the probes)%s%s%s%s%s", r->ndead > 1 ? "s" : "",
		    names, nl || ns ? ": " : "", lost, nl ? " lost with it" : "", nl && ns ? ", " : "",
		    ns ? stranded : "");
	if (ns && !r->partition) {
		size_t used = strlen(a->line[a->n - 1]);
		snprintf(a->line[a->n - 1] + used, COL_ANSWER_LEN - used, " left waiting for %s",
			 nl > 1 ? "them" : "it");
	}
	free(lr);
	free(sr);
}

void col_answer(const struct col_state *s, struct col_answer *a)
{
	const struct col_result *r = &s->res;
	a->n = 0;
	a->nothing = 0;
	if (s->have_res && r->launcher_killed) {
		char rk[64];
		if (s->size > 1)
			snprintf(rk, sizeof rk, "ranks 0-%zu", s->size - 1);
		else
			snprintf(rk, sizeof rk, "rank 0");
		add(a, "the launcher was killed: %s ended all at once with no exit status of their own (mpirun or srun "
		       "was killed, or the job was ended from outside); not a failure of the program or of a node",
		    rk);
	} else if (s->have_res && r->verdict == COL_V_HARDWARE) {
		hardware_line(s, a);
	} else if (s->have_res && r->verdict == COL_V_SOFTWARE) {
		software_lines(s, a);
	}
	if (!a->n) {
		int n = 0;
		for (size_t i = 0; s->have_res && i < r->ncauses; i++)
			n += r->causes[i].cause == 'A';
		add(a, COL_ANSWER_NOTHING "%s", n ? COL_ANSWER_CAUSE_A : "");
		a->nothing = 1;
	}
}

void col_answer_comment(const struct col_answer *a, const char *old, const char *report, char *buf,
			size_t len)
{
	char ours[1024], user[1024] = "";
	size_t ul = 0;

	if (!len)
		return;
	snprintf(ours, sizeof ours, "mpiwatch: %s", a->n ? a->line[0] : "no answer");
	if (a->n > 1) {
		size_t u = strlen(ours);
		snprintf(ours + u, sizeof ours - u, " (+%zu more)", a->n - 1);
	}
	if (report && *report) {
		size_t u = strlen(ours);
		snprintf(ours + u, sizeof ours - u, "; report %s", report);
	}
	/* Our part one printable line: no control characters, no double quote
	 * (the user's part is theirs, kept as Slurm gave it). */
	for (char *p = ours; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == '"')
			*p = '\'';
	if (old && *old) {
		const char *cut = strstr(old, " | mpiwatch: ");
		if (!strncmp(old, "mpiwatch: ", 10))
			cut = old; /* only an earlier answer of ours */
		ul = cut ? (size_t)(cut - old) : strlen(old);
		if (ul >= sizeof user)
			ul = sizeof user - 1;
		memcpy(user, old, ul);
		user[ul] = 0;
	}
	if (ul) {
		size_t room = len - 1 > strlen(ours) + 3 ? len - 1 - strlen(ours) - 3 : 0;
		if (ul > room) { /* the user's part, cut */
			ul = room > 3 ? room - 3 : 0;
			snprintf(user + ul, sizeof user - ul, "...");
		}
		snprintf(buf, len, "%s | %s", user, ours);
	} else {
		snprintf(buf, len, "%s", ours);
	}
}

int col_answer_stack(const struct col_state *s, int r, FILE *f)
{
	char st[2048];
	const char *p;
	if (!col_rank_line(s->crash_stacks, r, st, sizeof st))
		return 0;
	fprintf(f, "where rank %d died (its stack, innermost first):\n", r);
	for (p = st; *p; p += strcspn(p, "\t") + (p[strcspn(p, "\t")] == '\t'))
		fprintf(f, "    %.*s\n", (int)strcspn(p, "\t"), p);
	return 1;
}
