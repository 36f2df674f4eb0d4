#!/bin/bash
# 0651: a rank that dies before MPI_Init, under Slurm, with both MPIs.  A
# batch job runs srun with --mpiwatch on 2 nodes (two jobs at once: the
# lab's 4 nodes hold both); run_preinit's rank 0 writes
# through a null pointer before it calls MPI_Init (run_preinit.c:26) and the
# other ranks wait for it in MPI_Init, which under srun never returns.  The
# plugin records rank 0's signal in the slot its monitor made at load: the
# report's first line names rank 0, the signal and "before MPI_Init"; rank 0
# is the only cause B.  MPI_Init alone is never judged by time (it may be
# long on large jobs), but the ranks left in it once a rank of the job ended
# before or inside it are named as blocked on that rank (cause C): their
# agents report a rank in MPI_Init for the timeout (state in_init), which the
# collector uses only so.  Such a job never gets past MPI_Init: a confirmed
# hang, acted on as any (Open MPI with action=report: the job runs on, as a
# deadlocked one does; MPICH with action=cancel: cancelled).
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan 14
lab_require 3
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

declare -A jid
jid[openmpi]=$(lab_sbatch mwuser1 -N2 -n4 --time=3 --mpiwatch=timeout=2 -o "$dir/job-%j.out" \
    --wrap "srun --mpi=pmix $(lab_prog openmpi run_preinit)")
jid[mpich]=$(lab_sbatch mwuser1 -N2 -n4 --time=3 --mpiwatch=timeout=2,action=cancel -o "$dir/job-%j.out" \
    --wrap "srun --mpi=pmi2 $(lab_prog mpich run_preinit)")
like "${jid[openmpi]} ${jid[mpich]}" '^[0-9]+ [0-9]+$' "two 2-node jobs whose rank 0 dies before MPI_Init submitted"
tap_cleanup "scancel ${jid[openmpi]} ${jid[mpich]} 2>/dev/null"
for mpi in openmpi mpich; do
    j=${jid[$mpi]}
    out=$dir/mpiwatch-$j
    wait_for 120 "grep -q '\"verdict\": *\"software\"' '$out/report.json'"
    # the ranks left in MPI_Init are named once their agents told them
    wait_for 30 "head -1 '$out/report.txt' | grep -q 'blocked on it'"
    first=$(head -1 "$out/report.txt" 2>/dev/null)
    like "$first" '^crash: rank 0 killed by signal 11 \(SIGSEGV\) before MPI_Init' \
         "$mpi: the first line names rank 0, its signal and 'before MPI_Init'"
    like "$first" '; ranks 1-3 were blocked on it \(cause C' \
         "$mpi: the first line names the ranks left in MPI_Init as blocked on it"
    jvs "$out/report.json" '[k for c in d["causes"] if c["cause"] == "B" for k in c["ranks"]]' \
        '[k for c in d["causes"] if c["cause"] == "C" for k in c["ranks"]]' \
        '[r["call"] for r in d["ranks"] if r["rank"] != 0]'
    is "${JV[0]} ${JV[1]}" "[0] [1, 2, 3]" "$mpi: rank 0 is the only cause B, ranks 1-3 cause C"
    like "${JV[2]}" "^\\['MPI_Init'(, 'MPI_Init'){2}\\]$" "$mpi: the report has ranks 1-3 in MPI_Init"
    ok_cmd "$mpi: report.json is valid against the schema" "$MW_LAB_REPO/build/bin/mpiwatch-collector" \
        --check-report "$out/report.json" --schema "$MW_LAB_REPO/doc/schemas/report.schema.json"
done
# action=cancel: the job that can never get past MPI_Init is cancelled;
# action=report (the default): it runs on, as any confirmed hang does.
is "$(lab_job_wait "${jid[mpich]}" 60)" CANCELLED "mpich, action=cancel: the job is cancelled"
is "$(lab_job_state "${jid[openmpi]}")" RUNNING "openmpi, action=report: the job runs on (the report says what is wrong)"
scancel "${jid[openmpi]}" 2>/dev/null
lab_job_wait "${jid[openmpi]}" 60 >/dev/null
like "$(cat "$dir/job-${jid[openmpi]}.out")" 'task 0: Segmentation fault' "srun's own line is still in the job's output"
done_testing
