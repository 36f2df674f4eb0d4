/* nhd_slurm.h - what nodehealthd asks Slurm (squeue/sinfo --json; scontrol to drain). */
#ifndef NHD_SLURM_H
#define NHD_SLURM_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "nhd_conf.h"
#include "slurmjson.h"

/* A job and a node as Slurm describes them: shared/slurmjson.h (read from
 * "squeue --json" and "sinfo --json", never from scontrol's text). */

/* Read job jobid ("squeue --json -j JOBID") / all nodes ("sinfo --json");
 * squeue and sinfo are taken from the folder of the configured scontrol.
 * Return 0 (or the count for nodes), or -1 with the reason in err. */
int nhd_slurm_job(const struct nhd_conf *c, const char *jobid, struct mw_slurm_job *j, char *err,
		  size_t errlen);
long nhd_slurm_nodes(const struct nhd_conf *c, struct mw_slurm_node **nodes, char *err, size_t errlen);

/* Set node to DRAIN with reason.  Return 0, or -1 with scontrol's message in err. */
int nhd_slurm_drain(const struct nhd_conf *c, const char *node, const char *reason, char *err, size_t errlen);

#endif
