/* stack.c - find the blocked thread's callers without stopping it.
 *
 * The main thread is inside MPI and cannot be signalled, so the watcher scans
 * its stack conservatively: from the wrapper's frame address up to the top
 * of the stack, every aligned word that points into an executable mapping and
 * is preceded by a call instruction is taken as a return address.  The part
 * of the stack above the wrapper belongs to the application's callers and
 * does not change while the call is blocked.  False frames are possible
 * (stale return addresses left in locals); the dump says "scan".
 * "Preceded by a call instruction" is decoded for x86-64 and AArch64; on any
 * other CPU no word is trusted and the dump has the call site alone.
 */
#include <dlfcn.h>
#include <elf.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mwm.h"
#include "runtime.h"

/* The scan reads stack words and code bytes that memcheck tracks as
 * undefined or unaddressable; that is the method, not a bug.  Under valgrind
 * these client requests silence it for the scan and mark what it found as
 * defined; elsewhere they are a few no-op instructions. */
#if defined(__has_include) && __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#else
#define VALGRIND_DISABLE_ERROR_REPORTING
#define VALGRIND_ENABLE_ERROR_REPORTING
#define VALGRIND_MAKE_MEM_DEFINED(a, n) ((void)(a), (void)(n))
#endif

struct map {
	uintptr_t lo, hi;
	int r, x;
};

static int read_maps(struct map *m, int max)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	int n = 0;
	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perm[8];
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) != 3)
			continue;
		m[n].lo = lo;
		m[n].hi = hi;
		m[n].r = perm[0] == 'r';
		m[n].x = perm[2] == 'x';
		n++;
	}
	fclose(f);
	return n;
}

void mwm_stack_init(void)
{
	pthread_attr_t a;
	void *addr;
	size_t size;
	if (pthread_getattr_np(pthread_self(), &a) == 0) {
		if (pthread_attr_getstack(&a, &addr, &size) == 0) {
			mwm.stack_lo = (uintptr_t)addr;
			mwm.stack_hi = (uintptr_t)addr + size;
		}
		pthread_attr_destroy(&a);
	}
}

static const struct map *find_map(const struct map *m, int n, uintptr_t a)
{
	for (int i = 0; i < n; i++)
		if (a >= m[i].lo && a < m[i].hi)
			return &m[i];
	return NULL;
}

/* Is there a call instruction ending at a? */
#if defined(__x86_64__)
/* e8 rel32; ff /2 with modrm (and a REX.B prefix) */
static int after_call(const struct map *m, int n, uintptr_t a)
{
	const struct map *mm = find_map(m, n, a - 1);
	const unsigned char *p = (const unsigned char *)a;
	if (!mm || !mm->r || !mm->x || a - 7 < mm->lo)
		return 0;
	if (p[-5] == 0xe8)
		return 1;
	/* ff /2: modrm reg field == 2; lengths 2 (ff d0), 3 (ff 55 08), 6/7 (disp32, sib) */
	for (int len = 2; len <= 7; len++) {
		if (p[-len] == 0xff && ((p[-len + 1] >> 3) & 7) == 2)
			return 1;
		if (len >= 3 && p[-len] == 0x41 && p[-len + 1] == 0xff && ((p[-len + 2] >> 3) & 7) == 2)
			return 1;
	}
	return 0;
}
#elif defined(__aarch64__)
/* The 4-byte instruction before a: BL imm26, BLR Xn, or BLRAA/BLRAB(Z). */
static int after_call(const struct map *m, int n, uintptr_t a)
{
	const struct map *mm = find_map(m, n, a - 1);
	uint32_t insn;
	if (!mm || !mm->r || !mm->x || (a & 3) || a - 4 < mm->lo)
		return 0;
	memcpy(&insn, (const void *)(a - 4), sizeof(insn));
	return (insn & 0xfc000000u) == 0x94000000u || (insn & 0xfffffc1fu) == 0xd63f0000u ||
	       (insn & 0xfefff800u) == 0xd63f0800u;
}
#else
/* Unknown instruction set: no return address is trusted, the dump gives
 * the call site alone (stack method "site"). */
