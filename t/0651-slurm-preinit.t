#!/bin/bash
# 0651: a rank that dies before MPI_Init, under Slurm.  A batch job runs srun
# with --mpiwatch on 3 nodes; run_preinit's rank 0 writes through a null
# pointer before it calls MPI_Init (run_preinit.c:17) and the other ranks
# wait for it in MPI_Init, which under srun never returns.  The plugin
# records rank 0's signal in the slot its monitor made at load: the report's
# first line names rank 0, the signal and "before MPI_Init"; rank 0 is the
# only cause B; the ranks in MPI_Init are not judged by time (MPI_Init may
# be long on large jobs), so nothing blames them.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan 5
lab_require 3
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

prog=$(lab_prog openmpi run_preinit)
jid=$(lab_sbatch mwuser1 -N3 -n6 --time=3 --mpiwatch=timeout=2 -o "$dir/job-%j.out" \
    --wrap "srun --mpi=pmix $prog")
like "$jid" '^[0-9]+$' "a 3-node job whose rank 0 dies before MPI_Init submitted"
tap_cleanup "scancel $jid 2>/dev/null"
out=$dir/mpiwatch-$jid
wait_for 120 "grep -q '\"verdict\": *\"software\"' '$out/report.json'"
first=$(head -1 "$out/report.txt" 2>/dev/null)
like "$first" '^crash: rank 0 killed by signal 11 \(SIGSEGV\) before MPI_Init' \
     "the first line names rank 0, its signal and 'before MPI_Init'"
is "$(jv "$out/report.json" '[k for c in d["causes"] if c["cause"] == "B" for k in c["ranks"]]')" "[0]" \
   "rank 0 is the only cause B"
ok_cmd "report.json is valid against the schema" "$MW_LAB_REPO/build/bin/mpiwatch-collector" \
    --check-report "$out/report.json" --schema "$MW_LAB_REPO/doc/schemas/report.schema.json"
scancel "$jid" 2>/dev/null # the ranks in MPI_Init stay there (the action is only to report)
lab_job_wait "$jid" 60 >/dev/null
like "$(cat "$dir/job-$jid.out")" 'task 0: Segmentation fault' "srun's own line is still in the job's output"
done_testing
