/* elfneeded.h - read the DT_NEEDED entries of an ELF64 file without
 * running it (unlike ldd), to tell which MPI a program is linked against. */
#ifndef MW_ELFNEEDED_H
#define MW_ELFNEEDED_H

#include <stddef.h>

enum mw_mpi_kind { MW_MPI_UNKNOWN = 0, MW_MPI_OPENMPI, MW_MPI_MPICH };

/* Parse an ELF64 little-endian image in memory and call cb(name, arg) for each
 * DT_NEEDED library name.  Every offset is bounds-checked.  Return the number
 * of names found, or -1 (errno = ENOEXEC) if buf is not a well-formed ELF64
 * file with a dynamic section. */
int mw_elf_needed_buf(const unsigned char *buf, size_t len, void (*cb)(const char *name, void *arg),
		      void *arg);

/* Which MPI a DT_NEEDED name belongs to (libmpi.so.40, libmpi_mpifh.so.40,
 * libmpi_usempif08... = Open MPI; libmpich.so.12, libmpichfort.so.12,
 * libmpi.so.12 = MPICH). */
enum mw_mpi_kind mw_mpi_kind_of_lib(const char *name);

/* Read the file at path (at most 256 MiB) and classify it.  Return the kind,
 * MW_MPI_UNKNOWN if it names no MPI library, or -1 with errno set if it cannot
 * be read or is not ELF64. */
int mw_elf_mpi_kind(const char *path);

const char *mw_mpi_kind_name(enum mw_mpi_kind k);

#endif
