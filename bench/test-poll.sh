#!/bin/bash
# bench/test-poll.sh [RUNS]: ns the monitor adds to a polling MPI_Test and
# MPI_Testany(4), Open MPI, one rank; RUNS (default 5) runs with
# LD_PRELOAD=build/lib/libmpiwatch.so alternating with control runs without
# it (their MPI-vs-PMPI difference is the noise).  hpcc's MPIRandomAccess
# makes millions of these calls (doc/benchmarks.md).
set -u
cd "$(dirname "$0")/.." || exit 1
RUNS=${1:-5}
LIB=${MPIWATCH_BENCH_LIB:-$PWD/build/lib/libmpiwatch.so}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mpicc.openmpi -O2 -o "$dir/test-poll" bench/test-poll.c || exit 1
for ((r = 1; r <= RUNS; r++)); do
    echo "run $r control: $(mpirun.openmpi --allow-run-as-root -np 1 "$dir/test-poll")"
    echo "run $r preload: $(mpirun.openmpi --allow-run-as-root -np 1 -x "LD_PRELOAD=$LIB" "$dir/test-poll")"
done
