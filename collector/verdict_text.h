/* verdict_text.h - how the verdict's causes say what a rank did: the
 * phrases of a cause's detail (verdict.c) and of the answer (answer.c).
 * Pure functions over the classification's structs (verdict.h). */
#ifndef COL_VERDICT_TEXT_H
#define COL_VERDICT_TEXT_H

#include <stddef.h>

#include "verdict.h"

/* A signal's name into buf (16 bytes are enough): "SIGSEGV", or "signal"
 * for one without a name (a real-time signal).  Returns buf. */
char *col_signal_name(int sig, char *buf, size_t len);

/* What a slow rank is doing, "in MPI_Wait, its transfer moves (its receive
 * buffer is filling): slow, not stuckTHEN", from its call ("" = "MPI") and
 * its motion signal ("recv_buffer...", "io..." or other), into buf. */
void col_slow_text_of(const char *call, const char *how, const char *then, char *buf, size_t len);

/* col_slow_text_of with the rank's call and motion, THEN empty. */
void col_slow_text(const struct col_rank *x, char *buf, size_t len);

/* How a rank ended, into buf: "killed by signal N (SIGX)WHERE", "exited
 * with status NWHERE" or "vanishedWHERE (exit status unknown)", WHERE
 * naming the MPI call it ended inside, " before MPI_Init", or " without
 * MPI_Finalize". */
void col_exit_text(const struct col_rank *x, char *buf, size_t len);

/* The rank's call, or "an MPI call" when it has none.  Points into x or to
 * a static string. */
const char *col_call_name(const struct col_rank *x);

/* The dead nodes of res (indexes into nodes), as a compressed host list
 * ("n[3-4]", at most 64 names), into buf. */
void col_dead_names(const struct col_node *nodes, const struct col_result *res, char *buf, size_t len);

#endif
