#!/bin/bash
# bench/overhead.sh APP PAIRS [MODE]: libmpiwatch's overhead on a real MPI
# application, judged with a rank-sum test on many interleaved pairs.
#
#   APP   lammps  LAMMPS (Open MPI build, `lmp`): the 3D Lennard-Jones melt
#                 of bench/in.melt (box 0 20 0 20 0 20) with `run STEPS`
#                 (STEPS=1000 by default), 2 ranks
#         hpcc    HPC Challenge (Debian's hpcc, Open MPI): HPL N=HPCC_N
#                 (default 1000), PTRANS, MPIRandomAccess, MPIFFT and the
#                 latency/bandwidth tests, 2 ranks (P=1, Q=2)
#         startup bench/mpi-startup.c (MPI_Init, MPI_Barrier, MPI_Finalize):
#                 the fixed cost of a run, 2 ranks
#   PAIRS number of off/on pairs; the order inside a pair alternates
#   MODE  on (default): LD_PRELOAD=build/lib/libmpiwatch.so against no
#         preload; profile: the same with profile = yes in a settings file (the profile
#         mode, a timestamp on every call) against no preload; profile-on:
#         the profile mode against the monitor alone
#
# Each run is timed by bash's time to the millisecond: wall seconds, and CPU
# seconds (user + system of mpirun and every rank it waited for).  The two
# samples of each figure are judged by bench/overhead-stats (the Mann-Whitney U test of
# calib/cal_stats, the Hodges-Lehmann shift with its 95 % interval).  Run it
# under /tmp/mw-heavy.lock, in chunks of about 10 minutes: OUT (default
# /tmp/mpiwatch-overhead-APP-MODE) keeps the samples, so a second call with
# the same OUT adds pairs to the first.  For hpcc, each kernel's own time
# (hpccoutf.txt: HPL_time, PTRANS_time, MPIRandomAccess_time,
# MPIRandomAccess_LCG_time; MPIFFT_Gflops, higher is faster) is judged the
# same way, so the cost is placed in the kernel that pays it.  Instructions
# retired are counted with
# `perf stat -e instructions:u` when the machine's PMU allows it.
set -u
cd "$(dirname "$0")/.." || exit 1
APP=${1:?usage: bench/overhead.sh lammps|hpcc|startup PAIRS [on|profile|profile-on]}
PAIRS=${2:?usage: bench/overhead.sh lammps|hpcc|startup PAIRS [on|profile|profile-on]}
MODE=${3:-on}
LIB=${MPIWATCH_BENCH_LIB:-$PWD/build/lib/libmpiwatch.so}
STATS=$PWD/build/bench/overhead-stats
OUT=${OUT:-/tmp/mpiwatch-overhead-$APP-$MODE}
[ -x "$STATS" ] || { echo "build $STATS first (make build-all)" >&2; exit 1; }
. bench/hpcc-common.sh
mkdir -p "$OUT/work" || exit 1
work=$OUT/work
case $APP in
lammps)
    sed -e "s/^run.*/run\t\t${STEPS:-1000}/" bench/in.melt >"$work/in.melt"
    cmd=(lmp -in in.melt -log none -screen none) ;;
hpcc)
    hpcc_input "$work"
    cmd=(hpcc) ;;
startup)
    mpicc.openmpi -O2 -o "$work/mpi-startup" bench/mpi-startup.c || exit 1
    cmd=(./mpi-startup) ;;
*) echo "unknown APP $APP (lammps, hpcc or startup)" >&2; exit 1 ;;
esac
# profile mode: the ranks' settings file (the monitor reads no other source)
printf '%s\n' "profile = yes" "profile_dir = $work/prof" >"$work/prof.conf"
case $MODE in
on) a=() b=(-x "LD_PRELOAD=$LIB") ;;
profile) a=() b=(-x "LD_PRELOAD=$LIB" -x "MPIWATCH_SETTINGS=$work/prof.conf") ;;
profile-on) a=(-x "LD_PRELOAD=$LIB") b=(-x "LD_PRELOAD=$LIB" -x "MPIWATCH_SETTINGS=$work/prof.conf") ;;
*) echo "unknown MODE $MODE" >&2; exit 1 ;;
esac
perf=()
if perf stat -x, -e instructions:u true 2>&1 | grep -q '^[0-9]'; then
    perf=(perf stat -x, -o "$work/perf" -e instructions:u --)
else
    echo "instructions retired: not counted (perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null);" \
        "$(perf stat -e instructions:u true 2>&1 | grep -o 'not supported' | head -1 || echo 'no perf'): the PMU is not exposed here)"
fi
cd "$work" || exit 1
run() { # run off|on: append "wall cpu [instructions]" to $OUT/<which>
    local which=$1 extra
    if [ "$which" = off ]; then extra=("${a[@]}"); else extra=("${b[@]}"); fi
    rm -rf prof hpccoutf.txt
    local TIMEFORMAT='%3R %3U %3S'
    { time "${perf[@]}" mpirun.openmpi --allow-run-as-root -np 2 "${extra[@]}" "${cmd[@]}" \
        >/dev/null 2>run.err; } 2>time.txt ||
        { echo "run failed: $(tail -3 run.err)" >&2; exit 1; }
    read -r w u s <time.txt
    ins=$( [ ${#perf[@]} -gt 0 ] && awk -F, '/instructions/ {print $1}' perf)
    awk -v w="$w" -v u="$u" -v s="$s" 'BEGIN {printf "%.3f\n", w}' >>"$OUT/$which.wall"
    awk -v w="$w" -v u="$u" -v s="$s" 'BEGIN {printf "%.3f\n", u + s}' >>"$OUT/$which.cpu"
    [ -n "$ins" ] && echo "$ins" >>"$OUT/$which.ins"
    if [ "$APP" = hpcc ]; then
        for k in $KERNELS; do
            v=$(sed -n "s/^$k=//p" hpccoutf.txt)
            [ -n "$v" ] || { echo "run failed: no $k in hpccoutf.txt" >&2; exit 1; }
            echo "$v" >>"$OUT/$which.k.$k"
        done
    fi
    echo "$w $(awk -v u="$u" -v s="$s" 'BEGIN {printf "%.3f", u + s}') $ins"
}
KERNELS=$HPCC_KERNELS
start=$(cat "$OUT/off.wall" 2>/dev/null | wc -l)
for ((i = start + 1; i <= start + PAIRS; i++)); do
    if ((i % 2)); then
        p=$(run off) || exit 1; m=$(run on) || exit 1
    else
        m=$(run on) || exit 1; p=$(run off) || exit 1
    fi
    echo "$APP $MODE pair $i: off wall/cpu $p; on wall/cpu $m"
done
"$STATS" --label "$APP $MODE wall s" "$OUT/off.wall" "$OUT/on.wall"
"$STATS" --label "$APP $MODE cpu s" "$OUT/off.cpu" "$OUT/on.cpu"
[ -s "$OUT/off.ins" ] && "$STATS" --label "$APP $MODE instructions" "$OUT/off.ins" "$OUT/on.ins"
if [ "$APP" = hpcc ]; then
    for k in $KERNELS; do
        [ -s "$OUT/off.k.$k" ] && "$STATS" --label "$APP $MODE $k" "$OUT/off.k.$k" "$OUT/on.k.$k"
    done
fi
exit 0
