/* agwatch.c - the node agent's watch of its ranks' slots (agstate.h).
 *
 * Per rank it judges the slot by the one stall rule (shared/stall.h), on
 * its own monotonic clock so that the monitor's coarse timestamps do not
 * matter:
 *   - stuck in a blocking call, or polling without a completion: one
 *     "in_mpi" heartbeat;
 *   - the same, but the rank's transfer moves (the watcher's motion probe):
 *     one "slow" heartbeat;
 *   - outside MPI and no MPI call for the timeout: one "computing" heartbeat
 *     (cause A: the collector notes it and does not alarm on it);
 *   - exit recorded in the slot without MPI_Finalize (or with a failure
 *     status), or the process gone without a record: "exited"/"vanished";
 *   - inside MPI_Init for the timeout: one "in_init" heartbeat (MPI_Init is
 *     never judged by time on its own: the collector names such a rank only
 *     once a rank of the job ended before or inside MPI_Init, as blocked on
 *     it);
 *   - progress after a heartbeat: one "resumed" message.
 * A dump file named in the slot is forwarded once (DUMP).  Nothing is sent
 * for a healthy rank.  What is to be sent is marked in the rank (agent.c
 * sends it).
 */
#include "agstate.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "settings.h"

#define AG_DUMP_MAX (MW_HB_MAX_PAYLOAD - 4096)

/* How long after reporting a rank vanished an exit record that comes late
 * (mpiwatch run reads it from the launcher's message) is still sent. */
#define AG_LATE_EXIT_S 30.0

static struct mw_ratelimit dump_rl = MW_RATELIMIT_INIT(0.2, 3);

struct ag_rank *ag_rank_find(struct agent *a, int rank)
{
	for (size_t i = 0; i < a->nr; i++)
		if (a->r[i]->rank == rank)
			return a->r[i];
	return NULL;
}

static void rank_reset(struct ag_rank *x)
{
	x->announced = 0;
	x->beat_state = 0;
	x->done = 0;
	x->beat_unsent = 0;
	x->dump_unsent = 0;
	x->dump_wanted = 0;
	x->dumps_sent = 0;
	x->gone_ticks = 0;
	x->t_vanished = 0;
	x->t_init = 0;
	free(x->dump_json);
	x->dump_json = NULL;
	memset(&x->rule, 0, sizeof x->rule); /* starts afresh at the next look */
}

static int scan_cb(const char *path, int rank, void *arg)
{
	struct agent *a = arg;
	struct ag_rank *x = ag_rank_find(a, rank), **p;
	if (x && x->slot)
		return 0;
	if (!x) {
		x = calloc(1, sizeof *x);
		if (!x)
			return 0;
		p = realloc(a->r, (a->nr + 1) * sizeof *p);
		if (!p) {
			free(x);
			return 0;
		}
		a->r = p;
		a->r[a->nr++] = x;
		x->rank = rank;
		rank_reset(x);
	}
	snprintf(x->path, sizeof x->path, "%s", path);
	x->writable = 1;
	x->slot = mw_slot_map(path, 1);
	if (!x->slot) {
		x->writable = 0;
		x->slot = mw_slot_map(path, 0);
	}
	if (!x->slot && errno != EAGAIN)
		mw_debug("slot %s: %s", path, strerror(errno));
	return 0;
}

/* Everything the next link must hear again: the ranks, the open episodes'
 * heartbeats (same numbers), the dumps wanted. */
void ag_retell(struct agent *a)
{
	for (size_t i = 0; i < a->nr; i++) {
		struct ag_rank *x = a->r[i];
		x->announced = 0;
		if (x->beat_state)
			x->beat_unsent = 1;
		if (x->dump_json && (!a->tree || x->dump_wanted))
			x->dump_unsent = 1;
	}
}

static int read_dump(const char *path, char **out)
{
	FILE *f;
	struct stat st;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 || st.st_size > AG_DUMP_MAX) {
		close(fd);
		errno = EFBIG;
		return -1;
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -1;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf || fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		free(buf);
		fclose(f);
		errno = EIO;
		return -1;
	}
	buf[st.st_size] = 0;
	fclose(f);
	*out = buf;
	return 0;
}

