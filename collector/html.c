/* html.c - report.html, one offline page (html.h). */
#include "html.h"
#include "answer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void col_html_escape(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
				fputs("\xef\xbf\xbd", f);
			else
				fputc(c, f);
		}
	}
}

static const char *str(json_object *o, const char *k)
{
	json_object *v;
	if (!o || !json_object_object_get_ex(o, k, &v) || !v)
		return NULL;
	return json_object_get_string(v);
}

static json_object *get(json_object *o, const char *k)
{
	json_object *v;
	return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

static size_t alen(json_object *a)
{
	return json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

/* "<td>text</td>" with text escaped ("" for NULL). */
static void td(FILE *f, const char *s)
{
	fputs("<td>", f);
	col_html_escape(f, s);
	fputs("</td>", f);
}

/* ---- the wait-for graph ---- */

struct gnode {
	int rank;          /* >= 0 a rank, -1 a call box */
	char label[64];    /* "rank 3" or the call */
	char title[400];   /* hover text */
	int dead;          /* in the deadlock */
	int failed;        /* cause B outside a deadlock: it failed (crashed, ended) */
};

struct gedge {
	int from, to;
};

struct graph {
	struct gnode n[COL_HTML_GRAPH_MAX];
	int nn;
	struct gedge e[COL_HTML_GRAPH_MAX * 4];
	int ne;
	int left_out; /* ranks not drawn */
};

/* The report's entry of rank r, or NULL. */
static json_object *rank_entry(json_object *rep, int r)
{
	json_object *a = get(rep, "ranks");
	for (size_t i = 0; i < alen(a); i++) {
		json_object *e = json_object_array_get_idx(a, i);
		if (json_object_get_int(get(e, "rank")) == r)
			return e;
	}
	return NULL;
}

/* Node of rank r (added when there is room).  Return its index or -1. */
static int rank_node(struct graph *g, json_object *rep, int r, int dead)
{
	for (int i = 0; i < g->nn; i++)
		if (g->n[i].rank == r) {
			g->n[i].dead |= dead;
			return i;
		}
	if (g->nn >= COL_HTML_GRAPH_MAX) {
		g->left_out++;
		return -1;
	}
	struct gnode *x = &g->n[g->nn];
	json_object *e = rank_entry(rep, r);
	x->rank = r;
	x->dead = dead;
	snprintf(x->label, sizeof x->label, "rank %d", r);
	if (e) {
		const char *call = str(e, "call"), *cause = str(e, "cause");
		int peer = json_object_get_int(get(e, "peer_world")), tag = json_object_get_int(get(e, "tag"));
		int n = snprintf(x->title, sizeof x->title, "rank %d: %s%s%s", r, str(e, "state"),
				 call ? " in " : "", call ? call : "");
		if (peer >= 0 && n > 0 && (size_t)n < sizeof x->title)
			n += snprintf(x->title + n, sizeof x->title - (size_t)n, ", peer %d", peer);
		if (tag >= 0 && n > 0 && (size_t)n < sizeof x->title)
			n += snprintf(x->title + n, sizeof x->title - (size_t)n, ", tag %d", tag);
		if (cause && n > 0 && (size_t)n < sizeof x->title)
			snprintf(x->title + n, sizeof x->title - (size_t)n, ", cause %s", cause);
		x->failed = cause && !strcmp(cause, "B") && !dead;
	} else {
		snprintf(x->title, sizeof x->title, "rank %d (no heartbeat)", r);
	}
	return g->nn++;
}

static int box_node(struct graph *g, const char *call)
{
	for (int i = 0; i < g->nn; i++)
		if (g->n[i].rank < 0 && !strcmp(g->n[i].label, call))
			return i;
	if (g->nn >= COL_HTML_GRAPH_MAX)
		return -1;
	struct gnode *x = &g->n[g->nn];
	x->rank = -1;
	x->dead = 0;
	snprintf(x->label, sizeof x->label, "%s", call);
	snprintf(x->title, sizeof x->title, "the ranks that wait in %s", call);
	return g->nn++;
}

static void edge(struct graph *g, int a, int b)
{
	if (a < 0 || b < 0 || a == b || g->ne >= (int)(sizeof g->e / sizeof g->e[0]))
		return;
	for (int i = 0; i < g->ne; i++)
		if (g->e[i].from == a && g->e[i].to == b)
			return;
	g->e[g->ne++] = (struct gedge){a, b};
}

static int has_out(const struct graph *g, int a)
{
	for (int i = 0; i < g->ne; i++)
		if (g->e[i].from == a)
			return 1;
	return 0;
}

/* Who waits for whom: the analysis' wait-for paths, each stuck rank's peer,
 * and a box per call for the ranks waiting in a call with no one peer (a
 * collective). */
static void build_graph(json_object *rep, struct graph *g)
{
	json_object *dl = get(rep, "deadlock"), *an = get(dl, "analysis");
	json_object *ranks = get(rep, "ranks"), *fs = get(an, "findings");
	int found = json_object_get_boolean(get(dl, "found"));

	memset(g, 0, sizeof *g);
	for (size_t i = 0; found && i < alen(get(dl, "ranks")); i++)
		rank_node(g, rep, json_object_get_int(json_object_array_get_idx(get(dl, "ranks"), i)), 1);
	for (size_t i = 0; found && i < alen(fs); i++) {
		json_object *p = get(json_object_array_get_idx(fs, i), "path");
		size_t np = alen(p);
		int prev = -1, first = -1;
		for (size_t j = 0; j < np; j++) {
			json_object *rk = get(json_object_array_get_idx(p, j), "rank");
			int k = rk ? rank_node(g, rep, json_object_get_int(rk), 0) : -1;
			if (prev >= 0 && k >= 0)
				edge(g, prev, k);
			if ((long)j == json_object_get_int(get(json_object_array_get_idx(fs, i), "path_loop_at")))
				first = k;
			prev = k;
		}
		if (json_object_get_boolean(get(json_object_array_get_idx(fs, i), "path_closed")))
			edge(g, prev, first);
	}
	/* The ranks stuck in MPI, and the ranks that ended. */
	for (size_t i = 0; i < alen(ranks); i++) {
		json_object *e = json_object_array_get_idx(ranks, i);
		const char *st = str(e, "state");
		if (st && (!strcmp(st, "in_mpi") || !strcmp(st, "exited") || !strcmp(st, "vanished")))
			rank_node(g, rep, json_object_get_int(get(e, "rank")), 0);
	}
	for (int k = 0, nn = g->nn; k < nn; k++) {
		json_object *e = g->n[k].rank >= 0 ? rank_entry(rep, g->n[k].rank) : NULL;
		const char *st = str(e, "state");
		int peer = json_object_get_int(get(e, "peer_world"));
		if (!st || (strcmp(st, "in_mpi") && strcmp(st, "exited") && strcmp(st, "vanished")))
			continue;
		if (peer >= 0 && !has_out(g, k))
			edge(g, k, rank_node(g, rep, peer, 0));
	}
	for (int k = 0, nn = g->nn; k < nn; k++) {
		json_object *e = g->n[k].rank >= 0 ? rank_entry(rep, g->n[k].rank) : NULL;
		const char *st = str(e, "state"), *call = str(e, "call");
		if (st && !strcmp(st, "in_mpi") && call && *call && !has_out(g, k))
			edge(g, k, box_node(g, call));
	}
}

/* Where the segment from the centre (0,0) towards (dx,dy) leaves a node of
 * half-size (hw,hh) (a circle when round): the fraction of the segment. */
static double clip(double dx, double dy, int round, double hw, double hh)
{
	double len = sqrt(dx * dx + dy * dy);
	if (len < 1e-9)
		return 0;
	if (round)
		return hw / len;
	double tx = fabs(dx) > 1e-9 ? hw / fabs(dx) : 1e9, ty = fabs(dy) > 1e-9 ? hh / fabs(dy) : 1e9;
	return tx < ty ? tx : ty;
}

#define NODE_R 28.0
#define BOX_HW 70.0
#define BOX_HH 16.0

static void graph_svg(FILE *f, json_object *rep)
{
	struct graph *g = calloc(1, sizeof *g);
	if (!g)
		return;
	build_graph(rep, g);
	if (!g->nn) {
		fputs("<p class=\"none\">No rank was stuck in MPI: there is no wait to draw.</p>\n", f);
		free(g);
		return;
	}
	double R = g->nn < 2 ? 0 : fmax(110.0, g->nn * 60.0 / (2 * M_PI));
	double W = 2 * R + 2 * BOX_HW + 40, H = 2 * R + 2 * NODE_R + 60;
	double cx = W / 2, cy = H / 2, x[COL_HTML_GRAPH_MAX], y[COL_HTML_GRAPH_MAX];
	for (int i = 0; i < g->nn; i++) {
		double a = -M_PI / 2 + 2 * M_PI * i / g->nn;
		x[i] = cx + R * cos(a);
		y[i] = cy + R * sin(a);
	}
	fprintf(f,
		"<svg id=\"waitfor\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"wait-for graph\">\n"
		"<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" "
		"markerHeight=\"8\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" "
		"fill=\"context-stroke\"/></marker></defs>\n",
		W, H, W, H);
	for (int i = 0; i < g->ne; i++) {
		int a = g->e[i].from, b = g->e[i].to;
		double dx = x[b] - x[a], dy = y[b] - y[a];
		double ta = clip(dx, dy, g->n[a].rank >= 0, g->n[a].rank >= 0 ? NODE_R : BOX_HW, BOX_HH);
		double tb = clip(-dx, -dy, g->n[b].rank >= 0, g->n[b].rank >= 0 ? NODE_R : BOX_HW, BOX_HH);
		double x0 = x[a] + dx * ta, y0 = y[a] + dy * ta, x1 = x[b] - dx * tb, y1 = y[b] - dy * tb;
		/* bend to the left of the direction: a->b and b->a stay apart */
		double mx = (x0 + x1) / 2 - dy * 0.12, my = (y0 + y1) / 2 + dx * 0.12;
		int dead = g->n[a].dead && (g->n[b].dead || g->n[b].rank < 0);
		fprintf(f,
			"<path class=\"edge%s\" data-from=\"%d\" data-to=\"%d\" d=\"M%.1f,%.1f Q%.1f,%.1f "
			"%.1f,%.1f\" marker-end=\"url(#arrow)\"/>\n",
			dead ? " dead" : "", g->n[a].rank, g->n[b].rank, x0, y0, mx, my, x1, y1);
	}
	for (int i = 0; i < g->nn; i++) {
		const struct gnode *n = &g->n[i];
		if (n->rank >= 0)
			fprintf(f, "<g class=\"node rank%s\" data-rank=\"%d\"><title>",
				n->dead ? " dead" : n->failed ? " failed" : "", n->rank);
		else
			fputs("<g class=\"node call\"><title>", f);
		col_html_escape(f, n->title);
		fputs("</title>", f);
		if (n->rank >= 0)
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.0f\"/>", x[i], y[i], NODE_R);
		else
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" rx=\"4\"/>",
				x[i] - BOX_HW, y[i] - BOX_HH, 2 * BOX_HW, 2 * BOX_HH);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", x[i], y[i] + 4);
		col_html_escape(f, n->label);
		fputs("</text></g>\n", f);
	}
	fputs("</svg>\n", f);
	fputs("<p class=\"legend\"><span class=\"key dead\">red</span>: the ranks of the deadlock the "
	      "analysis of the dumps found; <span class=\"key failed\">orange</span>: a rank that failed "
	      "(cause B: crashed or ended); an arrow points from a rank to the rank (or the call) it "
	      "waits or waited for; hover a rank for its call.",
	      f);
	if (g->left_out)
		fprintf(f, " %d more rank(s) not drawn (see the ranks below).", g->left_out);
	fputs("</p>\n", f);
	free(g);
}

