/* nhd_slurm.h - what nodehealthd asks Slurm (through scontrol). */
#ifndef NHD_SLURM_H
#define NHD_SLURM_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "nhd_conf.h"

struct nhd_job {
	long uid;           /* owner, -1 if unknown */
	char user[64];
	char state[32];     /* JobState, e.g. RUNNING */
	char *nodelist;     /* NodeList (malloc'd; "" if none); het components joined by ',' */
	time_t end_time;    /* EndTime, 0 if unknown */
};

struct nhd_node {
	char name[64];
	char addr[256];     /* NodeAddr (the name when unset) */
	char state[64];     /* State, e.g. IDLE+DRAIN, ALLOCATED*, DOWN+NOT_RESPONDING */
	char reason[256];   /* Reason ("" if none), including Slurm's " [user@time]" */
};

/* Parse "scontrol show job -o" output.  Return 0, or -1 if it holds no job
 * record (errno EINVAL). */
int nhd_slurm_parse_job(const char *text, struct nhd_job *j);
void nhd_slurm_job_free(struct nhd_job *j);

/* Parse "scontrol show node -o" output into a malloc'd array.  Return the
 * number of nodes (0 if none), or -1 (errno ENOMEM). */
long nhd_slurm_parse_nodes(const char *text, struct nhd_node **nodes);

/* Run scontrol to read job jobid / all nodes.  Return 0 (or the count for
 * nodes), or -1 with the reason in err. */
int nhd_slurm_job(const struct nhd_conf *c, const char *jobid, struct nhd_job *j, char *err, size_t errlen);
long nhd_slurm_nodes(const struct nhd_conf *c, struct nhd_node **nodes, char *err, size_t errlen);

/* Set node to DRAIN with reason.  Return 0, or -1 with scontrol's message in err. */
int nhd_slurm_drain(const struct nhd_conf *c, const char *node, const char *reason, char *err, size_t errlen);

/* Parse a Slurm time stamp ("2026-11-22T13:00:00", local time).  Return the
 * time, or 0 for "Unknown", "None" or anything unparsable. */
time_t nhd_slurm_time(const char *s);

#endif
