#!/bin/bash
# bench/wrapper-instructions.sh [LIB]: instructions the monitor executes per
# wrapped MPI call, counted by valgrind's callgrind (deterministic: unlike a
# time, the count does not move with the machine's load, and it needs no
# hardware counter).  Rank 1 of t/progs/mon_pingpong (Open MPI, 2 ranks,
# `mon_pingpong 1000 3`) makes 5000 MPI_Send, 5000 MPI_Recv and 30000
# MPI_Iprobe calls through the wrappers; every function of libmpiwatch*.so
# on that path (trampoline, wrapper, the fast-path helpers where they are
# not inlined, every function gen.py generates around the call
# (bench/wrapper-fns.sh: MPI_Iprobe's skip path mwk_ and compare path mwp_
# since 2026-11-29, session 13), and the lines of monitor/mwm.h inlined into the wrappers,
# which callgrind lists apart without an object) is listed with its instruction count (Ir), and the sum is
# divided by the 40000 calls.  LIB defaults to build/lib/libmpiwatch.so.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/wrapper-fns.sh
LIB=${1:-$PWD/build/lib/libmpiwatch.so}
prog=$PWD/build/progs/openmpi/mon_pingpong
out=$(mktemp -d /tmp/mpiwatch-cg.XXXXXX)
trap 'rm -rf "$out"' EXIT
mpirun.openmpi --allow-run-as-root -np 2 -x "LD_PRELOAD=$LIB" valgrind -q --tool=callgrind \
    --callgrind-out-file="$out/cg.%q{OMPI_COMM_WORLD_RANK}" "$prog" 1000 3 >/dev/null || exit 1
callgrind_annotate --threshold=100 "$out/cg.1" | sed -e 's/ *(.*%) */ /' |
    awk -v fns="$MW_WRAPPER_FNS" '# a line is "Ir file:function [object]"; the lines of monitor/mwm.h
         # inlined into a wrapper carry no object (left out before 2026-11-28)
         { fn = $2; sub(/^.*:/, "", fn); obj = $3 }
         (obj == "" || obj ~ /libmpiwatch/) &&
         (fn ~ ("^(" fns ")MPI_(Send|Recv|Iprobe)$") ||
          fn ~ /^(mwm_(begin|commit|finish|sent|ring_push|poll)|MPI_(Send|Recv|Iprobe))$/) {
             gsub(",", "", $1); n += $1; print
         }
         END {printf "SUMMARY: %d instructions in the monitor for 40000 wrapped calls: %.1f per call\n", n, n / 40000}'
