/* Unit tests for shared/elfneeded.c: which MPI a program is linked against. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfneeded.h"

static const struct {
	const char *lib;
	enum mw_mpi_kind kind;
} lib_cases[] = {
	{"libmpi.so.40", MW_MPI_OPENMPI},     {"libmpi_mpifh.so.40", MW_MPI_OPENMPI},
	{"libmpi_usempif08.so.40", MW_MPI_OPENMPI}, {"libmpich.so.12", MW_MPI_MPICH},
	{"libmpichfort.so.12", MW_MPI_MPICH}, {"libmpi.so.12", MW_MPI_MPICH},
	{"libc.so.6", MW_MPI_UNKNOWN},        {"libmpiwatch.so", MW_MPI_UNKNOWN},
};

START_TEST(test_lib_kind)
{
	ck_assert_int_eq(mw_mpi_kind_of_lib(lib_cases[_i].lib), lib_cases[_i].kind);
}
END_TEST

/* Real binaries built by `make progs` (the tests run from the top folder). */
static const struct {
	const char *path;
	int kind;
} file_cases[] = {
	{"build/progs/openmpi/healthy", MW_MPI_OPENMPI},
	{"build/progs/mpich/healthy", MW_MPI_MPICH},
	{"build/progs/openmpi/healthy_f", MW_MPI_OPENMPI},
	{"build/progs/mpich/healthy_f", MW_MPI_MPICH},
	{"/bin/sh", MW_MPI_UNKNOWN},
	{"README.md", -1},
	{"/nonexistent", -1},
};

START_TEST(test_files)
{
	if (access(file_cases[_i].path, F_OK) < 0 && file_cases[_i].kind >= MW_MPI_OPENMPI)
		ck_abort_msg("%s missing: run 'make progs' first", file_cases[_i].path);
	ck_assert_int_eq(mw_elf_mpi_kind(file_cases[_i].path), file_cases[_i].kind);
}
END_TEST

static void count(const char *name, void *arg)
{
	(void)name;
	(*(int *)arg)++;
}

START_TEST(test_truncated_and_corrupt)
{
	FILE *f = fopen("/bin/sh", "rb");
	static unsigned char buf[1 << 22];
	size_t n = fread(buf, 1, sizeof(buf), f);
	int c = 0;
	fclose(f);
	ck_assert_int_gt(mw_elf_needed_buf(buf, n, count, &c), 0);
	/* Every truncation either parses or is refused: never a crash. */
	for (size_t cut = 0; cut < n; cut += n / 97 + 1) {
		c = 0;
		int r = mw_elf_needed_buf(buf, cut, count, &c);
		ck_assert(r == -1 || r == c);
	}
	/* Not ELF at all. */
	ck_assert_int_eq(mw_elf_needed_buf((const unsigned char *)"#!/bin/sh\n", 10, count, &c), -1);
	ck_assert_int_eq(errno, ENOEXEC);
	/* A wild program-header count. */
	buf[56] = 0xff;
	buf[57] = 0xff;
	ck_assert_int_eq(mw_elf_needed_buf(buf, n, count, &c), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("elfneeded");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_lib_kind, 0, sizeof(lib_cases) / sizeof(lib_cases[0]));
	tcase_add_loop_test(tc, test_files, 0, sizeof(file_cases) / sizeof(file_cases[0]));
	tcase_add_test(tc, test_truncated_and_corrupt);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
