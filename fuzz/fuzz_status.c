/* libFuzzer target for the text "mpiwatch status" prints (cli/statusprint.c)
 * from nodehealthd's status object and from a job's report.json, which the
 * job's user can write: any JSON value, printed to /dev/null. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cli/statusprint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	char *s = malloc(size + 1);
	struct json_object *o;
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	o = json_tokener_parse(s);
	free(s);
	if (!null && !(null = fopen("/dev/null", "w")))
		return 0;
	mw_status_print_node(o, null);
	mw_status_print_job(o, null);
	json_object_put(o);
	return 0;
}
