# Helpers for the deadlock-analysis integration tests (t/05NN-*.t).  Source
# after tap.sh.  They run an MPI program of t/progs under the monitor on this
# machine (mpirun/mpiexec, no Slurm), wait boundedly for its state dumps and
# kill exactly the job they started.
#
#   dl_run MPI NP PROG NDUMPS [ARGS...]   run a program that should hang;
#        returns once NDUMPS dumps exist (or after DL_WAIT seconds), then
#        kills the job.  Sets DL_DIR (the dump directory).
#   dl_run_done MPI NP PROG [ARGS...]     run a program that should finish;
#        sets DL_DIR and DL_STATUS (its exit status, 124 if it had to be
#        killed after DL_WAIT seconds).
#   dl_analyze [OPTIONS...]               mpiwatch analyze deadlock DL_DIR
#        --json DL_DIR.json; sets DL_RC, DL_TEXT, DL_JSON.
#   dl_have MPI                           0 if that MPI and its build are there.

DL_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DL_LIB=${DL_LIB:-$DL_TOP/build/lib/libmpiwatch.so}
DL_CLI=$DL_TOP/build/bin/mpiwatch
DL_WAIT=${DL_WAIT:-90}      # generous: a loaded 2-core CI box
DL_TIMEOUT=${DL_TIMEOUT:-1} # the settings file's timeout

dl_have() {
    case $1 in
        openmpi) command -v mpirun.openmpi >/dev/null ;;
        mpich) command -v mpiexec.mpich >/dev/null ;;
        *) return 1 ;;
    esac || return 1
    [ -e "$DL_LIB" ] && [ -x "$DL_CLI" ]
}

_dl_start() {   # _dl_start MPI NP PROG [ARGS...]: starts the job in its own session
    local mpi=$1 np=$2 prog=$3; shift 3
    local bin=$DL_TOP/build/progs/$mpi/$prog
    DL_DIR=$(mktemp -d /tmp/mw-dl.XXXXXX)
    tap_cleanup "rm -rf '$DL_DIR' '$DL_DIR.out' '$DL_DIR.json' '$DL_DIR.dot' '$DL_DIR.conf'"
    # the run's settings file (plain mpirun: MPIWATCH_SETTINGS names it)
    printf '%s\n' "timeout = $DL_TIMEOUT" "dump_dir = $DL_DIR" >"$DL_DIR.conf"
    case $mpi in
        openmpi)
            setsid mpirun.openmpi --oversubscribe --allow-run-as-root -np "$np" \
                -x LD_PRELOAD="$DL_LIB" -x MPIWATCH_SETTINGS="$DL_DIR.conf" \
                "$bin" "$@" >"$DL_DIR.out" 2>&1 </dev/null &
            ;;
        mpich)
            setsid mpiexec.mpich -np "$np" -genv LD_PRELOAD "$DL_LIB" \
                -genv MPIWATCH_SETTINGS "$DL_DIR.conf" \
                "$bin" "$@" >"$DL_DIR.out" 2>&1 </dev/null &
            ;;
    esac
    _dl_pid=$!
    tap_cleanup "kill -KILL -- -$_dl_pid 2>/dev/null"
}

_dl_stop() {    # kill the job's session (only what we started), bounded
    local i
    kill -TERM -- "-$_dl_pid" 2>/dev/null
    for i in $(seq 1 40); do
        kill -0 "$_dl_pid" 2>/dev/null || break
        sleep 0.25
    done
    kill -KILL -- "-$_dl_pid" 2>/dev/null
    wait "$_dl_pid" 2>/dev/null
}

_dl_ndumps() { find "$DL_DIR" -maxdepth 1 -name 'rank-*.json' 2>/dev/null | wc -l; }
# Dumps the monitor retired (renamed *.stale) once their rank moved on.
_dl_nstale() { find "$DL_DIR" -maxdepth 1 -name 'rank-*.json.stale' 2>/dev/null | wc -l; }
# Put retired dumps back under their live names (where no live one exists),
# so the analysis sees every stuck moment of a correct program.
_dl_unretire() {
    local f
    for f in "$DL_DIR"/rank-*.json.stale; do
        [ -e "$f" ] && [ ! -e "${f%.stale}" ] && cp "$f" "${f%.stale}"
    done
}

dl_run() {
    local mpi=$1 np=$2 prog=$3 want=$4 i; shift 4
    _dl_start "$mpi" "$np" "$prog" "$@"
    for i in $(seq 1 $((DL_WAIT * 4))); do
        [ "$(_dl_ndumps)" -ge "$want" ] && break
        kill -0 "$_dl_pid" 2>/dev/null || break
        sleep 0.25
    done
    _dl_stop
    [ "$(_dl_ndumps)" -ge "$want" ] || diag "$prog ($mpi): only $(_dl_ndumps) of $want dumps; output: $(head -c 2000 "$DL_DIR.out")"
}

dl_run_done() {
    local mpi=$1 np=$2 prog=$3 i; shift 3
    _dl_start "$mpi" "$np" "$prog" "$@"
    DL_STATUS=124
    for i in $(seq 1 $((DL_WAIT * 4))); do
        if ! kill -0 "$_dl_pid" 2>/dev/null; then
            wait "$_dl_pid"
            DL_STATUS=$?
            break
        fi
        sleep 0.25
    done
    [ "$DL_STATUS" = 124 ] && _dl_stop
}

