/* imb.h - load-imbalance analysis of TAU profiles (seed 004, doc/imbalance.md).
 *
 * Pipeline, each step a function testable on its own:
 *   imb_profile_parse / imb_job_load   read profile.N.C.T files (TAU text format)
 *   imb_filter                          step 1: drop call paths and tiny functions
 *   imb_classify                        step 2: two-level group tree, leaves = functions
 *   imb_totals                          step 3: per-process total of every group
 *   imb_similarity                      step 4: load similarity child -> parent
 *   imb_stats / imb_pop                 max/mean, COV, top ranks; POP efficiencies
 *   imb_report_text / imb_report_json   ranked summary and JSON (doc/schemas/imbalance.schema.json)
 * Library code: never exits, never prints except into the FILE it is given.
 */
#ifndef MW_IMB_H
#define MW_IMB_H

#include <stddef.h>
#include <stdio.h>

struct json_object;

/* ---- one TAU profile file ---- */
struct imb_func {
	char *name;   /* without the quotes, e.g. "MPI_Send()" or "main => foo()" */
	char *group;  /* the GROUP="..." value */
	double calls, subrs, excl, incl, profcalls; /* times in microseconds */
};

struct imb_event {
	char *name;
	double num, max, min, mean, sumsqr;
};

struct imb_profile {
	int node, context, thread; /* from the file name; -1 when parsed from a buffer */
	char *metric;              /* "TIME" from "templated_functions_MULTI_TIME" */
	char *metadata;            /* "<metadata>...</metadata>" or NULL */
	size_t nfunc, nevent, naggr;
	struct imb_func *func;
	struct imb_event *event;
};

/* Parse one profile held in buf (len bytes, need not be NUL-terminated).
 * file names the input in error messages.  Return 0, or -1 with
 * "FILE:LINE: reason" in err (always NUL-terminated) and *p empty. */
int imb_profile_parse(const char *buf, size_t len, const char *file, struct imb_profile *p,
		      char *err, size_t errlen);

/* Free what imb_profile_parse allocated; *p is left empty. */
void imb_profile_free(struct imb_profile *p);

/* ---- a job: every profile of a directory ---- */
struct imb_job {
	size_t nproc;
	struct imb_profile *proc; /* sorted by node, context, thread */
	char *dir;                /* the directory the files came from (MULTI__TIME resolved) */
	size_t nmissing;
	int *missing;             /* node numbers absent from 0..max node */
};

/* Read every profile.N.C.T in dir, or in dir/MULTI__TIME (or the first
 * MULTI__*TIME* directory) when dir holds MULTI__* metric directories.
 * Missing node numbers are listed in job->missing, not invented.
 * Return 0, or -1 with the reason in err ("FILE:LINE: ..." for a bad file,
 * or "DIR: no profile.N.C.T file"). */
int imb_job_load(const char *dir, struct imb_job *job, char *err, size_t errlen);

/* imb_job_load, calling progress(files done, directory entries, arg) every
 * 256 files and at the end (progress may be NULL). */
int imb_job_load_progress(const char *dir, struct imb_job *job, char *err, size_t errlen,
			  void (*progress)(size_t done, size_t total, void *arg), void *arg);

/* A TAU profile's file name "profile.N.C.T" (node, context, thread: digits
 * only, each at most INT_MAX): 0 with the numbers in *n, *c, *t, else -1. */
int imb_profile_name(const char *s, int *n, int *c, int *t);

/* The whole of the text file path (a profile or a rules file, at most 256 MiB)
 * into *buf (malloc'd, *len bytes, not NUL-terminated).  Return 0, or -1 with
 * errno (EFBIG when larger). */
int imb_read_file(const char *path, char **buf, size_t *len);

/* Free a job filled by imb_job_load. */
void imb_job_free(struct imb_job *job);

