#!/bin/bash
# 0699: issue 35 ("no rank or helper outlives mpiwatch run in any test").
# Runs after the mpiwatch run tests of the suite (in name order on one lab,
# after t/0103 and t/06NN; with MW_LAB_SHARDS=2 last, alone, after all of
# them, t/0913 too) and fails if any process they started is still there: a collector, agent or
# nodehealthd of an `mpiwatch run` (their files are in its
# /dev/shm/mpiwatch-run.* folder), a launcher (mpirun, mpiexec, Hydra's
# proxy, Open MPI's prted/orted) or a rank of a test program (build/progs/)
# that is not part of a Slurm job of the lab (no slurmstepd above it).  Each
# stray is named with its command line, which holds the test's folder.
. "$(dirname "$0")/lib/tap.sh"
top=$(cd "$(dirname "$0")/.." && pwd)

plan 2

under_slurm() {
    local p=$1 c
    while [ -n "$p" ] && [ "$p" -gt 1 ]; do
        c=$(cat "/proc/$p/comm" 2>/dev/null) || return 1
        [ "$c" = slurmstepd ] && return 0
        p=$(awk '{print $4}' "/proc/$p/stat" 2>/dev/null)
    done
    return 1
}

strays=()
helpers=()
for d in /proc/[0-9]*; do
    pid=${d#/proc/}
    [ "$pid" = $$ ] && continue
    exe=$(readlink "$d/exe" 2>/dev/null) || continue
    cmd=$(tr '\0' ' ' <"$d/cmdline" 2>/dev/null)
    comm=$(cat "$d/comm" 2>/dev/null)
    case "$exe" in
    */mpiwatch-collector|*/mpiwatch-agent|*/mpiwatch-nodehealthd)
        # the lab's own daemons are started by t/lab with their node's conf
        case "$cmd" in *mpiwatch-run.*) helpers+=("$pid: $cmd") ;; esac ;;
    "$top"/build*/progs/*)
        under_slurm "$pid" || strays+=("$pid: $cmd") ;;
    *)
        case "$comm" in
        mpirun*|mpiexec*|hydra_pmi_proxy|prterun|prted|orted|orterun)
            under_slurm "$pid" || strays+=("$pid: $cmd") ;;
        esac ;;
    esac
done
is "${#helpers[@]}" 0 "no collector, agent or nodehealthd of an mpiwatch run is left"
for s in "${helpers[@]}"; do diag "left: $s"; done
is "${#strays[@]}" 0 "no launcher or rank of a test program is left outside Slurm"
for s in "${strays[@]}"; do diag "left: $s"; done
done_testing
