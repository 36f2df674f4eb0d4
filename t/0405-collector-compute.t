#!/bin/bash
# Collector scenario 5: a computation without MPI that lasts more than 3x the
# timeout is not a failure: no alarm (a cause-A note at most), no probe
# verdict, no drain, no comment.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan 7
lab_require 3
prog=$(lab_prog openmpi col_compute)
schema=$MW_LAB_REPO/doc/schemas/report.schema.json
coll=$MW_LAB_REPO/build/bin/mpiwatch-collector
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

jid=$(lab_sbatch mwuser1 -N3 -n3 --mpiwatch=timeout=2 -o "$dir/job.out" --wrap "srun --mpi=pmix $prog 8")
like "$jid" '^[0-9]+$' "a job computing 8 s (4x the timeout) submitted"
tap_cleanup "scancel $jid 2>/dev/null"
out=$dir/mpiwatch-$jid
is "$(lab_job_wait "$jid" 300)" COMPLETED "the job completes" ||
    diag "$(cat "$out/report.txt" "$dir/job.out" 2>&1 | head -60)"
wait_for 60 "grep -q shutdown '$out/report.json'"  # the final report
ok_cmd "report.json is valid against the schema" "$coll" --check-report "$out/report.json" --schema "$schema"
is "$(jv "$out/report.json" 'd["verdict"]')" none "verdict none"
is "$(jv "$out/report.json" '",".join(sorted(set(c["cause"] for c in d["causes"]) - {"A"}))')" "" "no cause other than A"
is "$(jv "$out/report.json" 'len(d["actions"])')" 0 "no drain, no comment, no action"
is "$(sinfo -h -R | wc -l)" 0 "no node drained"
done_testing
