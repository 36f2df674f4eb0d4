/* libFuzzer target for the timings file parser of "mpiwatch analyze
 * fluctuation" (calib/cal_timings.c), then the criterion on what it read. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cal_timings.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	double *v = (double *)1;
	size_t n = 7;
	char err[128];
	err[sizeof(err) - 1] = 'x';
	if (cal_timings_parse((const char *)data, size, "fuzz", &v, &n, err, sizeof(err)) == 0) {
		if (n == 0 || !v)
			abort();
		for (size_t i = 0; i < n; i++)
			if (!(v[i] >= 0))
				abort();
		free(v);
	} else {
		if (v != NULL || n != 0 || strlen(err) >= sizeof(err) || strncmp(err, "fuzz", 4))
			abort();
	}
	return 0;
}
