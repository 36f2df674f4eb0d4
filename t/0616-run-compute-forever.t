#!/bin/bash
# 0616: issue 35 item 2.  Rank 2 computes forever outside MPI while ranks 0,
# 1 and 3 wait for it in MPI_Barrier (run_spin.c:21).  The answer names rank
# 2 and how long it has computed, says the others wait for it at their line,
# past the hang limit the causes make rank 2 B (it never came back: the
# program's own fault) and the waiting ranks C (a cascade), and the run
# is ended once the hang limit (8 s) passes: exit 2, with both MPIs.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/run.sh"

plan 11
run_setup mw-spin

for mpi in openmpi mpich; do
    timeout 150 "$mw" run -n 4 --timeout 3 --hang-limit 8 --mpi "$mpi" --dir "$work/$mpi" \
        -- "$top/build/progs/$mpi/run_spin" >"$work/$mpi.out" 2>"$work/$mpi.err"
    is "$?" 2 "$mpi: ended after the hang limit as a hang: exit 2" ||
        diag "$(tail -20 "$work/$mpi.err")"
    first=$(head -1 "$work/$mpi/report.txt" 2>/dev/null)
    like "$first" 'rank 2 has computed outside MPI for [0-9]+ s' \
         "$mpi: the answer names the computing rank and for how long"
    like "$first" 'ranks 0-1,3 wait for it in MPI_Barrier \(run_spin\.c:21\)' \
         "$mpi: the answer says the others wait for it, at their line"
    is "$(field "$work/$mpi/report.json" '",".join(sorted("%s:%s" % (c["cause"], c["ranks_text"]) for c in r["causes"]))')" \
       "B:2,C:0-1,3" "$mpi: past the hang limit the computing rank is cause B (its own), the waiting ranks C"
    is "$(field "$work/$mpi/report.json" 'r["verdict"]')" software "$mpi: verdict software"
done
run_no_strays
done_testing
