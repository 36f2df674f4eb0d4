#!/bin/bash
# bench/hpcc-poll-instructions.sh [LIB]: instructions libmpiwatch executes
# per MPI_Testany and per MPI_Test of hpcc's MPIRandomAccess (its polls),
# counted by valgrind's callgrind on hpcc itself (deterministic: the count
# does not move with the machine's load, as bench/overhead.sh's times do).
# Debian's hpcc, Open MPI, 2 ranks (P=1, Q=2), N = HPCC_N (default 200: a
# small table, about 130 000 MPI_Testany per rank, about a minute under
# callgrind).  Rank 0's profile: every line of a libmpiwatch function on the
# path of the op (trampoline, wrapper, the out-of-line completion part
# mwr_*, the record writers mwf_*, mwb_*, the skip path mwk_* and its
# completion mws_*, the compare path mwp_*, the general wrapper mwx_*, and the
# lines of monitor/mwm.h and mwm_glue.h inlined into the
# wrapper, which callgrind lists without an object), divided by the op's
# calls (the trampoline's call count).  LIB defaults to
# build/lib/libmpiwatch.so; KEEP=1 keeps the callgrind files.
set -u
cd "$(dirname "$0")/.." || exit 1
LIB=${1:-$PWD/build/lib/libmpiwatch.so}
out=$(mktemp -d /tmp/mpiwatch-hpcc-cg.XXXXXX)
[ -n "${KEEP:-}" ] && echo "callgrind files kept in $out" || trap 'rm -rf "$out"' EXIT
. bench/hpcc-common.sh
. bench/wrapper-fns.sh
HPCC_N=${HPCC_N:-200} hpcc_input "$out"
(cd "$out" && mpirun.openmpi --allow-run-as-root -np 2 -x "LD_PRELOAD=$LIB" valgrind -q --tool=callgrind \
    --callgrind-out-file="$out/cg.%q{OMPI_COMM_WORLD_RANK}" hpcc >/dev/null 2>&1) || exit 1
# the library's object name as callgrind lists it (libmpiwatch.so, or
# libmpiwatch-portable.so: matching the first alone gave the portable one
# no call count, and no figure)
obj=$(basename "$LIB" | sed 's/[.]/[.]/g')
for op in Testany Test; do
    # the op's calls: those of its trampoline (MPI_x in LIB: ???:MPI_x, or
    # forward.c:MPI_x in the portable one; run
    # from the profile's folder: from the source tree callgrind_annotate
    # leaves that caller line out)
    calls=$(cd "$out" && callgrind_annotate --tree=caller --threshold=100 cg.0 |
        sed -n 's/.*< [^ ]*:MPI_'"$op"' (\([0-9,]*\)x) \[.*'"$obj"'\].*/\1/p' | head -1 | tr -d ,)
    callgrind_annotate --threshold=100 "$out/cg.0" | sed -e 's/ *(.*%) */ /' |
        awk -v fns="$MW_WRAPPER_FNS" -v op="$op" -v calls="${calls:-0}" '
            { fn = $2; sub(/^.*:/, "", fn); obj = $3 }
            (obj == "" || obj ~ /libmpiwatch/) && fn ~ ("^(" fns ")?MPI_" op "$") { gsub(",", "", $1); n += $1; print }
            END { if (calls > 0) printf "SUMMARY: MPI_%s in MPIRandomAccess: %d calls, %.1f instructions per call\n", op, calls, n / calls }'
done
