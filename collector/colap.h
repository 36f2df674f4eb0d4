/* colap.h - the collector's side of the auxiliary processes (APs, seed 003):
 * which nodes were asked to run the site's commands (shared/apconf.h) at a
 * suspicious event, what each answered (APOUT frames from the agents,
 * agent/agap.c), and their place in report.json ("auxiliary") and report.txt
 * (a bounded section per node).  The verdict never waits for them: output
 * that comes after it is added to the report while the collector runs; what
 * never came is "missing" in the final report. */
#ifndef COL_AP_H
#define COL_AP_H

#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "heartbeat.h"

#define COL_AP_MAX_ROUNDS 4            /* rounds per collector */
#define COL_AP_MIN_INTERVAL 30.0       /* s between two rounds */
#define COL_AP_TOTAL_MAX (64u << 20)   /* output bytes kept over all results */
#define COL_AP_TXT_LINES 20            /* report.txt: lines shown per result */
#define COL_AP_TXT_COLS 200            /* report.txt: characters per line */
#define COL_AP_TXT_NODES 32            /* report.txt: nodes shown per round */

struct col_ap;

/* The APs of the site file path ("" or NULL: none), owned by owner_uid (0 =
 * root, -1 = any: tests).  A file that cannot be used is logged (every error)
 * and gives no command.  Return NULL only when out of memory. */
struct col_ap *col_ap_create(const char *path, long owner_uid);
void col_ap_destroy(struct col_ap *ap);

/* Commands configured (0: APs are off). */
size_t col_ap_ncommands(const struct col_ap *ap);

/* Whether the site wants them on the suspicious nodes only (1) or on every
 * node of the job (0). */
int col_ap_suspicious_only(const struct col_ap *ap);

/* A suspicious event (reason: a few words): start a new round at now
 * (monotonic s) unless APs are off, COL_AP_MAX_ROUNDS were started or the
 * last one is less than COL_AP_MIN_INTERVAL old.  Return its number (1, 2,
 * ...), or 0 for none. */
uint32_t col_ap_round_begin(struct col_ap *ap, const char *reason, double now);

/* Round r asks node (sent: the APREQ went out; 0: its agent is not
 * connected, so nothing will come).  Return 0, or -1 (unknown round,
 * bad name, out of memory). */
int col_ap_round_node(struct col_ap *ap, uint32_t r, const char *node, int sent);

/* An APOUT from the agent of node from (NULL: forwarded, not checked).
 * It is kept if its round asked its node for that command and nothing came
 * yet; its output is cut at the site's max_output and at COL_AP_TOTAL_MAX
 * over all results (said in the report).  after_verdict marks it late.
 * Return 0 if kept, -1 if refused (logged, throttled). */
int col_ap_output(struct col_ap *ap, const char *from, const struct mw_hb_apout *o,
		  int after_verdict);

/* The collector stops: what is still pending becomes missing. */
void col_ap_finish(struct col_ap *ap);

/* Add "auxiliary" to report (nothing when APs are off and no round ran). */
void col_ap_report_json(const struct col_ap *ap, json_object *report);

/* The report.txt section (nothing when no round ran). */
void col_ap_report_text(const struct col_ap *ap, FILE *f);

#endif
