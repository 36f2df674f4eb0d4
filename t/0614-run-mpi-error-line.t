#!/bin/bash
# 0614: issue 35 item 3.  A rank the MPI library ends inside a call (rank 0
# sends 10 ints, rank 1 receives 5: MPI_ERR_TRUNCATE under the default
# MPI_ERRORS_ARE_FATAL) is named at the line of that call, as a crash by a
# signal is: "crash: rank 1 ended by the MPI library in MPI_Recv
# (run_truncate.c:15): <the library's line>".  The slot keeps the call site
# of every call as it enters, so the line is known although the rank died
# before any dump.  Both MPIs.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/run.sh"

plan 10
run_setup mw-mpierr

# Open MPI sometimes loses its own message under load (t/0602): the run is
# repeated (at most 3 times) until the library printed its line, which is
# what the answer is made from.
for mpi in openmpi mpich; do
    printed=0
    for try in 1 2 3 4 5; do
        rm -rf "$work/$mpi"
        timeout 120 "$mw" run -n 3 --timeout 2 --mpi "$mpi" --dir "$work/$mpi" \
            -- "$top/build/progs/$mpi/run_truncate" >"$work/$mpi.out" 2>"$work/$mpi.err"
        st=$?
        grep -Eq 'TRUNCATE|truncated' "$work/$mpi.err" && { printed=1; break; }
        diag "$mpi, run $try: the MPI library printed no error line"
    done
    # Open MPI's own message goes through its help aggregation in mpirun and
    # is lost when the ranks are torn down first (plain mpirun loses it too,
    # about 1 run in 4 here; in every run of a full make test once).  An
    # answer without the library's line is issue 35 item 7, still open: the
    # assertions that need the line are then TODO, shown as such, not passed.
    [ "$printed" = 1 ] || todo_start "issue 35 item 7: the MPI library printed no error line in 5 runs"
    first=$(head -1 "$work/$mpi/report.txt" 2>/dev/null)
    isnt "$st" 0 "$mpi: mpiwatch run exits with the launcher's failure"
    like "$first" '^crash: rank 1 ended by the MPI library in MPI_Recv \(run_truncate\.c:15\)' \
         "$mpi: the first line names the receive's source line"
    like "$first" '(TRUNCATE|truncated)' "$mpi: and the MPI library's own error"
    unlike "$first" 'exit status unknown' "$mpi: no 'exit status unknown' in the answer"
    todo_end
    is "$(field "$work/$mpi/report.json" 'r["answer"][0]')" "$first" "$mpi: report.json's answer is the same sentence"
done
done_testing
