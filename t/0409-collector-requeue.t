#!/bin/bash
# --mpiwatch=...,action=requeue: after a hardware verdict the job is requeued
# with the dead node in its ExcNodeList, and runs again without it.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan 8
lab_require 3
prog=$(lab_prog openmpi col_steady)
col_storm_raise
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

jid=$(lab_sbatch mwuser1 --requeue -N2 -n4 --mpiwatch=timeout=2,action=requeue -o "$dir/job.out" \
      --wrap "srun --mpi=pmix $prog 600")
like "$jid" '^[0-9]+$' "a 2-node job with action=requeue submitted"
tap_cleanup "scancel $jid 2>/dev/null"
wait_for 120 "lab_job_is $jid RUNNING"
nodes=$(squeue -h -j "$jid" -o %N)
first=$(scontrol show hostnames "$nodes" | head -n1)
victim=$(scontrol show hostnames "$nodes" | tail -n1)
tap_cleanup "'$MW_LAB_T/lab/revive-node' $victim >/dev/null 2>&1; '$MW_LAB_REPO/build/bin/mpiwatch' resume $victim >/dev/null 2>&1"
connected() { cat "$dir/mpiwatch-$jid/logs/mpiwatch-collector-$first.log" 2>/dev/null | grep -c 'connected from'; }
wait_for 180 "test \$(connected) -ge 2"
cmp_ok "$(connected)" -ge 2 "both agents connected (job on $nodes)"
wait_for 180 "grep -q 'steady: running' '$dir/job.out'"
like "$(cat "$dir/job.out")" "steady: running on 4 ranks" "the 4 ranks are running"
ok_cmd "t/lab/kill-node $victim" lab_kill_node "$victim"

out=$dir/mpiwatch-$jid
# The first run's report (renamed report-run1.json once the job runs again).
rep() { ls "$out"/report-run1.json "$out"/report.json 2>/dev/null | head -n1; }
wait_for 240 "grep -l '\"action\": *\"requeue\"' '$out'/report*.json"
r=$(grep -l '"action": *"requeue"' "$out"/report*.json | head -n1)
is "$(jv "$r" 'd["verdict"]')" hardware "verdict hardware"
is "$(jv "$r" '[a["ok"] for a in d["actions"] if a["action"] == "requeue"]')" "[True]" "the report records the requeue"
wait_for 60 "scontrol show job $jid | grep -q 'ExcNodeList=$victim'"
like "$(scontrol show job "$jid")" "ExcNodeList=$victim" "the dead node is in the job's ExcNodeList"
wait_for 120 "scontrol show job $jid | grep -Eq 'Restarts=[1-9]'"
like "$(scontrol show job "$jid")" "Restarts=[1-9]" "the job was requeued"
scancel "$jid"
lab_job_wait "$jid" 120 >/dev/null
lab_revive_node "$victim" >/dev/null 2>&1
"$MW_LAB_REPO/build/bin/mpiwatch" resume "$victim" >/dev/null 2>&1
wait_for 120 lab_all_idle
done_testing
