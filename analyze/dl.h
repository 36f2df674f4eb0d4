/* dl.h - offline deadlock detection over the monitor's state dumps.
 *
 * dl_analyze_dir() reads every rank-*.json in a dump directory (format:
 * doc/dump-format.md), validates each file, builds the AND/OR wait-for graph
 * of the stuck ranks and reports collective mismatches, cycles and knots with
 * a diagnosis (least-similar ranks, near-miss messages, missing sends).  The
 * method is described in doc/deadlock.md; the JSON report's schema is
 * doc/schemas/deadlock.schema.json.
 *
 * The library never exits and never prints except to the FILE given to a
 * writer; progress and phase times go to callbacks the program supplies.
 */
#ifndef MW_DL_H
#define MW_DL_H

#include <stdio.h>

#include <json-c/json.h>

struct dl_options {
	int expect_size;  /* world size to expect; 0 = take it from the dumps */
	int top;          /* least-similar ranks to name per finding (default 3) */
	long eager_limit; /* bytes: a pending standard-mode nonblocking send larger
			     than this needs its receiver (rendezvous); default 4096 */
	int progress;     /* 1 = always, 0 = auto (>= 5000 files), -1 = never */
	/* Progress while the dumps are read: done of total files, from one
	   thread at a time; last = 1 on the final call (done == total).  NULL
	   = no progress, whatever progress says. */
	void (*on_progress)(void *arg, size_t done, size_t total, int last);
	/* Called once after a successful analysis with the seconds of each
	   phase: load, symbols, graph, diagnosis+report.  NULL = not asked. */
	void (*on_phases)(void *arg, const double phase_s[4]);
	void *cb_arg; /* the callbacks' arg */
	const char *schema_path; /* dump schema to validate with, besides the
				    built-in checks; NULL = the compiled-in
				    doc/schemas/dump.schema.json (up to 20,000
				    dumps), "none" = built-in checks only */
	int no_symbols; /* 1 = do not look up file:line (libdw) for frames without it */
	int threads;    /* reader threads; 0 = auto (up to 4 from 2,000 files on) */
	double skew; /* seconds: a finding needs one moment at which every
			member was stuck, within this slack (default 0.5);
			< 0 = do not check (dumps known to be current) */
};

struct dl_result;

/* Fill o with the defaults. */
void dl_options_init(struct dl_options *o);

/* Analyse the dumps in dir.  opt may be NULL (defaults).  On success *out is
 * a new result (also when no deadlock is found and when no file could be
 * read: see dl_result_dumps()).  Return 0 on success, or -1 on error (with
 * errno set: the directory cannot be read, the schema cannot be loaded, or
 * out of memory). */
int dl_analyze_dir(const char *dir, const struct dl_options *opt, struct dl_result **out);

/* The same over n in-memory dumps: names[i] is the file name
 * ("rank-<N>.json"), bufs[i] its content of lens[i] bytes (not modified). */
int dl_analyze_buffers(int n, const char *const *names, char *const *bufs, const size_t *lens,
		       const struct dl_options *opt, struct dl_result **out);

/* Look up offset in the object file obj in-process with libdw (separate
 * debug info found by .gnu_debuglink or build-id): the function into fn,
 * the source file's base name into file and its line into *line.  offset is
 * a return address (offset - 1 is looked up) unless exact (a faulting PC).
 * Return 1 with file:line, 0 without (no debug info: fn may still be set),
 * -1 if obj cannot be read as ELF. */
int dl_sym_lookup(const char *obj, unsigned long long offset, int exact, char *fn, size_t fnlen,
		  char *file, size_t filelen, int *line);

/* Release a result (NULL is fine). */
void dl_result_free(struct dl_result *r);

/* Return 1 if a deadlock was found, else 0. */
int dl_result_found(const struct dl_result *r);

/* Return 1 if the analysis is incomplete: some rank's dump file is in the
 * directory but could not be read (cut short, not a dump, a wrong field; a
 * readable dump of another job does not count), so that rank was not analysed (the report's "incomplete",
 * "incomplete_reason" and "unreadable_ranks"), else 0.  A rank with no file
 * is not a gap: the monitor writes none for a rank not stuck in MPI.  With
 * dl_result_found() the deadlock holds whatever the unread ranks do;
 * without, there is no verdict on them and the ranks that wait for them. */
int dl_result_incomplete(const struct dl_result *r);

/* Return the kind of the first finding: "collective_mismatch", "cycle",
 * "knot", "missing_send", or "none".  Never NULL. */
const char *dl_result_kind(const struct dl_result *r);

/* Return the number of valid dumps that were read. */
int dl_result_dumps(const struct dl_result *r);

/* Return the report as JSON (a borrowed reference owned by r, valid until
 * dl_result_free).  It follows doc/schemas/deadlock.schema.json. */
struct json_object *dl_result_json(const struct dl_result *r);

/* Write the STAT-style text report, the JSON report (pretty-printed) or the
 * Graphviz DOT wait-for graph to f.  Return 0 on success, or -1 on a write
 * error (errno set). */
int dl_write_text(FILE *f, const struct dl_result *r);
int dl_write_json(FILE *f, const struct dl_result *r);
int dl_write_dot(FILE *f, const struct dl_result *r);

/* The stack classes (the report's "stack_tree": ranks grouped by identical
 * call path, as a tree from main to the MPI call) as indented text with a
 * title line, to f; truncated adds a line saying some paths were left out.
 * Return 1 if there was a tree to write, 0 if tree is not a non-empty
 * array. */
int dl_stack_tree_text(FILE *f, struct json_object *tree, int truncated);

#endif