/* ---- the group tree (step 2) ---- */
enum imb_group {
	IMB_G_ALL,
	IMB_G_COMP, IMB_G_COMM, IMB_G_IO,                      /* level 1 */
	IMB_G_COMP_USER,                                       /* level 2 under computation */
	IMB_G_P2P_BLOCKING, IMB_G_P2P_NONBLOCKING, IMB_G_COLLECTIVE, IMB_G_ONESIDED,
	IMB_G_COMM_OTHER,                                      /* level 2 under communication */
	IMB_G_READ_BLOCKING, IMB_G_READ_NONBLOCKING, IMB_G_WRITE_BLOCKING,
	IMB_G_WRITE_NONBLOCKING, IMB_G_IO_OTHER,               /* level 2 under I/O */
	IMB_NGROUPS
};

/* Static facts of a group: id ("communication.collective"), label
 * ("collective communication"), parent (IMB_G_ALL's parent is -1), level 0..2. */
const char *imb_group_id(int g);
const char *imb_group_label(int g);
int imb_group_parent(int g);
int imb_group_level(int g);

/* Group id ("io.read_blocking", or a level-1 id meaning its "other"/"user"
 * child) -> enum, or -1. */
int imb_group_lookup(const char *id);

/* The level-2 group of an MPI function name ("MPI_Allreduce()" or without the
 * parentheses), from the table generated from monitor/mpi.spec plus every
 * MPI_File_* name; -1 when the name is not an MPI function. */
int imb_mpi_group(const char *name);

/* User rules: "pattern = group" lines (fnmatch(3) patterns on function names,
 * first match wins, '#' comments). */
struct imb_rules {
	size_t n;
	char **pattern;
	int *group;
};

/* Parse a rules text (len bytes).  Every bad line is reported into err as
 * "FILE:LINE: reason" (lines separated by newlines).  Return 0, or -1 with
 * the rules empty. */
int imb_rules_parse(const char *buf, size_t len, const char *file, struct imb_rules *r, char *err,
		    size_t errlen);
void imb_rules_free(struct imb_rules *r);

/* Leaf group of a function: rules first, then the MPI name table, then its
 * TAU group (a group containing "MPI" -> other MPI, "IO" -> other I/O),
 * else computation.  rules may be NULL. */
int imb_classify(const char *name, const char *tau_group, const struct imb_rules *rules);

/* ---- the analysis ---- */
struct imb_stat {
	double mean, max, min, cov, maxmean; /* maxmean = max/mean (0 when mean is 0) */
	int argmax;                          /* process index of the max */
};

struct imb_fn {
	char *name;
	int group;     /* leaf group (level 2) */
	double *t;     /* exclusive time per process, microseconds */
	double total;  /* summed over processes */
	double sim;    /* step 4 at the leaves: similarity to its group; < 0 = undefined */
	struct imb_stat st; /* max/mean, COV, ... of t (imb_analyze) */
};

struct imb_analysis {
	size_t nproc;
	int *rank;             /* node number of each process (label) */
	char **label;          /* "7" or "7.0.1" when threads/contexts exist */
	size_t nfn;
	struct imb_fn *fn;     /* kept functions */
	size_t ndropped;       /* functions dropped by the threshold */
	size_t ncallpaths;     /* call-path entries dropped */
	double dropped_time;   /* microseconds summed over processes */
	double total_time;     /* microseconds summed over processes (before filtering) */
	double threshold;      /* the threshold applied, microseconds of summed time */
	double *gt[IMB_NGROUPS];       /* per-group per-process totals (step 3) */
	double sim[IMB_NGROUPS];       /* similarity to the parent; < 0 = undefined */
	struct imb_stat stat[IMB_NGROUPS];
	double pop_lb, pop_ce, pop_pe; /* POP efficiencies, 0..1 */
};

/* The threshold: a fraction of the job's total time (frac >= 0) or an
 * absolute summed time in microseconds (abs_us >= 0); the larger applies. */
struct imb_threshold {
	double frac;
	double abs_us;
};
#define IMB_DEFAULT_FRAC 0.001 /* 0.1 % of the job's total time; doc/imbalance.md */

/* Parse "0.1%" or "500us" / "2ms" / "1s" / "0" into t.  Return 0 or -1. */
int imb_threshold_parse(const char *s, struct imb_threshold *t);

/* Step 1: collect the functions of every process of job, drop call paths
 * (names with " => ") and functions whose summed exclusive time is below the
 * threshold; step 2 classifies the rest with rules.  Fills a (zeroed first).
 * Return 0, or -1 (ENOMEM). */
