/* motion.c - signs that a rank's transfer still moves (motion.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "motion.h"
#include "mwm.h"

#define MOTION_BUFS 16   /* receive buffers sampled at most */
#define MOTION_WORDS 512 /* words sampled in all (a movement is seen as soon as
			    the transfer crosses one: a transfer shorter than
			    512 timeouts shows in every timeout) */

/* Bytes the MPI thread must read or write between two samples (one tick,
 * at most 100 ms) for its I/O to count as a transfer moving: 64 KiB, about
 * 640 KB/s.  A margin: a progress engine may read small wakeups from pipes
 * or eventfds while deadlocked.  (With Open MPI 4.1 and MPICH 4.0 here a
 * deadlocked rank's counts stay flat, MPI_THREAD_MULTIPLE included.) */
#define MOTION_IO_MIN 65536

struct span {
	uint64_t lo, len;
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++) {
		h ^= c[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* The bytes a receive of count elements of dt into buf may write. */
static int recv_span(uint64_t buf, int32_t count, uint64_t dt, struct span *sp)
{
	int64_t extent, tlb, textent;
	if (count <= 0)
		return -1;
	if (mwm_dtype_span(dt, &extent, &tlb, &textent) < 0) {
		sp->lo = buf; /* unknown type: its first page */
		sp->len = 4096;
		return 0;
	}
	if (textent <= 0)
		return -1;
	sp->lo = buf + (uint64_t)tlb;
	sp->len = (uint64_t)(count - 1) * (uint64_t)(extent > 0 ? extent : 0) + (uint64_t)textent;
	return 0;
}

/* The pending receives of the rank: its current blocking receive and its
 * active receive requests.  Return their number. */
static int recv_spans(const struct mw_slot *s, struct span *out, int max)
{
	static struct mwm_req *snap;
	static uint32_t snapcap;
	int n = 0, k;
	if ((s->call.kind == MW_KIND_RECV || s->call.kind == MW_KIND_SENDRECV) && s->state == MW_STATE_IN_MPI &&
	    recv_span(s->call.buf, s->call.count, s->call.datatype, &out[n]) == 0)
		n++;
	if (!s->pending || !mwm.reqs.cap)
		return n;
	if (snapcap != mwm.reqs.cap) {
		free(snap);
		snap = calloc(mwm.reqs.cap, sizeof(*snap));
		snapcap = snap ? mwm.reqs.cap : 0;
		if (!snap)
			return n;
	}
	k = mwm_reqtab_snapshot(&mwm.reqs, snap, (int)snapcap);
	for (int i = 0; i < k && n < max; i++)
		if (snap[i].table == MWM_TABLE_RECV && snap[i].active &&
		    recv_span(snap[i].buf, snap[i].count, snap[i].datatype, &out[n]) == 0)
			n++;
	return n;
}

/* Digest of MOTION_WORDS words spread over the spans (an equal share for
 * each); *key identifies the set of spans.  Return 0, or -1 if the process
 * cannot read itself.  Watcher thread only (static buffers). */
static int sample_bufs(const struct span *sp, int n, uint64_t *key, uint64_t *hash)
{
	static struct iovec local[MOTION_WORDS + MOTION_BUFS], remote[MOTION_WORDS + MOTION_BUFS];
	static uint64_t words[MOTION_WORDS + MOTION_BUFS];
	int m = 0, per = n > 0 ? MOTION_WORDS / n : 0;
	ssize_t got;
	*key = 14695981039346656037ull;
	for (int i = 0; i < n; i++) {
		uint64_t len = sp[i].len, step;
		*key = fnv(*key, &sp[i], sizeof sp[i]);
		if (len < 8) {
			remote[m].iov_base = (void *)(uintptr_t)sp[i].lo;
			remote[m].iov_len = (size_t)len;
			local[m].iov_base = &words[m];
			local[m].iov_len = (size_t)len;
			words[m++] = 0;
			continue;
		}
		step = (len - 8) / (uint64_t)(per - 1);
		for (int j = 0; j < per; j++) {
			remote[m].iov_base = (void *)(uintptr_t)(sp[i].lo + (uint64_t)j * step);
			remote[m].iov_len = 8;
			local[m].iov_base = &words[m];
			local[m].iov_len = 8;
			words[m++] = 0;
			if (step == 0)
				break;
		}
	}
	/* Reading through the kernel: an address that is not mapped ends the
	 * read (a shorter count) instead of faulting the rank. */
	got = process_vm_readv(getpid(), local, (unsigned long)m, remote, (unsigned long)m, 0);
	if (got < 0 && (errno == EPERM || errno == ENOSYS))
		return -1;
	*hash = fnv(14695981039346656037ull, words, sizeof words[0] * (size_t)m);
	*hash = fnv(*hash, &got, sizeof got);
	return 0;
}

/* The MPI thread's read + write byte counts.  Return 0, or -1. */
static int io_bytes(uint64_t *v)
{
	char path[64], buf[512];
	unsigned long long rchar = 0, wchar = 0;
	int fd;
	ssize_t n;
	snprintf(path, sizeof path, "/proc/self/task/%d/io", mwm.main_tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	if (sscanf(buf, "rchar: %llu wchar: %llu", &rchar, &wchar) != 2)
		return -1;
	*v = rchar + wchar;
	return 0;
}

void mwm_motion_reset(struct mwm_motion *m)
{
	m->have_buf = m->have_io = 0;
}

uint32_t mwm_motion_sample(struct mwm_motion *m, const struct mw_slot *s)
{
	struct span sp[MOTION_BUFS];
	uint32_t moved = 0;
	uint64_t key, hash, v;
	int n;

	if (!m->no_vm) {
		n = recv_spans(s, sp, MOTION_BUFS);
		if (n == 0) {
			m->have_buf = 0;
		} else if (sample_bufs(sp, n, &key, &hash) < 0) {
			m->no_vm = 1;
			m->have_buf = 0;
		} else {
			if (m->have_buf && m->buf_key == key && m->buf_hash != hash)
				moved |= MW_MOTION_RECVBUF;
			m->have_buf = 1;
			m->buf_key = key;
			m->buf_hash = hash;
		}
	}
	if (!m->io_fd_bad && mwm.main_tid > 0) {
		if (io_bytes(&v) < 0) {
			m->io_fd_bad = 1;
		} else {
			if (m->have_io && v - m->io >= MOTION_IO_MIN)
				moved |= MW_MOTION_IO;
			m->have_io = 1;
			m->io = v;
		}
	}
	return moved;
}
