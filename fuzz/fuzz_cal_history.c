/* libFuzzer target for a node's calibration history (mpiwatch calibrate
 * --history FILE, cal_history_parse in calib/cal_history.c): a history it
 * accepts is in range, is written back as text that parses to the same
 * history, and pools without error; one it refuses gets a message naming
 * the file. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cal_history.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cal_history h, g;
	char err[256];
	err[0] = 0;
	if (cal_history_parse((const char *)data, size, "hist.json", &h, err, sizeof err) < 0) {
		if (strncmp(err, "hist.json: ", 11) != 0 || h.n != 0)
			abort();
		return 0;
	}
	if (h.n > CAL_HISTORY_MAX)
		abort();
	for (size_t i = 0; i < h.n; i++) {
		const struct cal_history_entry *e = &h.e[i];
		if (e->time < 0 || e->base_adds < 1 || !(e->step_ns >= 0) || e->nblocks < 1 || e->nblocks > CAL_BLOCKS_MAX)
			abort();
		for (unsigned k = 0; k < e->nblocks; k++)
			if (e->block[k].found && !(e->block[k].ns >= 0 && isfinite(e->block[k].ns) && e->block[k].cy >= 0 &&
						   e->block[k].rel >= 0))
				abort();
		if (e->apart && !(e->apart_ns >= 0 && e->apart_cy >= 0))
			abort();
	}
	char *txt = cal_history_format(&h);
	if (!txt)
		return 0;
	if (cal_history_parse(txt, strlen(txt), "again", &g, err, sizeof err) < 0 || g.n != h.n)
		abort();
	for (size_t i = 0; i < h.n; i++)
		if (g.e[i].time != h.e[i].time || g.e[i].base_adds != h.e[i].base_adds || g.e[i].nblocks != h.e[i].nblocks ||
		    g.e[i].apart != h.e[i].apart)
			abort();
	free(txt);
	if (h.n) {
		struct cal_resolution own, node;
		unsigned k;
		memset(&own, 0, sizeof own);
		if (cal_history_node(&h, h.e[0].base_adds, h.e[0].step_ns, &own, &node, &k) < 0 || k < 1 ||
		    node.blocks < h.e[0].nblocks)
			abort();
	}
	return 0;
}
