#!/bin/bash
# Detection you can act on (mpiwatch run, both MPIs): a program is ended only
# on a confirmed verdict; a correct program whose one transfer lasts several
# times the timeout completes with its own output and status, and its
# report says the suspected hang was a slow transfer, not a deadlock.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/run.sh"

plan 31
run_setup mw-run

# --- one slow transfer (768 MB of one-byte blocks: several seconds on a
# 2-core machine, so each rank sits in MPI_Wait for more than the 1 s timeout;
# the hang limit is set well above the transfer, which a busy machine slows)
for mpi in openmpi mpich; do
    n=slow-$mpi
    timeout 300 "$mw" run -n 2 --timeout 1 --hang-limit 120 --dir "$work/$n" -- "$build/progs/$mpi/run_slowxfer" 768 \
        >"$work/$n.out" 2>"$work/$n.err"
    st=$?
    is "$st" 0 "slow transfer ($mpi): the program's own exit status 0, not ended"
    like "$(cat "$work/$n.out")" "slowxfer done: 805306368 bytes" "slow transfer ($mpi): its output is complete"
    r=$work/$n/report.json
    like "$(field "$r" '" | ".join(e["detail"] for e in r["timeline"])')" \
        "rank 1 slow, not stuck: in MPI_Wait .*its transfer moves \\(recv_buffer" \
        "slow transfer ($mpi): the receiving rank is seen slow, not stuck: its receive buffer fills"
    like "$(field "$r" '" | ".join(c["cause"] + " " + c["ranks_text"] + ": " + c["detail"] for c in r["causes"])')" \
        "A 1: in MPI_Wait, its transfer moves \\(its receive buffer is filling\\): slow, not stuck" \
        "slow transfer ($mpi): the report's cause for rank 1 says slow, not stuck (cause A)"
    is "$(field "$r" 'r["verdict"], r["confirmed"], r["deadlock"]["found"]')" "none False False" \
        "slow transfer ($mpi): verdict none, nothing confirmed, no deadlock"
    unlike "$(cat "$work/$n.err")" "program was ended" "slow transfer ($mpi): mpiwatch did not end it"
done

# --- a real deadlock is still ended at once: the analysis confirms it
timeout 120 "$mw" run -n 2 --timeout 1 --dir "$work/dl" -- "$build/progs/openmpi/col_deadlock" \
    >"$work/dl.out" 2>"$work/dl.err"
is "$?" 2 "a deadlock: ended, exit status 2"
is "$(field "$work/dl/report.json" 'r["confirmed"], r["deadlock"]["found"], r["deadlock"]["source"]')" \
    "True True analyze" "a deadlock: confirmed by the analysis, which is the report's deadlock answer"

# --- a rank that the MPI library aborts inside a call (a negative count
# under MPI_ERRORS_ARE_FATAL) is a rank that ended in that call: no deadlock
for mpi in openmpi mpich; do
    n=argerror-$mpi
    timeout 120 "$mw" run -n 3 --timeout 1 --dir "$work/$n" -- "$build/progs/$mpi/run_argerror" \
        >"$work/$n.out" 2>"$work/$n.err"
    st=$?
    isnt "$st" 0 "argument error ($mpi): a failing status"
    r=$work/$n/report.json
    like "$(field "$r" '" | ".join(c["cause"] + " " + c["ranks_text"] + ": " + c["detail"] for c in r["causes"])')" \
        "B [0-9,-]*1[0-9,-]*: vanished inside MPI_Bcast|B [0-9,-]*1[0-9,-]*: .*inside MPI_Bcast" \
        "argument error ($mpi): rank 1 is reported as ended inside MPI_Bcast"
    is "$(field "$r" 'r["deadlock"]["found"]')" False "argument error ($mpi): no deadlock is claimed"
    is "$(field "$r" 'r["ranks"][1]["state"] in ("vanished", "exited")')" True \
        "argument error ($mpi): rank 1's state is ended, not in_mpi"
done

# --- nonblocking collectives are matched like blocking ones: an MPI_Ireduce
# or MPI_Ibcast whose root differs between the ranks is a root mismatch
for mpi in openmpi mpich; do
    for how in reduce bcast; do
        n=iroot-$how-$mpi
        timeout 120 "$mw" run -n 2 --timeout 1 --dir "$work/$n" -- "$build/progs/$mpi/dl_iroot" $how \
            >"$work/$n.out" 2>"$work/$n.err"
        st=$?
        is "$st" 2 "MPI_I$how with different roots ($mpi): a confirmed hang, ended"
        is "$(field "$work/$n/report.json" 'r["deadlock"]["kind"], r["deadlock"]["analysis"]["cause"]')" \
            "collective_mismatch root_mismatch" "MPI_I$how with different roots ($mpi): found as root_mismatch"
    done
done
run_no_strays
done_testing
