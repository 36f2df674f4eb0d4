/* slot.c - map, create, snapshot and annotate libmpiwatch's per-rank slots. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsutil.h"
#include "mw_slot.h"

_Static_assert(sizeof(struct mw_slot) <= MW_SLOT_SIZE, "slot too large");

struct mw_slot *mw_slot_map(const char *path, int writable)
{
	struct mw_slot *s = NULL;
	struct stat st;
	int fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0)
		goto fail;
	if (!S_ISREG(st.st_mode) || st.st_size < (off_t)MW_SLOT_SIZE) {
		errno = EPROTO;
		goto fail;
	}
	s = mmap(NULL, MW_SLOT_SIZE, PROT_READ | (writable ? PROT_WRITE : 0), MAP_SHARED, fd, 0);
	if (s == MAP_FAILED) {
		s = NULL;
		goto fail;
	}
	close(fd);
	fd = -1;
	if (__atomic_load_n(&s->magic, __ATOMIC_ACQUIRE) != MW_SLOT_MAGIC) {
		int e = s->magic == 0 ? EAGAIN : EPROTO;
		munmap(s, MW_SLOT_SIZE);
		errno = e;
		return NULL;
	}
	if (s->version != MW_SLOT_VERSION || s->size > MW_SLOT_SIZE || s->size < sizeof(*s)) {
		munmap(s, MW_SLOT_SIZE);
		errno = EPROTO;
		return NULL;
	}
	return s;
fail:
	if (fd >= 0) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return NULL;
}

void mw_slot_unmap(struct mw_slot *slot)
{
	if (slot)
		munmap(slot, MW_SLOT_SIZE);
}

struct mw_slot *mw_slot_create(const char *dir, int rank, char *path, size_t pathlen)
{
	char p[1024];
	struct mw_slot *s;
	int fd, e;
	if (snprintf(p, sizeof(p), "%s/rank-%d", dir, rank) >= (int)sizeof(p)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return NULL;
	/* a directory someone else made (and could swap files in) is refused */
	{
		struct stat st;
		if (lstat(dir, &st) < 0)
			return NULL;
		if (!S_ISDIR(st.st_mode) || (st.st_uid != geteuid() && st.st_uid != 0)) {
			errno = EPERM;
			return NULL;
		}
	}
	fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return NULL;
	if (ftruncate(fd, MW_SLOT_SIZE) < 0)
		goto fail;
	s = mmap(NULL, MW_SLOT_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (s == MAP_FAILED)
		goto fail;
	close(fd);
	memset(s, 0, MW_SLOT_SIZE);
	if (path && pathlen)
		snprintf(path, pathlen, "%s", p);
	return s;
fail:
	e = errno;
	close(fd);
	errno = e;
	return NULL;
}

void mw_slot_publish(struct mw_slot *slot)
{
	slot->version = MW_SLOT_VERSION;
	slot->size = sizeof(*slot);
	__atomic_store_n(&slot->magic, MW_SLOT_MAGIC, __ATOMIC_RELEASE);
}

/* Copy [from, from+len) of a block guarded by *seq. */
static int seq_copy(const uint64_t *seq, const void *from, void *to, size_t len)
{
	for (int tries = 0; tries < 1000; tries++) {
		uint64_t s1 = __atomic_load_n(seq, __ATOMIC_ACQUIRE);
		if (s1 & 1) {
			if (tries > 10)
				usleep(10);
			continue;
		}
		memcpy(to, from, len);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(seq, __ATOMIC_RELAXED) == s1)
			return 1;
	}
	return 0;
}

void mw_slot_call_derive(struct mw_slot_call *c)
{
	const struct mw_slot_op *o;
	if (c->name[0] || c->op_id >= (uint32_t)mw_slot_nops)
		return;
	o = &mw_slot_ops[c->op_id];
	memcpy(c->name, o->name, sizeof(c->name));
	c->name[sizeof(c->name) - 1] = 0;
	c->kind = o->kind;
	c->blocking = o->blocking;
	c->mode = o->mode;
	if (!(o->args & MW_ARG_COMM))
		c->comm = 0;
	if (!(o->args & MW_ARG_PEER))
		c->peer = INT32_MIN;
	if (!(o->args & MW_ARG_TAG))
		c->tag = MW_TAG_NONE;
	if (!(o->args & MW_ARG_ROOT))
		c->root = INT32_MIN;
	if (!(o->args & MW_ARG_COUNT))
		c->count = -1;
	if (!(o->args & MW_ARG_SEND_PEER))
		c->send_peer = INT32_MIN;
	if (!(o->args & MW_ARG_SEND_TAG))
		c->send_tag = MW_TAG_NONE;
	if (!(o->args & MW_ARG_DATATYPE))
		c->datatype = 0;
	if (!(o->args & MW_ARG_OP))
		c->op = 0;
	if (!(o->args & MW_ARG_NREQS))
		c->nreqs = 0;
}

