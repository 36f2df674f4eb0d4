/* libFuzzer target for the drain-request parser (shared/drainreq.c: every op,
 * the collector's summary too) and the
 * parsers of Slurm's JSON answers the daemon decides drains on
 * (shared/slurmjson.c: squeue --json, sinfo --json). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drainreq.h"
#include "hostlist.h"
#include "slurmjson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mw_drainreq req;
	char err[256];
	char *text;

	if (mw_drainreq_parse((const char *)data, size, &req, err, sizeof(err)) == 0) {
		if (req.op == MW_DRAINREQ_DRAIN) {
			if (!mw_drainreq_valid_job(req.job) || !mw_drainreq_valid_node(req.node) || !req.evidence)
				abort();
			for (const char *p = req.summary; *p; p++)
				if (*p < 0x20 || *p > 0x7e || *p == '=' || *p == '"')
					abort();
		}
		/* A summary (a collector's end): a valid job and one of the verdicts,
		 * nothing else. */
		if (req.op == MW_DRAINREQ_SUMMARY &&
		    (!mw_drainreq_valid_job(req.job) || req.verdict < 0 || req.verdict >= MW_SUMMARY_NVERDICTS ||
		     req.evidence || req.node[0]))
			abort();
		mw_drainreq_free(&req);
	}
	text = strndup((const char *)data, size);
	if (!text)
		return 0;
	{
		struct mw_slurm_job j;
		struct mw_slurm_node *nodes = NULL;
		if (mw_slurm_job_parse(text, "5", &j) == 0) {
			/* nhd_nodelist_has() expands up to 65536 names: under ASan that
			 * only measures the allocator.  The hostlist parser has its own
			 * fuzz target; here a small expansion is enough. */
			struct mw_hostlist hl = {0};
			if (mw_hostlist_expand(j.nodelist, 256, &hl) == 0)
				mw_hostlist_free(&hl);
			mw_slurm_job_free(&j);
		}
		if (mw_slurm_nodes_parse(text, &nodes) >= 0)
			free(nodes);
	}
	free(text);
	return 0;
}
