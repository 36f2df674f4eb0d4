#!/bin/bash
# bench/pingpong.sh [RUNS] [ITERS] [PAIRS]: the latency libmpiwatch adds to
# an MPI call, for Open MPI (mpirun) and MPICH (mpiexec), two ranks on this
# node.  t/progs/mon_pingpong times, inside the same two processes and
# interleaved, batches of a 0-byte ping-pong through MPI_Send/MPI_Recv
# (wrapped when the library is preloaded) and through PMPI_Send/PMPI_Recv
# (never wrapped), and the same for MPI_Iprobe on MPI_COMM_SELF (the wrapper
# alone, no communication).  Runs alternate WITHOUT (control: the
# MPI-vs-PMPI difference is noise) and WITH LD_PRELOAD.  A one-way trip has
# one wrapped MPI_Send and one wrapped MPI_Recv on its critical path, so the
# added latency per call is half the one-way difference.
set -u
cd "$(dirname "$0")/.." || exit 1
RUNS=${1:-10}
ITERS=${2:-1000}
PAIRS=${3:-101}
LIB=${MPIWATCH_BENCH_LIB:-$PWD/build/lib/libmpiwatch.so}  # e.g. build/lib/libmpiwatch-portable.so
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.1f\n", (a[NR/2]+a[NR/2+1])/2}'; }
field() { awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) print $(i+1)}'; }
for mpi in openmpi mpich; do
    prog=$PWD/build/progs/$mpi/mon_pingpong
    [ -x "$prog" ] || { echo "build $prog first (make progs)" >&2; exit 1; }
    if [ $mpi = openmpi ]; then
        plain=(mpirun.openmpi --allow-run-as-root -np 2 "$prog" "$ITERS" "$PAIRS")
        mon=(mpirun.openmpi --allow-run-as-root -np 2 -x "LD_PRELOAD=$LIB" "$prog" "$ITERS" "$PAIRS")
    else
        plain=(mpiexec.mpich -np 2 "$prog" "$ITERS" "$PAIRS")
        mon=(mpiexec.mpich -np 2 -env LD_PRELOAD "$LIB" "$prog" "$ITERS" "$PAIRS")
    fi
    : >"/tmp/pp.$$.c"
    : >"/tmp/pp.$$.m"
    for ((r = 1; r <= RUNS; r++)); do
        c=$("${plain[@]}" | tail -n1)
        m=$("${mon[@]}" | tail -n1)
        echo "$c" >>"/tmp/pp.$$.c"
        echo "$m" >>"/tmp/pp.$$.m"
        echo "$mpi run $r: control: $c"
        echo "$mpi run $r: preload: $m"
    done
    for k in mpi pmpi diff iprobe_diff; do
        eval "c_$k=\$(field $k </tmp/pp.$$.c | median)"
        eval "m_$k=\$(field $k </tmp/pp.$$.m | median)"
    done
    echo "$mpi SUMMARY: one-way latency (median of runs): preloaded MPI_* $m_mpi ns, PMPI_* $m_pmpi ns;" \
        "paired MPI-PMPI difference: preloaded $m_diff ns, control $c_diff ns;" \
        "added per MPI call ~ $(awk -v a="$m_diff" -v b="$c_diff" 'BEGIN {printf "%.1f", (a - b) / 2}') ns (ping-pong)," \
        "$(awk -v a="$m_iprobe_diff" -v b="$c_iprobe_diff" 'BEGIN {printf "%.1f", a - b}') ns (MPI_Iprobe, no communication)"
    rm -f "/tmp/pp.$$.c" "/tmp/pp.$$.m"
done
