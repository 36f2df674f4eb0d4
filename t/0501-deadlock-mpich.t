#!/bin/bash
# 0501: real deadlocking programs under the monitor (mpich, mpirun on this
# machine): the analysis finds each and names its kind, cause and ranks.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/dl.sh"
dl_have mpich || skip_all "mpich or build/lib/libmpiwatch.so or build/bin/mpiwatch missing"
plan $((${#DL_CASES[@]} * 6))
dl_deadlock_cases mpich
done_testing
