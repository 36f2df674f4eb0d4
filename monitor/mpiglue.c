/* mpiglue.c - the MPI-typed part of libmpiwatch, compiled once per MPI
 * (mpicc.openmpi / mpicc.mpich): MPI_Init/Finalize, constants and names,
 * communicator creation, MPI_T queue lengths, and the variant's entry points
 * for the dispatcher (mwv_init, mwv_lookup). */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "mwm.h"
#include "mwm_glue.h"
#include "ops.h"
#include "runtime.h"

static int finalizing;

#define DT(x) {MWH(x), #x, 0}
static void names_init(void)
{
	struct mwm_name d[] = {
		DT(MPI_CHAR), DT(MPI_SIGNED_CHAR), DT(MPI_UNSIGNED_CHAR), DT(MPI_BYTE), DT(MPI_WCHAR),
		DT(MPI_SHORT), DT(MPI_UNSIGNED_SHORT), DT(MPI_INT), DT(MPI_UNSIGNED), DT(MPI_LONG),
		DT(MPI_UNSIGNED_LONG), DT(MPI_LONG_LONG_INT), DT(MPI_UNSIGNED_LONG_LONG), DT(MPI_FLOAT),
		DT(MPI_DOUBLE), DT(MPI_LONG_DOUBLE), DT(MPI_C_BOOL), DT(MPI_INT8_T), DT(MPI_INT16_T),
		DT(MPI_INT32_T), DT(MPI_INT64_T), DT(MPI_UINT8_T), DT(MPI_UINT16_T), DT(MPI_UINT32_T),
		DT(MPI_UINT64_T), DT(MPI_AINT), DT(MPI_OFFSET), DT(MPI_COUNT), DT(MPI_C_FLOAT_COMPLEX),
		DT(MPI_C_DOUBLE_COMPLEX), DT(MPI_PACKED), DT(MPI_FLOAT_INT), DT(MPI_DOUBLE_INT),
		DT(MPI_LONG_INT), DT(MPI_2INT), DT(MPI_SHORT_INT), DT(MPI_LONG_DOUBLE_INT),
		DT(MPI_CHARACTER), DT(MPI_INTEGER), DT(MPI_REAL), DT(MPI_DOUBLE_PRECISION),
		DT(MPI_COMPLEX), DT(MPI_DOUBLE_COMPLEX), DT(MPI_LOGICAL), DT(MPI_2REAL),
		DT(MPI_2DOUBLE_PRECISION), DT(MPI_2INTEGER), DT(MPI_INTEGER1), DT(MPI_INTEGER2),
		DT(MPI_INTEGER4), DT(MPI_INTEGER8), DT(MPI_REAL4), DT(MPI_REAL8),
	};
	struct mwm_name o[] = {
		DT(MPI_MAX), DT(MPI_MIN), DT(MPI_SUM), DT(MPI_PROD), DT(MPI_LAND), DT(MPI_BAND),
		DT(MPI_LOR), DT(MPI_BOR), DT(MPI_LXOR), DT(MPI_BXOR), DT(MPI_MAXLOC), DT(MPI_MINLOC),
		DT(MPI_REPLACE), DT(MPI_NO_OP),
	};
	uint64_t null_dt = MWH(MPI_DATATYPE_NULL);
	mwm.ndtypes = 0;
	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]) && mwm.ndtypes < 96; i++) {
		int sz = -1;
		if (d[i].handle == null_dt || d[i].handle == 0)
			continue;
		if (PMPI_Type_size((MPI_Datatype)(uintptr_t)d[i].handle, &sz) != MPI_SUCCESS)
			sz = -1;
		d[i].size = sz;
		mwm.dtypes[mwm.ndtypes++] = d[i];
	}
	mwm.nrops = 0;
	for (size_t i = 0; i < sizeof(o) / sizeof(o[0]) && mwm.nrops < 24; i++)
		mwm.rops[mwm.nrops++] = o[i];
}

static void version_init(void)
{
	char v[MPI_MAX_LIBRARY_VERSION_STRING] = "";
	int len = 0;
	const char *p;
	PMPI_Get_library_version(v, &len);
	if ((p = strstr(v, "Open MPI v")))
		snprintf(mwm.mpi, sizeof(mwm.mpi), "openmpi %.*s", (int)strcspn(p + 10, ", \n"), p + 10);
	else if ((p = strstr(v, "MPICH Version:")))
		snprintf(mwm.mpi, sizeof(mwm.mpi), "mpich %.*s", (int)strcspn(p + 14 + strspn(p + 14, " \t"), " \t\n"),
			 p + 14 + strspn(p + 14, " \t"));
	else
		snprintf(mwm.mpi, sizeof(mwm.mpi), "%.*s", (int)strcspn(v, "\n"), v);
}

