/* libFuzzer target for the ELF DT_NEEDED reader (shared/elfneeded.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elfneeded.h"

static void sink(const char *name, void *arg)
{
	*(size_t *)arg += strlen(name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t total = 0;
	/* A private copy: the parser must not read past size. */
	unsigned char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	mw_elf_needed_buf(buf, size, sink, &total);
	free(buf);
	return 0;
}
