#!/bin/bash
# 0606: issue 35 item 1, Ctrl-C and SIGTERM end everything mpiwatch run
# started.  mpiwatch run is started in its own process group, as a shell
# starts a foreground job, on a deadlocked program (the ranks spin in
# MPI_Recv) with a timeout long enough that only the signal ends it:
#  - a first Ctrl-C (SIGINT to the process group) prints where the ranks are
#    and the run goes on; a second one within a second ends it: exit status
#    130, no rank, launcher or helper of the run left, no /dev/shm work
#    folder left, and report.json is whole;
#  - SIGTERM (as timeout(1) sends) ends it at once: status 143, same checks;
#  - SIGKILL of mpiwatch run itself: its launcher, ranks and helpers still
#    end (within 10 s), and its /dev/shm folder is removed;
#  - SIGKILL of the launcher (mpirun, mpiexec): mpiwatch run ends by itself
#    (the timeout is 300 s: it must not wait for it) with the launcher's
#    status 137 and a report saying the launcher was killed; nothing left.
# Both MPIs.  The run's processes are found by a marker in their environment
# (MW_TEST_MARK, which mpiwatch run, its helpers, the launcher and the ranks
# all inherit), whatever their process group or parent.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/run.sh"

plan 43
run_setup mw-intr
set -m # a background job gets its own process group, as a foreground job does

# marked MARK: the pids of live processes whose environment holds
# MW_TEST_MARK=MARK (zombies excluded: they hold nothing).
marked() {
    local p
    for p in /proc/[0-9]*; do
        grep -qzx "MW_TEST_MARK=$1" "$p/environ" 2>/dev/null || continue
        [ "$(awk '{print $3}' "$p/stat" 2>/dev/null)" = Z ] && continue
        echo "${p#/proc/}"
    done
}

# ranks_workdir MARK: the run's work folder, from a rank's MPIWATCH_SETTINGS
# (WORK/settings; the slots in WORK/slots), once both ranks have their
# slots; "" if not (yet).
ranks_workdir() {
    local p d
    for p in $(marked "$1"); do
        d=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | sed -n 's/^MPIWATCH_SETTINGS=//p')
        d=${d:+$(dirname "$d")}
        [ -n "$d" ] && [ -e "$d/slots/rank-0" ] && [ -e "$d/slots/rank-1" ] && { echo "$d"; return; }
    done
}

# Whatever a failing run leaves is killed at the end, and its folders removed.
strays=()
cleanup_strays() {
    local m p
    for m in "${strays[@]}"; do
        for p in $(marked "$m"); do kill -9 "$p" 2>/dev/null; done
    done
}
tap_cleanup cleanup_strays

# start NAME MPI: mpiwatch run of the deadlock (2 ranks, timeout 300 s) in
# the background, in its own process group; waits until both ranks are in
# MPI_Recv.  Sets pid (also the group id), mark, wdir (the /dev/shm folder).
start() {
    name=$1 mpi=$2 mark=$work/$1 wdir=
    strays+=("$mark")
    MW_TEST_MARK=$mark "$mw" run -n 2 --timeout 300 --mpi "$mpi" --dir "$work/$name" \
        -- "$build/progs/$mpi/deadlock" >"$work/$name.out" 2>"$work/$name.err" &
    pid=$!
    for _ in $(seq 600); do
        wdir=$(ranks_workdir "$mark")
        [ -n "$wdir" ] && break
        sleep 0.1
    done
    [ -n "$wdir" ] && tap_cleanup "rm -rf '$wdir'"
    sleep 2 # the ranks reach MPI_Recv
}

# wait_for FILE REGEX: wait (up to 20 s) until FILE matches REGEX.
wait_for() {
    for _ in $(seq 200); do
        grep -qE "$2" "$1" && return 0
        sleep 0.1
    done
    return 1
}

