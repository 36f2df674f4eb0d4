/* fuzz_dl_dumps.c - the deadlock analysis over fuzzed dumps.  The input is
 * split at each "\n@@\n" into up to 8 files rank-0.json, rank-1.json, ...,
 * which go through the whole analysis (JSON reader, validation, wait-for
 * graph, diagnosis, JSON/text/DOT reports). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *bufs[8], names[8][32];
	const char *np[8];
	size_t lens[8];
	int n = 0;
	const char *p = (const char *)data, *end = p + size;
	while (n < 8 && p <= end) {
		const char *sep = NULL;
		for (const char *q = p; q + 4 <= end; q++)
			if (!memcmp(q, "\n@@\n", 4)) {
				sep = q;
				break;
			}
		const char *stop = sep ? sep : end;
		bufs[n] = (char *)p;
		lens[n] = (size_t)(stop - p);
		snprintf(names[n], sizeof names[n], "rank-%d.json", n);
		np[n] = names[n];
		n++;
		if (!sep)
			break;
		p = sep + 4;
	}
	struct dl_options o;
	struct dl_result *r = NULL;
	dl_options_init(&o);
	o.progress = -1;
	o.no_symbols = 1;
	if (dl_analyze_buffers(n, np, bufs, lens, &o, &r) == 0) {
		FILE *f = fopen("/dev/null", "w");
		if (f) {
			dl_write_text(f, r);
			dl_write_json(f, r);
			dl_write_dot(f, r);
			fclose(f);
		}
		dl_result_free(r);
	}
	return 0;
}
