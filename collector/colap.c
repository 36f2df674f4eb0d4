/* colap.c - the collector's side of the auxiliary processes (colap.h). */
#include "colap.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apconf.h"
#include "log.h"

static struct mw_ratelimit ap_rl = MW_RATELIMIT_INIT(0.2, 5);

enum res_state { R_PENDING = 0, R_DONE, R_MISSING, R_NOT_SENT };
static const char *const state_names[] = {"pending", "done", "missing", "not_sent"};

struct col_ap_res {
	char node[MW_HB_STR_MAX + 1];
	char name[MW_HB_AP_NAME_MAX + 1];
	enum res_state state;
	int late;
	struct mw_hb_apout out; /* when done; out.output malloc'd */
	int cut_here;           /* output cut by the collector's bounds */
};

struct col_ap_round {
	uint32_t round;
	char reason[128];
	double t_unix;
	struct col_ap_res *res;
	size_t nres;
};

struct col_ap {
	struct mw_apconf conf;
	char path[1024];
	struct col_ap_round *r;
	size_t nr;
	double last_mono;
	size_t total;           /* output bytes kept */
	unsigned long refused;
};

struct col_ap *col_ap_create(const char *path, long owner_uid)
{
	struct col_ap *ap = calloc(1, sizeof *ap);
	if (!ap || mw_apconf_init(&ap->conf) < 0) {
		free(ap);
		return NULL;
	}
	snprintf(ap->path, sizeof ap->path, "%s", path ? path : "");
	mw_apconf_load_logged(&ap->conf, path, owner_uid, mw_log);
	return ap;
}

void col_ap_destroy(struct col_ap *ap)
{
	if (!ap)
		return;
	for (size_t i = 0; i < ap->nr; i++) {
		for (size_t k = 0; k < ap->r[i].nres; k++)
			free(ap->r[i].res[k].out.output);
		free(ap->r[i].res);
	}
	free(ap->r);
	mw_apconf_free(&ap->conf);
	free(ap);
}

size_t col_ap_ncommands(const struct col_ap *ap)
{
	return ap ? ap->conf.ncmd : 0;
}

int col_ap_suspicious_only(const struct col_ap *ap)
{
	return ap && ap->conf.nodes == MW_AP_SUSPICIOUS;
}

uint32_t col_ap_round_begin(struct col_ap *ap, const char *reason, double now)
{
	struct col_ap_round *r;
	if (!ap || !ap->conf.ncmd || ap->nr >= COL_AP_MAX_ROUNDS ||
	    (ap->nr && now - ap->last_mono < COL_AP_MIN_INTERVAL))
		return 0;
	r = realloc(ap->r, (ap->nr + 1) * sizeof *r);
	if (!r)
		return 0;
	ap->r = r;
	r = &ap->r[ap->nr];
	memset(r, 0, sizeof *r);
	r->round = (uint32_t)ap->nr + 1;
	snprintf(r->reason, sizeof r->reason, "%s", reason ? reason : "");
	r->t_unix = (double)time(NULL);
	ap->nr++;
	ap->last_mono = now;
	return r->round;
}

static struct col_ap_round *find_round(struct col_ap *ap, uint32_t round)
{
	return ap && round >= 1 && round <= ap->nr ? &ap->r[round - 1] : NULL;
}

int col_ap_round_node(struct col_ap *ap, uint32_t round, const char *node, int sent)
{
	struct col_ap_round *r = find_round(ap, round);
	struct col_ap_res *n;
	if (!r || !mw_hb_valid_name(node))
		return -1;
	n = realloc(r->res, (r->nres + ap->conf.ncmd) * sizeof *n);
	if (!n)
		return -1;
	r->res = n;
	for (size_t i = 0; i < ap->conf.ncmd; i++) {
		struct col_ap_res *x = &r->res[r->nres++];
		memset(x, 0, sizeof *x);
		snprintf(x->node, sizeof x->node, "%s", node);
		snprintf(x->name, sizeof x->name, "%s", ap->conf.cmd[i].name);
		x->state = sent ? R_PENDING : R_NOT_SENT;
	}
	return 0;
}

