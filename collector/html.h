/* html.h - report.html: the collector's report as one offline HTML page
 * (doc/collector.md, "The HTML report").
 *
 * The page is built from the report JSON (col_report_json, so it says
 * exactly what report.json says) and the crash stacks of the state: the
 * answer first, then the verdict and causes, the wait-for graph drawn as
 * inline SVG (a small hand-written circular layout, no script, no library),
 * the stack classes as a tree, where crashed ranks died, the timeline, the
 * nodes and the ranks.  It loads nothing (a Content-Security-Policy of
 * default-src 'none' says so to the browser) and every string from the job
 * is escaped.
 */
#ifndef COL_HTML_H
#define COL_HTML_H

#include <stdio.h>

#include <json-c/json.h>

#include "colstate.h"

/* Most ranks and call boxes drawn in the wait-for graph; the ranks of the
 * deadlock come first, the others are counted in a note. */
#define COL_HTML_GRAPH_MAX 48

/* Write the page for report rep (col_report_json(s)) to f; s gives the
 * crash stacks (may be NULL).  Return 0, or -1 on a write error. */
int col_report_html(const struct col_state *s, json_object *rep, FILE *f);

/* Write s to f with the characters that mean something in HTML (& < > " ')
 * as entities and control characters other than tab and newline as U+FFFD;
 * NULL writes nothing. */
void col_html_escape(FILE *f, const char *s);

#endif
