#!/bin/bash
# bench/test-poll.sh [RUNS [MPI]]: ns the monitor adds to a polling MPI_Test,
# MPI_Testany(4), MPI_Testsome(4), MPI_Testall(4) and MPI_Iprobe, one rank
# (bench/test-poll.c); MPI is openmpi (default) or mpich.  RUNS (default 5)
# runs with LD_PRELOAD=$MPIWATCH_BENCH_LIB (default build/lib/libmpiwatch.so)
# alternating with control runs without it (their MPI-vs-PMPI difference is
# the noise).  hpcc's MPIRandomAccess makes millions of these calls
# (doc/benchmarks.md).
#
# bench/test-poll.sh --instructions [MPI]: instructions libmpiwatch executes
# per polling call, counted by valgrind's callgrind (deterministic, no
# hardware counter needed): test-poll with n = 2000, pairs = 3 (6000 calls
# of each), every libmpiwatch function on the path (trampoline, wrapper,
# out-of-line helpers mwr_, mwf_, mwb_, mwx_ (the last three counted since
# 2026-11-28 17:30) and the skip path's mwk_, mws_, mwp_, mwy_ (2026-11-29),
# and the lines of monitor/mwm.h and mwm_glue.h
# inlined into the wrapper, which callgrind lists apart, without an object:
# before 2026-11-28 14:00 they were left out) divided by 6000; then MPI_Testany over a request
# array that changes on every call (the full record) alone, likewise; then
# hpcc's pattern alone (MPI_Testany over 16 requests alternating with an
# MPI_Test: 3000 of each).  The libc memcmp/memcpy the wrappers call for
# arrays over 8 handles are counted apart (any caller's).
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/wrapper-fns.sh
LIB=${MPIWATCH_BENCH_LIB:-$PWD/build/lib/libmpiwatch.so}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if [ "${1:-}" = --instructions ]; then
    MPI=${2:-openmpi}
    mpicc.$MPI -O2 -o "$dir/test-poll" bench/test-poll.c || exit 1
    for kinds in 01234 6 7; do
        if [ "$MPI" = openmpi ]; then
            mpirun.openmpi --allow-run-as-root -np 1 -x "LD_PRELOAD=$LIB" valgrind -q --tool=callgrind \
                --callgrind-out-file="$dir/cg" "$dir/test-poll" 2000 3 $kinds >/dev/null || exit 1
        else
            mpirun.mpich -np 1 -env LD_PRELOAD "$LIB" valgrind -q --tool=callgrind \
                --callgrind-out-file="$dir/cg" "$dir/test-poll" 2000 3 $kinds >/dev/null || exit 1
        fi
        callgrind_annotate --threshold=100 "$dir/cg" | sed -e 's/ *(.*%) */ /' |
            awk -v fns="$MW_WRAPPER_FNS" -v tail="$(case $kinds in 6) echo ' (changing array)' ;; 7) echo ' (hpcc pattern)' ;; esac)" \
                -v calls="$( [ $kinds = 7 ] && echo 3000 || echo 6000)" \
                '# a line is "Ir file:function [object]"; the lines of code inlined
                 # into a wrapper (monitor/mwm.h, mwm_glue.h) carry no object
                 { fn = $2; sub(/^.*:/, "", fn); obj = $3 }
                 (obj == "" || obj ~ /libmpiwatch/) && fn ~ ("^(" fns ")?MPI_(Test|Iprobe)") {
                     gsub(",", "", $1); print
                     op = fn; sub("^(" fns ")?MPI_", "", op); n[op] += $1
                 }
                 obj ~ /libmpiwatch/ && fn ~ /^mwm_(req_done|begin|commit|finish|poll)/ { print }
                 obj ~ /libc/ && fn ~ /(memcmp|memmove|memcpy)/ { gsub(",", "", $1); libc += $1 }
                 END { for (o in n) printf "SUMMARY: MPI_%s%s %.1f instructions per call\n", o, tail, n[o] / calls
                       printf "SUMMARY: libc memcmp/memcpy (any caller: the wrappers above 8 handles)%s %.1f per call\n", tail, libc / calls }'
        rm -f "$dir/cg"
    done
    exit 0
fi
RUNS=${1:-5}
MPI=${2:-openmpi}
mpicc.$MPI -O2 -o "$dir/test-poll" bench/test-poll.c || exit 1
for ((r = 1; r <= RUNS; r++)); do
    if [ "$MPI" = openmpi ]; then
        echo "run $r control: $(mpirun.openmpi --allow-run-as-root -np 1 "$dir/test-poll")"
        echo "run $r preload: $(mpirun.openmpi --allow-run-as-root -np 1 -x "LD_PRELOAD=$LIB" "$dir/test-poll")"
    else
        echo "run $r control: $(mpirun.mpich -np 1 "$dir/test-poll")"
        echo "run $r preload: $(mpirun.mpich -np 1 -env LD_PRELOAD "$LIB" "$dir/test-poll")"
    fi
done
