/* dl_crash.h - where a crashed rank died, from the MPI library's own crash
 * report (no signal handler of ours: doc/collector.md, "Where a crashed rank
 * died"): the report's lines parsed, its frames symbolised with libdw. */
#ifndef MW_DL_CRASH_H
#define MW_DL_CRASH_H

#include <stddef.h>

/* The MPI library's own crash report of a rank, read from the launcher's
 * output (mpiwatch run) or the job's output file (the collector under Slurm): Open MPI's ("[host:pid] *** Process received signal ***", then
 * "[host:pid] [ N] OBJECT(+0xOFFSET)[0xADDR]" frames, then "*** End of error
 * message ***") or UCX's under MPICH ("==== backtrace (tid: PID) ====", then
 * " N  OBJECT(+0xOFFSET) [0xADDR]" frames, then a line of '='). */
#define DL_CRASH_MAX 32
struct dl_crash_bt {
	long pid;  /* the crashed process (0: no block open) */
	char host[64]; /* Open MPI's "[host:pid]" host, "" if not given (UCX) */
	int ucx;   /* 1: in UCX's "==== backtrace" block (MPICH) */
	int trampoline; /* UCX: libc's signal trampoline seen */
	int n;
	struct {
		int index;           /* N: 0 is the signal trampoline */
		char object[256];
		unsigned long long offset; /* from OBJECT(+0x...), 0 if not given */
		char symbol[96];     /* from OBJECT(symbol+0x...), "" if not given */
	} f[DL_CRASH_MAX];
};

/* Parse one line of a crash report (above) into bt (zero it to start).
 * Return 1 when its last line completes a report of bt->pid with bt->n
 * frames, else 0. */
int dl_crash_parse(const char *line, struct dl_crash_bt *bt);

/* Where a crash report's process died, its frames symbolised with libdw
 * (dl_sym_lookup): "fill_halo (run_segv.c:14)" for each frame after the
 * signal trampoline, innermost first, joined by TAB, into buf.  A frame
 * of a system library reads "gsignal (in libc.so.6)", one of the program
 * without debug info "solve (in prog, no source line: no debug info)".
 * Return the number of frames written. */
int dl_crash_text(const struct dl_crash_bt *bt, char *buf, size_t len);

/* Between lines of Open MPI's MPI error block ("*** An error occurred in
 * MPI_Bcast", "*** reported by process [J,R]", "*** MPI_ERR_COUNT: ..."). */
struct dl_mpierr_state {
	char call[64]; /* "" outside a block */
	int rank;      /* -1 until "reported by process" */
};

/* Parse one line of the launcher's output (mpiwatch run) or of the job's
 * output file (the collector under Slurm) for the MPI library's own error
 * line for a rank it ends (MPI_ERRORS_ARE_FATAL): Open MPI's block (the
 * three lines above: the message is "MPI_Bcast: MPI_ERR_COUNT: invalid
 * count argument") or MPICH's "Abort(N) on node X (rank R in comm C): Fatal
 * error in F: MSG, error stack:" ("Fatal error in F: MSG").  Lines may carry
 * Open MPI's "[host:pid] " prefix.  Return 1 with the world rank in *rank
 * and the message in msg when a line completes one, else 0 (*st keeps Open
 * MPI's block between lines; zero it with rank -1 to start). */
int dl_mpierr_parse(const char *line, struct dl_mpierr_state *st, int *rank, char *msg, size_t len);

#endif
