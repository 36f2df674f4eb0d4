/* libFuzzer target for the probe wire format (shared/probe.c): the daemon's
 * probe parser, the client's reply parser, and the reply encoder's bounds. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t nonce[MW_PROBE_NONCE_LEN], out[MW_PROBE_MAX_SIZE];
	struct mw_probe_reply r;
	char text[512];
	int len;

	/* As a probe: if accepted, the reply must fit in it. */
	if (mw_probe_decode_probe(data, size, nonce) == MW_PROBE_OK) {
		len = mw_probe_encode_reply(out, sizeof(out), size, nonce, MW_PROBE_DEGRADED, 3, 9, "node",
					    "summary that is long enough to matter");
		if (len < 0 || (size_t)len > size)
			abort();
		if (mw_probe_decode_reply(out, (size_t)len, &r) != MW_PROBE_OK || memcmp(r.nonce, nonce, sizeof(nonce)))
			abort();
	}
	/* As a reply. */
	if (mw_probe_decode_reply(data, size, &r) == MW_PROBE_OK) {
		if (strlen(r.name) > MW_PROBE_NAME_MAX || strlen(r.summary) > MW_PROBE_SUMMARY_MAX)
			abort();
	}
	/* As text for the encoder: arbitrary name and summary, any probe size. */
	if (size >= 2) {
		size_t probe_len = (size_t)data[0] * 8, cut = data[1] % (size - 1);
		size_t nl = cut < sizeof(text) - 1 ? cut : sizeof(text) - 1;
		char *summary;
		memcpy(text, data + 2, nl > size - 2 ? size - 2 : nl);
		text[nl > size - 2 ? size - 2 : nl] = 0;
		summary = strndup((const char *)data + 2, size - 2);
		memset(nonce, 0xab, sizeof(nonce));
		struct mw_probe_factors f = {(double)data[0] / 7, (double)data[1] * 1000, data[1]};
		/* and the calibration block (flag bit 2), with or without the factors */
		struct mw_probe_calib k = {(double)data[1] * 97.5, (double)data[0] / 3, data[0] & 4};
		len = mw_probe_encode_reply_ex(out, sizeof(out), probe_len, nonce, MW_PROBE_ALIVE, 0, 0, text, summary,
					       data[0] & 1 ? &f : NULL, data[0] & 2 ? &k : NULL);
		if (len >= 0) {
			if ((size_t)len > probe_len)
				abort();
			if (mw_probe_decode_reply(out, (size_t)len, &r) != MW_PROBE_OK)
				abort();
			if (r.has_calib && (r.cal.interval_ns < k.interval_ns || r.cal.interval_ns > k.interval_ns + 1 ||
					    r.cal.degraded != (k.degraded != 0)))
				abort();
		}
		free(summary);
	}
	return 0;
}
