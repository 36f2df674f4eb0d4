/* runtime.c - libmpiwatch's per-rank state: start/stop, slot, requests,
 * names, profile.  MPI-independent: the glue (mpiglue.c) calls in here. */
#include <dirent.h>
#include <execinfo.h>
#include <link.h>
#include <errno.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cal_timer.h"
#include "log.h"
#include "mwm.h"
#include "runtime.h"
#include "fsutil.h"

/* nothing armed for a blind poll (mwm.h): an MPI_Test on a NULL pointer
 * must reach the MPI, not be taken for the armed variable */
struct mwm_rt mwm = {.blind = {.a = MWM_BLIND_NONE}};

/* Before MPI_Init the wrappers write into this private slot (never shared). */
static struct mw_slot mwm_private_slot __attribute__((aligned(64)));
static int slot_is_file;
static int slot_is_temp; /* removed at exit (mwm_slot_is_temporary) */

static void warn_once(const char *what, const char *detail)
{
	static int warned;
	if (warned++)
		return;
	mw_log_open("mpiwatch", MW_LOG_STDERR, LOG_WARNING);
	mw_warn("%s%s%s (monitoring continues without it)", what, detail ? ": " : "", detail ? detail : "");
}

uint64_t mwm_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int mwm_disabled(void)
{
	return mw_env_disables(getenv("MPIWATCH_DISABLE"));
}

int mwm_settings_read(const char *settings, const char *host, struct mwm_settings *st, char *why, size_t len)
{
	char path[PATH_MAX];
	struct mw_jobconf jc;
	int rc = 0;

	why[0] = 0;
	st->dir[0] = st->profile[0] = st->slots[0] = st->dumps[0] = 0;
	if (settings && *settings) {
		if (mw_path_host(path, sizeof(path), settings, host) < 0)
			snprintf(why, len, "%s=%s: path too long", MW_JOBCONF_ENV, settings);
		else if (mw_jobconf_load(&jc, path, NULL, 0, why, len) == 0)
			rc = 1;
	}
	/* no settings file (plain mpirun without one), or one that cannot be
	 * read: the table's defaults, and nothing of the environment */
	if (!rc && mw_jobconf_init(&jc) < 0) {
		st->timeout_s = MW_TIMEOUT_MIN; /* out of memory: any valid value */
		st->mpit = MW_JC_MPIT_AUTO;
		st->debug = 0;
		return 0;
	}
	st->timeout_s = jc.timeout;
	st->mpit = jc.mpit;
	st->debug = jc.monitor_debug;
	if (rc) {
		if (jc.dir && snprintf(st->dir, sizeof(st->dir), "%s", jc.dir) >= (int)sizeof(st->dir))
			st->dir[0] = 0;
		if (snprintf(st->slots, sizeof(st->slots), "%s", jc.slot_dir ? jc.slot_dir : "") >=
			    (int)sizeof(st->slots) ||
		    snprintf(st->dumps, sizeof(st->dumps), "%s", jc.dump_dir ? jc.dump_dir : "") >=
			    (int)sizeof(st->dumps))
			snprintf(why, len, "%s: the slot or dump folder's name is too long", path);
		if (mw_jobconf_profile_folder(&jc, getenv("SLURM_STEP_ID"), st->profile, sizeof(st->profile)) < 0)
			snprintf(why, len, "%s: the profile folder's name is too long", path);
	}
	mw_jobconf_free(&jc);
	return rc;
}

int mwm_norm_rank(int r)
{
	if (r == MWM_NOARG)
		return MW_RANK_NONE;
	if (r == mwm.proc_null)
		return MW_RANK_NONE;
	if (r == mwm.any_source)
		return MW_RANK_ANY;
	if (r == mwm.mpi_root)
		return MW_RANK_NONE;
	if (r < 0)
		return MW_RANK_NONE;
	return r;
}

const char *mwm_dtype_name(uint64_t h, int *size)
{
	for (int i = 0; i < mwm.ndtypes; i++)
		if (mwm.dtypes[i].handle == h) {
			if (size)
				*size = mwm.dtypes[i].size;
			return mwm.dtypes[i].name;
		}
	if (size)
		*size = -1;
	return h ? "derived" : NULL;
}

