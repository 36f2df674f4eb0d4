#!/bin/bash
# 0652: issue 35's acceptance: "on every hang of t/progs and the demo
# programs, the answer's first line names the line of the call a user must
# change: the posting call for a wait, the failing call for an MPI error."
#
# The programs say it themselves: the line a user must change carries the
# comment `mpiwatch: blame [-n RANKS] [ARGS...]` (C: /* ... */, Fortran: !),
# (RANKS defaults to 4).  Every way to run a program of t/progs/*.{c,f90}
# and examples/*.{c,f90} that such a comment names is a case; where two
# lines carry the same one (either can be changed), the first line names
# one of them at least.  A program without the
# comment does not hang and has no MPI error (a correct program, a crash by
# a signal, or one that computes forever outside MPI: no MPI call to change).
# Each case runs under `mpiwatch run --timeout 2` with both MPIs, two runs
# side by side (MW_BLAME_JOBS), and the first line of its report.txt must
# name FILE:LINE.  After them, no process or work folder of the runs is left.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/run.sh"

run_setup mw-blame
mpis="openmpi mpich"
jobs=${MW_BLAME_JOBS:-2}

# id|mpi|src|lines|ranks|args, one per case and MPI; lines: LINE[,LINE...]
declare -A lines=()
order=()
while IFS=: read -r path line text; do
    spec=${text##*mpiwatch: blame}
    spec=${spec%%\*/*}
    read -r -a words <<<"$spec"
    n=4
    if [ "${words[0]:-}" = -n ]; then n=${words[1]}; words=("${words[@]:2}"); fi
    key="${path##*/}|$n|${words[*]}"
    [ -n "${lines[$key]:-}" ] || order+=("$key")
    lines[$key]=${lines[$key]:+${lines[$key]},}$line
done < <(cd "$top" && grep -n 'mpiwatch: blame' t/progs/*.c t/progs/*.f90 examples/*.c examples/*.f90)
cases=()
for key in "${order[@]}"; do
    IFS='|' read -r src n args <<<"$key"
    for mpi in $mpis; do
        cases+=("$mpi-${src%.*}-${args// /_}|$mpi|$src|${lines[$key]}|$n|$args")
    done
done

plan $(( ${#cases[@]} + 2 ))
cmp_ok "${#cases[@]}" -ge 50 "the programs mark their lines to blame (${#cases[@]} cases)"

one() {
    local id=$1 mpi=$2 src=$3 n=$5 args=$6
    # shellcheck disable=SC2086  # the marker's arguments, split
    timeout 120 "$mw" run -n "$n" --timeout 2 --mpi "$mpi" --dir "$work/$id" \
        -- "$build/progs/$mpi/${src%.*}" $args </dev/null >"$work/$id.out" 2>"$work/$id.err"
}
running=0
for c in "${cases[@]}"; do
    IFS='|' read -r id mpi src line n args <<<"$c"
    one "$id" "$mpi" "$src" "$line" "$n" "$args" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait

for c in "${cases[@]}"; do
    IFS='|' read -r id mpi src line n args <<<"$c"
    first=$(head -1 "$work/$id/report.txt" 2>/dev/null)
    like "$first" "^(deadlock|hang|crash): .*[( ]${src//./\\.}:(${line//,/|})([^0-9]|$)" \
         "$mpi ${src%.*}${args:+ $args} (-n $n): the first line names $src:${line//,/ or }"
done
run_no_strays
done_testing