/* ---- the stack classes ---- */

static void tree_html(FILE *f, json_object *a, int depth)
{
	if (!alen(a) || depth > 80)
		return;
	fputs("<ul>", f);
	for (size_t i = 0; i < alen(a); i++) {
		json_object *o = json_object_array_get_idx(a, i);
		fputs("<li><span class=\"frame\">", f);
		col_html_escape(f, str(o, "frame"));
		fprintf(f, "</span> <span class=\"ranks\">[%d: ", json_object_get_int(get(o, "count")));
		col_html_escape(f, str(o, "ranks"));
		fputs("]</span>", f);
		tree_html(f, get(o, "children"), depth + 1);
		fputs("</li>", f);
	}
	fputs("</ul>\n", f);
}

static const char style[] =
	"body{font:15px/1.45 system-ui,sans-serif;margin:1.2em 2em;color:#222;max-width:80em}"
	"#answer p{font-size:1.2em;font-weight:600;margin:.2em 0;color:#8b0000}"
	"#answer p.ok{color:#1a5e20}"
	"h2{font-size:1.1em;border-bottom:1px solid #ccc;margin-top:1.6em}"
	"table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:2px 8px;text-align:left;"
	"vertical-align:top}th{background:#f4f4f4}#timeline td:first-child{white-space:nowrap}"
	"pre,.frame,.ranks{font-family:ui-monospace,monospace;font-size:13px}"
	".ranks{color:#555}ul.tree,.tree ul{list-style:none;padding-left:1.4em;margin:0}"
	".tree li{border-left:1px solid #bbb;padding-left:.5em}"
	"#waitfor .node circle{fill:#eef;stroke:#557;stroke-width:1.5}"
	"#waitfor .node.dead circle{fill:#fdd;stroke:#c00;stroke-width:2.5}"
	"#waitfor .node.failed circle{fill:#ffe3c2;stroke:#d46b00;stroke-width:2.5}"
	"#waitfor .node rect{fill:#f4f4f4;stroke:#777}"
	"#waitfor text{font:12px ui-monospace,monospace;text-anchor:middle}"
	"#waitfor .edge{fill:none;stroke:#777;stroke-width:1.5}#waitfor .edge.dead{stroke:#c00;stroke-width:2.5}"
	".key.dead{color:#c00;font-weight:600}.key.failed{color:#d46b00;font-weight:600}.muted{color:#666}";