/* The world ranks of a group. */
static int *group_world(MPI_Group g, int *n)
{
	MPI_Group wg;
	int *in, *out;
	if (PMPI_Group_size(g, n) != MPI_SUCCESS || *n < 0)
		return NULL;
	in = malloc(((size_t)*n + 1) * sizeof(int));
	out = malloc(((size_t)*n + 1) * sizeof(int));
	if (!in || !out || PMPI_Comm_group(MPI_COMM_WORLD, &wg) != MPI_SUCCESS) {
		free(in);
		free(out);
		return NULL;
	}
	for (int i = 0; i < *n; i++)
		in[i] = i;
	if (PMPI_Group_translate_ranks(g, *n, in, wg, out) != MPI_SUCCESS) {
		free(in);
		free(out);
		PMPI_Group_free(&wg);
		return NULL;
	}
	for (int i = 0; i < *n; i++)
		if (out[i] == MPI_UNDEFINED)
			out[i] = -1;
	PMPI_Group_free(&wg);
	free(in);
	return out;
}

void mwm_glue_comm_created(MPI_Comm parent, MPI_Comm newcomm, const char *how)
{
	MPI_Group g;
	int inter = 0, n = 0, nl = 0, rank = -1, *ranks = NULL, *local = NULL;
	if (newcomm == MPI_COMM_NULL)
		return;
	PMPI_Comm_test_inter(newcomm, &inter);
	PMPI_Comm_rank(newcomm, &rank);
	if (inter) {
		if (PMPI_Comm_remote_group(newcomm, &g) == MPI_SUCCESS) {
			ranks = group_world(g, &n);
			PMPI_Group_free(&g);
		}
		if (PMPI_Comm_group(newcomm, &g) == MPI_SUCCESS) {
			local = group_world(g, &nl);
			PMPI_Group_free(&g);
		}
	} else if (PMPI_Comm_group(newcomm, &g) == MPI_SUCCESS) {
		ranks = group_world(g, &n);
		PMPI_Group_free(&g);
	}
	if (ranks && (!inter || local))
		mwm_comms_add(&mwm.comms, MWH(newcomm), MWH(parent), how, ranks, n, rank, inter, local, nl);
	if (ranks && !inter) /* the slot's names block: its reader translates the call's ranks */
		mw_slot_comm_add(mwm.slot, MWH(newcomm), ranks, n);
	free(ranks);
	free(local);
}

static void after_init(int rc, int provided)
{
	int rank = 0, size = 1;
	if (rc != MPI_SUCCESS || mwm_disabled() || mwm.on)
		return;
	PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &size);
	mwm.proc_null = MPI_PROC_NULL;
	mwm.any_source = MPI_ANY_SOURCE;
	mwm.mpi_root = MPI_ROOT;
	mwm.undefined = MPI_UNDEFINED;
	mwm.comm_world = MWH(MPI_COMM_WORLD);
	mwm.req_null = MWH(MPI_REQUEST_NULL);
	mwm.req_size = (int)sizeof(MPI_Request);
	names_init();
	version_init();
	if (mwm_comms_init(&mwm.comms, MWH(MPI_COMM_WORLD), MWH(MPI_COMM_SELF), rank, size) < 0)
		return;
	mwm_start(rank, size, provided == MPI_THREAD_MULTIPLE);
}

int mwv_MPI_Init(int *argc, char ***argv);
int mwv_MPI_Init(int *argc, char ***argv)
{
	int rc, provided = MPI_THREAD_SINGLE;
	mwm_init_enter(MWM_OP_Init, __builtin_return_address(0), __builtin_frame_address(0));
	rc = PMPI_Init(argc, argv);
	if (rc == MPI_SUCCESS)
		PMPI_Query_thread(&provided);
	after_init(rc, provided);
	return rc;
}

int mwv_MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
int mwv_MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int rc;
	mwm_init_enter(MWM_OP_Init_thread, __builtin_return_address(0), __builtin_frame_address(0));
	rc = PMPI_Init_thread(argc, argv, required, provided);
	after_init(rc, rc == MPI_SUCCESS ? *provided : 0);
	return rc;
}

static void before_finalize(void *site, void *frame, int lang)
{
	if (!mwm_active())
		return;
	mwm_begin(MWM_OP_Finalize, lang, site, frame);
	mwm_commit();
	mwm_stop();
}

static void after_finalize(int ok)
{
	if (!mwm.on)
		return;
	if (mwm_active())
		mwm_finish(ok ? 1 : 0);
	finalizing = 1;
	mwm_after_finalize();
}

int mwv_MPI_Finalize(void);
int mwv_MPI_Finalize(void)
{
	int rc;
	before_finalize(__builtin_return_address(0), __builtin_frame_address(0), 0);
	rc = PMPI_Finalize();
	after_finalize(rc == MPI_SUCCESS);
	return rc;
}

