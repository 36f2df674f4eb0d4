#!/bin/bash
# Collector scenario 7: --mpiwatch=...,action=cancel cancels the job after
# the verdict, so the allocation is freed without waiting for its time limit.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan 6
lab_require 3
prog=$(lab_prog openmpi col_deadlock)
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

jid=$(lab_sbatch mwuser1 -N3 -n6 --mpiwatch=timeout=2,action=cancel -o "$dir/job.out" --wrap "srun --mpi=pmix $prog")
like "$jid" '^[0-9]+$' "deadlocking job with action=cancel submitted"
tap_cleanup "scancel $jid 2>/dev/null"
is "$(lab_job_wait "$jid" 240)" CANCELLED "the job is cancelled after the verdict"
out=$dir/mpiwatch-$jid
wait_for 60 "grep -q '\"action\": *\"cancel\"' '$out/report.json'"
is "$(jv "$out/report.json" 'd["verdict"]')" software "the verdict was software"
is "$(jv "$out/report.json" '[a["ok"] for a in d["actions"] if a["action"] == "cancel"]')" "[True]" \
    "the report records the cancel"
wait_for 120 lab_all_idle
ok_cmd "the allocation is freed: all nodes idle" lab_all_idle
is "$(squeue -h -j "$jid" 2>/dev/null | wc -l)" 0 "the job is no longer in the queue"
done_testing
