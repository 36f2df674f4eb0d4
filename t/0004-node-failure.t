#!/bin/bash
# A real node failure: t/lab/kill-node takes n3's link down and SIGKILLs
# everything on it (slurmd, slurmstepd, the job).  Slurm must notice on its
# own (SlurmdTimeout, short in the lab): node not responding, then DOWN, the
# job NODE_FAIL.  t/lab/revive-node brings the node back to idle.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"

plan 12
lab_require 3
node=n3
tmo=$(( ${MW_LAB_SLURMD_TIMEOUT:-30} * 4 + 120 ))   # generous bound
note "SlurmdTimeout=${MW_LAB_SLURMD_TIMEOUT:-?}; waiting at most ${tmo}s for Slurm"
tap_cleanup "'$MW_LAB_T/lab/revive-node' $node"

id=$(lab_sbatch mwuser1 --no-requeue -w $node -N1 -n1 -o /dev/null --wrap "sleep 3000")
like "$id" '^[0-9]+$' "a job submitted to $node"
wait_for 120 lab_job_is "$id" RUNNING
is "$(lab_job_state "$id")" RUNNING "the job runs on $node"

ok_cmd "t/lab/kill-node $node" lab_kill_node $node
is "$(ip netns pids "$MW_LAB_PREFIX-$node" | wc -l)" 0 "no process left in $node's namespace"
like "$(ip -o link show "$MW_LAB_PREFIX-$node")" 'state DOWN' "$node's link is down"
nok_cmd "$node's slurmd port no longer answers" \
    timeout 5 bash -c "exec 3<>/dev/tcp/$MW_LAB_ADDR_n3/$MW_LAB_SLURMD_PORT"

wait_for $tmo lab_node_is $node '[a-z]+\*'
like "$(lab_node_state $node)" '\*$' "Slurm flags $node as not responding (state '$(lab_node_state $node)')"
wait_for $tmo lab_node_is $node 'down\*?'
like "$(scontrol -o show node $node)" 'State=DOWN' "Slurm sets $node DOWN"
wait_for $tmo lab_job_is "$id" NODE_FAIL
is "$(lab_job_state "$id")" NODE_FAIL "the job on $node ends as NODE_FAIL"

ok_cmd "t/lab/revive-node $node" lab_revive_node $node
wait_for 120 lab_node_is $node idle
is "$(lab_node_state $node)" idle "$node is idle again"
is "$(lab_as mwuser1 timeout 120 srun -w $node -N1 -n1 hostname 2>&1)" $node "a job runs on the revived $node"

done_testing
