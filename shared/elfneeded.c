/* elfneeded.c - DT_NEEDED entries of an ELF64 file, bounds-checked. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfneeded.h"

#define ELF_MAX_FILE (256u << 20)

static int in_bounds(size_t len, uint64_t off, uint64_t size)
{
	return off <= len && size <= len - off;
}

int mw_elf_needed_buf(const unsigned char *buf, size_t len, void (*cb)(const char *name, void *arg),
		      void *arg)
{
	Elf64_Ehdr eh;
	const Elf64_Phdr *dyn_ph = NULL;
	uint64_t strtab_vaddr = 0, strsz = 0, strtab_off = 0;
	int have_strtab = 0, found = 0;

	if (len < sizeof(eh))
		goto bad;
	memcpy(&eh, buf, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_phnum == 0 || eh.e_phnum > 4096 ||
	    !in_bounds(len, eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr)))
		goto bad;

	/* Program headers: the dynamic segment, and loads to map vaddr -> offset. */
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		memcpy(&ph, buf + eh.e_phoff + (uint64_t)i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_DYNAMIC && !dyn_ph)
			dyn_ph = (const Elf64_Phdr *)(buf + eh.e_phoff + (uint64_t)i * sizeof(ph));
	}
	if (!dyn_ph)
		return 0; /* static executable: no needed libraries */
	Elf64_Phdr dph;
	memcpy(&dph, dyn_ph, sizeof(dph));
	if (!in_bounds(len, dph.p_offset, dph.p_filesz))
		goto bad;
	size_t ndyn = dph.p_filesz / sizeof(Elf64_Dyn);

	for (size_t i = 0; i < ndyn; i++) {
		Elf64_Dyn d;
		memcpy(&d, buf + dph.p_offset + i * sizeof(d), sizeof(d));
		if (d.d_tag == DT_NULL)
			break;
		if (d.d_tag == DT_STRTAB) {
			strtab_vaddr = d.d_un.d_ptr;
			have_strtab = 1;
		} else if (d.d_tag == DT_STRSZ) {
			strsz = d.d_un.d_val;
		}
	}
	if (!have_strtab)
		goto bad;
	/* Translate the string table's address through the PT_LOAD segments. */
	int mapped = 0;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		memcpy(&ph, buf + eh.e_phoff + (uint64_t)i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_LOAD && strtab_vaddr >= ph.p_vaddr &&
		    strtab_vaddr - ph.p_vaddr < ph.p_filesz) {
			strtab_off = ph.p_offset + (strtab_vaddr - ph.p_vaddr);
			mapped = 1;
			break;
		}
	}
	if (!mapped || !in_bounds(len, strtab_off, strsz) || strsz == 0)
		goto bad;
	for (size_t i = 0; i < ndyn; i++) {
		Elf64_Dyn d;
		memcpy(&d, buf + dph.p_offset + i * sizeof(d), sizeof(d));
		if (d.d_tag == DT_NULL)
			break;
		if (d.d_tag != DT_NEEDED)
			continue;
		uint64_t off = d.d_un.d_val;
		if (off >= strsz)
			goto bad;
		const char *name = (const char *)buf + strtab_off + off;
		if (!memchr(name, '\0', strsz - off))
			goto bad;
		if (cb)
			cb(name, arg);
		found++;
	}
	return found;
bad:
	errno = ENOEXEC;
	return -1;
}

enum mw_mpi_kind mw_mpi_kind_of_lib(const char *name)
{
	static const struct {
		const char *prefix;
		enum mw_mpi_kind kind;
	} map[] = {
		{"libmpich", MW_MPI_MPICH},          {"libmpi.so.12", MW_MPI_MPICH},
		{"libmpifort.so.12", MW_MPI_MPICH},  {"libmpi.so.40", MW_MPI_OPENMPI},
		{"libmpi_mpifh.so", MW_MPI_OPENMPI}, {"libmpi_usempi", MW_MPI_OPENMPI},
		{"libmpi_cxx.so.40", MW_MPI_OPENMPI}, {"libopen-rte", MW_MPI_OPENMPI},
		{"libopen-pal", MW_MPI_OPENMPI},
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strncmp(name, map[i].prefix, strlen(map[i].prefix)))
			return map[i].kind;
	return MW_MPI_UNKNOWN;
}

static void classify(const char *name, void *arg)
{
	enum mw_mpi_kind *k = arg, this = mw_mpi_kind_of_lib(name);
	if (*k == MW_MPI_UNKNOWN)
		*k = this;
}

int mw_elf_mpi_kind(const char *path)
{
	struct stat st;
	enum mw_mpi_kind kind = MW_MPI_UNKNOWN;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;
	void *m;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size > ELF_MAX_FILE) {
		close(fd);
		errno = ENOEXEC;
		return -1;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	r = mw_elf_needed_buf(m, (size_t)st.st_size, classify, &kind);
	munmap(m, (size_t)st.st_size);
	return r < 0 ? -1 : (int)kind;
}

const char *mw_mpi_kind_name(enum mw_mpi_kind k)
{
	return k == MW_MPI_OPENMPI ? "openmpi" : k == MW_MPI_MPICH ? "mpich" : "unknown";
}