dl_analyze() {
    DL_TEXT=$("$DL_CLI" analyze deadlock "$DL_DIR" --json "$DL_DIR.json" --dot "$DL_DIR.dot" "$@" 2>&1)
    DL_RC=$?
    DL_JSON=$(cat "$DL_DIR.json" 2>/dev/null)
}

# dl_json_field KEY: the top-level string/bool value of KEY in DL_JSON (json-c
# writes '"key":value' at the top level on its own line).
dl_json_field() {
    printf '%s\n' "$DL_JSON" | sed -n "s/^  \"$1\": *\"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" | head -n 1
}

# The deadlocking programs: PROG NP NDUMPS KIND CAUSE RANKS TEXT
# (CAUSE "-" = none; TEXT: an extended regex the text report must match).
DL_CASES=(
    "dl_recvrecv 2 2 cycle - 0-1 rank 0 in MPI_Recv\\(src=1, tag=11, comm=MPI_COMM_WORLD\\) at dl_recvrecv.c:[0-9]+"
    "dl_ring 4 4 cycle - 0-3 ranks 0-3: MPI_Recv\\(src=rank-1, tag=3, comm=MPI_COMM_WORLD\\)"
    "dl_missing 3 3 missing_send - 0-2 missing send: rank 0 waits in MPI_Recv\\(src=1, tag=5.*rank 1 is not sending to it"
    "dl_barrier_bcast 4 4 collective_mismatch different_collectives 0-3 ranks 0,2: MPI_Barrier\\(comm=MPI_COMM_WORLD\\)"
    "dl_root 2 2 collective_mismatch root_mismatch 0-1 rank +1: MPI_Bcast\\(root=1, comm=MPI_COMM_WORLD\\)"
    "dl_wrongtag 2 2 missing_send wrong_tag 0-1 rank 1 sent tag 7 to rank 0 on MPI_COMM_WORLD .* but rank 0 waits for tag 8"
    "dl_grid 6 3 cycle - 0-2 ranks 0-2: MPI_Recv\\(src=rank[-+]1, tag=2, comm=world/"
    "dl_waitall 2 2 missing_send - 0-1 rank 0 waits in MPI_Waitall\\(MPI_Irecv\\(src=1, tag=5"
    "dl_ssend 2 2 cycle - 0-1 MPI_Ssend\\(dst=rank\\+1, tag=4, comm=MPI_COMM_WORLD, sync\\)"
)

# dl_deadlock_cases MPI: run every deadlocking program under MPI; 6 tests each.
dl_deadlock_cases() {
    local mpi=$1 c prog np nd kind cause ranks text
    for c in "${DL_CASES[@]}"; do
        read -r prog np nd kind cause ranks text <<<"$c"
        dl_run "$mpi" "$np" "$prog" "$nd"
        cmp_ok "$(_dl_ndumps)" -ge "$nd" "$prog ($mpi): $nd ranks wrote a dump"
        dl_analyze
        is "$DL_RC" 1 "$prog ($mpi): analysis exits 1 (deadlock found)" || diag "$DL_TEXT"
        is "$(dl_json_field kind)" "$kind" "$prog ($mpi): kind $kind"
        if [ "$cause" = - ]; then
            like "$(dl_json_field cause)" '^(null)?$' "$prog ($mpi): no cause beyond the kind"
        else
            is "$(dl_json_field cause)" "$cause" "$prog ($mpi): cause $cause"
        fi
        is "$(dl_json_field ranks_text)" "$ranks" "$prog ($mpi): deadlocked ranks $ranks"
        like "$DL_TEXT" "$text" "$prog ($mpi): the report names the calls" || diag "$DL_TEXT"
    done
}

# The correct programs: PROG NP MIN_DUMPS (dumps that must be written, so the
# test really exercises a stuck-but-not-deadlocked state).  The monitor
# retires them (*.stale) when the rank moves on; the analysis is then run on
# them anyway, to show it does not mistake those moments for a deadlock.
DL_OK_CASES=(
    "dl_ok_anysrc 4 1"
    "dl_ok_waitany 3 1"
    "dl_ok_phases 2 2"
    "dl_ok_collectives 4 2"
)

# dl_correct_cases MPI: 4 tests each.
dl_correct_cases() {
    local mpi=$1 c prog np nd
    for c in "${DL_OK_CASES[@]}"; do
        read -r prog np nd <<<"$c"
        if [ ! -x "$DL_TOP/build/progs/$mpi/$prog" ]; then
            skip "$prog not built" 4
            continue
        fi
        dl_run_done "$mpi" "$np" "$prog"
        is "$DL_STATUS" 0 "$prog ($mpi): the program finishes normally" || diag "$(head -c 2000 "$DL_DIR.out")"
        cmp_ok "$(_dl_nstale)" -ge "$nd" "$prog ($mpi): at least $nd stuck dumps were written, then retired as the ranks moved on"
        _dl_unretire
        dl_analyze
        isnt "$DL_RC" 1 "$prog ($mpi): no deadlock reported" || diag "$DL_TEXT"
        is "$(dl_json_field found)" false "$prog ($mpi): the JSON report says found: false"
    done
}
