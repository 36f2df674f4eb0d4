#!/bin/bash
# 0640: issue 35 item 3 (leftover): the sender of an MPI error is named by
# its world rank on a communicator other than MPI_COMM_WORLD.  In
# t/progs/run_truncate_split.c the ranks of a split communicator are the
# world's in reverse order; world rank 0 sends 10 ints to world rank 2,
# which receives at most 5 (MPI_ERR_TRUNCATE): rank 2 dies before its
# watcher resolved the call, so the sender comes from the slot, whose
# communicator table translates the split's rank 2 to world rank 0 (the
# raw rank, 2, would name the dying rank itself).  Both MPIs.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/run.sh"

plan 9
run_setup mw-subcomm

for mpi in openmpi mpich; do
    d=$work/$mpi
    timeout 120 "$mw" run -n 3 --timeout 2 --mpi "$mpi" --dir "$d" \
        -- "$top/build/progs/$mpi/run_truncate_split" >"$d.out" 2>"$d.err"
    st=$?
    first=$(head -1 "$d/report.txt" 2>/dev/null)
    isnt "$st" 0 "$mpi: mpiwatch run exits with the launcher's failure"
    like "$first" '^crash: rank 2 ended by the MPI library in MPI_Recv \(run_truncate_split\.c:21\) from rank 0\b' \
         "$mpi: the first line names the sender by its world rank, 0"
    like "$first" 'a receive of 5 MPI_INT \(20 bytes\)' "$mpi: and the receive's count and datatype"
    is "$(field "$d/report.json" '[x["peer_world"] for x in r["ranks"] if x["rank"] == 2]')" "[0]" \
       "$mpi: report.json: rank 2 waited for world rank 0"
done
run_no_strays
done_testing