# finish: wait (up to 60 s, then SIGKILL) for mpiwatch run to end; sets st.
finish() {
    local i
    for i in $(seq 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -9 -- -"$pid" # never wait for ever
    wait "$pid"
    st=$?
}

# check_clean WHAT: nothing of the run is left (its processes get 5 s to
# go), its /dev/shm folder is gone, and report.json is whole JSON.
check_clean() {
    local left
    for _ in $(seq 50); do
        left=$(marked "$mark")
        [ -z "$left" ] && break
        sleep 0.1
    done
    is "$left" "" "$1: no process of the run is left (rank, launcher, collector, agent, nodehealthd)" ||
        diag "$(for p in $left; do tr '\0' ' ' <"/proc/$p/cmdline"; echo; done)"
    ok_cmd "$1: its /dev/shm work folder is removed" test -n "$wdir" -a ! -e "$wdir"
    is "$(field "$work/$name/report.json" 'type(r).__name__')" dict "$1: report.json is whole JSON"
}

for mpi in openmpi mpich; do
    # --- Ctrl-C twice: the state so far, then the end, status 130
    start int2-$mpi $mpi
    ok_cmd "Ctrl-C ($mpi): the ranks are running" test -n "$wdir"
    kill -INT -- -"$pid"
    wait_for "$work/$name.err" 'rank 1 .*MPI_Recv'
    kill -INT -- -"$pid"
    finish
    is "$st" 130 "Ctrl-C twice ($mpi): exit status 130"
    check_clean "Ctrl-C twice ($mpi)"

    # --- one Ctrl-C prints where the ranks are and the run goes on; then
    # SIGTERM ends it at once
    start term-$mpi $mpi
    kill -INT -- -"$pid"
    wait_for "$work/$name.err" 'rank 1 .*MPI_Recv'
    like "$(cat "$work/$name.err")" 'rank 0 .*in MPI_Recv.*rank 1 .*in MPI_Recv' \
        "one Ctrl-C ($mpi): prints where each rank is (both in MPI_Recv)"
    sleep 2 # longer than the second Ctrl-C's window
    ok_cmd "one Ctrl-C ($mpi): the run goes on" kill -0 "$pid"
    kill -TERM "$pid"
    finish
    is "$st" 143 "SIGTERM ($mpi): exit status 143"
    check_clean "SIGTERM ($mpi)"

    # --- mpiwatch run itself SIGKILLed: its launcher and helpers end all the
    # same, and its /dev/shm folder goes (the report may be cut short)
    start kill-$mpi $mpi
    kill -KILL "$pid"
    finish
    is "$st" 137 "SIGKILL ($mpi): mpiwatch run is gone"
    left=
    for _ in $(seq 100); do
        left=$(marked "$mark")
        [ -z "$left" ] && [ ! -e "$wdir" ] && break
        sleep 0.1
    done
    is "$left" "" "SIGKILL ($mpi): no process of the run is left" ||
        diag "$(for p in $left; do tr '\0' ' ' <"/proc/$p/cmdline"; echo; done)"
    ok_cmd "SIGKILL ($mpi): its /dev/shm work folder is removed" test -n "$wdir" -a ! -e "$wdir"

    # --- the launcher SIGKILLed: the run is over; mpiwatch run says so and
    # ends, whatever its timeout
    start launcher-$mpi $mpi
    lp=$(for p in $(marked "$mark"); do
        case "$(cat "/proc/$p/comm" 2>/dev/null)" in mpirun*|mpiexec*) echo "$p" ;; esac
    done | head -1)
    ok_cmd "launcher killed ($mpi): the launcher is found" test -n "$lp"
    kill -KILL "$lp"
    finish
    is "$st" 137 "launcher killed ($mpi): exit status 137, the launcher's"
    like "$(tail -1 "$work/$name.err")" '^mpiwatch: verdict none; report ' \
        "launcher killed ($mpi): mpiwatch run ends by itself, naming its report"
    like "$(head -1 "$work/$name/report.txt")" 'the launcher was killed' \
        "launcher killed ($mpi): the answer says the launcher was killed"
    check_clean "launcher killed ($mpi)"
done

run_no_strays
done_testing
