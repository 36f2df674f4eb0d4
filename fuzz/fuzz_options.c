/* libFuzzer target for the option values the programs parse by hand: the
 * agent's --collector HOST:PORT (shared/cmdline.c), the collector's
 * --threshold N|P% (collector/verdict.c), "mpiwatch analyze imbalance
 * --threshold" (imbalance/imb_analyze.c) and the number parsers of the
 * settings files (shared/conf.c).  Each must accept or refuse any string
 * cleanly, and what it accepts must be in range. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "conf.h"
#include "imb.h"
#include "verdict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), host[64];
	unsigned short port = 0;
	struct col_threshold ct;
	struct imb_threshold it;
	long l;
	double d;
	int b;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	memset(host, 'x', sizeof(host));
	if (mw_parse_hostport(s, host, sizeof(host), &port) == 0 &&
	    (port == 0 || memchr(host, '\0', sizeof(host)) == NULL))
		abort();
	if (col_threshold_parse(s, &ct) == 0 &&
	    !(ct.percent ? ct.value > 0 && ct.value <= 100 : ct.value >= 1 && ct.value <= 16777216))
		abort();
	if (imb_threshold_parse(s, &it) == 0 && !(it.frac >= 0 || it.abs_us >= 0))
		abort();
	if (mw_conf_parse_long(s, -5, 5, &l) == 0 && (l < -5 || l > 5))
		abort();
	if (mw_conf_parse_double(s, 0, 1, &d) == 0 && !(d >= 0 && d <= 1))
		abort();
	if (mw_conf_parse_bool(s, &b) == 0 && b != 0 && b != 1)
		abort();
	free(s);
	return 0;
}
