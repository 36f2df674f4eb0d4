/* statusprint.h - the text "mpiwatch status" prints from a status object:
 * nodehealthd's (its socket's answer) and a job's (its collector's
 * report.json, a file in the job user's directory).  Neither is trusted:
 * any JSON value prints without aborting, and control characters in its
 * strings print as '?' (no terminal escapes reach the reader's screen). */
#ifndef MW_STATUSPRINT_H
#define MW_STATUSPRINT_H

#include <json-c/json.h>
#include <stdio.h>

/* Print nodehealthd's status object st (any JSON value) as text to out. */
void mw_status_print_node(struct json_object *st, FILE *out);

/* Print the body of "mpiwatch status --job" from the job's report r (any
 * JSON value) to out: verdict, agents, tree, ranks seen, the last events. */
void mw_status_print_job(struct json_object *r, FILE *out);

#endif
