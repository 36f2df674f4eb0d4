#!/bin/bash
# 0641: issue 35 item 11 (leftover): a hang inside MPI_Buffer_detach.  Rank 0
# sends 1 MiB with MPI_Bsend to rank 1, which never receives it, and
# detaches the buffer: MPI_Buffer_detach waits for the buffered message
# forever (t/progs/run_detach.c; run_detach_f.f90 is the same in Fortran).
# MPI_Buffer_detach is a blocking call for the stall rule, and the answer
# names the buffered send still pending (its line, peer and tag), from rank
# 0's dump.  Both MPIs; the Fortran program checks that the Fortran binding
# goes through the monitor's wrapper too.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/run.sh"

plan 17
run_setup mw-detach

for mpi in openmpi mpich; do
    for prog in run_detach run_detach_f; do
        d=$work/$mpi-$prog
        case $prog in run_detach) src=run_detach.c dl=20 bl=19 ;; *) src=run_detach_f.f90 dl=17 bl=16 ;; esac
        timeout 120 "$mw" run -n 2 --timeout 2 --mpi "$mpi" --dir "$d" \
            -- "$top/build/progs/$mpi/$prog" >"$d.out" 2>"$d.err"
        st=$?
        first=$(head -1 "$d/report.txt" 2>/dev/null)
        is "$st" 2 "$mpi $prog: a hang: exit 2 (the program was ended)"
        like "$first" "^hang: rank 0 stuck in MPI_Buffer_detach \\(${src//./\\.}:$dl\\)" \
             "$mpi $prog: the first line names rank 0's MPI_Buffer_detach and its line"
        # (MPICH's Fortran bindings call the C MPI_Bsend from libmpifort: the
        # line is still the program's, the Fortran caller's)
        like "$first" "rank 0.s buffered send posted at ${src//./\\.}:$bl \\(to rank 1, tag 5\\) was never received" \
             "$mpi $prog: and the buffered send it waits for: its line, peer and tag"
        is "$(field "$d/dumps/rank-0.json" "[(b['op'], b['peer_world'], b['tag'], b['count']) for b in r['buffered_sends']]")" \
           "[('MPI_Bsend', 1, 5, 1048576)]" "$mpi $prog: rank 0's dump lists its buffered send"
    done
done
run_no_strays
done_testing
