/* libFuzzer target for the reading of slurmrestd's reply to the job comment's
 * POST (col_restd_reply_errors, collector/restd.c): whatever the server
 * sends, the answer is "errors" with a bounded message that says so, or
 * "no errors" with the message untouched. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "restd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *body = malloc(size + 1), msg[64];
	int r;
	if (!body)
		return 0;
	memcpy(body, data, size);
	body[size] = 0;
	memset(msg, 'x', sizeof msg);
	msg[sizeof msg - 1] = 0;
	r = col_restd_reply_errors(body, msg, sizeof msg);
	if (r != 0 && r != 1)
		abort();
	if (r == 1 && strncmp(msg, "slurmrestd: ", 12) != 0)
		abort();
	if (r == 0 && (strspn(msg, "x") != sizeof msg - 1))
		abort();
	free(body);
	return 0;
}
