/* fuzz_heartbeat: the agent <-> collector frame decoder (shared/heartbeat.c).
 * The input is a byte stream: frames are cut with mw_hb_frame_check() as the
 * collector does, each decoded; a decoded message must encode again and
 * decode to the same type, and that message encodes to the same bytes (the
 * layout table's walkers agree with each other: shared/hb_layout.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heartbeat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;
	while (off < size) {
		size_t flen = 0;
		struct mw_hb_msg m, again;
		uint8_t *buf;
		size_t len;
		enum mw_hb_err e = mw_hb_frame_check(data + off, size - off, &flen);
		if (e != MW_HB_OK)
			break;
		if (mw_hb_decode(data + off, flen, &m) == MW_HB_OK) {
			if (mw_hb_encode(&m, &buf, &len) == 0) {
				uint8_t *buf2;
				size_t len2;
				if (mw_hb_decode(buf, len, &again) != MW_HB_OK || again.type != m.type)
					abort();
				if (mw_hb_encode(&again, &buf2, &len2) != 0 || len2 != len ||
				    memcmp(buf, buf2, len) != 0)
					abort();
				free(buf2);
				mw_hb_msg_free(&again);
				free(buf);
			}
			mw_hb_msg_free(&m);
		}
		off += flen;
	}
	return 0;
}
