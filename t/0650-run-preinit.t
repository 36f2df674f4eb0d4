#!/bin/bash
# 0650: a rank that dies before it calls MPI_Init.  run_preinit's rank 0
# writes through a null pointer in read_config() (run_preinit.c:26) before
# MPI_Init; the other ranks wait for it in MPI_Init (run_preinit.c:37) until
# the launcher ends them.  The monitor's slot is made when the library is
# loaded (the launcher names the rank), so the rank is seen: the answer
# names rank 0 and "before MPI_Init", the others are a cascade (cause C),
# with both MPIs.  Open MPI's mpirun prints no exit status for a process
# that never called MPI_Init (the rank "vanished"); MPICH's Hydra does.
# Rank 0 spends a second on its input before the fault, so the others are
# in MPI_Init when it dies (without it CI once saw MPICH's Hydra end ranks
# 1-3 before their library was loaded: none seen, no cause C).  A rank may
# still be ended before it called MPI_Init (then it is a cascade too,
# "vanished before MPI_Init ... with the step of failed rank(s) 0").
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/run.sh"

plan 11
run_setup mw-preinit

for mpi in openmpi mpich; do
    timeout 120 "$mw" run -n 4 --timeout 2 --mpi "$mpi" --dir "$work/$mpi" \
        -- "$top/build/progs/$mpi/run_preinit" >"$work/$mpi.out" 2>"$work/$mpi.err"
    isnt "$?" 0 "$mpi: the program failed: mpiwatch run exits non-zero"
    first=$(head -1 "$work/$mpi/report.txt")
    like "$first" '^crash: rank 0 (vanished|killed by signal 11 \(SIGSEGV\)) before MPI_Init' \
         "$mpi: the answer names rank 0, ended before MPI_Init"
    like "$first" '; ranks? [1-3][-,1-3]* (were|was) blocked on it \(cause C' \
         "$mpi: the answer says the others only waited for it"
    # (which of ranks 1-3 are seen depends on how soon the launcher ends
    # them: those seen are C, at least one is)
    is "$(field "$work/$mpi/report.json" '"B:%s C:%s" % ([k for c in r["causes"] if c["cause"] == "B" for k in c["ranks"]], (lambda v: bool(v) and set(v) <= {1, 2, 3})([k for c in r["causes"] if c["cause"] == "C" for k in c["ranks"]]))')" \
       "B:[0] C:True" "$mpi: rank 0 is the only cause B, the ranks in MPI_Init seen are cause C"
done
like "$(head -1 "$work/mpich/report.txt")" \
     '^crash: rank 0 killed by signal 11 \(SIGSEGV\) before MPI_Init in read_config \(run_preinit\.c:26\)' \
     "mpich: Hydra's exit status and the crash's line are in the answer"
like "$(cat "$work/openmpi/report.txt")" 'rank 1 on [^ ]*: vanished in MPI_Init' \
     "openmpi: report.txt lists the ranks ended in MPI_Init"
run_no_strays
done_testing
