#!/bin/bash
# 0604: where a crashed rank died, under Slurm.  A batch job runs srun with
# --mpiwatch; rank 1 writes through a null pointer in fill_halo()
# (run_crash.c:15).  mpiwatch takes no signal: the MPI library prints its own
# crash report into the job's output file, the collector reads it back (the
# file's name from Slurm, with %j expanded) and the first line of report.txt
# names the function and the faulting line; report.txt lists the stack, and
# the library's own message is still in the job's output.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan 8
lab_require 3
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

# crash MPI SRUN_MPI: submit, wait for the software verdict; sets $jid $out $first
crash() {
    local prog
    prog=$(lab_prog "$1" run_crash)
    jid=$(lab_sbatch mwuser1 -N3 -n3 --mpiwatch=timeout=2 -o "$dir/crash-$1-%j.out" \
        --wrap "srun --mpi=$2 $prog segv")
    tap_cleanup "scancel $jid 2>/dev/null"
    out=$dir/mpiwatch-$jid
    wait_for 120 "grep -q '\"verdict\": *\"software\"' '$out/report.json'"
    scancel "$jid" 2>/dev/null # MPICH's peers stay blocked (the action is only to report)
    lab_job_wait "$jid" 60 >/dev/null
    wait_for 30 "grep -q 'shutdown' '$out/report.txt'"
    first=$(head -1 "$out/report.txt" 2>/dev/null)
}

crash openmpi pmix
like "$first" "^crash: rank 1 killed by signal 11 \\(SIGSEGV\\) in fill_halo \\(run_crash.c:15\\)" \
     "Open MPI: the first line names the rank, the signal, the function and the faulting line"
like "$(cat "$out/report.txt")" "where rank 1 died \\(its stack, innermost first\\):
    fill_halo \\(run_crash.c:15\\)
    main \\(run_crash.c:36\\)" "Open MPI: report.txt has the dying rank's stack"
like "$(cat "$dir/crash-openmpi-$jid.out")" "\\*\\*\\* Process received signal \\*\\*\\*" \
     "Open MPI: its own crash message is still in the job's output"
like "$(cat "$out/report.txt")" "read from the MPI library's crash report in $dir/crash-openmpi-$jid.out" \
     "Open MPI: the timeline says where the stack came from"

crash mpich pmi2
like "$first" "^crash: rank 1 killed by signal 11 \\(SIGSEGV\\) in fill_halo \\(run_crash.c:15\\)" \
     "MPICH: the first line names the rank, the signal, the function and the faulting line"
like "$(cat "$out/report.txt")" "where rank 1 died \\(its stack, innermost first\\):
    fill_halo \\(run_crash.c:15\\)" "MPICH: report.txt has the dying rank's stack"
like "$(cat "$out/report.html")" "fill_halo \\(run_crash.c:15\\)" "MPICH: report.html has it too"
unlike "$(cat "$out/report.txt")" "where crashed ranks died: (cannot|not a batch)" "no error finding the job's output"
done_testing