/* ---- MPI_T: the unexpected-message queue length ---- */

/* MPI_T from the watcher thread.  Only at MPI_THREAD_MULTIPLE does the MPI
 * library promise that is safe while the main thread is inside MPI;
 * otherwise MPI_T is read only if the settings force it (mpit = yes, a
 * site's choice: never harm the job for a statistic).  mpit = no turns it
 * off. */
static int mpit_allowed(void)
{
	int mpit = mwm_settings()->mpit;
	if (finalizing || mpit == MW_JC_MPIT_NO)
		return 0;
	return mwm.thread_check || mpit == MW_JC_MPIT_YES;
}

/* The performance variables the watcher reads, found once. */
static struct {
	int state; /* 0 = not looked, 1 = looked */
	int num;
	int unexp, unexp_bind, unexp_continuous;
	MPI_Datatype unexp_dt;
} pv = {.unexp = -1};

static int mpit_find(void)
{
	int prov, num = 0;
	if (pv.state)
		return 0;
	pv.state = 1;
	if (PMPI_T_init_thread(MPI_THREAD_SINGLE, &prov) != MPI_SUCCESS) {
		if (mwm_settings()->debug)
			fprintf(stderr, "mpiwatch: MPI_T_init_thread failed\n");
		return -1;
	}
	if (PMPI_T_pvar_get_num(&num) != MPI_SUCCESS)
		return -1;
	pv.num = num;
	for (int i = 0; i < num; i++) {
		char name[256], desc[256];
		int nl = sizeof(name), dl = sizeof(desc), verb, vclass, bind, ro, cont, at;
		MPI_Datatype vdt;
		MPI_T_enum et;
		if (PMPI_T_pvar_get_info(i, name, &nl, &verb, &vclass, &vdt, &et, desc, &dl, &bind, &ro, &cont,
					 &at) != MPI_SUCCESS)
			continue;
		if (pv.unexp < 0 && strstr(name, "unexpected") && (strstr(name, "length") || strstr(name, "count")) &&
		    (vclass == MPI_T_PVAR_CLASS_LEVEL || vclass == MPI_T_PVAR_CLASS_SIZE ||
		     vclass == MPI_T_PVAR_CLASS_STATE) &&
		    (bind == MPI_T_BIND_NO_OBJECT || bind == MPI_T_BIND_MPI_COMM)) {
			pv.unexp = i;
			pv.unexp_bind = bind;
			pv.unexp_continuous = cont;
			pv.unexp_dt = vdt;
		}
	}
	if (mwm_settings()->debug)
		fprintf(stderr, "mpiwatch: MPI_T: %d pvars, unexpected-queue pvar %d\n", num, pv.unexp);
	return 0;
}

static unsigned long long pv_value(const void *v, MPI_Datatype dt, int i)
{
	if (dt == MPI_UNSIGNED || dt == MPI_INT)
		return ((const unsigned *)v)[i];
	if (dt == MPI_DOUBLE)
		return (unsigned long long)((const double *)v)[i];
	if (dt == MPI_UNSIGNED_LONG)
		return ((const unsigned long *)v)[i];
	if (dt == MPI_COUNT)
		return (unsigned long long)((const MPI_Count *)v)[i];
	return ((const unsigned long long *)v)[i];
}

int mwm_glue_mpit_unexpected(uint64_t comm, long *count, long *per_peer, int max_peers, int *npeers)
{
	MPI_T_pvar_session ses;
	MPI_T_pvar_handle h;
	MPI_Comm c = comm ? (MPI_Comm)(uintptr_t)comm : MPI_COMM_WORLD;
	int n = 0, rv = -1;
	if (!mpit_allowed() || mpit_find() < 0 || pv.unexp < 0)
		return -1;
	if (PMPI_T_pvar_session_create(&ses) != MPI_SUCCESS)
		return -1;
	int arc = PMPI_T_pvar_handle_alloc(ses, pv.unexp, pv.unexp_bind == MPI_T_BIND_MPI_COMM ? (void *)&c : NULL,
					   &h, &n);
	if (mwm_settings()->debug)
		fprintf(stderr, "mpiwatch: MPI_T handle_alloc(%d) = %d, count %d\n", pv.unexp, arc, n);
	if (arc == MPI_SUCCESS && n >= 1 && n <= 1 << 20) {
		/* Open MPI's ob1 keeps one value per peer of the communicator */
		unsigned long long *v = calloc((size_t)n, sizeof(*v)), tot = 0;
		if (v && (pv.unexp_continuous || PMPI_T_pvar_start(ses, h) == MPI_SUCCESS) &&
		    PMPI_T_pvar_read(ses, h, v) == MPI_SUCCESS) {
			for (int i = 0; i < n; i++) {
				unsigned long long x = pv_value(v, pv.unexp_dt, i);
				tot += x;
				if (per_peer && i < max_peers)
					per_peer[i] = (long)x;
			}
			if (npeers)
				*npeers = n < max_peers ? n : max_peers;
			*count = (long)tot;
			rv = 0;
		}
		free(v);
		PMPI_T_pvar_handle_free(ses, &h);
	}
	PMPI_T_pvar_session_free(&ses);
	return rv;
}