static void set_beat(struct agent *a, struct ag_rank *x, const struct mw_slot_snap *sn, int state,
		     double idle)
{
	const struct mw_slot *s = &sn->s;
	struct mw_hb_beat *b = &x->beat;
	memset(b, 0, sizeof *b);
	b->rank = x->rank;
	b->size = x->size > x->rank ? x->size : x->rank + 1;
	b->pid = x->pid;
	b->state = state;
	b->peer_world = -1;
	b->root_world = -1;
	b->tag = -1;
	b->exit_code = -1;
	if (state == MW_HB_S_SLOW)
		mw_motion_names(s->motion_src, b->moving, sizeof b->moving);
	if (state == MW_HB_S_IN_MPI || state == MW_HB_S_SLOW || state == MW_HB_S_EXITED ||
	    state == MW_HB_S_VANISHED || state == MW_HB_S_IN_INIT) {
		if (s->state == MW_STATE_IN_MPI || state == MW_HB_S_IN_MPI || state == MW_HB_S_SLOW) {
			snprintf(b->call, sizeof b->call, "%.31s", s->call.name);
			for (char *c = b->call; *c; c++)
				if (*c < 0x20 || *c > 0x7e)
					*c = '?';
			snprintf(b->kind, sizeof b->kind, "%s", mw_slot_kind_name(s->call.kind));
			if (strcmp(b->kind, "nonblocking") == 0 || strcmp(b->kind, "unknown") == 0)
				snprintf(b->kind, sizeof b->kind, "other");
			if (sn->resolved_ok && s->resolved_calls == s->calls) {
				snprintf(b->comm, sizeof b->comm, "%.63s", s->comm_gid);
				for (char *c = b->comm; *c; c++)
					if (*c < 0x20 || *c > 0x7e)
						*c = '?';
				if (s->peer_world >= -2 && s->peer_world <= MW_HB_MAX_RANK)
					b->peer_world = s->peer_world;
				if (s->root_world >= -1 && s->root_world <= MW_HB_MAX_RANK)
					b->root_world = s->root_world;
			} else if (mw_slot_world_peer(s) >= 0 && mw_slot_world_peer(s) <= MW_HB_MAX_RANK) {
				/* ended before its watcher resolved the call (an MPI error) */
				b->peer_world = mw_slot_world_peer(s);
			}
			if (s->call.tag >= 0)
				b->tag = s->call.tag;
			mw_slot_site(s, s->call.site, b->site, sizeof b->site);
			if (s->call.count > 0) { /* what it sends or receives (the names block) */
				int dsz;
				b->count = s->call.count;
				if (mw_slot_dtype_name(s, s->call.datatype, b->datatype, sizeof b->datatype, &dsz) &&
				    dsz > 0)
					b->bytes = (uint64_t)s->call.count * (uint64_t)dsz;
			}
		}
	}
	if (s->exit_flags & MW_SLOT_EXIT_VALID) {
		if (s->exit_flags & MW_SLOT_EXIT_SIGNALED)
			b->exit_signal = s->exit_status > 0 && s->exit_status <= 128 ? s->exit_status : 0;
		else
			b->exit_code = s->exit_status >= 0 && s->exit_status <= 255 ? s->exit_status : -1;
	}
	b->a = s->a;
	b->b = s->b;
	b->completions = s->completions;
	b->calls = s->calls;
	b->idle_s = idle < 0 ? 0 : idle;
	b->preinit = (state == MW_HB_S_EXITED || state == MW_HB_S_VANISHED) && s->state == MW_STATE_INIT;
	b->seq = ++a->seq; /* per origin: a re-sent beat is counted once (tree overlay) */
	x->beat_state = state;
	x->beat_unsent = 1;
}

/* Whether the slot's rank is inside MPI_Init (or MPI_Init_thread): the
 * only call a slot made at load shows before MPI_Init returns. */
static int in_mpi_init(const struct mw_slot *s)
{
	return s->state == MW_STATE_IN_MPI && mw_stall_init_call(s->call.name);
}