/* Extents of committed derived datatypes: written by the main thread
 * (MPI_Type_commit), read by the watcher.  A ring: the oldest entry goes
 * when it is full; an entry is odd-generation while being written. */
#define MWM_NDTEXT 256
static struct {
	uint32_t gen;
	uint64_t handle;
	int64_t lb, extent, true_lb, true_extent;
} dtext[MWM_NDTEXT];
static unsigned dtext_next;

void mwm_dtype_committed(uint64_t h, int64_t lb, int64_t extent, int64_t true_lb, int64_t true_extent)
{
	unsigned i;
	for (i = 0; i < MWM_NDTEXT; i++)
		if (dtext[i].handle == h)
			break; /* a handle reused after MPI_Type_free: the new type wins */
	if (i == MWM_NDTEXT)
		i = dtext_next++ % MWM_NDTEXT;
	__atomic_store_n(&dtext[i].gen, dtext[i].gen + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	dtext[i].handle = h;
	dtext[i].lb = lb;
	dtext[i].extent = extent;
	dtext[i].true_lb = true_lb;
	dtext[i].true_extent = true_extent;
	__atomic_store_n(&dtext[i].gen, dtext[i].gen + 1, __ATOMIC_RELEASE);
}

int mwm_dtype_span(uint64_t h, int64_t *extent, int64_t *true_lb, int64_t *true_extent)
{
	int size;
	if (mwm_dtype_name(h, &size) && size > 0) {
		*extent = *true_extent = size;
		*true_lb = 0;
		return 0;
	}
	for (unsigned i = 0; i < MWM_NDTEXT; i++) {
		uint32_t g = __atomic_load_n(&dtext[i].gen, __ATOMIC_ACQUIRE);
		if (g & 1 || dtext[i].handle != h)
			continue;
		int64_t e = dtext[i].extent, tl = dtext[i].true_lb, te = dtext[i].true_extent;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&dtext[i].gen, __ATOMIC_RELAXED) != g || dtext[i].handle != h)
			continue;
		*extent = e;
		*true_lb = tl;
		*true_extent = te;
		return 0;
	}
	return -1;
}

const char *mwm_rop_name(uint64_t h)
{
	for (int i = 0; i < mwm.nrops; i++)
		if (mwm.rops[i].handle == h)
			return mwm.rops[i].name;
	return h ? "user" : NULL;
}

/* ---- requests (main thread) ---- */

void mwm_req_new(uint64_t handle, int table, int persistent)
{
	const struct mw_slot_call *c = &mwm.slot->call;
	/* the call record holds only the arguments its op has (mwm_begin) */
	uint32_t has = c->op_id < (uint32_t)mwm_nops ? mwm_ops[c->op_id].args : 0;
	struct mwm_req r;
	if (handle == mwm.req_null)
		return;
	mwm_blind_forget(handle);
	memset(&r, 0, sizeof(r));
	r.table = (uint8_t)table;
	r.persistent = (uint8_t)persistent;
	r.active = !persistent;
	r.mode = c->op_id < (uint32_t)mwm_nops ? mwm_ops[c->op_id].mode : 0;
	r.lang = (uint8_t)c->lang;
	r.op = (uint16_t)c->op_id;
	r.handle = handle;
	r.comm = has & MW_ARG_COMM ? c->comm : 0;
	r.peer = has & MW_ARG_PEER ? c->peer : MWM_NOARG;
	r.tag = has & MW_ARG_TAG ? c->tag : MW_TAG_NONE;
	r.root = has & MW_ARG_ROOT ? c->root : MWM_NOARG;
	r.count = has & MW_ARG_COUNT ? c->count : -1;
	r.datatype = has & MW_ARG_DATATYPE ? c->datatype : 0;
	r.rop = has & MW_ARG_OP ? c->op : 0;
	r.site = c->site;
	/* A nonblocking collective gets its number on the communicator: every
	 * rank must start them in the same order, so the analysis can tell
	 * which collective each rank has as its k-th (a call-order mismatch). */
	if (!persistent && table == MWM_TABLE_RECV && (has & MW_ARG_COMM) && !(has & MW_ARG_PEER) &&
	    c->op_id < (uint32_t)mwm_nops && mwm_ops[c->op_id].kind == MW_KIND_NONBLOCKING) {
		struct mwm_comm *m = mwm_comms_find(&mwm.comms, c->comm);
		if (m) {
			/* the main thread is its only writer: a plain load and a
			 * release store, no locked read-modify-write */
			r.seq = __atomic_load_n(&m->nbc_started, __ATOMIC_RELAXED) + 1;
			__atomic_store_n(&m->nbc_started, r.seq, __ATOMIC_RELEASE);
		}
	}
	if (table == MWM_TABLE_RECV)
		r.buf = c->buf;
	mwm_reqtab_put(&mwm.reqs, &r);
}