static int after_call(const struct map *m, int n, uintptr_t a)
{
	(void)m;
	(void)n;
	(void)a;
	return 0;
}
#endif

/* Follow the frame-pointer chain from the wrapper's frame (the wrappers are
 * built with frame pointers: frame[0] = caller's frame, frame[1] = the call
 * site) while every step is plausible: the return address follows a call
 * instruction in an executable mapping and the next frame is higher on the
 * stack.  Return the number of frames found (the site first), and in
 * *resume the stack address above the last good frame, where a scan can
 * continue (callers built without frame pointers, e.g. libc's start code). */
static int walk_fp(const struct map *maps, int nm, uintptr_t site, uintptr_t frame, uintptr_t lo,
		   uintptr_t hi, struct mwm_frame *out, int max, uintptr_t *resume)
{
	uintptr_t fp = frame;
	int n = 0;
	*resume = frame;
	if (!frame || (frame & 7) || frame < lo || frame + 16 > hi || ((const uintptr_t *)frame)[1] != site)
		return 0;
	while (n < max) {
		uintptr_t next = ((const uintptr_t *)fp)[0], ret = ((const uintptr_t *)fp)[1];
		const struct map *vm = find_map(maps, nm, ret);
		if (!vm || !vm->x || !after_call(maps, nm, ret))
			break;
		memset(&out[n], 0, sizeof(out[n]));
		out[n++].addr = ret;
		*resume = fp + 16;
		if (next <= fp || (next & 7) || next + 16 > hi)
			break;
		fp = next;
	}
	return n;
}

int mwm_stack_scan(uintptr_t site, uintptr_t frame, uintptr_t stack_hi, struct mwm_frame *out,
		   int max, const char **method)
{
	struct map *maps = calloc(2048, sizeof(*maps));
	int nm, n = 0;
	if (max <= 0)
		return 0;
	memset(&out[0], 0, sizeof(out[0]));
	out[n++].addr = site;
	*method = "site";
	if (!maps)
		return n;
	nm = read_maps(maps, 2048);
	VALGRIND_DISABLE_ERROR_REPORTING;
	if (frame && stack_hi > frame) {
		const struct map *sm = find_map(maps, nm, frame);
		uintptr_t hi = stack_hi;
		uintptr_t resume = frame;
		int k = 0;
		if (sm && sm->hi < hi)
			hi = sm->hi;
		if (sm && sm->r)
			k = walk_fp(maps, nm, site, frame, sm->lo, hi, out, max, &resume);
		if (k > 1) {
			/* exact up to the first frame without a frame pointer; scan above it */
			*method = "frame_pointers";
			n = k;
			frame = resume;
		} else {
			memset(&out[0], 0, sizeof(out[0]));
			out[0].addr = site;
			n = 1;
			*method = "scan";
		}
		if (hi - frame > 1024 * 1024)
			hi = frame + 1024 * 1024;
		/* skip the words up to and including the site itself */
		for (uintptr_t p = (frame + 7) & ~(uintptr_t)7; p + 8 <= hi && n < max; p += 8) {
			uintptr_t v = *(const uintptr_t *)p;
			const struct map *vm;
			if ((v == site && n == 1) || v == out[n - 1].addr)
				continue;
			vm = find_map(maps, nm, v);
			if (!vm || !vm->x || !after_call(maps, nm, v))
				continue;
			memset(&out[n], 0, sizeof(out[n]));
			out[n++].addr = v;
		}
	}
	VALGRIND_ENABLE_ERROR_REPORTING;
	VALGRIND_MAKE_MEM_DEFINED(out, (size_t)n * sizeof(*out));
	free(maps);
	return n;
}

/* dl_iterate_phdr: the object one of whose loaded segments holds addr, and
 * its NT_GNU_BUILD_ID note. */
struct bid_find {
	uintptr_t addr;
	char *out;
	size_t len;
	int main_prog; /* the object is the program itself (no name) */
	int found;
};

