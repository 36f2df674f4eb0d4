#!/bin/bash
# 0614: issue 35 item 3.  A rank the MPI library ends inside a call (rank 0
# sends 10 ints, rank 1 receives 5: MPI_ERR_TRUNCATE under the default
# MPI_ERRORS_ARE_FATAL) is named at the line of that call, as a crash by a
# signal is: "crash: rank 1 ended by the MPI library in MPI_Recv
# (run_truncate.c:15): <the library's line>".  The slot keeps the call site
# of every call as it enters, so the line is known although the rank died
# before any dump.  Both MPIs.  Item 7: the same answer when the library's
# line was lost (run_truncate_quiet), never 'the launcher was killed'.
# The sender is named although rank 1 died before the watcher resolved its
# call's peer ("from rank 0"; the slot keeps MPI_COMM_WORLD's handle, so its
# reader knows a world rank when it sees one).  The receive's count and
# datatype are named ("a receive of 5 MPI_INT (20 bytes)"), from the slot's
# call record and its table of datatype names.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/run.sh"

plan 33
run_setup mw-mpierr

# The answer is right whether or not the MPI library's own line reached the
# launcher's output (Open MPI's help aggregation loses it when the ranks are
# torn down first; run_truncate_quiet loses it always, as rank 1's stderr
# goes nowhere): mpirun exited non-zero by itself, so the ranks that
# vanished are not "a killed launcher"; the rank that ended inside its own
# call is named at that call's line, with the library's line when printed
# (issue 35 item 7).
for mpi in openmpi mpich; do
    for prog in run_truncate run_truncate_quiet; do
        d=$work/$mpi-$prog
        case $prog in run_truncate) line=15 ;; *) line=21 ;; esac
        timeout 120 "$mw" run -n 3 --timeout 2 --mpi "$mpi" --dir "$d" \
            -- "$top/build/progs/$mpi/$prog" >"$d.out" 2>"$d.err"
        st=$?
        first=$(head -1 "$d/report.txt" 2>/dev/null)
        isnt "$st" 0 "$mpi $prog: mpiwatch run exits with the launcher's failure"
        like "$first" "^crash: rank 1 ended by the MPI library in MPI_Recv \\($prog\\.c:$line\\)" \
             "$mpi $prog: the first line names rank 1's receive and its source line"
        if grep -Eq 'TRUNCATE|truncated' "$d.err"; then
            like "$first" '(TRUNCATE|truncated)' "$mpi $prog: and the MPI library's own error, which it printed"
        else
            diag "$mpi $prog: the MPI library's own line was not printed"
            like "$first" 'its own error message was not printed' "$mpi $prog: and that the library's message was lost"
        fi
        like "$first" "in MPI_Recv \\($prog\\.c:$line\\) from rank 0\\b" "$mpi $prog: and the sender, rank 0"
        like "$first" "in MPI_Recv \\($prog\\.c:$line\\) from rank 0, a receive of 5 MPI_INT \\(20 bytes\\)" \
             "$mpi $prog: and the receive's count and datatype (the message from rank 0 was longer)"
        is "$(field "$d/report.json" '[x["peer_world"] for x in r["ranks"] if x["rank"] == 1]')" "[0]" \
           "$mpi $prog: report.json: rank 1 waited for rank 0"
        unlike "$first" 'exit status unknown|launcher was killed' "$mpi $prog: no 'exit status unknown', no killed launcher"
        is "$(field "$d/report.json" 'r["answer"][0]')" "$first" "$mpi $prog: report.json's answer is the same sentence"
    done
done
run_no_strays
done_testing