int imb_filter(const struct imb_job *job, const struct imb_threshold *th,
	       const struct imb_rules *rules, struct imb_analysis *a);

/* Step 3: a->gt from the leaves up.  Return 0 or -1 (ENOMEM). */
int imb_totals(struct imb_analysis *a);

/* Step 4: load similarity of child vector c to parent vector p over n
 * processes: 1 - 0.5 * sum |c_i/C - p_i/P| (C, P the sums).  Return a value
 * in [0,1], or -1 when C or P is 0 (empty group: undefined). */
double imb_similarity(const double *c, const double *p, size_t n);

/* max, mean, min, COV (population stddev / mean), argmax of v[0..n). */
void imb_stats(const double *v, size_t n, struct imb_stat *s);

/* POP efficiencies from useful[] and runtime[] per process:
 * lb = mean(useful)/max(useful), ce = max(useful)/max(runtime), pe = lb*ce
 * = mean(useful)/max(runtime).  A zero denominator gives 0. */
void imb_pop(const double *useful, const double *runtime, size_t n, double *lb, double *ce,
	     double *pe);

/* The whole analysis: filter, totals, similarity (every group to its parent,
 * every function to its group), stats, POP. Return 0/-1. */
int imb_analyze(const struct imb_job *job, const struct imb_threshold *th,
		const struct imb_rules *rules, struct imb_analysis *a);
void imb_analysis_free(struct imb_analysis *a);

/* Processes whose value is at least mean + (max - mean)/2 (the ones "furthest
 * above the mean"), as indices into idx (capacity a->nproc).  Return count. */
size_t imb_top(const struct imb_analysis *a, const double *v, const struct imb_stat *s, int *idx);

/* ---- output ---- */
/* The ranked summary a user reads.  Return 0, or -1 on a write error. */
int imb_report_text(FILE *f, const struct imb_analysis *a, const struct imb_job *job);

/* The JSON document of doc/schemas/imbalance.schema.json (new reference),
 * without "fluctuation".  Its "findings" are the lines of the text's ranking
 * (the one place their wording is made: imb_report_text prints the same). */
struct json_object *imb_report_json(const struct imb_analysis *a, const struct imb_job *job);

/* A static SVG of the 3D bar chart (process x level-1 group x time), an
 * isometric drawing with a <title> per bar.  Return 0, or -1 on error. */
int imb_report_svg(FILE *f, const struct imb_analysis *a);

/* The self-contained interactive HTML page (findings, tables, 3D bars and
 * heatmap with drill-down; imbalance/web/imbalance.html) showing doc, a
 * document of imb_report_doc.  Return 0, or -1 on a write error. */
int imb_report_html(FILE *f, struct json_object *doc);
/* The same page around doc already serialized as JSON text (json-c's, which
 * writes "/" as "\/"): a caller that writes the JSON too serializes once. */
int imb_report_html_text(FILE *f, const char *doc_json);

struct imb_fluct_result;
struct imb_fluct_opts;

/* The whole JSON document: imb_report_json with "fluctuation" from fl (none
 * when fl is NULL).  A new reference, or NULL (ENOMEM). */
struct json_object *imb_report_doc(const struct imb_analysis *a, const struct imb_job *job,
				   const struct imb_fluct_result *fl);

/* The analysis of the profiles in profdir (default threshold, no rules)
 * written to outdir/imbalance<suffix>.txt, .json and .html (suffix "" or
 * e.g. ".step0"), each file whole or not at all; the text and the JSON also
 * carry the compute-phase fluctuations of profdir's phases.N files
 * (imb_phases.h) judged with fo (NULL: the defaults; the nodes'
 * calibrations go there), which go to *fl too when fl is not NULL (free
 * them with imb_fluct_free; filled only on success).  Return 0, or -1 with
 * the reason (the file and line of a bad profile, a missing rank, a write
 * error) in err. */
int imb_write_reports(const char *profdir, const char *outdir, const char *suffix,
		      const struct imb_fluct_opts *fo, struct imb_fluct_result *fl, char *err, size_t errlen);

#endif
