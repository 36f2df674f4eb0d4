#!/bin/bash
# 0500: real deadlocking programs under the monitor (openmpi, mpirun on this
# machine): the analysis finds each and names its kind, cause and ranks.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/dl.sh"
dl_have openmpi || skip_all "openmpi or build/lib/libmpiwatch.so or build/bin/mpiwatch missing"
plan $((${#DL_CASES[@]} * 6))
dl_deadlock_cases openmpi
done_testing
