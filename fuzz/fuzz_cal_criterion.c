/* libFuzzer target for the calibration file reader of "mpiwatch analyze
 * fluctuation --calibration FILE" (cal_criterion_load, calib/cal_report.c)
 * and the collector's --calibration FILE (cal_node_load, the same file):
 * the first byte chooses cycles or ns, the rest is the file's content.  A
 * file it accepts gives a criterion in range; one it refuses, a message
 * naming the file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cal_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cal_criterion c;
	char path[64], err[256];
	int fd, resolved = -1, cycles;
	if (size < 1)
		return 0;
	cycles = data[0] & 1;
	if ((fd = memfd_create("calibration", 0)) < 0)
		return 0;
	if (write(fd, data + 1, size - 1) == (ssize_t)(size - 1)) {
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		memset(&c, 0, sizeof c);
		err[0] = 0;
		if (cal_criterion_load(path, cycles, &c, &resolved, err, sizeof err) == 0) {
			if (!(c.q > 0 && c.q < 1) || !(c.alpha > 0 && c.alpha < 1) || !(c.resolution >= 0) ||
			    !(c.relative >= 0 && c.relative < 1) || (resolved != 0 && resolved != 1))
				abort();
		} else if (strncmp(err, path, strlen(path)) != 0) {
			abort(); /* the message names the file */
		}
		double iv = -1, res = -1;
		err[0] = 0;
		if (cal_node_load(path, &iv, &res, err, sizeof err) == 0) {
			if (!(iv >= 0) || !(res >= 0))
				abort();
		} else if (strncmp(err, path, strlen(path)) != 0) {
			abort();
		}
	}
	close(fd);
	return 0;
}
