/* libFuzzer target for the SPANK plugin's option parsers (spank/mws_opts.c):
 * the --mpiwatch argument and plugstack.conf arguments. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../spank/mws_opts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), err[1024], th[32];
	struct mws_user u;
	struct mws_site site;
	char *argv[16];
	int argc = 0;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	mws_user_defaults(&u);
	mws_site_defaults(&site);
	mws_user_parse(s, &u, err, sizeof(err));
	mws_threshold_str(&site, &u, th, sizeof(th));
	/* The same bytes as whitespace-split plugstack arguments. */
	for (char *save = NULL, *w = strtok_r(s, " \t\n", &save); w && argc < 16;
	     w = strtok_r(NULL, " \t\n", &save))
		argv[argc++] = w;
	mws_site_parse(argc, argv, &site, err, sizeof(err));
	free(s);
	return 0;
}