/* Whether pid is a running process.  A zombie (dead, not yet reaped: a busy
 * launcher may leave its ended ranks so for seconds) is not. */
static int pid_alive(int32_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;
	if (pid <= 0)
		return 0;
	if (kill(pid, 0) < 0 && errno != EPERM)
		return 0;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno != ENOENT;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = 0;
	/* "pid (comm) S ...": comm may hold spaces and ')', so the last ')' */
	p = strrchr(buf, ')');
	return !(p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'));
}

static void watch_rank(struct agent *a, struct ag_rank *x, double now)
{
	struct mw_slot_snap sn;
	const struct mw_slot *s;
	double T = mw_setting_double(MW_SET_TIMEOUT), idle_c, idle_k;
	int finalized, exited, preinit;
	enum mw_stall_class cls;

	if (!x->slot)
		return;
	if (mw_slot_snapshot(x->slot, &sn) < 0 && !sn.live_ok)
		return; /* being written: next tick */
	s = &sn.s;
	if (s->pid != x->pid || s->start_ns != x->start_ns) { /* a new step reused the slot */
		if (x->pid)
			mw_info("rank %d: new process %d (was %d)", x->rank, s->pid, x->pid);
		rank_reset(x);
		x->pid = s->pid;
		x->start_ns = s->start_ns;
		/* Both read the job's settings file: say if they do not agree. */
		if (s->timeout_s != T)
			mw_warn("rank %d: process %d: its monitor's timeout is %g s, the agent's %g s",
				x->rank, s->pid, s->timeout_s, T);
		else
			mw_info("rank %d: process %d, monitor timeout %g s", x->rank, s->pid, s->timeout_s);
		x->size = s->world_size;
		x->dumps_sent = s->dumps; /* dumps of an earlier life are not news */
	}
	if (x->size <= 0 || x->size <= x->rank)
		x->size = s->world_size;
	if (x->done) {
		/* Reported vanished: the exit record may still come (the
		 * launcher's message is read after the process is gone). */
		if (x->t_vanished > 0 && (s->exit_flags & MW_SLOT_EXIT_VALID)) {
			x->t_vanished = 0;
			set_beat(a, x, &sn, MW_HB_S_EXITED, x->beat.idle_s);
		} else if (x->t_vanished > 0 && now - x->t_vanished > AG_LATE_EXIT_S) {
			x->t_vanished = 0;
		}
		return;
	}
	/* The one stall rule (shared/stall.c); it also keeps when the
	 * completions and the calls last moved, for the idle times told. */
	cls = mw_stall_rule(&x->rule, s, now, T - a->beat_tol);
	idle_c = now - x->rule.t_completion;
	idle_k = now - mw_stall_t_outside(&x->rule);
	finalized = s->state == MW_STATE_FINALIZED || strcmp(s->call.name, "MPI_Finalize") == 0;
	exited = (s->exit_flags & MW_SLOT_EXIT_VALID) != 0;

	/* Not even in MPI_Init yet (its slot made at load): ending so is a
	 * failure only with a signal or a status; a vanishing one is told. */
	preinit = s->state == MW_STATE_INIT;
	if (exited || s->state == MW_STATE_EXITED) {
		int failed = exited && ((s->exit_flags & MW_SLOT_EXIT_SIGNALED) || s->exit_status != 0);
		int bad = failed || (!finalized && !preinit);
		x->done = 1;
		if (bad) {
			set_beat(a, x, &sn, MW_HB_S_EXITED, idle_c);
		} else if (x->beat_state) {
			set_beat(a, x, &sn, MW_HB_S_FINALIZED, 0);
		}
		return;
	}
	if (!pid_alive(s->pid)) {
		/* Gone without an exit record: give the plugin's task_exit a
		 * moment to record the status. */
		if (++x->gone_ticks < 3 && !a->last_look)
			return;
		x->done = 1;
		if (!finalized) {
			set_beat(a, x, &sn, MW_HB_S_VANISHED, idle_c);
			x->t_vanished = now;
		}
		else if (x->beat_state)
			set_beat(a, x, &sn, MW_HB_S_FINALIZED, 0);
		return;
	}
	x->gone_ticks = 0;
	if (s->state == MW_STATE_FINALIZED) {
		if (x->beat_state && x->beat_state != MW_HB_S_FINALIZED)
			set_beat(a, x, &sn, MW_HB_S_FINALIZED, 0);
		return;
	}
	if (s->state == MW_STATE_INIT)
		return;
	if (in_mpi_init(s)) {
		/* Not judged by time (MPI_Init may be long on large jobs): told
		 * once after the timeout, for the collector to name it blocked
		 * if a rank of the job ended before or inside MPI_Init. */
		if (x->t_init <= 0)
			x->t_init = now;
		else if (!x->beat_state && now - x->t_init >= T - a->beat_tol)
			set_beat(a, x, &sn, MW_HB_S_IN_INIT, now - x->t_init);
		return;
	}
	/* A rank the MPI library aborts inside a call (an argument error
	 * under MPI_ERRORS_ARE_FATAL) is gone long before it has been in that
	 * call for T: it is seen ending in it, not stuck in it. */
	if (cls == MW_STALL_STUCK || cls == MW_STALL_POLLING) {
		if (x->beat_state != MW_HB_S_IN_MPI)
			set_beat(a, x, &sn, MW_HB_S_IN_MPI, idle_c);
	} else if (cls == MW_STALL_SLOW) {
		if (x->beat_state != MW_HB_S_SLOW)
			set_beat(a, x, &sn, MW_HB_S_SLOW, idle_c);
	} else if (cls == MW_STALL_COMPUTING) {
		if (x->beat_state != MW_HB_S_COMPUTING)
			set_beat(a, x, &sn, MW_HB_S_COMPUTING, idle_k);
	} else if (x->beat_state == MW_HB_S_IN_MPI || x->beat_state == MW_HB_S_SLOW ||
		   x->beat_state == MW_HB_S_COMPUTING || x->beat_state == MW_HB_S_IN_INIT) {
		/* Progress again after a heartbeat; a dump written during this
		 * episode is not forwarded for the next one. */
		set_beat(a, x, &sn, MW_HB_S_RESUMED, 0);
		x->beat_state = 0;
		x->dumps_sent = s->dumps;
	}
	/* Forward a new dump while the rank is reported stuck. */
	if (x->beat_state == MW_HB_S_IN_MPI && s->dumps > x->dumps_sent && sn.resolved_ok &&
	    s->dump_path[0]) {
		char path[sizeof s->dump_path + 1], *json = NULL;
		snprintf(path, sizeof path, "%.*s", (int)sizeof s->dump_path, s->dump_path);
		if (read_dump(path, &json) == 0) {
			free(x->dump_json);
			x->dump_json = json;
			x->dump_unsent = !a->tree || x->dump_wanted; /* the tree: on demand */
			x->dumps_sent = s->dumps;
		} else {
			mw_log_limited(&dump_rl, LOG_WARNING,
				       "cannot read dump %s: %s", path, strerror(errno));
			x->dumps_sent = s->dumps; /* do not retry forever */
		}
	}
}

void ag_watch_look(struct agent *a, double now)
{
	struct stat st;
	if (stat(a->o->rundir, &st) == 0 && S_ISDIR(st.st_mode)) {
		a->rundir_seen = 1;
		mw_slot_scan_dir(a->o->rundir, scan_cb, a);
	} else if (a->rundir_seen) {
		mw_info("run directory %s is gone: the job is over", a->o->rundir);
		a->stop = 1;
		return;
	} else if (now - a->started > a->o->rundir_wait_s) {
		mw_warn("run directory %s never appeared; leaving", a->o->rundir);
		a->stop = 1;
		return;
	}
	for (size_t i = 0; i < a->nr; i++)
		watch_rank(a, a->r[i], now);
}

void ag_watch_free(struct agent *a)
{
	for (size_t i = 0; i < a->nr; i++) {
		if (a->r[i]->slot)
			mw_slot_unmap(a->r[i]->slot);
		free(a->r[i]->dump_json);
		free(a->r[i]);
	}
	free(a->r);
	a->r = NULL;
	a->nr = 0;
}
