/* profile.c - a light mpiP-like profile in TAU's text format. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "mwm.h"
#include "runtime.h"

const char *mwm_op_group(int op)
{
	const char *n = mwm_ops[op].name;
	switch (mwm_ops[op].kind) {
	case MW_KIND_IO:
		return "MPI_IO";
	case MW_KIND_RMA_SYNC:
		return "MPI_ONESIDED";
	case MW_KIND_COLLECTIVE:
		return strncmp(n, "MPI_Win", 7) == 0 ? "MPI_ONESIDED" : "MPI_COLLECTIVE";
	case MW_KIND_SEND:
	case MW_KIND_RECV:
	case MW_KIND_SENDRECV:
	case MW_KIND_PROBE:
		return "MPI_P2P_BLOCKING";
	case MW_KIND_WAIT:
	case MW_KIND_TEST:
		return "MPI_P2P_NONBLOCKING";
	case MW_KIND_NONBLOCKING:
		if (strncmp(n, "MPI_File", 8) == 0)
			return "MPI_IO";
		if (strstr(n, "send") || strstr(n, "recv") || strstr(n, "Start") || strstr(n, "_init"))
			return "MPI_P2P_NONBLOCKING";
		return "MPI_COLLECTIVE";
	default:
		return "MPI_OTHER";
	}
}

int mwm_profile_write(void)
{
	const char *env = getenv("MPIWATCH_PROFILE"), *job = getenv("SLURM_JOB_ID");
	char dir[PATH_MAX], path[PATH_MAX + 64], host[64] = "";
	uint64_t in_mpi = 0, total;
	int nfun = 1, rank = mwm.slot->world_rank;
	FILE *f;
	if (!env || !*env || !mwm.prof)
		return 0;
	if (!strcmp(env, "1") || !strcasecmp(env, "yes") || !strcasecmp(env, "true"))
		snprintf(dir, sizeof(dir), "mpiwatch-%s/profile", job && *job ? job : "nojob");
	else
		snprintf(dir, sizeof(dir), "%s", env);
	if (mwm_mkdirs(dir) < 0)
		return -1;
	mw_node_name(host, sizeof(host));
	for (int i = 0; i < mwm_nops; i++)
		if (mwm.prof[i].calls) {
			nfun++;
			in_mpi += mwm.prof[i].ns;
		}
	total = (mwm.prof_end_ns > mwm.prof_start_ns ? mwm.prof_end_ns : mwm_now_ns()) - mwm.prof_start_ns;
	snprintf(path, sizeof(path), "%s/profile.%d.0.0", dir, rank);
	struct mw_atomic_file af;
	if (mw_atomic_open(&af, path, 0666) < 0)
		return -1;
	f = af.f;
	fprintf(f, "%d templated_functions_MULTI_TIME\n", nfun);
	fprintf(f, "# Name Calls Subrs Excl Incl ProfileCalls # <metadata><attribute><name>Node "
		   "Name</name><value>%s</value></attribute><attribute><name>MPI Rank</name><value>%d"
		   "</value></attribute><attribute><name>Tool</name><value>mpiwatch %s</value>"
		   "</attribute></metadata>\n",
		host, rank, MW_VERSION);
	/* the application entry: exclusive = time outside MPI, inclusive = total */
	fprintf(f, "\".TAU application\" 1 %llu %.3f %.3f 0 GROUP=\"TAU_DEFAULT\"\n",
		(unsigned long long)(nfun - 1), (total > in_mpi ? total - in_mpi : 0) / 1e3, total / 1e3);
	for (int i = 0; i < mwm_nops; i++) {
		const struct mwm_prof *p = &mwm.prof[i];
		if (!p->calls)
			continue;
		fprintf(f, "\"%s()\" %llu 0 %.3f %.3f 0 GROUP=\"MPI|%s\"\n", mwm_ops[i].name,
			(unsigned long long)p->calls, p->ns / 1e3, p->ns / 1e3, mwm_op_group(i));
	}
	fprintf(f, "0 aggregates\n");
	int nev = 0;
	for (int i = 0; i < mwm_nops; i++)
		if (mwm.prof[i].bytes)
			nev++;
	fprintf(f, "%d userevents\n# eventname numevents max min mean sumsqr\n", nev);
	for (int i = 0; i < mwm_nops; i++) {
		const struct mwm_prof *p = &mwm.prof[i];
		if (!p->bytes)
			continue;
		/* over the calls that moved data (count > 0, known datatype) */
		fprintf(f, "\"Message size for %s()\" %llu %llu %llu %.3f %.1f\n", mwm_ops[i].name,
			(unsigned long long)p->nb, (unsigned long long)p->bmax, (unsigned long long)p->bmin,
			(double)p->bytes / (double)p->nb, p->bsumsq);
	}
	return mw_atomic_close(&af, 1);
}