int col_ap_output(struct col_ap *ap, const char *from, const struct mw_hb_apout *o,
		  int after_verdict)
{
	struct col_ap_round *r = find_round(ap, o->round);
	struct col_ap_res *x = NULL;
	size_t len, keep;
	const char *why = "its round did not ask for it";

	if (from && strcmp(from, o->node) != 0)
		why = "sent by another node's agent";
	else if (r)
		for (size_t i = 0; i < r->nres && !x; i++)
			if (!strcmp(r->res[i].node, o->node) && !strcmp(r->res[i].name, o->name))
				x = &r->res[i];
	if (x && x->state != R_PENDING && x->state != R_MISSING) {
		why = "already received";
		x = NULL;
	}
	if (!x) {
		ap->refused++;
		mw_log_limited(&ap_rl, LOG_WARNING, "auxiliary process output %s of %s (round %u) refused: %s",
			       o->name, o->node, o->round, why);
		return -1;
	}
	len = strlen(o->output);
	keep = len;
	if (keep > (size_t)ap->conf.max_output)
		keep = (size_t)ap->conf.max_output;
	if (keep > COL_AP_TOTAL_MAX - ap->total)
		keep = COL_AP_TOTAL_MAX - ap->total;
	x->out = *o;
	x->out.output = strndup(o->output, keep);
	if (!x->out.output) {
		x->out.output = NULL;
		keep = 0;
	}
	x->cut_here = keep < len;
	ap->total += keep;
	x->state = R_DONE;
	x->late = after_verdict;
	return 0;
}

void col_ap_finish(struct col_ap *ap)
{
	for (size_t i = 0; ap && i < ap->nr; i++)
		for (size_t k = 0; k < ap->r[i].nres; k++)
			if (ap->r[i].res[k].state == R_PENDING)
				ap->r[i].res[k].state = R_MISSING;
}

/* One result in words: "exit 0", "killed at the time bound (10 s)"... */
static void how(const struct col_ap *ap, const struct col_ap_res *x, char *buf, size_t len)
{
	const struct mw_hb_apout *o = &x->out;
	size_t n = 0;
#define ADD(...) n += (size_t)snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__)
	buf[0] = 0;
	if (x->state == R_PENDING) {
		ADD("no output yet (pending)");
		return;
	}
	if (x->state == R_MISSING) {
		ADD("missing: no output came before the collector stopped");
		return;
	}
	if (x->state == R_NOT_SENT) {
		ADD("not run: the agent of this node was not connected");
		return;
	}
	if (o->error[0])
		ADD("failed: %s", o->error);
	else if (o->timed_out)
		ADD("killed at the time bound (%g s)", ap->conf.timeout);
	else if (o->truncated)
		ADD("output cut at the size bound (%lld bytes), the command killed",
		    (long long)ap->conf.max_output);
	else if (o->signal)
		ADD("ended by signal %d", o->signal);
	else
		ADD("exit %d", o->status);
	ADD(", %.2f s, %llu bytes", o->elapsed_s, (unsigned long long)o->bytes);
	if (x->cut_here)
		ADD(", cut by the collector's bound");
	if (x->late)
		ADD(", came after the verdict");
#undef ADD
}

