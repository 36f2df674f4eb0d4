/* dispatch.c - libmpiwatch.so, the one library to LD_PRELOAD.
 *
 * Open MPI and MPICH have different ABIs, so the wrappers are built twice
 * (libmpiwatch-openmpi.so, libmpiwatch-mpich.so).  This small library
 * exports every wrapped MPI_* / mpi_*_ symbol as a trampoline
 * (`jmp *slot`, tramp.S, generated from mpi.spec; with MW_PORTABLE=1 a C
 * function that tail-calls the slot, forward.c).  At load, if an MPI
 * library is in the process, it dlopens the matching variant (RTLD_LOCAL,
 * from its own directory) and points each slot at the variant's wrapper, or
 * at the next definition (dlsym RTLD_NEXT) when the variant does not wrap
 * it.  Without MPI it does nothing; a slot that is used later (MPI loaded by
 * dlopen) resolves everything on first use.  A tail jump keeps any ABI's
 * arguments intact (forward.c: see doc/monitor.md for what it assumes).
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobconf.h"

extern void *mwd_slots[];
extern const unsigned mwd_nsyms;
extern const char *const mwd_names[][2];

void *mwd_resolve(long i) __attribute__((visibility("hidden")));

static pthread_mutex_t mwd_mu = PTHREAD_MUTEX_INITIALIZER;
static int mwd_done;

/* Reached only through a symbol nothing else defines: fail the call. */
static int mwd_missing(void)
{
	return 16; /* MPI_ERR_OTHER in both MPIs' numbering ranges is not portable; any non-zero */
}

static const char *detect(void)
{
	if (dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world"))
		return "openmpi";
	if (dlsym(RTLD_DEFAULT, "MPIR_Err_create_code") || dlsym(RTLD_DEFAULT, "MPICH_Init") ||
	    dlsym(RTLD_DEFAULT, "MPIR_Dup_fn"))
		return "mpich";
	return NULL;
}

static void *open_variant(const char *mpi)
{
	Dl_info di;
	char path[PATH_MAX];
	void *h;
	if (mw_env_disables(getenv("MPIWATCH_DISABLE")))
		return NULL;
	if (!dladdr((void *)detect, &di) || !di.dli_fname)
		return NULL;
	snprintf(path, sizeof(path), "%s", di.dli_fname);
	char *sl = strrchr(path, '/');
	if (sl)
		sl[1] = 0;
	else
		path[0] = 0;
	strncat(path, "libmpiwatch-", sizeof(path) - strlen(path) - 1);
	strncat(path, mpi, sizeof(path) - strlen(path) - 1);
	strncat(path, ".so", sizeof(path) - strlen(path) - 1);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		fprintf(stderr, "mpiwatch: cannot load %s: %s (monitoring off)\n", path, dlerror());
	return h;
}

/* Fill every slot.  Called with mwd_mu held or from the constructor. */
static void setup(const char *mpi)
{
	void *h = mpi ? open_variant(mpi) : NULL;
	void *(*lookup)(const char *) = NULL;
	int (*vinit)(void) = NULL;
	if (h) {
		vinit = (int (*)(void))dlsym(h, "mwv_init");
		lookup = (void *(*)(const char *))dlsym(h, "mwv_lookup");
		if (!vinit || !lookup || vinit() != 0) {
			h = NULL;
			lookup = NULL;
		}
	}
	for (unsigned i = 0; i < mwd_nsyms; i++) {
		const char *name = mwd_names[i][0], *vname = mwd_names[i][1];
		void *p = NULL;
		if (h)
			p = strncmp(vname, "mwv_f_", 6) == 0 ? lookup(vname) : dlsym(h, vname);
		if (!p)
			p = dlsym(RTLD_NEXT, name);
		if (!p)
			p = (void *)mwd_missing;
		__atomic_store_n(&mwd_slots[i], p, __ATOMIC_RELEASE);
	}
	mwd_done = 1;
}

void *mwd_resolve(long i)
{
	pthread_mutex_lock(&mwd_mu);
	if (!mwd_done)
		setup(detect());
	pthread_mutex_unlock(&mwd_mu);
	if (i < 0 || (unsigned long)i >= mwd_nsyms)
		return (void *)mwd_missing;
	return __atomic_load_n(&mwd_slots[i], __ATOMIC_ACQUIRE);
}

__attribute__((constructor)) static void mwd_init(void)
{
	const char *mpi = detect();
	if (!mpi)
		return; /* no MPI in this process: do nothing at all */
	pthread_mutex_lock(&mwd_mu);
	if (!mwd_done)
		setup(mpi);
	pthread_mutex_unlock(&mwd_mu);
}