int mw_slot_snapshot(const struct mw_slot *slot, struct mw_slot_snap *out)
{
	const char *base = (const char *)slot;
	char *dst = (char *)&out->s;
	size_t live_off = offsetof(struct mw_slot, seq);
	size_t live_end = offsetof(struct mw_slot, seq2);
	size_t res_end = offsetof(struct mw_slot, dump_request);

	memset(out, 0, sizeof(*out));
	memcpy(dst, base, live_off); /* header: immutable once published */
	out->live_ok = seq_copy(&slot->seq, base + live_off, dst + live_off, live_end - live_off);
	out->resolved_ok = seq_copy(&slot->seq2, base + live_end, dst + live_end, res_end - live_end);
	/* the watcher's motion block, under the same seqlock */
	size_t mo_off = offsetof(struct mw_slot, motion), mo_end = offsetof(struct mw_slot, reserved2);
	if (!seq_copy(&slot->seq2, base + mo_off, dst + mo_off, mo_end - mo_off))
		out->resolved_ok = 0;
	out->s.dump_request = __atomic_load_n(&slot->dump_request, __ATOMIC_ACQUIRE);
	out->s.exit_flags = __atomic_load_n(&slot->exit_flags, __ATOMIC_ACQUIRE);
	out->s.exit_status = slot->exit_status;
	out->s.comm_gid[sizeof(out->s.comm_gid) - 1] = 0;
	out->s.dump_path[sizeof(out->s.dump_path) - 1] = 0;
	out->s.call.name[sizeof(out->s.call.name) - 1] = 0;
	mw_slot_call_derive(&out->s.call);
	/* A repeated poll counted itself in polls alone (one store, no write
	 * section): readers see it as a call and a test.  The watcher resolved
	 * the record as it stands if it did so at the record's own count (the
	 * raw calls: repeats do not change the record). */
	if (out->s.resolved_calls == out->s.calls)
		out->s.resolved_calls += out->s.polls;
	out->s.calls += out->s.polls;
	out->s.tests += out->s.polls;
	out->s.host[sizeof(out->s.host) - 1] = 0;
	out->s.job_id[sizeof(out->s.job_id) - 1] = 0;
	out->s.step_id[sizeof(out->s.step_id) - 1] = 0;
	out->s.mpi[sizeof(out->s.mpi) - 1] = 0;
	/* the program block: immutable once published */
	memcpy(&out->s.exe_base, &slot->exe_base,
	       sizeof(struct mw_slot) - offsetof(struct mw_slot, exe_base));
	out->s.exe[sizeof(out->s.exe) - 1] = 0;
	if (!out->live_ok || !out->resolved_ok) {
		errno = EAGAIN;
		return -1;
	}
	return 0;
}

int mw_slot_request_dump(struct mw_slot *slot)
{
	__atomic_store_n(&slot->dump_request, 1, __ATOMIC_RELEASE);
	return 0;
}

int mw_slot_set_exit(struct mw_slot *slot, int wait_status)
{
	uint32_t flags = MW_SLOT_EXIT_VALID;
	int v;
	if (WIFEXITED(wait_status)) {
		v = WEXITSTATUS(wait_status);
	} else if (WIFSIGNALED(wait_status)) {
		v = WTERMSIG(wait_status);
		flags |= MW_SLOT_EXIT_SIGNALED;
	} else {
		errno = EINVAL;
		return -1;
	}
	/* The first status wins: the rank's own exit() code, recorded by the
	 * monitor, is more exact than the SIGKILL of a teardown seen later. */
	if (__atomic_load_n(&slot->exit_flags, __ATOMIC_ACQUIRE) & MW_SLOT_EXIT_VALID)
		return 0;
	slot->exit_status = v;
	__atomic_store_n(&slot->exit_flags, flags, __ATOMIC_RELEASE);
	return 0;
}

void mw_node_name(char *buf, size_t len)
{
	if (len == 0)
		return;
	if (gethostname(buf, len) < 0)
		buf[0] = 0;
	buf[len - 1] = 0;
	buf[strcspn(buf, ".")] = 0;
	if (!buf[0])
		snprintf(buf, len, "localhost");
}

int mw_path_host(char *buf, size_t len, const char *path, const char *host)
{
	size_t o = 0, hl = strlen(host);
	for (const char *p = path; *p; p++) {
		if (p[0] == '%' && p[1] == 'h') {
			if (o + hl >= len)
				goto toolong;
			memcpy(buf + o, host, hl);
			o += hl;
			p++;
		} else {
			if (o + 1 >= len)
				goto toolong;
			buf[o++] = *p;
		}
	}
	if (len == 0)
		goto toolong;
	buf[o] = 0;
	return 0;
toolong:
	errno = ENAMETOOLONG;
	return -1;
}

