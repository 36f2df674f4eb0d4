/* verdict_text.c - how the verdict's causes say what a rank did (see
 * verdict_text.h): the phrases verdict.c's details and answer.c share. */
#include "verdict_text.h"

#include <stdio.h>
#include <string.h>

#include "hostlist.h"

char *col_signal_name(int sig, char *buf, size_t len)
{
	const char *a = sig > 0 ? sigabbrev_np(sig) : NULL; /* glibc's "SEGV" */
	if (a)
		snprintf(buf, len, "SIG%s", a);
	else
		snprintf(buf, len, "signal");
	return buf;
}

void col_slow_text_of(const char *call, const char *how, const char *then, char *buf, size_t len)
{
	snprintf(buf, len, "in %s, its transfer moves (%s): slow, not stuck%s", call[0] ? call : "MPI",
		 !strncmp(how, "recv_buffer", 11) ? "its receive buffer is filling"
		 : !strncmp(how, "io", 2)	 ? "it reads or writes data"
						 : "data moving",
		 then);
}

void col_slow_text(const struct col_rank *x, char *buf, size_t len)
{
	col_slow_text_of(x->call, x->moving, "", buf, len);
}

/* "killed by signal N (SIGX)WHERE", "exited with status NWHERE" or
 * "vanishedWHERE (exit status unknown)". */
static void ended_text(const struct col_rank *x, const char *where, char *buf, size_t len)
{
	char sig[16];
	if (x->exit_signal > 0)
		snprintf(buf, len, "killed by signal %d (%s)%s", x->exit_signal,
			 col_signal_name(x->exit_signal, sig, sizeof sig), where);
	else if (x->exit_code >= 0)
		snprintf(buf, len, "exited with status %d%s", x->exit_code, where);
	else
		snprintf(buf, len, "vanished%s (exit status unknown)", where);
}

void col_exit_text(const struct col_rank *x, char *buf, size_t len)
{
	char where[80] = " without MPI_Finalize";
	if (!strcmp(x->call, "MPI_Finalize")) /* it had called it, and it had not returned */
		snprintf(where, sizeof where, " inside MPI_Finalize");
	else if (x->preinit)
		snprintf(where, sizeof where, " before MPI_Init");
	else if (x->call[0])
		snprintf(where, sizeof where, " inside %.40s, without MPI_Finalize", x->call);
	ended_text(x, where, buf, len);
}

const char *col_call_name(const struct col_rank *x)
{
	return x->call[0] ? x->call : "an MPI call";
}

void col_dead_names(const struct col_node *nodes, const struct col_result *res, char *buf, size_t len)
{
	struct mw_hostlist hl = {0};
	char *names[64];
	size_t n = 0;
	for (size_t i = 0; i < res->ndead && n < 64; i++)
		names[n++] = (char *)nodes[res->dead_nodes[i]].name;
	hl.host = names;
	hl.n = n;
	mw_hostlist_compress(&hl, buf, len);
}
