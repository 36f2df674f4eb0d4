/* libFuzzer target for the launcher-output reader of "mpiwatch run"
 * (cli/runlaunch.c mw_run_parse_death, analyze/dl_crash.c dl_mpierr_parse
 * and dl_crash_parse), fed line by line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../cli/runlaunch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	pid_t state = 0;
	struct mw_run_death d;
	struct dl_mpierr_state st = {"", -1};
	char msg[512];
	int rank;
	static struct dl_crash_bt bt;
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	for (char *save = NULL, *l = strtok_r(s, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
	{
		mw_run_parse_death(l, &state, &d);
		dl_mpierr_parse(l, &st, &rank, msg, sizeof msg);
		dl_crash_parse(l, &bt);
	}
	free(s);
	return 0;
}
