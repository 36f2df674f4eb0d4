/* libFuzzer target for the collector's reading of a Slurm job's output
 * file (collector/joblog.c): the first line of the input is the job's
 * standard_output pattern (col_joblog_path), the rest the file's content,
 * scanned for the MPI library's crash reports and error lines
 * (col_joblog_scan). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../collector/joblog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mw_slurm_job j = {0};
	struct col_state s;
	char path[64], out[256];
	const uint8_t *nl = memchr(data, '\n', size);
	size_t k = nl ? (size_t)(nl - data) : size;
	int fd;
	j.batch = 1;
	snprintf(j.user, sizeof j.user, "u");
	snprintf(j.workdir, sizeof j.workdir, "/w");
	snprintf(j.std_out, sizeof j.std_out, "%.*s", (int)(k < 4000 ? k : 4000), (const char *)data);
	col_joblog_path(&j, "42", out, sizeof out);
	if ((fd = memfd_create("joblog", 0)) < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size && col_state_init(&s, "42") == 0) {
		col_state_node(&s, "n2");
		col_state_grow(&s, 3);
		s.ranks[1].pid = 4242;
		s.ranks[1].node = 0;
		s.ranks[2].pid = 7;
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		int nerr;
		col_joblog_scan(&s, path, &nerr);
		col_state_free(&s);
	}
	close(fd);
	return 0;
}