void mwm_glue_type_committed(uint64_t dt)
{
	MPI_Aint lb, extent, tlb, textent;
	MPI_Datatype d = (MPI_Datatype)(uintptr_t)dt;
	if (PMPI_Type_get_extent(d, &lb, &extent) == MPI_SUCCESS &&
	    PMPI_Type_get_true_extent(d, &tlb, &textent) == MPI_SUCCESS)
		mwm_dtype_committed(dt, (int64_t)lb, (int64_t)extent, (int64_t)tlb, (int64_t)textent);
}

/* ---- Fortran (Open MPI) ---- */
#ifdef MWM_FORTRAN
static void (*real_f_init)(MPI_Fint *ierr);
static void (*real_f_init_thread)(MPI_Fint *req, MPI_Fint *prov, MPI_Fint *ierr);
static void (*real_f_finalize)(MPI_Fint *ierr);

void mwv_f_mpi_init(MPI_Fint *ierr);
void mwv_f_mpi_init(MPI_Fint *ierr)
{
	int provided = MPI_THREAD_SINGLE;
	mwm_init_enter(MWM_OP_Init, __builtin_return_address(0), __builtin_frame_address(0));
	real_f_init(ierr);
	if (*ierr == MPI_SUCCESS)
		PMPI_Query_thread(&provided);
	after_init(*ierr, provided);
}

void mwv_f_mpi_init_thread(MPI_Fint *req, MPI_Fint *prov, MPI_Fint *ierr);
void mwv_f_mpi_init_thread(MPI_Fint *req, MPI_Fint *prov, MPI_Fint *ierr)
{
	mwm_init_enter(MWM_OP_Init_thread, __builtin_return_address(0), __builtin_frame_address(0));
	real_f_init_thread(req, prov, ierr);
	after_init(*ierr, *ierr == MPI_SUCCESS ? (int)*prov : 0);
}

void mwv_f_mpi_finalize(MPI_Fint *ierr);
void mwv_f_mpi_finalize(MPI_Fint *ierr)
{
	before_finalize(__builtin_return_address(0), __builtin_frame_address(0), 1);
	real_f_finalize(ierr);
	after_finalize(*ierr == MPI_SUCCESS);
}
#endif

/* ---- entry points for the dispatcher ---- */

/* Called once by the dispatcher after dlopen.  Return 0. */
int mwv_init(void);
int mwv_init(void)
{
	mwm_early_init();
#ifdef MWM_FORTRAN
	real_f_init = (void (*)(MPI_Fint *))dlsym(RTLD_DEFAULT, "pmpi_init_");
	real_f_init_thread = (void (*)(MPI_Fint *, MPI_Fint *, MPI_Fint *))dlsym(RTLD_DEFAULT, "pmpi_init_thread_");
	real_f_finalize = (void (*)(MPI_Fint *))dlsym(RTLD_DEFAULT, "pmpi_finalize_");
	for (const struct mwm_fsym *f = mwm_fsyms; f->real; f++)
		*f->slot = dlsym(RTLD_DEFAULT, f->real);
#endif
	return 0;
}

/* The variant's wrapper for a dispatcher symbol (e.g. "mwv_MPI_Send" or
 * "mwv_f_mpi_send"), or NULL when this variant does not wrap it (then the
 * dispatcher uses the next definition). */
void *mwv_lookup(const char *vname);
void *mwv_lookup(const char *vname)
{
	if (strncmp(vname, "mwv_f_", 6) == 0) {
#ifdef MWM_FORTRAN
		const char *base = vname + 6; /* "mpi_send" */
		if (!strcmp(base, "mpi_init"))
			return real_f_init ? (void *)mwv_f_mpi_init : NULL;
		if (!strcmp(base, "mpi_init_thread"))
			return real_f_init_thread ? (void *)mwv_f_mpi_init_thread : NULL;
		if (!strcmp(base, "mpi_finalize"))
			return real_f_finalize ? (void *)mwv_f_mpi_finalize : NULL;
		for (const struct mwm_fsym *f = mwm_fsyms; f->real; f++)
			if (!strncmp(f->real + 1, base, strlen(base)) &&
			    !strcmp(f->real + 1 + strlen(base), "_"))
				return *f->slot ? f->wrapper : NULL;
#endif
		return NULL;
	}
	return NULL; /* C wrappers: the dispatcher uses dlsym on the handle */
}
