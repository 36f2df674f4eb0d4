#!/bin/bash
# 0615: issue 35 item 11.  A program whose ranks all printed their last line
# and then wait in MPI_Finalize for a message never received (rank 0's 1 MiB
# MPI_Bsend to rank 1, which the library must deliver before MPI_Finalize
# returns: t/progs/run_fin_bsend.c) hangs under both MPIs.  Under mpiwatch
# run it is answered as a hang in MPI_Finalize at its line, and ended; the
# answer says what MPI_Finalize still waits for (the buffered send, its line,
# peer and tag), from rank 0's dump, which lists the buffered sends since the
# last MPI_Buffer_detach.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/run.sh"

plan 13
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
    like "$first" 'in MPI_Finalize \(run_fin_bsend\.c:22\): rank 0.s buffered send posted at run_fin_bsend\.c:18 \(to rank 1, tag 5\) was never received' \
         "$mpi: it says what MPI_Finalize waits for: the buffered send, its line, peer and tag"
    is "$(field "$work/$mpi/dumps/rank-0.json" "[(b['op'], b['peer_world'], b['tag'], b['count']) for b in r['buffered_sends']]")" \
       "[('MPI_Bsend', 1, 5, 1048576)]" "$mpi: rank 0's dump lists its buffered send"
done
run_no_strays
done_testing
