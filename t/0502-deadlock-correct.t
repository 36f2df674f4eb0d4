#!/bin/bash
# 0502: correct programs under the monitor with a 1 s timeout (a master idling
# in MPI_Recv(MPI_ANY_SOURCE) while the workers compute, a Waitany over
# staggered workers, a ping-pong with long compute phases on both sides):
# they finish, dumps are written, and the analysis reports no deadlock.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/dl.sh"
mpis=()
for m in openmpi mpich; do dl_have $m && mpis+=("$m"); done
[ ${#mpis[@]} -gt 0 ] || skip_all "no MPI or build/lib/libmpiwatch.so missing"
plan $((${#mpis[@]} * ${#DL_OK_CASES[@]} * 4))
for m in "${mpis[@]}"; do dl_correct_cases "$m"; done
done_testing
