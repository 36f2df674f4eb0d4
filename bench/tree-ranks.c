/* tree-ranks N DIR TIMEOUT: one fake stuck rank per "node" for the real-process
 * tree bench (bench/tree-agents, doc/benchmarks.md): ranks 0..N-1 of a world
 * of N, each a monitor slot DIR/nI/rank-I that says "inside MPI_Barrier on
 * world since now, no completion" (the monitor's own slot format,
 * shared/mw_slot.h), published at once, so that every node agent sees its
 * rank stuck after TIMEOUT, at the same moment: one event on every node.
 * The process (the ranks' pid) then sleeps until killed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mw_slot.h"

int main(int argc, char **argv)
{
	int n = argc > 3 ? atoi(argv[1]) : 0;
	struct timespec ts;
	if (n < 1 || n > 100000) {
		fprintf(stderr, "usage: tree-ranks N DIR TIMEOUT\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	for (int i = 0; i < n; i++) {
		char dir[4096];
		struct mw_slot *s;
		snprintf(dir, sizeof dir, "%s/n%d", argv[2], i);
		s = mw_slot_create(dir, i, NULL, 0);
		if (!s) {
			perror(dir);
			return 1;
		}
		s->world_rank = i;
		s->world_size = n;
		s->pid = (int32_t)getpid();
		s->uid = (int32_t)getuid();
		snprintf(s->host, sizeof s->host, "n%d", i);
		s->start_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
		s->timeout_s = atof(argv[3]);
		s->a = 1;
		s->b = 0;
		s->calls = 1;
		s->state = MW_STATE_IN_MPI;
		snprintf(s->call.name, sizeof s->call.name, "MPI_Barrier");
		s->call.kind = MW_KIND_COLLECTIVE;
		s->call.blocking = 1;
		s->resolved_a = 1;
		s->resolved_calls = 1;
		s->peer_world = -1;
		s->root_world = -1;
		snprintf(s->comm_gid, sizeof s->comm_gid, "world");
		mw_slot_publish(s);
	}
	printf("tree-ranks: %d ranks stuck in MPI_Barrier\n", n);
	fflush(stdout);
	pause();
	return 0;
}