void col_ap_report_json(const struct col_ap *ap, json_object *report)
{
	json_object *o, *cfg, *cmds, *rounds;
	if (!ap || (!ap->conf.ncmd && !ap->nr))
		return;
	o = json_object_new_object();
	cfg = json_object_new_object();
	cmds = json_object_new_array();
	for (size_t i = 0; i < ap->conf.ncmd; i++)
		json_object_array_add(cmds, json_object_new_string(ap->conf.cmd[i].name));
	json_object_object_add(cfg, "file", json_object_new_string(ap->path));
	json_object_object_add(cfg, "commands", cmds);
	json_object_object_add(cfg, "nodes", json_object_new_string(mw_apconf_nodes_name(ap->conf.nodes)));
	json_object_object_add(cfg, "timeout_s", json_object_new_double(ap->conf.timeout));
	json_object_object_add(cfg, "max_output", json_object_new_int64(ap->conf.max_output));
	json_object_object_add(o, "config", cfg);
	rounds = json_object_new_array();
	for (size_t i = 0; i < ap->nr; i++) {
		const struct col_ap_round *r = &ap->r[i];
		json_object *jr = json_object_new_object(), *res = json_object_new_array();
		json_object_object_add(jr, "round", json_object_new_int64(r->round));
		json_object_object_add(jr, "reason", json_object_new_string(r->reason));
		json_object_object_add(jr, "time_unix", json_object_new_double(r->t_unix));
		for (size_t k = 0; k < r->nres; k++) {
			const struct col_ap_res *x = &r->res[k];
			json_object *e = json_object_new_object();
			char buf[400];
			how(ap, x, buf, sizeof buf);
			json_object_object_add(e, "node", json_object_new_string(x->node));
			json_object_object_add(e, "name", json_object_new_string(x->name));
			json_object_object_add(e, "state", json_object_new_string(state_names[x->state]));
			json_object_object_add(e, "summary", json_object_new_string(buf));
			if (x->state == R_DONE) {
				const struct mw_hb_apout *p = &x->out;
				json_object_object_add(e, "status", json_object_new_int(p->status));
				json_object_object_add(e, "signal", json_object_new_int(p->signal));
				json_object_object_add(e, "timed_out", json_object_new_boolean(p->timed_out));
				json_object_object_add(e, "truncated",
						       json_object_new_boolean(p->truncated || x->cut_here));
				json_object_object_add(e, "bytes", json_object_new_int64((int64_t)p->bytes));
				json_object_object_add(e, "elapsed_s", json_object_new_double(p->elapsed_s));
				json_object_object_add(e, "error", json_object_new_string(p->error));
				json_object_object_add(e, "late", json_object_new_boolean(x->late));
				json_object_object_add(e, "output",
						       json_object_new_string(p->output ? p->output : ""));
			}
			json_object_array_add(res, e);
		}
		json_object_object_add(jr, "results", res);
		json_object_array_add(rounds, jr);
	}
	json_object_object_add(o, "rounds", rounds);
	json_object_object_add(report, "auxiliary", o);
}

/* At most COL_AP_TXT_LINES lines of COL_AP_TXT_COLS characters of out. */
static void text_output(const char *out, FILE *f)
{
	int lines = 0;
	size_t more = 0;
	const char *p = out;
	while (*p) {
		size_t n = strcspn(p, "\n");
		if (lines < COL_AP_TXT_LINES) {
			fprintf(f, "      | %.*s%s\n", (int)(n > COL_AP_TXT_COLS ? COL_AP_TXT_COLS : n), p,
				n > COL_AP_TXT_COLS ? " [...]" : "");
			lines++;
		} else {
			more++;
		}
		p += n;
		if (*p == '\n')
			p++;
	}
	if (more)
		fprintf(f, "      (%zu more line%s in report.json)\n", more, more == 1 ? "" : "s");
}

void col_ap_report_text(const struct col_ap *ap, FILE *f)
{
	if (!ap)
		return;
	for (size_t i = 0; i < ap->nr; i++) {
		const struct col_ap_round *r = &ap->r[i];
		char when[32] = "?";
		time_t t = (time_t)r->t_unix;
		struct tm tm;
		size_t nodes = 0, skipped = 0;
		if (gmtime_r(&t, &tm))
			strftime(when, sizeof when, "%H:%M:%S UTC", &tm);
		fprintf(f, "auxiliary processes, round %u (%s, asked at %s):\n", r->round, r->reason, when);
		for (size_t k = 0; k < r->nres; k++) {
			const struct col_ap_res *x = &r->res[k];
			char buf[400];
			if (k == 0 || strcmp(x->node, r->res[k - 1].node) != 0) {
				if (++nodes > COL_AP_TXT_NODES) {
					skipped++;
					continue;
				}
				fprintf(f, "  node %s:\n", x->node);
			} else if (nodes > COL_AP_TXT_NODES) {
				continue;
			}
			how(ap, x, buf, sizeof buf);
			fprintf(f, "    %s: %s\n", x->name, buf);
			if (x->state == R_DONE && x->out.output)
				text_output(x->out.output, f);
		}
		if (skipped)
			fprintf(f, "  (%zu more node%s in report.json)\n", skipped, skipped == 1 ? "" : "s");
	}
}