unsigned mwm_req_done(uint64_t handle)
{
	struct mwm_req *r;
	if (handle == mwm.req_null)
		return 0;
	mwm_blind_forget(handle);
	r = mwm_reqtab_find(&mwm.reqs, handle);
	if (!r)
		return 1;
	if (r->table == MWM_TABLE_SEND)
		mwm_ring_push(&mwm.ring, r);
	if (r->mode == MW_MODE_BUFFERED) /* in the attached buffer until received */
		mwm_bsends_push(&mwm.bsends, r);
	if (r->persistent)
		mwm_reqtab_set_active(r, 0);
	else
		mwm_reqtab_del(&mwm.reqs, r);
	return 1;
}

void mwm_req_start(uint64_t handle)
{
	struct mwm_req *r = mwm_reqtab_find(&mwm.reqs, handle);
	if (r)
		mwm_reqtab_set_active(r, 1);
}

void mwm_req_free(uint64_t handle)
{
	mwm_blind_forget(handle);
	struct mwm_req *r = mwm_reqtab_find(&mwm.reqs, handle);
	if (r)
		mwm_reqtab_del(&mwm.reqs, r);
}

/* MPICH's Fortran bindings (libmpifort) call the C function (MPI_Bsend):
 * the C wrapper's return address is then in libmpifort, not the user's
 * code.  Its executable range, found once. */
static uintptr_t fort_lo, fort_hi;

int mwm_fortran_glue(const char *object)
{
	return object && (strstr(object, "mpifort") || strstr(object, "mpichfort"));
}
static int fort_looked;

