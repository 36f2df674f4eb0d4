#!/bin/bash
# 0608: issue 35 item 8.  Ranks 0 and 1 deadlock (each receives first,
# run_bystander.c:16); ranks 2 and 3 only wait for them in MPI_Barrier
# (run_bystander.c:19).  The bug is the pair's: the answer says that ranks
# 0-1 wait for each other and ranks 2-3 wait for them; the causes make 0-1 B
# (the program's own error) and 2-3 C (a cascade), with both MPIs.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/run.sh"

plan 13
run_setup mw-bystander

for mpi in openmpi mpich; do
    timeout 120 "$mw" run -n 4 --timeout 2 --mpi "$mpi" --dir "$work/$mpi" \
        -- "$top/build/progs/$mpi/run_bystander" >"$work/$mpi.out" 2>"$work/$mpi.err"
    is "$?" 2 "$mpi: a deadlock: exit 2"
    first=$(head -1 "$work/$mpi/report.txt")
    like "$first" '^deadlock: ranks 0-1 wait for each other in MPI_Recv \(run_bystander\.c:16\)' \
         "$mpi: the answer names the pair and their line"
    like "$first" 'ranks 2-3 wait for them in MPI_Barrier \(run_bystander\.c:19\)' \
         "$mpi: the answer says the others only wait for them"
    is "$(field "$work/$mpi/report.json" '",".join("%s:%s" % (c["cause"], c["ranks_text"]) for c in sorted(r["causes"], key=lambda c: c["ranks"][0]))')" \
       "B:0-1,C:2-3" "$mpi: the pair is cause B, the bystanders cause C"
    like "$(field "$work/$mpi/report.json" '[c["detail"] for c in r["causes"] if c["cause"] == "C"][0]')" \
         'rank\(s\) 0-1' "$mpi: the bystanders' cause names the deadlocked ranks"
    "$mw" analyze deadlock "$work/$mpi/dumps" --quiet --json "$work/$mpi.dl.json" >/dev/null 2>&1
    is "$(field "$work/$mpi.dl.json" 'r["waiting_ranks"]')" "[2, 3]" \
       "$mpi: analyze deadlock --json lists the ranks that only wait"
done
run_no_strays
done_testing
