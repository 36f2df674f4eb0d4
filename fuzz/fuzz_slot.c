/* fuzz_slot.c - the slot reader (shared/slot.c) on arbitrary file contents:
 * a slot is written by an unprivileged MPI process and read by the agent. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mw_slot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	struct mw_slot *s;
	struct mw_slot_snap sn;
	FILE *f;
	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/fuzz_slot.%d", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return 0;
	/* make the header valid half of the time so the rest is reached */
	if (size > 0 && (data[0] & 1) && size >= 16) {
		struct {
			uint64_t m;
			uint32_t v, sz;
		} h = {MW_SLOT_MAGIC, MW_SLOT_VERSION, (uint32_t)sizeof(struct mw_slot)};
		fwrite(&h, sizeof(h), 1, f);
		fwrite(data + 16, 1, size - 16, f);
	} else {
		fwrite(data, 1, size, f);
	}
	/* most inputs are short: pad to a slot's size unless the first byte says not to */
	if (size == 0 || !(data[0] & 2))
		if (ftruncate(fileno(f), MW_SLOT_SIZE) != 0)
			return fclose(f), 0;
	fclose(f);
	s = mw_slot_map(path, 0);
	if (s) {
		mw_slot_snapshot(s, &sn);
		/* every string of a snapshot is terminated */
		if (strlen(sn.s.host) >= sizeof(sn.s.host) || strlen(sn.s.call.name) >= sizeof(sn.s.call.name) ||
		    strlen(sn.s.dump_path) >= sizeof(sn.s.dump_path) || strlen(sn.s.comm_gid) >= sizeof(sn.s.comm_gid))
			abort();
		(void)mw_slot_state_name(sn.s.state);
		(void)mw_slot_kind_name(sn.s.call.kind);
		(void)mw_slot_mode_name(sn.s.call.mode);
		mw_slot_unmap(s);
	}
	unlink(path);
	return 0;
}
