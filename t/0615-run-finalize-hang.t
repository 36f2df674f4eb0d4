#!/bin/bash
# 0615: issue 35 item 11.  A program whose ranks all printed their last line
# and then wait in MPI_Finalize for a message never received (rank 0's 1 MiB
# MPI_Bsend to rank 1, which the library must deliver before MPI_Finalize
# returns: t/progs/run_fin_bsend.c) hangs under both MPIs.  Under mpiwatch
# run it is answered as a hang in MPI_Finalize at its line, and ended.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/run.sh"

plan 8
run_setup mw-finhang

for mpi in openmpi mpich; do
    timeout 120 "$mw" run -n 2 --timeout 2 --mpi "$mpi" --dir "$work/$mpi" \
        -- "$top/build/progs/$mpi/run_fin_bsend" >"$work/$mpi.out" 2>"$work/$mpi.err"
    st=$?
    first=$(head -1 "$work/$mpi/report.txt" 2>/dev/null)
    is "$st" 2 "$mpi: a hang: exit 2 (the program was ended)"
    like "$(cat "$work/$mpi.out")" 'rank 0: last line' "$mpi: rank 0 printed its last line"
    like "$(cat "$work/$mpi.out")" 'rank 1: last line' "$mpi: rank 1 printed its last line"
    like "$first" '^hang: ranks 0-1 stuck in MPI_Finalize \(run_fin_bsend\.c:22\)' \
         "$mpi: the first line names the hang in MPI_Finalize and its line"
done
done_testing
