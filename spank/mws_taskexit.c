/* mws_taskexit.c - record a task's exit status in its monitor slot. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "mw_slot.h"
#include "mws_taskexit.h"

int mws_task_exit_record(spank_t sp, const char *rundir)
{
	uint32_t rank = 0;
	int status = 0;
	pid_t pid = 0;
	char path[PATH_MAX + 32];
	struct mw_slot *slot;

	if (spank_get_item(sp, S_TASK_GLOBAL_ID, &rank) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_TASK_EXIT_STATUS, &status) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS)
		return 0;
	snprintf(path, sizeof(path), "%s/rank-%u", rundir, rank);
	slot = mw_slot_map(path, 1);
	if (!slot)
		return 0;
	/* The world rank is the task id under srun; the pid proves it. */
	if (slot->pid == (int32_t)pid)
		mw_slot_set_exit(slot, status);
	mw_slot_unmap(slot);
	return 0;
}