int mw_slot_default_dir(char *buf, size_t len, const char *slot_dir, unsigned uid, const char *jobid, long ppid,
			const char *host)
{
	char nojob[32];
	if (slot_dir && *slot_dir)
		return mw_path_host(buf, len, slot_dir, host);
	if (jobid && *jobid)
		return mw_rundir_path(buf, len, MW_RUNDIR_BASE, uid, jobid, host);
	snprintf(nojob, sizeof(nojob), "nojob-%ld", ppid);
	return mw_rundir_path(buf, len, MW_RUNDIR_BASE, uid, nojob, host);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int mw_slot_scan_dir(const char *dir, int (*cb)(const char *path, int rank, void *arg), void *arg)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int *ranks = NULL, n = 0, cap = 0, rv = -1;
	char path[1024];
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char *end;
		long r;
		if (strncmp(de->d_name, "rank-", 5) != 0)
			continue;
		errno = 0;
		r = strtol(de->d_name + 5, &end, 10);
		if (errno || *end || end == de->d_name + 5 || r < 0 || r > 0x7fffffff)
			continue;
		if (n == cap) {
			int *nr = realloc(ranks, (cap ? cap * 2 : 64) * sizeof(*ranks));
			if (!nr)
				goto fail;
			ranks = nr;
			cap = cap ? cap * 2 : 64;
		}
		ranks[n++] = (int)r;
	}
	if (n > 1) /* ranks is NULL when the folder holds no slot (qsort's nonnull) */
		qsort(ranks, (size_t)n, sizeof(*ranks), cmp_int);
	rv = 0;
	for (int i = 0; i < n && rv == 0; i++) {
		snprintf(path, sizeof(path), "%s/rank-%d", dir, ranks[i]);
		rv = cb(path, ranks[i], arg);
	}
fail:
	closedir(d);
	free(ranks);
	return rv;
}

int mw_slot_site(const struct mw_slot *s, uint64_t addr, char *buf, size_t len)
{
	int n;
	if (!len)
		return 0;
	buf[0] = 0;
	if (!addr || s->exe[0] != '/' || addr <= s->exe_lo || addr > s->exe_hi || addr < s->exe_base)
		return 0; /* a return address may be one past the last byte */
	for (const char *c = s->exe; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			return 0; /* printable ASCII only: it travels in a heartbeat */
	n = snprintf(buf, len < MW_SLOT_SITE_MAX + 1 ? len : MW_SLOT_SITE_MAX + 1, "%s+0x%llx", s->exe,
		     (unsigned long long)(addr - s->exe_base));
	if (n < 0 || (size_t)n >= len || n > MW_SLOT_SITE_MAX) {
		buf[0] = 0;
		return 0;
	}
	return 1;
}

int mw_slot_site_parse(const char *site, char *obj, size_t objlen, unsigned long long *offset)
{
	const char *plus = strrchr(site, '+');
	char *end;
	if (!plus || plus == site || strncmp(plus, "+0x", 3) != 0 || (size_t)(plus - site) >= objlen)
		return -1;
	errno = 0;
	*offset = strtoull(plus + 3, &end, 16);
	if (end == plus + 3 || *end || errno)
		return -1;
	memcpy(obj, site, (size_t)(plus - site));
	obj[plus - site] = 0;
	return 0;
}

const char *mw_slot_state_name(uint32_t state)
{
	static const char *const n[] = {"init", "computing", "in_mpi", "finalized", "exited"};
	return state < sizeof(n) / sizeof(n[0]) ? n[state] : "unknown";
}

const char *mw_slot_kind_name(uint32_t kind)
{
	static const char *const n[] = {"other", "send",	   "recv",     "sendrecv",
					"probe", "wait",	   "test",     "collective",
					"rma_sync", "io",	   "nonblocking"};
	return kind < sizeof(n) / sizeof(n[0]) ? n[kind] : "unknown";
}

const char *mw_slot_mode_name(uint32_t mode)
{
	static const char *const n[] = {NULL, "standard", "sync", "buffered", "ready"};
	return mode < sizeof(n) / sizeof(n[0]) ? n[mode] : NULL;
}

char *mw_motion_names(uint32_t src, char *buf, size_t len)
{
	static const char *const n[] = {"recv_buffer", "io"};
	size_t used = 0;
	if (!len)
		return buf;
	buf[0] = 0;
	for (unsigned i = 0; i < sizeof(n) / sizeof(n[0]); i++) {
		if (!(src & (1u << i)))
			continue;
		int w = snprintf(buf + used, len - used, "%s%s", used ? "," : "", n[i]);
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
	return buf;
}
