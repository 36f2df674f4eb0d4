/* answer.h - the answer first: one sentence per finding, with the ranks and
 * the source location, built from the one classification (verdict.h) and
 * the deadlock analysis of the dumps (analyze/).
 *
 * These sentences are the first lines of report.txt (so of the terminal
 * under "mpiwatch run" and of srun's output), the "answer" of report.json,
 * the verdict's timeline event and the Slurm job comment
 * (doc/collector.md, "The answer first").
 */
#ifndef COL_ANSWER_H
#define COL_ANSWER_H

#include <stddef.h>
#include <stdio.h>

#include "colstate.h"

#define COL_ANSWER_MAX 8    /* sentences at most; more findings are in the report */
#define COL_ANSWER_LEN 720  /* bytes per sentence, with its NUL */

/* The answer when nothing failed, and what follows it when a rank was slow
 * or computing (cause A). */
#define COL_ANSWER_NOTHING "no failure detected"
#define COL_ANSWER_CAUSE_A " (a long computation or slow transfer noted: cause A)"

struct col_answer {
	size_t n;
	int nothing; /* 1: the one sentence is COL_ANSWER_NOTHING's */
	char line[COL_ANSWER_MAX][COL_ANSWER_LEN];
};

/* The sentences for s into a (a->n >= 1 always: COL_ANSWER_NOTHING, with
 * a->nothing set, when there is nothing to say). */
void col_answer(const struct col_state *s, struct col_answer *a);

/* The crash stack of rank r from s->crash_stacks, one frame a line with
 * indent, written to f (the report's "where rank R died" section).  Return
 * 1 if there was one. */
int col_answer_stack(const struct col_state *s, int r, FILE *f);

/* What a cause means, for the reader who meets the letter: 'B' ->
 * "the program's own error".  Static text, never NULL. */
const char *col_cause_meaning(char cause);

/* The Slurm job comment: the user's own comment (old, may be NULL or ""),
 * with any earlier mpiwatch part removed, then " | " and "mpiwatch: " with
 * the first sentence ("(+N more)" when there are more) and "; report PATH"
 * when report is not empty.  One printable line of at most len - 1 bytes;
 * the user's part is kept whole when it fits, cut (and "...") when not. */
void col_answer_comment(const struct col_answer *a, const char *old, const char *report, char *buf,
			size_t len);

#endif
