#!/bin/bash
# bench/lammps.sh [PAIRS]: libmpiwatch's overhead on a real application.
# LAMMPS (Open MPI build, `lmp`) runs the 3D Lennard-Jones melt (box
# 0 20 0 20 0 20, run 1000) on 2 ranks, PAIRS times without and with
# LD_PRELOAD=build/lib/libmpiwatch.so, interleaved (the order alternates).
# Prints each pair's wall times and the median of the per-pair ratios.
set -u
cd "$(dirname "$0")/.." || exit 1
PAIRS=${1:-5}
LIB=$PWD/build/lib/libmpiwatch.so
work=$(mktemp -d /tmp/mpiwatch-lammps.XXXXXX)
trap 'rm -rf "$work"' EXIT
if [ -r /usr/share/lammps/examples/melt/in.melt ]; then
    sed -e 's/^region.*box block.*/region\t\tbox block 0 20 0 20 0 20/' -e 's/^run.*/run\t\t1000/' \
        /usr/share/lammps/examples/melt/in.melt >"$work/in.melt"
else
    cp bench/in.melt "$work/in.melt"
fi
cd "$work" || exit 1
now() { date +%s.%N; }
run() { # run plain|mon: print the wall time in seconds
    local t0 t1
    t0=$(now)
    if [ "$1" = mon ]; then
        mpirun.openmpi --allow-run-as-root -np 2 -x "LD_PRELOAD=$LIB" lmp -in in.melt -log none -screen none
    else
        mpirun.openmpi --allow-run-as-root -np 2 lmp -in in.melt -log none -screen none
    fi
    t1=$(now)
    awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}'
}
ratios=()
for ((i = 1; i <= PAIRS; i++)); do
    if ((i % 2)); then p=$(run plain); m=$(run mon); else m=$(run mon); p=$(run plain); fi
    r=$(awk -v m="$m" -v p="$p" 'BEGIN {printf "%.4f", m / p}')
    ratios+=("$r")
    echo "pair $i: plain $p s, monitored $m s, ratio $r"
done
med=$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.4f\n", (a[NR/2]+a[NR/2+1])/2}')
# How many MPI calls does LAMMPS make?  One profiled run (profile = yes in
# the ranks' settings file):
# calls per rank x the per-call cost from bench/pingpong.sh / the run time
# is the overhead to expect, free of the machine's noise.
printf '%s\n' "profile = yes" "profile_dir = $work/prof" >"$work/prof.conf"
t0=$(now)
mpirun.openmpi --allow-run-as-root -np 2 -x "LD_PRELOAD=$LIB" -x "MPIWATCH_SETTINGS=$work/prof.conf" \
    lmp -in in.melt -log none -screen none
t1=$(now)
calls=$(awk 'NR > 2 && /GROUP="MPI/ {c += $(NF-5)} END {print c + 0}' "$work/prof/profile.0.0.0")
echo "profiled run: $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}') s; rank 0 made $calls wrapped MPI calls;" \
    "at ${PER_CALL_NS:-12} ns per call that is $(awk -v c="$calls" -v n="${PER_CALL_NS:-12}" -v a="$t0" -v b="$t1" \
    'BEGIN {printf "%.4f", c * n / 1e9 / (b - a) * 100}') % of the run"
echo "SUMMARY: median ratio monitored/plain $med ($(awk -v r="$med" 'BEGIN {printf "%+.2f", (r - 1) * 100}') %) over $PAIRS interleaved pairs"
