/* cal_report.h - the calibration as text and as JSON
 * (doc/schemas/calibrate.schema.json), and the criterion read back from that
 * JSON.  No function here exits; only the text writer prints (to its FILE). */
#ifndef CAL_REPORT_H
#define CAL_REPORT_H

#include <stdio.h>

#include <json-c/json.h>

#include "cal_calib.h"
#include "cal_criterion.h"

/* The calibration as a JSON object (version 1).  Return a new reference, or
 * NULL (ENOMEM). */
struct json_object *cal_report_json(const struct cal_result *r);

/* The calibration as text on f.  Return 0, or -1 on a write error. */
int cal_report_text(FILE *f, const struct cal_result *r);

/* The criterion from a calibration JSON file (written by cal_report_json):
 * q, alpha, the resolution in cycles (cycles != 0) or ns, and the relative
 * resolution.  A calibration that found no resolution gives resolution 0,
 * relative = the largest difference it tested (step * steps) and *resolved = 0.  Return 0, or -1 with a
 * message naming the file in err (errno set: EINVAL for a file that is not a
 * calibration, or has no cycle figures when cycles are asked for). */
int cal_criterion_load(const char *path, int cycles, struct cal_criterion *c, int *resolved,
		       char *err, size_t errlen);

/* What a job's compute-phase flag takes from a calibration JSON file (as
 * cal_criterion_load reads it): the shortest trustworthy interval (0: none
 * found) and the criterion's resolution in ns (0: none resolved).  Return
 * 0, or -1 with a message naming the file in err (errno set: EINVAL for a
 * file that is not a calibration). */
int cal_node_load(const char *path, double *interval_ns, double *resolution_ns, char *err, size_t errlen);

#endif