static void note_build_id(const struct dl_phdr_info *info, const ElfW(Phdr) *ph, struct bid_find *b)
{
	const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
	/* Notes in a segment aligned to 8 (.note.gnu.property) align the
	 * descriptor and the next note to 8; the usual ones to 4 (as glibc's
	 * ELF_NOTE_DESC_OFFSET and ELF_NOTE_NEXT_OFFSET). */
	size_t left = ph->p_filesz, al = ph->p_align == 8 ? 8 : 4;
	while (left >= sizeof(ElfW(Nhdr))) {
		const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
		size_t doff = (sizeof(*nh) + nh->n_namesz + al - 1) & ~(al - 1);
		size_t next = (doff + nh->n_descsz + al - 1) & ~(al - 1);
		if (doff + nh->n_descsz > left || next < doff)
			return;
		const unsigned char *name = p + sizeof(*nh), *desc = p + doff;
		if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
		    nh->n_descsz * 2 < b->len) {
			for (size_t i = 0; i < nh->n_descsz; i++)
				snprintf(b->out + 2 * i, 3, "%02x", desc[i]);
			return;
		}
		if (next >= left)
			return;
		p += next;
		left -= next;
	}
}

static int bid_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct bid_find *b = arg;
	int hit = 0;
	(void)size;
	for (int i = 0; i < info->dlpi_phnum && !hit; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		hit = ph->p_type == PT_LOAD && b->addr >= lo && b->addr - lo < ph->p_memsz;
	}
	if (!hit)
		return 0;
	b->found = 1;
	b->main_prog = !info->dlpi_name || !info->dlpi_name[0];
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_NOTE && !b->out[0])
			note_build_id(info, &info->dlpi_phdr[i], b);
	return 1;
}

void mwm_frame_symbolize(struct mwm_frame *f)
{
	Dl_info di;
	/* a return address may be one past the caller's last byte: look up addr-1 */
	if (!f->addr || !dladdr((void *)(f->addr - 1), &di))
		return;
	if (di.dli_fname)
		snprintf(f->object, sizeof(f->object), "%s", di.dli_fname);
	struct bid_find b = {.addr = f->addr - 1, .out = f->build_id, .len = sizeof(f->build_id)};
	f->build_id[0] = 0;
	dl_iterate_phdr(bid_cb, &b);
	if (b.found && (b.main_prog || f->object[0] != '/')) {
		char path[PATH_MAX];
		ssize_t n = -1;
		if (b.main_prog)
			n = readlink("/proc/self/exe", path, sizeof(path) - 1);
		else if (realpath(f->object, path))
			n = (ssize_t)strlen(path);
		if (n > 0 && (size_t)n < sizeof(f->object)) {
			path[n] = 0;
			memcpy(f->object, path, (size_t)n + 1);
		}
	}
	f->offset = f->addr - (uintptr_t)di.dli_fbase;
	if (di.dli_sname) {
		snprintf(f->symbol, sizeof(f->symbol), "%s", di.dli_sname);
		f->sym_offset = f->addr - (uintptr_t)di.dli_saddr;
	}
}

/* dl_iterate_phdr's callback: the main program (the first object, no name). */
static int exe_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct mw_slot *s = arg;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	(void)size;
	if (info->dlpi_name && info->dlpi_name[0])
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (hi > lo) {
		s->exe_lo = lo;
		s->exe_hi = hi;
	}
	return 1;
}

void mwm_exe_record(struct mw_slot *s)
{
	Dl_info di;
	char path[PATH_MAX];
	ssize_t n;
	s->exe_base = s->exe_lo = s->exe_hi = 0;
	s->exe[0] = 0;
	dl_iterate_phdr(exe_cb, s);
	/* the base as dladdr gives it, so that an offset is a dump frame's */
	if (!s->exe_hi || !dladdr((void *)(uintptr_t)s->exe_lo, &di) || !di.dli_fbase ||
	    (n = readlink("/proc/self/exe", path, sizeof(path) - 1)) <= 0 || (size_t)n >= sizeof(s->exe)) {
		s->exe_lo = s->exe_hi = 0;
		return;
	}
	path[n] = 0;
	s->exe_base = (uint64_t)(uintptr_t)di.dli_fbase;
	memcpy(s->exe, path, (size_t)n + 1);
}
