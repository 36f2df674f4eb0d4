#!/bin/bash
# mpiwatch run: watch MPI programs on one machine, with both MPIs; the
# verdicts, the JSON report's fields and the exit statuses.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/run.sh"

plan 34
run_setup mw-run

# run NAME MPI [MPIWATCH-OPTIONS...] [-- PROGRAM-ARGS...]: mpiwatch run with a
# 2 s timeout and 3 ranks; sets $st.
run() {
    local name=$1 mpi=$2 opts=()
    shift 2
    while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
    [ "${1:-}" = -- ] && shift
    timeout 120 "$mw" run -n 3 --timeout 2 --dir "$work/$name" --report "$work/$name.json" \
        "${opts[@]}" -- "$build/progs/$mpi/$name" "$@" >"$work/$name.out" 2>"$work/$name.err"
    st=$?
}

# --- a healthy program: same output as without mpiwatch, exit 0, verdict none
run healthy openmpi --mpi openmpi
is "$st" 0 "healthy (Open MPI): exit status 0"
plain=$(timeout 60 mpirun.openmpi --allow-run-as-root --oversubscribe -np 3 "$build/progs/openmpi/healthy" 2>/dev/null)
is "$(cat "$work/healthy.out")" "$plain" "healthy: stdout is the program's own, unchanged"
is "$(field healthy.json 'r["verdict"]')" none "healthy: verdict none"
is "$(field healthy.json 'sorted(k for k in ("verdict","causes","nodes","deadlock","timeline") if k in r)')" \
   "['causes', 'deadlock', 'nodes', 'timeline', 'verdict']" "the report has verdict, causes, nodes, deadlock, timeline"
is "$(field healthy.json 'r["nodes"][0]["name"]')" localhost "healthy: the report lists the node"
is "$(field healthy.json 'r["deadlock"]["found"]')" False "healthy: no deadlock"

# --- a ring of blocking receives: software, cause B, deadlock found, exit 2
run deadlock openmpi
is "$st" 2 "deadlock (Open MPI): mpiwatch ends the program and exits 2"
is "$(field deadlock.json 'r["verdict"]')" software "deadlock: verdict software"
is "$(field deadlock.json '[c["cause"] for c in r["causes"]]')" "['B']" "deadlock: cause B"
is "$(field deadlock.json 'sorted(c["ranks"] for c in r["causes"])')" "[[0, 1, 2]]" "deadlock: all three ranks are named"
is "$(field deadlock.json 'r["deadlock"]["found"]')" True "deadlock: the deadlock analysis found it"
like "$(cat deadlock.err)" "verdict software" "deadlock: the verdict is printed"
is "$(ls "$work/deadlock/dumps" | wc -l)" 3 "deadlock: the three state dumps are kept"
is "$(field deadlock.json '[e["event"] for e in r["timeline"]][-1] in ("verdict","shutdown")')" True \
   "deadlock: the timeline ends with the verdict"

# --- a rank that crashes: software, B for it, the program's own status
run crash openmpi
isnt "$st" 0 "crash (Open MPI): a failing status"
isnt "$st" 2 "crash: the program's own status, not mpiwatch's hang status"
is "$(field crash.json 'r["verdict"]')" software "crash: verdict software"
is "$(field crash.json '[c["ranks"] for c in r["causes"] if c["cause"]=="B"]')" "[[1]]" "crash: rank 1, and only it, has cause B"
like "$(field crash.json '[c["detail"] for c in r["causes"] if c["cause"]=="B"][0]')" "signal 11" "crash: cause B names the signal"
is "$(field crash.json '[c["ranks"] for c in r["causes"] if c["cause"]=="C"]')" "[[0, 2]]" "crash: the ranks blocked on it have cause C"

# --- a long computation without MPI (3x the timeout): no alarm
run longcompute openmpi -- 7
is "$st" 0 "long computation: exit status 0"
is "$(field longcompute.json 'r["verdict"]')" none "long computation: verdict none"

# --- MPICH, picked automatically from the program
run healthy mpich
is "$st" 0 "healthy (MPICH, detected): exit status 0" ||
    diag "$(tail -n 20 "$work/healthy.err")" # (failed once in 2 full runs, session 13: status 1, verdict none)
is "$(field healthy.json 'r["verdict"]')" none "healthy (MPICH): verdict none"
run deadlock mpich
is "$st" 2 "deadlock (MPICH): exit 2"
is "$(field deadlock.json 'r["verdict"]')" software "deadlock (MPICH): verdict software"

# --- Fortran
run deadlock_f openmpi
is "$st" 2 "deadlock in Fortran (Open MPI, mpif.h): exit 2"
is "$(field deadlock_f.json 'r["verdict"]')" software "deadlock in Fortran: verdict software"

# --- bad options get a clear error
out=$("$mw" run -n 0 -- /bin/true 2>&1); st=$?
is "$st" 2 "-n 0 is refused"
like "$out" "-n 0: expected a rank count" "-n 0: the message says why"
out=$("$mw" run --mpi lam -- /bin/true 2>&1); st=$?
like "$out" "--mpi lam: expected openmpi or mpich" "--mpi lam is refused with a reason"
out=$("$mw" run -n 2 2>&1); st=$?
like "$out" "no program given" "a missing program is refused"
out=$("$mw" run -n 2 -- /bin/true 2>&1); st=$?
like "$out" "cannot tell which MPI" "a non-MPI program without --mpi is refused"

run_no_strays
done_testing