static int fort_range(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	if (!info->dlpi_name || !mwm_fortran_glue(info->dlpi_name))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			fort_lo = info->dlpi_addr + ph->p_vaddr;
			fort_hi = fort_lo + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

/* The user's call site for a C wrapper's site: site itself, or, when it
 * is in libmpifort (MPICH's Fortran binding called the C function), the
 * return address one frame further out on the stack (the Fortran
 * caller's).  Only buffered sends pay for this (their record outlives the
 * call); the current call's site is resolved from the dump's stack. */
int mwm_site_in_fortran_glue(uint64_t site)
{
	if (!fort_looked) {
		fort_looked = 1;
		dl_iterate_phdr(fort_range, NULL);
	}
	return fort_hi && site >= fort_lo && site < fort_hi;
}

static uint64_t user_site(uint64_t site)
{
	void *f[12];
	int n;
	if (!mwm_site_in_fortran_glue(site))
		return site;
	n = backtrace(f, 12);
	for (int i = 0; i + 1 < n; i++)
		if ((uint64_t)(uintptr_t)f[i] == site)
			return (uint64_t)(uintptr_t)f[i + 1];
	return site;
}

void mwm_bsend_posted(uint64_t comm)
{
	const struct mw_slot_call *c = &mwm.slot->call;
	struct mwm_req r;
	memset(&r, 0, sizeof(r));
	r.used = MWM_REQ_USED;
	r.table = MWM_TABLE_SEND;
	r.mode = MW_MODE_BUFFERED;
	r.lang = (uint8_t)c->lang;
	r.op = (uint16_t)c->op_id;
	r.id = -1;
	r.comm = comm;
	r.peer = c->peer;
	r.tag = c->tag;
	r.root = MWM_NOARG;
	r.count = c->count;
	r.datatype = c->datatype;
	r.site = user_site(c->site);
	mwm_bsends_push(&mwm.bsends, &r);
}

void mwm_bsend_detached(void)
{
	mwm_bsends_detached(&mwm.bsends);
}

/* ---- profile ---- */

void mwm_prof_add(int op, uint64_t t0, uint64_t bytes)
{
	struct mwm_prof *p;
	uint64_t dt;
	if (!mwm.prof || op < 0 || op >= mwm_nops)
		return;
	dt = mwm_prof_now() - t0; /* TSC ticks or ns: see prof_ticks_to_ns() */
	p = &mwm.prof[op];
	p->calls++;
	p->ns += dt;
	if (bytes) {
		if (!p->nb || bytes < p->bmin)
			p->bmin = bytes;
		if (bytes > p->bmax)
			p->bmax = bytes;
		p->nb++;
		p->bytes += bytes;
		p->bsumsq += (double)bytes * (double)bytes;
	}
	/* last: a tail call, so this function saves no registers */
	mwm_phase_add(op, t0, t0 + dt);
}

/* ---- paths ---- */

static void abspath(char *dst, size_t len, const char *p)
{
	char cwd[PATH_MAX];
	if (p[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		snprintf(dst, len, "%s", p);
	else
		snprintf(dst, len, "%s/%s", cwd, p);
}

void mwm_choose_dumpdir(char *dst, size_t len, const char *dumps, const char *dir)
{
	const char *d = dumps;
	const char *job = getenv("SLURM_JOB_ID");
	char tmp[PATH_MAX];
	dst[0] = 0;
	if (d && *d) {
		char host[256];
		mw_node_name(host, sizeof(host));
		if (mw_path_host(tmp, sizeof(tmp), d, host) == 0)
			abspath(dst, len, tmp);
	} else if (dir && *dir) {
		snprintf(tmp, sizeof(tmp), "%s/dumps", dir);
		abspath(dst, len, tmp);
	} else if (job && *job) {
		snprintf(tmp, sizeof(tmp), "mpiwatch-%s/dumps", job);
		abspath(dst, len, tmp);
	}
}

int mwm_mkdirs(const char *path)
{
	return mw_mkdir_p(path, 0755);
}

/* ---- life cycle ---- */


/* A child forked by the application is not monitored: it must not write
 * into its parent's slot nor wait for a watcher thread it does not have. */
static void atfork_child(void)
{
	mwm_set_on(0);
	mwm_watcher_forget();
}

static void on_exit_cb(int status, void *arg)
{
	struct mw_slot *s = mwm.slot;
	(void)arg;
	if (s && s->pid != (int32_t)getpid())
		return; /* a forked child exiting */
	mwm_set_on(0);
	mwm_watcher_stop();
	if (!s || !slot_is_file)
		return;
	uint64_t q = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
	__atomic_store_n(&s->seq, q + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	s->state = MW_STATE_EXITED;
	__atomic_store_n(&s->seq, q + 2, __ATOMIC_RELEASE);
	if (!(__atomic_load_n(&s->exit_flags, __ATOMIC_ACQUIRE) & MW_SLOT_EXIT_VALID)) {
		s->exit_status = status & 0xff;
		__atomic_store_n(&s->exit_flags, MW_SLOT_EXIT_VALID, __ATOMIC_RELEASE);
	}
	if (slot_is_temp) {
		char dir[PATH_MAX];
		unlink(mwm.slotpath);
		snprintf(dir, sizeof(dir), "%s", mwm.slotpath);
		char *sl = strrchr(dir, '/');
		if (sl) {
			*sl = 0;
			rmdir(dir); /* fails while other ranks still have theirs: fine */
		}
	}
}

int mwm_slot_is_temporary(const char *slots)
{
	const char *job = getenv("SLURM_JOB_ID");
	return !(job && *job) && !(slots && *slots);
}

/* Without a job (plain mpirun), slots of killed runs stay in /dev/shm:
 * rank 0 removes directories of this user and host whose ranks are all
 * dead processes. */
static int prune_cb(const char *path, int rank, void *arg)
{
	struct mw_slot *s = mw_slot_map(path, 0);
	int *alive = arg;
	(void)rank;
	if (!s)
		return 0;
	if (s->pid > 0 && (kill(s->pid, 0) == 0 || errno != ESRCH))
		(*alive)++;
	mw_slot_unmap(s);
	return 0;
}

static int unlink_cb(const char *path, int rank, void *arg)
{
	(void)rank;
	(void)arg;
	unlink(path);
	return 0;
}

static void prune_stale(const char *host, const char *mine)
{
	char prefix[64], suffix[80], path[PATH_MAX];
	DIR *d = opendir("/dev/shm");
	struct dirent *de;
	if (!d)
		return;
	snprintf(prefix, sizeof(prefix), "mpiwatch.%u.nojob-", (unsigned)getuid());
	snprintf(suffix, sizeof(suffix), ".%s", host);
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name), sl = strlen(suffix);
		int alive = 0;
		if (strncmp(de->d_name, prefix, strlen(prefix)) || n < sl || strcmp(de->d_name + n - sl, suffix))
			continue;
		snprintf(path, sizeof(path), "/dev/shm/%s", de->d_name);
		if (!strcmp(path, mine))
			continue;
		if (mw_slot_scan_dir(path, prune_cb, &alive) < 0 || alive)
			continue;
		mw_slot_scan_dir(path, unlink_cb, NULL);
		rmdir(path);
	}
	closedir(d);
}

/* The job's settings, read once (by early_open or mwm_start): the job's
 * settings file (written by the plugin or mpiwatch run, or the user's own
 * under plain mpirun), else the defaults.  What was wrong is said once. */
static const struct mwm_settings *settings(const char *host)
{
	static struct mwm_settings st;
	static int loaded;
	char why[600];
	if (loaded)
		return &st;
	loaded = 1;
	mwm_settings_read(getenv(MW_JOBCONF_ENV), host, &st, why, sizeof(why));
	if (why[0]) {
		mw_log_open("mpiwatch", MW_LOG_STDERR, LOG_WARNING);
		mw_warn("%s; using a timeout of %g s", why, st.timeout_s);
	}
	return &st;
}

const struct mwm_settings *mwm_settings(void)
{
	static const struct mwm_settings *st;
	char host[64] = "";
	if (!st) {
		mw_node_name(host, sizeof(host));
		st = settings(host);
	}
	return st;
}

/* The header every slot has (the rest zero). */
static void slot_header(struct mw_slot *s, int rank, int size, const char *host)
{
	const char *job = getenv("SLURM_JOB_ID"), *step = getenv("SLURM_STEP_ID");
	s->world_rank = rank;
	s->world_size = size;
	s->pid = (int32_t)getpid();
	s->uid = (int32_t)getuid();
	snprintf(s->host, sizeof(s->host), "%s", host);
	snprintf(s->job_id, sizeof(s->job_id), "%s", job ? job : "");
	snprintf(s->step_id, sizeof(s->step_id), "%s", step ? step : "");
	snprintf(s->mpi, sizeof(s->mpi), "%s", mwm.mpi);
	s->comm_id = -1;
}

/* Whether dir's rank-RANK is the slot of another live process (a child
 * that inherited its parent's rank from the launcher's environment must not
 * take its parent's slot before MPI_Init). */
static int slot_taken(const char *dir, int rank)
{
	char p[PATH_MAX + 32];
	struct mw_slot *s;
	int32_t pid;
	snprintf(p, sizeof(p), "%s/rank-%d", dir, rank);
	if (!(s = mw_slot_map(p, 0)))
		return 0;
	pid = s->pid;
	mw_slot_unmap(s);
	return pid > 0 && pid != (int32_t)getpid() && (kill(pid, 0) == 0 || errno == EPERM);
}

/* The slot file rank-RANK of this job and host, made (zeroed) with its
 * header; NULL (errno set) if it cannot be made, or (early: before MPI_Init)
 * if another live process has it. */
static struct mw_slot *slot_make(int rank, int size, const char *host, char *path, size_t len, int early_one)
{
	char dir[PATH_MAX];
	struct mw_slot *s;
	const struct mwm_settings *st = settings(host);
	if (mw_slot_default_dir(dir, sizeof(dir), st->slots, (unsigned)getuid(), getenv("SLURM_JOB_ID"),
				(long)getppid(), host) != 0)
		return NULL;
	if (early_one && slot_taken(dir, rank)) {
		errno = EEXIST;
		return NULL;
	}
	if (rank == 0 && mwm_slot_is_temporary(st->slots))
		prune_stale(host, dir);
	s = mw_slot_create(dir, rank, path, len);
	if (s)
		slot_header(s, rank, size, host);
	return s;
}

/* The slot made before MPI_Init returned (early_open, at load), its rank and
 * path; mwm_start takes it over. */
static struct mw_slot *early;
static int early_rank = -1;
static char early_path[sizeof mwm.slotpath];

/* Exit before MPI_Init returned: the status in the slot (the plugin's
 * record, if it came first, is kept); a temporary slot removed. */
static void on_exit_early(int status, void *arg)
{
	struct mw_slot *s = early;
	(void)arg;
	if (!s || s->pid != (int32_t)getpid())
		return; /* MPI_Init returned (mwm_start's handler), or a forked child */
	if (mwm_slot_is_temporary(settings("")->slots)) { /* read by early_open */
		unlink(early_path);
		return;
	}
	if (!(__atomic_load_n(&s->exit_flags, __ATOMIC_ACQUIRE) & MW_SLOT_EXIT_VALID)) {
		s->exit_status = status & 0xff;
		__atomic_store_n(&s->exit_flags, MW_SLOT_EXIT_VALID, __ATOMIC_RELEASE);
	}
}

/* A non-negative number from the first of names set in the environment,
 * else -1. */
static int env_number(const char *const *names)
{
	for (; *names; names++) {
		const char *v = getenv(*names);
		char *end;
		long n;
		if (!v || !*v)
			continue;
		errno = 0;
		n = strtol(v, &end, 10);
		return errno || *end || n < 0 || n > 0x7fffffff ? -1 : (int)n;
	}
	return -1;
}

/* The slot made before MPI_Init, in MW_STATE_INIT (no MPI call yet), when
 * the launcher names the rank: Open MPI's mpirun, MPICH's Hydra, PMIx, then
 * srun (last: srun may start a launcher whose processes inherit its
 * SLURM_PROCID). */
static void early_open(void)
{
	static const char *const rank_env[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID",
					       NULL};
	static const char *const size_env[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS",
					       "SLURM_NTASKS", NULL};
	char host[64] = "";
	struct mw_slot *s;
	int rank = env_number(rank_env), size = env_number(size_env);
	if (early || mwm.on || rank < 0 || mwm_disabled())
		return;
	mw_node_name(host, sizeof(host));
	s = slot_make(rank, size > rank ? size : 0, host, early_path, sizeof(early_path), 1);
	if (!s)
		return; /* mwm_start says so if it cannot make one either */
	s->timeout_s = settings(host)->timeout_s;
	s->start_ns = s->now_ns = s->last_progress_ns = mwm_now_ns();
	s->state = MW_STATE_INIT;
	mwm_exe_record(s);
	mw_slot_publish(s);
	early = s;
	early_rank = rank;
	on_exit(on_exit_early, NULL);
}

void mwm_early_init(void)
{
	if (!mwm.slot)
		mwm.slot = &mwm_private_slot;
	early_open();
}

void mwm_init_enter(int op, void *site, void *frame)
{
	struct mw_slot *s;
	uint64_t q;
	early_open();
	if (!(s = early) || s->state != MW_STATE_INIT)
		return;
	/* inside MPI_Init (not a blocking call for the stall rule: it is
	 * never judged by time, only a rank that ends in it is told) */
	q = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
	__atomic_store_n(&s->seq, q + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	s->call.op_id = (uint32_t)op;
	s->call.site = (uint64_t)(uintptr_t)site;
	s->call.frame = (uint64_t)(uintptr_t)frame;
	s->call.enter_ns = mwm_now_ns();
	s->state = MW_STATE_IN_MPI;
	__atomic_store_n(&s->seq, q + 2, __ATOMIC_RELEASE);
}

int mwm_start(int world_rank, int world_size, int thread_multiple)
{
	char host[64] = "";
	const struct mwm_settings *st;
	struct mw_slot *s;

	mw_node_name(host, sizeof(host));
	st = settings(host);
	mwm.timeout_s = st->timeout_s;
	if (mwm_reqtab_init(&mwm.reqs, 4096) < 0)
		return -1;
	if (early && early_rank == world_rank) {
		/* MPI_Init returned: the slot made at load goes on (the agent
		 * may already watch it) */
		uint64_t q = __atomic_load_n(&early->seq, __ATOMIC_RELAXED);
		s = early;
		snprintf(mwm.slotpath, sizeof(mwm.slotpath), "%s", early_path);
		__atomic_store_n(&s->seq, q + 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		s->state = MW_STATE_COMPUTING;
		s->last_progress_ns = mwm_now_ns();
		__atomic_store_n(&s->seq, q + 2, __ATOMIC_RELEASE);
		slot_is_file = 1;
	} else {
		if (early) { /* the launcher's rank was not MPI's: that file is not ours */
			if (early->pid == (int32_t)getpid())
				unlink(early_path);
			mw_slot_unmap(early);
		}
		s = slot_make(world_rank, world_size, host, mwm.slotpath, sizeof(mwm.slotpath), 0);
		if (s) {
			slot_is_file = 1;
		} else {
			warn_once("cannot create the shared-memory slot", strerror(errno));
			s = &mwm_private_slot;
			memset(s, 0, sizeof(*s));
			slot_header(s, world_rank, world_size, host);
		}
		s->start_ns = mwm_now_ns();
		s->last_progress_ns = s->start_ns;
		s->state = MW_STATE_COMPUTING;
		mwm_exe_record(s);
	}
	early = NULL;
	/* known once MPI_Init returned (a slot made at load has none) */
	snprintf(s->mpi, sizeof(s->mpi), "%s", mwm.mpi);
	s->world_size = world_size;
	s->timeout_s = mwm.timeout_s;
	mwm.clock_ns = mwm_now_ns();
	s->now_ns = mwm.clock_ns;
	s->comm_world = mwm.comm_world;
	for (int i = 0; i < mwm.ndtypes; i++) /* the names block: a reader names the call's datatype */
		mw_slot_dtype_add(s, mwm.dtypes[i].handle, mwm.dtypes[i].name, mwm.dtypes[i].size);
	mw_slot_publish(s);
	mwm.slot = s;
	mwm_choose_dumpdir(mwm.dumpdir, sizeof(mwm.dumpdir), st->dumps, st->dir);
	mwm.main = pthread_self();
	mwm.main_tid = (int)syscall(SYS_gettid);
	mwm.thread_check = thread_multiple;
	mwm_stack_init();
	if (st->profile[0]) {
		snprintf(mwm.profdir, sizeof(mwm.profdir), "%.*s", (int)sizeof(mwm.profdir) - 1, st->profile);
		mwm.prof = calloc((size_t)mwm_nops, sizeof(*mwm.prof));
		if (mwm.prof) {
			struct cal_timer_info ti;
			cal_timer_detect(&ti);
			mwm.prof_tsc = ti.have_cycles && ti.invariant_tsc;
			mwm.prof_start_ns = mwm_now_ns();
			mwm.prof_tsc_start = mwm.prof_tsc ? mwm_prof_now() : 0;
			mwm.profile = 1;
		}
	}
	slot_is_temp = mwm_slot_is_temporary(st->slots);
	if (slot_is_file)
		on_exit(on_exit_cb, NULL);
	pthread_atfork(NULL, NULL, atfork_child);
	mwm_set_on(1);
	if (mwm_watcher_start() < 0)
		warn_once("cannot start the watcher thread", strerror(errno));
	return 0;
}

void mwm_stop(void)
{
	if (mwm.profile)
		mwm.prof_end_ns = mwm_now_ns();
}

/* The per-op times were summed in TSC ticks: turn them into ns at the rate
 * of the whole profiled span (CLOCK_MONOTONIC against the TSC). */
static void prof_ticks_to_ns(void)
{
	uint64_t ns = mwm_now_ns() - mwm.prof_start_ns, ticks;
	double r;
	if (!mwm.prof_tsc)
		return;
	ticks = mwm_prof_now() - mwm.prof_tsc_start;
	r = ticks ? (double)ns / (double)ticks : 0;
	for (int i = 0; i < mwm_nops; i++)
		mwm.prof[i].ns = (uint64_t)((double)mwm.prof[i].ns * r + 0.5);
	mwm_phase_scale(r); /* the compute intervals were taken on the same clock */
	mwm.prof_tsc = 0;
}

void mwm_after_finalize(void)
{
	struct mw_slot *s = mwm.slot;
	mwm_set_on(0);
	mwm_watcher_stop();
	if (s) {
		uint64_t q = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
		__atomic_store_n(&s->seq, q + 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		s->state = MW_STATE_FINALIZED;
		__atomic_store_n(&s->seq, q + 2, __ATOMIC_RELEASE);
	}
	if (mwm.profile) {
		prof_ticks_to_ns();
		if (mwm_profile_write() < 0)
			warn_once("cannot write the profile", strerror(errno));
		mwm.profile = 0;
	}
}
