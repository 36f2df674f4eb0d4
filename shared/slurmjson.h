/* slurmjson.h - Slurm's answers read as data: the JSON of "squeue --json"
 * and "sinfo --json" (Slurm 22.05, data_parser v0.0.38) parsed with json-c.
 *
 * The one place that reads what Slurm says about a job or a node, for
 * nodehealthd (root: it decides drains on it) and the collector.  Nothing
 * here takes a field from text a user can write into: a job name such as
 * "x NodeList=victim01 UserId=root(0)" stays the job's name.
 */
#ifndef MW_SLURMJSON_H
#define MW_SLURMJSON_H

#include <stddef.h>
#include <time.h>

struct mw_slurm_job {
	long uid;          /* owner, -1 if unknown */
	char user[64];
	char state[32];    /* job_state, e.g. RUNNING */
	char *nodelist;    /* nodes (malloc'd; "" if none); het components joined by ',' */
	time_t end_time;   /* 0 if unknown */
	char excluded[2048]; /* excluded_nodes ("" if none) */
	char workdir[4096];  /* current_working_directory ("" if unknown) */
	char comment[1024];  /* the job's comment ("" if none) */
	char std_out[4096];  /* standard_output as Slurm keeps it (may hold %j...; "" if none) */
	char std_err[4096];  /* standard_error, the same */
	int batch;           /* batch_flag: a batch job (its output goes to a file) */
};

struct mw_slurm_node {
	char name[64];
	char addr[256];    /* address (the name when unset) */
	char state[64];    /* STATE[+FLAG...], upper case, e.g. IDLE+DRAIN, DOWN+NOT_RESPONDING */
	char reason[256];  /* "" if none */
	time_t reason_time;     /* reason_changed_at: when the reason was set (0 if unknown) */
	char reason_user[64];   /* reason_set_by_user ("" if unknown) */
};

/* Parse "squeue --json -j JOBID" output: the record(s) of job jobid (a het
 * job's components, whose het_job_id is jobid, are joined).  Return 0, or
 * -1 with errno EINVAL (not JSON, not squeue's shape, or no such job) or
 * ENOMEM.  Release with mw_slurm_job_free(). */
int mw_slurm_job_parse(const char *text, const char *jobid, struct mw_slurm_job *j);
void mw_slurm_job_free(struct mw_slurm_job *j);

/* Parse "sinfo --json" output into a malloc'd array (*nodes, free()).
 * Return the number of nodes, or -1 with errno EINVAL or ENOMEM. */
long mw_slurm_nodes_parse(const char *text, struct mw_slurm_node **nodes);

#endif
