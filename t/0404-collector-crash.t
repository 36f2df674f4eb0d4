#!/bin/bash
# Collector scenario 4: a rank that crashes.  MPICH (srun --mpi=pmi2) leaves
# the peers blocked: rank 1 gets cause B with SIGSEGV, its peers cause C.
# Open MPI (pmix) tears the step down at once: rank 1's exit without
# MPI_Finalize (status 3) is still reported as B.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan 8
lab_require 3
schema=$MW_LAB_REPO/doc/schemas/report.schema.json
coll=$MW_LAB_REPO/build/bin/mpiwatch-collector
cause_of() { jv "$1" "\";\".join(c[\"ranks_text\"] + \": \" + c[\"detail\"] for c in d[\"causes\"] if c[\"cause\"] == \"$2\")"; }
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

# --- MPICH: segmentation fault in rank 1
prog=$(lab_prog mpich col_crash)
jid=$(lab_sbatch mwuser1 -N3 -n6 --mpiwatch=timeout=2 -o "$dir/job1.out" --wrap "srun --mpi=pmi2 $prog segv")
like "$jid" '^[0-9]+$' "MPICH job with a crashing rank submitted"
tap_cleanup "scancel $jid 2>/dev/null"
out=$dir/mpiwatch-$jid
wait_for 180 "grep -q '\"verdict\": *\"software\"' '$out/report.json'"
is "$(jv "$out/report.json" 'd["verdict"]')" software "MPICH crash: verdict software"
ok_cmd "report.json is valid against the schema" "$coll" --check-report "$out/report.json" --schema "$schema"
like "$(cause_of "$out/report.json" B)" "^1: killed by signal 11 \(SIGSEGV\)" "rank 1: cause B with its signal"
# The peers reach their timeout in MPI after the crash: cause C.
wait_for 60 "test -n \"\$(jv '$out/report.json' '[r for c in d[\"causes\"] if c[\"cause\"] == \"C\" for r in c[\"ranks\"]]' | grep -v '^\[\]$')\""
like "$(cause_of "$out/report.json" C)" "^0,2-5: blocked in MPI by rank\(s\) 1 " "its peers: cause C, blocked by rank 1"
scancel "$jid"
lab_job_wait "$jid" 120 >/dev/null

# --- Open MPI: rank 1 exits with status 3 without MPI_Finalize
prog=$(lab_prog openmpi col_crash)
jid=$(lab_sbatch mwuser1 -N3 -n6 --mpiwatch=timeout=2 -o "$dir/job2.out" --wrap "srun --mpi=pmix $prog exit")
like "$jid" '^[0-9]+$' "Open MPI job with a rank that exits submitted"
tap_cleanup "scancel $jid 2>/dev/null"
lab_job_wait "$jid" 180 >/dev/null
out=$dir/mpiwatch-$jid
wait_for 60 "grep -q '\"verdict\": *\"software\"' '$out/report.json'"
is "$(jv "$out/report.json" 'd["verdict"]')" software "Open MPI exit(3): verdict software"
like "$(cause_of "$out/report.json" B)" "^1: exited with status 3 without MPI_Finalize" "rank 1: cause B with its exit status"
done_testing