int col_report_html(const struct col_state *s, json_object *rep, FILE *f)
{
	json_object *ans = get(rep, "answer"), *a;
	const char *verdict = str(rep, "verdict");
	int ok = verdict && !strcmp(verdict, "none");

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'\">\n<title>mpiwatch report, job ",
	      f);
	col_html_escape(f, str(rep, "job"));
	fprintf(f, "</title>\n<style>%s</style></head>\n<body>\n<section id=\"answer\">\n", style);
	for (size_t i = 0; i < alen(ans); i++) {
		fprintf(f, "<p%s>", ok ? " class=\"ok\"" : "");
		col_html_escape(f, json_object_get_string(json_object_array_get_idx(ans, i)));
		fputs("</p>\n", f);
	}
	fputs("</section>\n<p id=\"verdict\">mpiwatch report for job <b>", f);
	col_html_escape(f, str(rep, "job"));
	fputs("</b>: verdict <b>", f);
	col_html_escape(f, verdict);
	fputs("</b>; ", f);
	col_html_escape(f, str(rep, "summary"));
	if (json_object_get_boolean(get(rep, "confirmed"))) {
		fputs("; confirmed: ", f);
		col_html_escape(f, str(rep, "confirmed_by"));
	}
	fputs("</p>\n", f);

	a = get(rep, "causes");
	if (alen(a)) {
		fputs("<h2>Causes</h2>\n<table id=\"causes\"><tr><th>ranks</th><th>cause</th><th>detail</th></tr>\n", f);
		for (size_t i = 0; i < alen(a); i++) {
			json_object *c = json_object_array_get_idx(a, i);
			const char *k = str(c, "cause");
			char cm[160];
			snprintf(cm, sizeof cm, "%s: %s", k ? k : "?", col_cause_meaning(k ? k[0] : 0));
			fputs("<tr>", f);
			td(f, str(c, "ranks_text"));
			td(f, cm);
			td(f, str(c, "detail"));
			fputs("</tr>\n", f);
		}
		fputs("</table>\n", f);
	}

	fputs("<h2>Wait-for graph</h2>\n", f);
	graph_svg(f, rep);
	fputs("<p class=\"muted\">", f);
	col_html_escape(f, str(get(rep, "deadlock"), "detail"));
	fputs("</p>\n", f);

	fputs("<h2>Stack classes</h2>\n", f);
	if (alen(get(rep, "stack_tree"))) {
		fputs("<p class=\"muted\">The dumped ranks grouped by identical call path, from main to the "
		      "MPI call (as STAT shows them): [count: ranks].</p>\n<div id=\"stack-tree\" class=\"tree\">",
		      f);
		tree_html(f, get(rep, "stack_tree"), 0);
		fputs("</div>\n", f);
	} else {
		fputs("<p class=\"none\">No dump of a stuck rank was analysed.</p>\n", f);
	}

	if (s && s->crash_stacks) {
		int head = 0;
		for (size_t r = 0; r < s->size; r++) {
			char st[2048];
			if (!col_rank_line(s->crash_stacks, (int)r, st, sizeof st))
				continue;
			if (!head++)
				fputs("<h2>Where ranks died</h2>\n", f);
			fprintf(f, "<p>rank %zu (its stack, innermost first):</p>\n<pre class=\"crash\">", r);
			for (char *p = st; *p; p++)
				if (*p == '\t')
					*p = '\n';
			col_html_escape(f, st);
			fputs("</pre>\n", f);
		}
	}

	a = get(rep, "timeline");
	fputs("<h2>Timeline</h2>\n<table id=\"timeline\"><tr><th>time (UTC)</th><th>+s</th><th>event</th>"
	      "<th>detail</th></tr>\n",
	      f);
	for (size_t i = 0; i < alen(a); i++) {
		json_object *e = json_object_array_get_idx(a, i);
		char ts[32];
		snprintf(ts, sizeof ts, "%.3f", json_object_get_double(get(e, "t_s")));
		fputs("<tr>", f);
		td(f, str(e, "time"));
		td(f, ts);
		td(f, str(e, "event"));
		td(f, str(e, "detail"));
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);

	a = get(rep, "nodes");
	fputs("<h2>Nodes</h2>\n<table id=\"nodes\"><tr><th>node</th><th>address</th><th>state</th>"
	      "<th>round trip</th><th>agent</th><th>health</th></tr>\n",
	      f);
	for (size_t i = 0; i < alen(a); i++) {
		json_object *e = json_object_array_get_idx(a, i);
		char rtt[32] = "";
		if (get(e, "rtt_ms"))
			snprintf(rtt, sizeof rtt, "%.2f ms", json_object_get_double(get(e, "rtt_ms")));
		fputs("<tr>", f);
		td(f, str(e, "name"));
		td(f, str(e, "addr"));
		td(f, str(e, "state"));
		td(f, rtt);
		td(f, str(e, "agent"));
		td(f, str(e, "health"));
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);

	a = get(rep, "ranks");
	if (alen(a)) {
		fputs("<h2>Ranks that sent heartbeats</h2>\n<table id=\"ranks\"><tr><th>rank</th><th>node</th>"
		      "<th>state</th><th>call</th><th>peer</th><th>tag</th><th>exit</th><th>cause</th></tr>\n",
		      f);
		for (size_t i = 0; i < alen(a); i++) {
			json_object *e = json_object_array_get_idx(a, i);
			char rk[16], peer[16] = "", tag[16] = "", ex[32] = "";
			snprintf(rk, sizeof rk, "%d", json_object_get_int(get(e, "rank")));
			if (json_object_get_int(get(e, "peer_world")) >= 0)
				snprintf(peer, sizeof peer, "%d", json_object_get_int(get(e, "peer_world")));
			if (json_object_get_int(get(e, "tag")) >= 0)
				snprintf(tag, sizeof tag, "%d", json_object_get_int(get(e, "tag")));
			if (get(e, "exit_signal"))
				snprintf(ex, sizeof ex, "signal %d", json_object_get_int(get(e, "exit_signal")));
			else if (get(e, "exit_code"))
				snprintf(ex, sizeof ex, "status %d", json_object_get_int(get(e, "exit_code")));
			fputs("<tr>", f);
			td(f, rk);
			td(f, str(e, "node"));
			td(f, str(e, "state"));
			td(f, str(e, "call"));
			td(f, peer);
			td(f, tag);
			td(f, ex);
			td(f, str(e, "cause"));
			fputs("</tr>\n", f);
		}
		fputs("</table>\n", f);
	}
	fputs("<p class=\"muted\">Beside this page: report.txt (the same in text) and report.json "
	      "(doc/schemas/report.schema.json).</p>\n</body></html>\n",
	      f);
	return ferror(f) ? -1 : 0;
}
