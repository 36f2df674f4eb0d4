#!/bin/bash
# 0609: issue 35 item 4.  A rank that waits (MPI_Wait) on a request posted
# elsewhere is named with the call that posted it, the line a user must
# change: "rank 0 in MPI_Wait (run_posted.c:22) on the receive posted at
# run_posted.c:19 (from rank 1, tag 8)".  Both MPIs, a receive and a send.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/run.sh"

plan 11
run_setup mw-posted

for mpi in openmpi mpich; do
    timeout 120 "$mw" run -n 2 --timeout 2 --mpi "$mpi" --dir "$work/$mpi-recv" \
        -- "$top/build/progs/$mpi/run_posted" recv >"$work/$mpi-recv.out" 2>&1
    is "$?" 2 "$mpi: a receive of the wrong tag: exit 2"
    first=$(head -1 "$work/$mpi-recv/report.txt")
    like "$first" 'rank 0 in MPI_Wait \(run_posted\.c:22\) on the receive posted at run_posted\.c:19 \(from rank 1, tag 8\)' \
         "$mpi: the answer names the receive's line, its source and tag"
    like "$(field "$work/$mpi-recv/dumps/rank-0.json" 'r["pending_recvs"][0]["site"]["offset"]')" '^0x' \
         "$mpi: the dump keeps where the pending receive was posted"

    timeout 120 "$mw" run -n 2 --timeout 2 --mpi "$mpi" --dir "$work/$mpi-send" \
        -- "$top/build/progs/$mpi/run_posted" send >"$work/$mpi-send.out" 2>&1
    is "$?" 2 "$mpi: a send nobody receives: exit 2"
    first=$(head -1 "$work/$mpi-send/report.txt")
    like "$first" 'rank 0 in MPI_Wait \(run_posted\.c:22\) on the send posted at run_posted\.c:21 \(to rank 1, tag 5\)' \
         "$mpi: the answer names the send's line, its destination and tag"
done
run_no_strays
done_testing
