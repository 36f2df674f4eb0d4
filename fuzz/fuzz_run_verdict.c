/* libFuzzer target for "mpiwatch run"'s reading of the verdict in a
 * report.json (mw_run_verdict_parse, cli/runlaunch.c): whatever the file
 * holds, the verdict fits its buffer, and the run ends only on a verdict
 * that is not "none". */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runlaunch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[16];
	int end;
	memset(buf, 'x', sizeof buf);
	/* Not NUL-terminated: the parser is given the length. */
	end = mw_run_verdict_parse((const char *)data, size, buf, sizeof buf);
	if (!memchr(buf, 0, sizeof buf))
		abort();
	if (end != 0 && end != 1)
		abort();
	if (end && (!buf[0] || !strcmp(buf, "none")))
		abort();
	return 0;
}
