/* runtime.h - internal helpers of libmpiwatch shared by its modules. */
#ifndef MWM_RUNTIME_H
#define MWM_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "jobconf.h"

/* What the monitor takes from the job's settings. */
struct mwm_settings {
	double timeout_s;
	int mpit;           /* enum mw_jc_mpit */
	int debug;          /* monitor_debug: a few diagnostics on stderr */
	char dir[1024];     /* the report folder ("" = none given) */
	char profile[1024]; /* the profile folder ("" = no profile) */
	char slots[1024];   /* the slot folder, %h unreplaced ("" = the default) */
	char dumps[1024];   /* the dump folder, %h unreplaced ("" = dir/dumps) */
};

/* Fill st from the settings file named by settings (%h = host) and nothing
 * else: timeout, mpit, monitor_debug, dir, the profile folder
 * (mw_jobconf_profile_folder, for the step in SLURM_STEP_ID), the slot and
 * dump folders.  Without one (settings NULL or ""), or with a file that
 * cannot be read, the table's defaults (no report folder, no profile, the
 * default slot and dump folders); no environment variable is read.  why
 * gets what was wrong ("" if nothing).  Return 1 if the file was read,
 * else 0. */
int mwm_settings_read(const char *settings, const char *host, struct mwm_settings *st, char *why, size_t len);

/* The settings of this process (MW_JOBCONF_ENV's file, mwm_settings_read),
 * read at the first call and the same ever after; a problem is warned
 * about once on stderr.  Call first from the main thread (early_open or
 * mwm_start do), before the watcher thread reads it. */
const struct mwm_settings *mwm_settings(void);

/* The dump directory (absolute), "" if none: dumps (the settings'
 * dump_dir, "%h" = this node's name) if not "", else dir/dumps (dir: the
 * settings' report folder), else mpiwatch-JOB/dumps in a job (both from
 * mwm_settings_read). */
void mwm_choose_dumpdir(char *dst, size_t len, const char *dumps, const char *dir);

/* mkdir -p.  Return 0 on success, or -1 on error (with errno set). */
int mwm_mkdirs(const char *path);

/* Library constructor: point mwm.slot at a private slot until MPI_Init,
 * and when the launcher names the rank (OMPI_COMM_WORLD_RANK, PMI_RANK,
 * PMIX_RANK, SLURM_PROCID) make the rank's slot file now, state
 * MW_STATE_INIT (until MPI_Init is called), so that a rank that dies before or
 * inside MPI_Init is seen; mwm_start takes it over. */
void mwm_early_init(void);

/* 1 if the slot file is removed at exit: no Slurm job and the default slot
 * folder (slots: the settings' slot_dir, "" or NULL; a slot_dir keeps the
 * slots). */
int mwm_slot_is_temporary(const char *slots);

/* The main thread's stack bounds (for the stack scan); call in the main thread. */
void mwm_stack_init(void);

/* One frame found on the blocked thread's stack. */
struct mwm_frame {
	uintptr_t addr;
	char object[256];      /* absolute path of the object (the program too) */
	char build_id[65];     /* its GNU build-id in hex, or "" */
	uintptr_t offset;      /* addr - object load base */
	char symbol[128];
	uintptr_t sym_offset;
};

/* The blocked thread's return addresses, innermost first (site first).
 * If the frame-pointer chain from frame is complete and valid it is used
 * (*method = "frame_pointers"); else the stack is scanned conservatively from
 * frame up to the stack's top for words that point into executable mappings
 * just after a call instruction (*method = "scan"); without a frame only the
 * site is given ("site").  Return the number of frames written (<= max). */
int mwm_stack_scan(uintptr_t site, uintptr_t frame, uintptr_t stack_hi, struct mwm_frame *out,
		   int max, const char **method);

/* Whether object (a loaded object's path) is MPICH's Fortran bindings
 * (libmpifort, libmpichfort), which call the C functions: a C wrapper's
 * return address there is not the user's call site. */
int mwm_fortran_glue(const char *object);

/* Fill object/build_id/offset/symbol of a frame with dladdr and
 * dl_iterate_phdr.  The object is named by its absolute path, the program by
 * /proc/self/exe's target (dladdr gives it as started, e.g. "./prog"), so
 * that an analysis from another folder finds it and can tell by the build-id
 * whether it is still the same build.  Not async-signal-safe (the watcher
 * thread's). */
void mwm_frame_symbolize(struct mwm_frame *f);

/* Fill the slot's program block (exe_base, exe_lo, exe_hi, exe): where the
 * main program is mapped and its absolute path, so that a reader names the
 * call site of a rank that died before any dump (mw_slot_site).  Call
 * before the slot is published; the block stays empty if it cannot tell. */
struct mw_slot;
void mwm_exe_record(struct mw_slot *s);

/* Write the profile (TAU format) into mwm.profdir if profiling is on.  Return 0 on
 * success, or -1 on error (with errno set). */
int mwm_profile_write(void);

/* Profile mode: the MPI call op (of the current call site, mwm.slot's) ran
 * from t0 to t1 (mwm_prof_now: ns, or TSC ticks until mwm_phase_scale); records the compute interval since the previous call's
 * end under the pair of call sites (profile.c: bounded samples per pair,
 * written as phases.RANK beside the profile). */
void mwm_phase_add(int op, uint64_t t0, uint64_t t1);

/* Multiply every compute-interval sample by r (TSC ticks to ns at the end
 * of a profile timed with the TSC: prof_ticks_to_ns in runtime.c). */
void mwm_phase_scale(double r);

/* The profile group of an op ("MPI_P2P_BLOCKING", ...). */
const char *mwm_op_group(int op);

#endif
