#!/bin/bash
# 0613: issue 35 item 12.  Nonblocking collectives started in a different
# order: rank 0 starts MPI_Ireduce then MPI_Iallgather, rank 1 the reverse,
# and both wait (run_icoll_order.c).  Under MPICH every rank waits (Open MPI
# may let rank 0 through).  The answer names the collective mismatch and the
# posting lines; it never says that peers "still run" when none does.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/run.sh"

plan 6
run_setup mw-icoll

timeout 120 "$mw" run -n 2 --timeout 2 --mpi mpich --dir "$work/mpich" \
    -- "$top/build/progs/mpich/run_icoll_order" >"$work/mpich.out" 2>&1
is "$?" 2 "mpich: a hang: exit 2"
first=$(head -1 "$work/mpich/report.txt")
like "$first" '^deadlock: ranks 0-1 are in different collectives on MPI_COMM_WORLD' \
     "mpich: the answer is a collective mismatch"
like "$first" 'MPI_Ireduce posted at run_icoll_order\.c:18' "mpich: it names rank 0's first collective and its line"
like "$first" 'MPI_Iallgather posted at run_icoll_order\.c:21' "mpich: it names rank 1's first collective and its line"
unlike "$(cat "$work/mpich/report.txt")" 'peers still run' "mpich: no 'peers still run' when every rank waits"
run_no_strays
done_testing
